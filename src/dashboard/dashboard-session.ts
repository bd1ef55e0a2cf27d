import { createParamDecorator, ExecutionContext, HttpException, HttpStatus } from '@nestjs/common';
import type { Request } from 'express';
import { OrgContext } from '../auth/org-context';
import { DashboardRole } from './dashboard-user.entity';

/** The session cookie (path /dashboard, httpOnly, SameSite=Lax). */
export const SESSION_COOKIE = 'tps_dashboard';

declare module 'express-session' {
  interface SessionData {
    userId?: string;
    csrfToken?: string;
    /** Epoch ms of the sign-in: the session ends SESSION_ABSOLUTE_TIMEOUT_SECONDS later. */
    signedInAt?: number;
    /** Fingerprint of the password hash at sign-in: a password change ends the session. */
    passwordVersion?: string;
    /** One-shot notice shown on the next page (post/redirect/get). */
    flash?: { kind: 'success' | 'error'; text: string };
  }
}

/** The signed-in person and the organization context the dashboard acts in. */
export interface DashboardViewer {
  user: { id: string; email: string; role: DashboardRole };
  ctx: OrgContext;
  csrfToken: string;
}

/** `anonymousCsrfToken`: the signed double-submit token of a visitor without a session. */
export type DashboardRequest = Request & { dashboard?: DashboardViewer; anonymousCsrfToken?: string };

/** Thrown by the SessionGuard for an anonymous visitor; the dashboard filter redirects to sign-in. */
export class SignInRequiredException extends HttpException {
  constructor() {
    super('Please sign in.', HttpStatus.UNAUTHORIZED);
  }
}

/** Handler parameter decorator: `@Viewer() viewer: DashboardViewer` (set by SessionGuard). */
export const Viewer = createParamDecorator((_: unknown, context: ExecutionContext): DashboardViewer => {
  const req = context.switchToHttp().getRequest<DashboardRequest>();
  if (!req.dashboard) throw new SignInRequiredException();
  return req.dashboard;
});
