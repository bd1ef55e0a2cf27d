import { Inject, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { urlencoded } from 'express';
import type { NextFunction, Request, Response } from 'express';
import type Redis from 'ioredis';
import { AuditModule } from '../audit/audit.module';
import { AuthCoreModule } from '../auth/auth.module';
import { SMALL_BODY_LIMIT_BYTES } from '../common/body-parsing';
import { AllConfig } from '../config/configuration';
import { CoresModule } from '../cores/cores.module';
import { ProductsModule } from '../products/products.module';
import { REDIS } from '../redis/redis.module';
import { RateLimitModule } from '../throttling/throttling.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { DashboardAssetsController } from './dashboard-assets.controller';
import { DashboardAuditService } from './dashboard-audit.service';
import { DashboardAuthController } from './dashboard-auth.controller';
import { DashboardCoresController } from './dashboard-cores.controller';
import { DashboardCoresService } from './dashboard-cores.service';
import { DashboardExceptionFilter } from './dashboard-exception.filter';
import { DashboardNotFoundController } from './dashboard-not-found.controller';
import { DashboardOverviewService } from './dashboard-overview.service';
import { dashboardSessions } from './dashboard-session-store';
import { DashboardSignInService } from './dashboard-sign-in.service';
import { DashboardUsersModule } from './dashboard-users.module';
import { DashboardViews } from './dashboard-views';
import { DashboardWebhooksController } from './dashboard-webhooks.controller';
import { DashboardController } from './dashboard.controller';
import { LoginThrottleService } from './login-throttle.service';
import { QueueBoardAccessModule } from './queue-board';
import { RootController } from './root.controller';
import { SessionGuard } from './session.guard';

const IMAGE_FORM = /^\/dashboard\/cores\/[^/?]+\/images\/?(\?|$)/i;

export { DashboardUsersModule };

function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'self'; img-src 'self' data: https: http:; style-src 'self'; script-src 'self'; " +
      "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  if (!res.getHeader('Cache-Control')) res.setHeader('Cache-Control', 'no-store');
  next();
}

/** The organization dashboard at /dashboard: server-rendered pages with session sign-in. */
@Module({
  imports: [
    DashboardUsersModule,
    AuthCoreModule,
    AuditModule,
    RateLimitModule,
    CoresModule,
    ProductsModule,
    WebhooksModule,
    QueueBoardAccessModule,
  ],
  controllers: [
    DashboardAssetsController,
    DashboardAuthController,
    DashboardController,
    DashboardCoresController,
    RootController,
    DashboardWebhooksController,
    // Last: it answers every /dashboard address the controllers above do not.
    DashboardNotFoundController,
  ],
  providers: [
    DashboardViews,
    DashboardExceptionFilter,
    SessionGuard,
    LoginThrottleService,
    DashboardSignInService,
    DashboardAuditService,
    DashboardOverviewService,
    DashboardCoresService,
  ],
})
export class DashboardModule implements NestModule {
  constructor(
    private readonly config: ConfigService<AllConfig, true>,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly errors: DashboardExceptionFilter,
  ) {}

  configure(consumer: MiddlewareConsumer): void {
    const app = this.config.get('app', { infer: true });
    const store = dashboardSessions(this.config, this.redis);
    // A session that cannot be read (Redis unreachable) is the dashboard's error page (503), not the
    // API's JSON body: the middleware's errors come before any controller and its filter.
    const sessions = (req: Request, res: Response, next: NextFunction): void => {
      void store(req, res, (err?: unknown) => {
        if (err) this.errors.render(err, req, res);
        else next();
      });
    };
    // Forms are capped at 1 MB, except the image replacement (data URLs) of a signed-in user: the
    // session is read first, so an anonymous body is never read with the large limit.
    const smallForm = urlencoded({ extended: false, limit: SMALL_BODY_LIMIT_BYTES, parameterLimit: 100 });
    const imageForm = urlencoded({ extended: false, limit: app.bodyLimit, parameterLimit: 100 });
    const forms = (req: Request, res: Response, next: NextFunction): void => {
      const large = req.method === 'POST' && IMAGE_FORM.test(req.originalUrl) && Boolean(req.session?.userId);
      (large ? imageForm : smallForm)(req, res, next);
    };
    // The queue board sets its own policy (queue-board.ts), for its path only.
    consumer
      .apply(securityHeaders)
      .exclude('dashboard/queues', 'dashboard/queues/*path')
      .forRoutes('dashboard', 'dashboard/*path');
    // Static assets carry no session: a rolling session would set its cookie on publicly cacheable
    // responses (and cost a Redis round trip per file).
    consumer
      .apply(sessions, forms)
      .exclude('dashboard/assets/*path')
      .forRoutes('dashboard', 'dashboard/*path');
  }
}
