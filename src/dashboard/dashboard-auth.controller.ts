import { Body, Get, Header, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { destroySession, rotateSession, runAction, safeNext } from './dashboard-helpers';
import { DashboardPages } from './dashboard-pages.decorator';
import { DashboardRequest, SESSION_COOKIE } from './dashboard-session';
import { DashboardSignInService } from './dashboard-sign-in.service';
import { DashboardViews } from './dashboard-views';
import { TooManySignInAttemptsException } from './login-throttle.service';
import { SignInFormDto, SignInQueryDto } from './dto/dashboard-forms.dto';
import { DashboardAnonymous } from './session.guard';

/** Sign-in and sign-out of the organization dashboard. */
@DashboardPages('dashboard')
export class DashboardAuthController {
  constructor(
    private readonly signInService: DashboardSignInService,
    private readonly views: DashboardViews,
  ) {}

  @Get('sign-in')
  @DashboardAnonymous()
  signInPage(@Req() req: DashboardRequest, @Res() res: Response, @Query() query: SignInQueryDto): void {
    if (req.dashboard) return res.redirect(303, safeNext(query.next));
    res.type('html').send(this.signInHtml(req, safeNext(query.next), '', null));
  }

  @Post('sign-in')
  @DashboardAnonymous()
  async signIn(
    @Req() req: DashboardRequest,
    @Res() res: Response,
    @Body() form: SignInFormDto,
  ): Promise<void> {
    const next = safeNext(form.next);
    const { error } = await runAction(async () => {
      const user = await this.signInService.signIn(form.email, form.password, req.ip ?? 'unknown');
      await rotateSession(req, user);
    });
    if (!error) return res.redirect(303, next);
    if (error.exception instanceof TooManySignInAttemptsException) {
      res.setHeader('Retry-After', String(error.exception.retryAfterSeconds));
    }
    res
      .status(error.status)
      .type('html')
      .send(this.signInHtml(req, next, form.email, error.text));
  }

  @Post('sign-out')
  @Header('Cache-Control', 'no-store')
  async signOut(@Req() req: Request, @Res() res: Response): Promise<void> {
    await destroySession(req);
    res.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
    res.redirect(303, '/dashboard/sign-in');
  }

  private signInHtml(req: DashboardRequest, next: string, email: string, error: string | null): string {
    return this.views.render('sign-in', {
      title: 'Sign in',
      active: 'none',
      viewer: null,
      csrfToken: req.anonymousCsrfToken ?? req.session?.csrfToken ?? '',
      flash: error ? { kind: 'error', text: error } : null,
      next,
      email,
    });
  }
}
