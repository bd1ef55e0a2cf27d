import { CanActivate, ExecutionContext, ForbiddenException, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { csrfTokensMatch, newCsrfToken } from './csrf';
import { DashboardRequest, SignInRequiredException } from './dashboard-session';
import { DashboardUsersService } from './dashboard-users.service';

const ANONYMOUS_KEY = 'dashboard:anonymous';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Marks a dashboard route that an anonymous visitor may use (the sign-in page). CSRF still applies. */
export const DashboardAnonymous = (): MethodDecorator => SetMetadata(ANONYMOUS_KEY, true);

/**
 * Session authentication for the dashboard (its controllers are `@Public()` for the API key guard):
 * 1. every session gets a synchronizer token; every state-changing request must echo it in `_csrf`
 *    (compared in constant time) or gets 403;
 * 2. the signed-in user is loaded on every request, so a deleted user loses access at once.
 */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly users: DashboardUsersService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<DashboardRequest>();
    const session = req.session;
    if (!session) throw new ForbiddenException('Sessions are not available.');
    session.csrfToken ??= newCsrfToken();
    if (!SAFE_METHODS.has(req.method)) {
      const body = req.body as Record<string, unknown> | undefined;
      if (!csrfTokensMatch(session.csrfToken, body?._csrf)) {
        throw new ForbiddenException('Invalid or missing form token. Reload the page and try again.');
      }
    }
    if (session.userId) {
      const user = await this.users.findSignedIn(session.userId);
      if (user) {
        req.dashboard = {
          user: { id: user.id, email: user.email, role: user.role },
          ctx: user.ctx,
          csrfToken: session.csrfToken,
        };
        return true;
      }
      delete session.userId;
    }
    const anonymous = this.reflector.getAllAndOverride<boolean>(ANONYMOUS_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (anonymous) return true;
    throw new SignInRequiredException();
  }
}
