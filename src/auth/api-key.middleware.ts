import { Injectable, NestMiddleware, UnauthorizedException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { ApiKeysService } from './api-keys.service';
import { KEY_PREFIX } from './api-key.format';
import { RequestWithOrg } from './org-context';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/**
 * Authenticates every request under `/api/v1/org` (and `/mcp`), matched routes or not, so an
 * unknown route answers 401 to an anonymous caller and 404 to an authenticated one.
 * Installed by `configureApp` in front of the body parsers, so an anonymous request is answered 401
 * before its body is read. Errors are thrown (the caller passes them on to Nest's exception filter).
 * Keys are only accepted in the Authorization header, never in a query string.
 */
@Injectable()
export class ApiKeyMiddleware implements NestMiddleware {
  constructor(private readonly keys: ApiKeysService) {}

  async use(req: Request & RequestWithOrg, res: Response, next: NextFunction): Promise<void> {
    res.setHeader('WWW-Authenticate', 'Bearer');
    {
      if (req.originalUrl.includes('?') && req.originalUrl.split('?')[1].includes(KEY_PREFIX)) {
        throw new UnauthorizedException('API keys are accepted only in the Authorization header.');
      }
      const header = req.headers.authorization;
      if (!header) throw new UnauthorizedException('Missing API key: send "Authorization: Bearer <key>".');
      const match = BEARER.exec(header);
      if (!match) throw new UnauthorizedException('Malformed Authorization header: expected "Bearer <key>".');
      req.org = await this.keys.authenticate(match[1]);
    }
    res.removeHeader('WWW-Authenticate');
    next();
  }
}
