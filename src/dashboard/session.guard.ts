import { CanActivate, ExecutionContext, ForbiddenException, Injectable, SetMetadata } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { AllConfig } from '../config/configuration';
import {
  CSRF_COOKIE,
  csrfTokensMatch,
  isSignedCsrfToken,
  newCsrfToken,
  newSignedCsrfToken,
  readCookie,
} from './csrf';
import { DashboardRequest, SignInRequiredException } from './dashboard-session';
import { DashboardRole } from './dashboard-user.entity';
import { DashboardUsersService, SignedInUser } from './dashboard-users.service';
import { DASHBOARD_ROLE_KEY } from './owner-only.decorator';
import { destroySession } from './dashboard-helpers';

const ANONYMOUS_KEY = 'dashboard:anonymous';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Marks a dashboard route that an anonymous visitor may use (the sign-in page). CSRF still applies. */
export const DashboardAnonymous = (): MethodDecorator => SetMetadata(ANONYMOUS_KEY, true);

/**
 * Session authentication for the dashboard (its controllers are `@Public()` for the API key guard):
 * 1. a signed-in session has a synchronizer token; an anonymous visitor gets a signed double-submit
 *    cookie instead, so no server-side session exists before sign-in. Every state-changing request
 *    must echo the token in `_csrf` (compared in constant time) or gets 403;
 * 2. the signed-in user is loaded on every request, so a deleted user loses access at once; the
 *    session ends at its absolute lifetime and when the user's password has changed since sign-in;
 * 3. routes marked `@OwnerOnly()` refuse members with 403.
 */
@Injectable()
export class SessionGuard implements CanActivate {
  private readonly secret: string;
  private readonly absoluteMs: number;
  private readonly secureCookie: boolean | undefined;

  constructor(
    private readonly reflector: Reflector,
    private readonly users: DashboardUsersService,
    config: ConfigService<AllConfig, true>,
  ) {
    const auth = config.get('auth', { infer: true });
    this.secret = auth.sessionSecret;
    this.absoluteMs = auth.sessionAbsoluteTimeoutSeconds * 1000;
    this.secureCookie = config.get('app', { infer: true }).publicBaseUrl.startsWith('https://') || undefined;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<DashboardRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    if (!req.session) throw new ForbiddenException('Sessions are not available.');
    const user = await this.signedInUser(req);
    if (user) {
      req.session.csrfToken ??= newCsrfToken();
      this.checkCsrf(req, req.session.csrfToken);
      req.dashboard = {
        user: { id: user.id, email: user.email, role: user.role },
        ctx: user.ctx,
        csrfToken: req.session.csrfToken,
      };
      const required = this.reflector.getAllAndOverride<DashboardRole | undefined>(DASHBOARD_ROLE_KEY, [
        context.getHandler(),
        context.getClass(),
      ]);
      if (required === 'owner' && user.role !== 'owner') {
        throw new ForbiddenException('Only organization owners can do this.');
      }
      return true;
    }

    req.anonymousCsrfToken = this.anonymousToken(req, res);
    this.checkCsrf(req, req.anonymousCsrfToken);
    const anonymous = this.reflector.getAllAndOverride<boolean>(ANONYMOUS_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (anonymous) return true;
    throw new SignInRequiredException();
  }

  /** The session's user, or null (the session is ended when it is past its lifetime or stale). */
  private async signedInUser(req: DashboardRequest): Promise<SignedInUser | null> {
    const { userId, signedInAt, passwordVersion } = req.session;
    if (!userId) return null;
    const user = await this.users.findSignedIn(userId);
    const current =
      user !== null &&
      typeof signedInAt === 'number' &&
      Date.now() - signedInAt < this.absoluteMs &&
      passwordVersion !== undefined &&
      csrfTokensMatch(user.passwordVersion, passwordVersion);
    if (current) return user;
    await destroySession(req);
    return null;
  }

  /** The visitor's signed CSRF cookie, minted (and set) when missing or not one of ours. */
  private anonymousToken(req: DashboardRequest, res: Response): string {
    const existing = readCookie(req.headers.cookie, CSRF_COOKIE);
    if (isSignedCsrfToken(this.secret, existing)) return existing;
    const token = newSignedCsrfToken(this.secret);
    res.cookie(CSRF_COOKIE, token, {
      path: '/dashboard',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secureCookie ?? req.secure,
    });
    return token;
  }

  private checkCsrf(req: DashboardRequest, expected: string): void {
    if (SAFE_METHODS.has(req.method)) return;
    const body = req.body as Record<string, unknown> | undefined;
    if (!csrfTokensMatch(expected, body?._csrf)) {
      throw new ForbiddenException('Invalid or missing form token. Reload the page and try again.');
    }
  }
}
