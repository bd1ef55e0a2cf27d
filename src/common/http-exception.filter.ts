import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
  MethodNotAllowedException,
  NotFoundException,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { unreachableDependency } from './dependency-errors';
import { allowedMethods, controllerRoute } from './method-not-allowed';
import { errorReason } from './domain-exception';
import { isMcpPath } from './body-parsing';
import { BARE_JSON_VALUE, isBareJsonValue } from './json-bytes';
import { ServerErrorLog } from './server-error-log';

interface ErrorBody {
  message: string;
  status: number;
  /** One per HTTP status (`not_found`, `conflict`...; `malformed_json` on a 400). */
  code?: string;
  /** The domain reason a client can branch on (`core_not_ready`, `image_rejected`...), when there is one. */
  reason?: string;
  requestId?: string;
  /** Readiness only: which dependency is up or down. */
  checks?: Record<string, string>;
}

/** Seconds a client should wait before retrying after a dependency outage (503). */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'unavailable',
};

/** Errors raised by Express middleware (body-parser) carry `status`/`type` instead of being HttpExceptions. */
interface ExpressError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  message?: string;
}

/** An error of the body parsers (`entity.parse.failed`, `entity.too.large`...), which carry a `type`. */
function isBodyError(cause: unknown): cause is ExpressError {
  return (
    typeof (cause as ExpressError | undefined)?.type === 'string' &&
    (cause as ExpressError).type!.startsWith('entity.')
  );
}

/**
 * The message of an HttpException as every surface shows it (REST body, MCP tool error, dashboard
 * page): its text, or its validation messages joined with '; '.
 */
export function httpErrorMessage(err: HttpException): string {
  const response = err.getResponse();
  if (typeof response === 'string') return response;
  const m = (response as { message?: unknown }).message;
  if (Array.isArray(m)) return m.map(String).join('; ');
  if (typeof m === 'string' && m.length > 0) return m;
  return err.message;
}

/**
 * The 404 of a request no controller took (Nest's not-found handler; a controller's own 404 has its
 * route on the request), whose path a route may still serve under another method.
 */
function unroutedPath(exception: unknown, req: Request): boolean {
  return exception instanceof NotFoundException && controllerRoute(req) === null;
}

/**
 * A body the MCP endpoint could not read as one JSON value is a JSON-RPC error, as an MCP client reads
 * it (JSON-RPC 2.0, section 5.1): -32700 Parse error for malformed JSON, -32600 Invalid Request for a
 * bare value (valid JSON, but no request object). `id` is null: no request id could be read. Every
 * other refusal of `/mcp` (401, 403, 405, 413, 429) keeps the REST body, whose HTTP status an MCP
 * client acts on.
 */
function jsonRpcBodyError(body: ErrorBody): object | null {
  if (body.code !== 'malformed_json') return null;
  const [code, message] =
    body.message === BARE_JSON_VALUE
      ? [-32600, `Invalid Request: ${body.message}`]
      : [-32700, `Parse error: ${body.message}`];
  return { jsonrpc: '2.0', id: null, error: { code, message } };
}

/**
 * One shape for every non-2xx response: `{ message, status, code, reason?, requestId }` (the REST
 * mapping of domain reasons, docs/decisions/0038); only a body `/mcp` cannot read is a JSON-RPC error.
 * Unknown errors become a generic 500; the full error is logged, never returned.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly serverErrors = new ServerErrorLog(new Logger('Exceptions'));

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request & { id?: string }>();
    const allow = unroutedPath(exception, req) ? allowedMethods(req) : [];
    const body = this.toBody(
      allow.length > 0
        ? new MethodNotAllowedException(
            `${req.method} is not allowed on ${req.path}; it allows ${allow.join(', ')}.`,
          )
        : exception,
    );
    const requestId = typeof req.id === 'string' ? req.id : undefined;
    if (body.status >= 500) {
      this.serverErrors.report(exception, body.status, { requestId, method: req.method, path: req.path });
    }
    if (res.headersSent) return;
    if (body.status === 503) res.setHeader('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS));
    if (allow.length > 0) res.setHeader('Allow', allow.join(', '));
    const rpc = isMcpPath(req.path) ? jsonRpcBodyError(body) : null;
    if (rpc) return void res.status(body.status).json(rpc);
    res.status(body.status).json({ ...body, ...(requestId ? { requestId } : {}) });
  }

  private toBody(thrown: unknown): ErrorBody {
    // Nest wraps a body-parser error in an HttpException (its `cause`): read the original's `type`.
    const exception = thrown instanceof HttpException && isBodyError(thrown.cause) ? thrown.cause : thrown;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const checks = (exception.getResponse() as { checks?: Record<string, string> }).checks;
      const reason = errorReason(exception);
      return {
        message: httpErrorMessage(exception),
        status,
        code: CODES[status],
        ...(reason ? { reason } : {}),
        ...(checks ? { checks } : {}),
      };
    }
    const dependency = unreachableDependency(exception);
    if (dependency) {
      return {
        message: `Service unavailable: the ${dependency} cannot be reached; try again in a few seconds.`,
        status: HttpStatus.SERVICE_UNAVAILABLE,
        code: CODES[503],
      };
    }
    const e = (exception ?? {}) as ExpressError;
    const status = e.status ?? e.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      if (e.type === 'entity.too.large') {
        return { message: 'Request body too large.', status: 413, code: CODES[413] };
      }
      if (e.type === 'entity.parse.failed') {
        // body-parser keeps the text it refused in `body`; parseStrictJson names a bare value itself.
        const bare = e.message === BARE_JSON_VALUE || isBareJsonValue((exception as { body?: unknown }).body);
        const message = bare ? BARE_JSON_VALUE : 'Malformed JSON in request body.';
        return { message, status: 400, code: 'malformed_json' };
      }
      const message = e.expose && e.message ? e.message : (CODES[status] ?? 'Bad request').replace(/_/g, ' ');
      return { message, status, code: CODES[status] };
    }
    return {
      message: 'Internal server error.',
      status: HttpStatus.INTERNAL_SERVER_ERROR,
      code: CODES[500],
    };
  }
}
