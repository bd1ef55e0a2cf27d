import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Injectable,
  Logger,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { Dependency, unreachableDependency } from '../common/dependency-errors';
import { OUTAGE_RETRY_AFTER_SECONDS } from '../common/http-exception.filter';
import { ServerErrorLog } from '../common/server-error-log';
import { DashboardRequest, SignInRequiredException } from './dashboard-session';
import { DashboardViews } from './dashboard-views';
import { userErrorText } from './user-error';

/** What the error page says while PostgreSQL or Redis cannot be reached (a 503, as the API answers). */
const UNAVAILABLE: Record<Dependency, string> = {
  database: 'The dashboard cannot reach its database right now. Try again in a few seconds.',
  redis: 'The dashboard cannot reach its session store (Redis) right now. Try again in a few seconds.',
};

/** Dashboard errors are HTML pages; an anonymous visitor is sent to the sign-in page. */
@Catch()
@Injectable()
export class DashboardExceptionFilter implements ExceptionFilter {
  private readonly serverErrors = new ServerErrorLog(new Logger('Dashboard'));

  constructor(private readonly views: DashboardViews) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.render(exception, http.getRequest<DashboardRequest>(), http.getResponse<Response>());
  }

  /**
   * The error page for `exception`; also called by the session middleware, whose errors (the session
   * store unreachable) come before any controller and its filter.
   */
  render(exception: unknown, req: DashboardRequest | Request, res: Response): void {
    if (res.headersSent) return;
    const dashboard = req as DashboardRequest;
    if (exception instanceof SignInRequiredException) {
      const next = req.method === 'GET' ? `?next=${encodeURIComponent(req.originalUrl)}` : '';
      res.redirect(303, `/dashboard/sign-in${next}`);
      return;
    }
    let status: number = HttpStatus.INTERNAL_SERVER_ERROR;
    let message = 'Something went wrong. Please try again.';
    const dependency = exception instanceof HttpException ? null : unreachableDependency(exception);
    if (exception instanceof HttpException) {
      status = exception.getStatus();
      message = userErrorText(exception);
    } else if (dependency) {
      status = HttpStatus.SERVICE_UNAVAILABLE;
      message = UNAVAILABLE[dependency];
    }
    if (status >= 500) {
      const requestId = typeof req.id === 'string' ? req.id : undefined;
      this.serverErrors.report(exception, status, { requestId, method: req.method, path: req.path });
    }
    if (status === HttpStatus.SERVICE_UNAVAILABLE)
      res.setHeader('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS));
    const title = status === 404 ? 'Not found' : status === 403 ? 'Forbidden' : `Error ${status}`;
    res
      .status(status)
      .type('html')
      .send(
        this.views.render('error', {
          title,
          active: 'none',
          viewer: dashboard.dashboard ?? null,
          csrfToken: dashboard.dashboard?.csrfToken ?? dashboard.anonymousCsrfToken ?? '',
          status,
          message,
        }),
      );
  }
}
