import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import type { ExecutionContext } from '@nestjs/common';
import { OrgContext } from '../auth/org-context';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { OrgThrottlerGuard } from './org-throttler.guard';
import { RateLimitStorage } from './rate-limit.storage';
import { RATE_LIMIT_WINDOW_MS, rateLimitKey, RateLimitService } from './rate-limit.service';

/** The counters alone (no guard): for the dashboard and the MCP tools. */
@Module({
  providers: [RateLimitService],
  exports: [RateLimitService],
})
export class RateLimitModule {}

function orgOf(req: Record<string, unknown>): OrgContext {
  return req.org as OrgContext;
}

/**
 * Named throttlers on `@nestjs/throttler` with Redis storage shared by every API process:
 * `general` (per API key), `create` and `search` (per organization, only on handlers marked with
 * `@ThrottleCategory()`). Import after AuthModule so the guard runs after authentication.
 */
@Module({
  imports: [
    RateLimitModule,
    IdempotencyModule,
    ThrottlerModule.forRootAsync({
      imports: [RateLimitModule],
      inject: [RateLimitService],
      useFactory: (rateLimits: RateLimitService) => ({
        storage: new RateLimitStorage(rateLimits),
        generateKey: (_context: ExecutionContext, tracker: string, name: string) =>
          rateLimitKey(name, tracker),
        throttlers: [
          {
            name: 'general',
            ttl: RATE_LIMIT_WINDOW_MS,
            limit: rateLimits.limitFor('general'),
            getTracker: (req: Record<string, unknown>) => orgOf(req).apiKeyId ?? '',
          },
          {
            name: 'create',
            ttl: RATE_LIMIT_WINDOW_MS,
            limit: rateLimits.limitFor('create'),
            getTracker: (req: Record<string, unknown>) => orgOf(req).orgId,
          },
          {
            name: 'search',
            ttl: RATE_LIMIT_WINDOW_MS,
            limit: rateLimits.limitFor('search'),
            getTracker: (req: Record<string, unknown>) => orgOf(req).orgId,
          },
        ],
      }),
    }),
  ],
  providers: [{ provide: APP_GUARD, useClass: OrgThrottlerGuard }],
  exports: [RateLimitModule],
})
export class ThrottlingModule {}
