import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { DashboardRequest, SignInRequiredException } from './dashboard-session';
import { DashboardViews } from './dashboard-views';
import { userErrorText } from './user-error';

/** Dashboard errors are HTML pages; an anonymous visitor is sent to the sign-in page. */
@Catch()
export class DashboardExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Dashboard');

  constructor(private readonly views: DashboardViews) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<DashboardRequest>();
    if (res.headersSent) return;
    if (exception instanceof SignInRequiredException) {
      const next = req.method === 'GET' ? `?next=${encodeURIComponent(req.originalUrl)}` : '';
      res.redirect(303, `/dashboard/sign-in${next}`);
      return;
    }
    let status: number = HttpStatus.INTERNAL_SERVER_ERROR;
    let message = 'Something went wrong. Please try again.';
    if (exception instanceof HttpException) {
      status = exception.getStatus();
      message = userErrorText(exception);
    }
    if (status >= 500) {
      this.logger.error(
        exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
      );
    }
    const title = status === 404 ? 'Not found' : status === 403 ? 'Forbidden' : `Error ${status}`;
    res
      .status(status)
      .type('html')
      .send(
        this.views.render('error', {
          title,
          active: 'none',
          viewer: req.dashboard ?? null,
          csrfToken: req.dashboard?.csrfToken ?? req.anonymousCsrfToken ?? '',
          status,
          message,
        }),
      );
  }
}
