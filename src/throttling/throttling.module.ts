import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { OrgThrottlerGuard } from './org-throttler.guard';
import { RateLimitService } from './rate-limit.service';

/** The counters alone (no guard): for the dashboard and the MCP tools. */
@Module({
  providers: [RateLimitService],
  exports: [RateLimitService],
})
export class RateLimitModule {}

/**
 * The rate limits of the HTTP API on Redis, shared by every API process: `general` (per API key) on
 * every authenticated route, `create` and `search` (per organization) on handlers marked with
 * `@ThrottleCategory()`, drawn by one global guard. Import after AuthModule so the guard runs after
 * authentication.
 */
@Module({
  imports: [RateLimitModule, IdempotencyModule],
  providers: [{ provide: APP_GUARD, useClass: OrgThrottlerGuard }],
  exports: [RateLimitModule],
})
export class ThrottlingModule {}
