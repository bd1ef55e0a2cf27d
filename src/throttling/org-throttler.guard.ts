import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { RequestWithOrg } from '../auth/org-context';
import { HttpIdempotency } from '../idempotency/http-idempotency';
import { MetricsService, RateLimitBudget } from '../metrics/metrics.service';
import { RateLimitExceededException } from './rate-limit.exception';
import {
  THROTTLE_CATEGORY_KEY,
  THROTTLE_WHEN_KEY,
  ThrottleCategoryName,
  ThrottleCondition,
} from './throttle-category.decorator';

/** Response header names per budget (documented in docs/decisions/0005-rate-limits.md). */
export function rateLimitHeaderNames(throttler: string): { limit: string; remaining: string; reset: string } {
  const suffix = throttler === 'general' ? '' : `-${throttler[0].toUpperCase()}${throttler.slice(1)}`;
  return {
    limit: `X-RateLimit-Limit${suffix}`,
    remaining: `X-RateLimit-Remaining${suffix}`,
    reset: `X-RateLimit-Reset${suffix}`,
  };
}

/**
 * Global guard, registered after the API-key guard: the `general` budget per API key on every
 * authenticated route, plus the organization's `create` / `search` budget on handlers marked
 * `@ThrottleCategory()`. Budgets are checked in that order and a refused budget stops the check,
 * so a request refused by the general limit is never charged to the creation or search budget.
 * Requests without an API key (public routes, dashboard sessions) are not throttled here. On
 * `@Idempotent()` handlers the `Idempotency-Key` is claimed before the organization budget is charged.
 */
@Injectable()
export class OrgThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly idempotency: HttpIdempotency,
    private readonly metrics: MetricsService,
  ) {
    super(options, storage, reflector);
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<RequestWithOrg>();
    return !req.org?.apiKeyId;
  }

  protected override async handleRequest(props: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, blockDuration, getTracker, generateKey } = props;
    const name = throttler.name ?? 'general';
    const req = context.switchToHttp().getRequest<Request & RequestWithOrg>();
    if (name !== 'general' && (this.categoryOf(context) !== name || !this.conditionHolds(context, req))) {
      return true;
    }

    const res = context.switchToHttp().getResponse<Response>();
    // An `Idempotency-Key` is checked before the organization budget: a replay is not charged.
    if (name !== 'general' && (await this.idempotency.beforeCharge(context))) return true;
    const tracker = await getTracker(req, context);
    const key = generateKey(context, tracker, name);
    const record = await this.storageService.increment(key, ttl, limit, blockDuration, name);

    const headers = rateLimitHeaderNames(name);
    res.setHeader(headers.limit, limit);
    res.setHeader(headers.remaining, Math.max(0, limit - record.totalHits));
    res.setHeader(headers.reset, record.timeToExpire);
    if (record.isBlocked) {
      if (name !== 'general') await this.idempotency.release(context);
      res.setHeader('Retry-After', record.timeToBlockExpire);
      this.metrics.rateLimitRejected(name as RateLimitBudget);
      throw new RateLimitExceededException(record.timeToBlockExpire);
    }
    return true;
  }

  private conditionHolds(context: ExecutionContext, req: Request): boolean {
    const when = this.reflector.getAllAndOverride<ThrottleCondition | undefined>(THROTTLE_WHEN_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    return when === undefined || when(req);
  }

  private categoryOf(context: ExecutionContext): ThrottleCategoryName | undefined {
    return this.reflector.getAllAndOverride<ThrottleCategoryName | undefined>(THROTTLE_CATEGORY_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
  }
}
