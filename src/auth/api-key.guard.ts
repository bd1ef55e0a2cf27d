import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC_KEY } from './public.decorator';
import { RequestWithOrg } from './org-context';

/**
 * Global guard: every handler needs an authenticated organization unless marked `@Public()`.
 * The middleware does the authentication; this guard makes a forgotten route fail closed.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    const req = context.switchToHttp().getRequest<RequestWithOrg>();
    if (!req.org) throw new UnauthorizedException('Missing or invalid API key.');
    return true;
  }
}
