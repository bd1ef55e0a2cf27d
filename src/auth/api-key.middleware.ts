import { Injectable, NestMiddleware, UnauthorizedException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { ApiKeysService } from './api-keys.service';
import { AuthErrorCode, AuthException } from './auth.exception';
import { KEY_PREFIX } from './api-key.format';
import { RequestWithOrg } from './org-context';
import { announcesBody } from '../common/body-parsing';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/** The request after `authenticateEarly`: an organization, or the reason it has none. */
export type RequestWithAuth = Request & RequestWithOrg & { authFailure?: unknown };

/**
 * Authenticates every request under `/api/v1/org` (and `/mcp`), matched routes or not, so an
 * unknown route answers 401 to an anonymous caller and 404 to an authenticated one.
 * Keys are only accepted in the Authorization header, never in a query string.
 *
 * Two steps (docs/decisions/0022-body-handling-before-auth.md): `authenticateEarly` runs in front of
 * the body parsers (installed by `configureApp`) and reads only the header; on failure it records the
 * error, marks the connection to close and the parsers skip the body. `use` (the Nest middleware,
 * after the request logger) then throws the recorded error, so Nest's exception filter shapes the
 * 401 and the request is logged like any other.
 */
@Injectable()
export class ApiKeyMiddleware implements NestMiddleware {
  constructor(private readonly keys: ApiKeysService) {}

  async authenticateEarly(req: RequestWithAuth, res: Response): Promise<void> {
    try {
      req.org = await this.authenticate(req);
    } catch (err: unknown) {
      req.authFailure = err;
      res.setHeader('WWW-Authenticate', 'Bearer');
      if (announcesBody(req)) res.setHeader('Connection', 'close');
    }
  }

  use(req: RequestWithAuth, _res: Response, next: NextFunction): void {
    if (req.authFailure !== undefined) throw req.authFailure;
    if (!req.org) throw new UnauthorizedException('Missing or invalid API key.');
    next();
  }

  private authenticate(req: Request) {
    if (req.originalUrl.includes('?') && req.originalUrl.split('?')[1].includes(KEY_PREFIX)) {
      throw new AuthException(
        AuthErrorCode.KeyMissing,
        'API keys are accepted only in the Authorization header.',
      );
    }
    const header = req.headers.authorization;
    if (!header)
      throw new AuthException(
        AuthErrorCode.KeyMissing,
        'Missing API key: send "Authorization: Bearer <key>".',
      );
    const match = BEARER.exec(header);
    if (!match) {
      throw new AuthException(
        AuthErrorCode.KeyMissing,
        'Malformed Authorization header: expected "Bearer <key>".',
      );
    }
    return this.keys.authenticate(match[1]);
  }
}
