import { ConfigService } from '@nestjs/config';
import type { RequestHandler } from 'express';
import session from 'express-session';
import type Redis from 'ioredis';
import { AllConfig } from '../config/configuration';
import { SESSION_COOKIE } from './dashboard-session';
import { RedisSessionStore } from './redis-session.store';

const SESSION_TTL_SECONDS = 8 * 3600;

/**
 * The dashboard's session middleware, one definition for the pages (DashboardModule) and the
 * queue board (queue-board.ts), whose middleware Nest runs before the dashboard's.
 */
export function dashboardSessions(config: ConfigService<AllConfig, true>, redis: Redis): RequestHandler {
  const app = config.get('app', { infer: true });
  const auth = config.get('auth', { infer: true });
  return session({
    name: SESSION_COOKIE,
    secret: auth.sessionSecret,
    store: new RedisSessionStore(redis, 'dashboard:sess:', SESSION_TTL_SECONDS),
    resave: false,
    saveUninitialized: false,
    rolling: true,
    unset: 'destroy',
    cookie: {
      path: '/dashboard',
      httpOnly: true,
      sameSite: 'lax',
      // Behind an https public address the cookie is always Secure; otherwise when the request is https.
      secure: app.publicBaseUrl.startsWith('https://') ? true : 'auto',
      maxAge: SESSION_TTL_SECONDS * 1000,
    },
  });
}
