import { HttpException, Logger } from '@nestjs/common';
import { Dependency, unreachableDependency } from './dependency-errors';
import { RepeatedErrorLog } from './repeated-error-log';

/**
 * One run per process, whichever filter saw the failure (the API's, the dashboard's, each of its
 * instances): an outage is one line per 30 s in all.
 */
const OUTAGE_LOGGER = new Logger('Exceptions');
const OUTAGES = new RepeatedErrorLog((line) => OUTAGE_LOGGER.error(line));

/** Where a failed request came from, for its log line. */
export interface FailedRequest {
  requestId?: string;
  method: string;
  path: string;
}

/**
 * How a 5xx answer is logged, by the API's filter and the dashboard's (docs/decisions/0018, second
 * addendum): an unreachable dependency as one line per run of the same failure (every request of an
 * outage fails alike, and the stack is the driver's); a 5xx the code answers on purpose (an
 * HttpException: readiness while draining or during an outage, a job that could not be queued) as a
 * warning without a stack; any other error at error level with its stack. Each request's own line
 * (pino-http) still records its status and request id.
 */
export class ServerErrorLog {
  constructor(private readonly logger: Logger) {}

  report(exception: unknown, status: number, where: FailedRequest): void {
    const dependency: Dependency | null =
      exception instanceof HttpException ? null : unreachableDependency(exception);
    if (dependency) {
      OUTAGES.report(`the ${dependency} cannot be reached (${(exception as Error).message}): answering 503`);
    } else if (exception instanceof HttpException) {
      this.logger.warn(where, `${status} ${where.method} ${where.path}: ${exception.message}`);
    } else {
      this.logger.error(
        { err: exception, ...where },
        exception instanceof Error ? exception.stack : String(exception),
      );
    }
  }
}
