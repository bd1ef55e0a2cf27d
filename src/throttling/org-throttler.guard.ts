import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { deferredBodyError } from '../common/body-parsing';
import { RequestWithOrg } from '../auth/org-context';
import { HttpIdempotency, IDEMPOTENCY_HEADER } from '../idempotency/http-idempotency';
import { MetricsService } from '../metrics/metrics.service';
import { RateLimitExceededException } from './rate-limit.exception';
import { RateLimitBudgetRef, RateLimitResult, RateLimitService } from './rate-limit.service';
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

const HEADERS = {
  general: rateLimitHeaderNames('general'),
  create: rateLimitHeaderNames('create'),
  search: rateLimitHeaderNames('search'),
};

/** A handler's organization budget, read from its metadata once. */
interface HandlerBudget {
  category?: ThrottleCategoryName;
  when?: ThrottleCondition;
}

type ThrottledRequest = Request & RequestWithOrg;

/**
 * Global guard, registered after the API-key guard: the `general` budget per API key on every
 * authenticated route, plus the organization's `create` / `search` budget on handlers marked
 * `@ThrottleCategory()`. Both are drawn in ONE Redis round trip, in that order, and a refused budget
 * stops the draw, so a request refused by the general limit is never charged to the creation or search
 * budget (docs/decisions/0005-rate-limits.md, 0026-lean-request-path.md). Requests without an API key
 * (public routes, dashboard sessions) are not throttled here.
 *
 * A request with an `Idempotency-Key` on a handler with an organization budget takes two round trips:
 * the general budget, then the key's claim ({@link HttpIdempotency.beforeCharge}), then the organization
 * budget, so a replay is answered without charging it (also when it is spent).
 */
@Injectable()
export class OrgThrottlerGuard implements CanActivate {
  private readonly budgets = new WeakMap<object, WeakMap<object, HandlerBudget>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly rateLimits: RateLimitService,
    private readonly idempotency: HttpIdempotency,
    private readonly metrics: MetricsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const http = context.switchToHttp();
    const req = http.getRequest<ThrottledRequest>();
    const org = req.org;
    const bodyError = deferredBodyError(req);
    if (!org?.apiKeyId) {
      if (bodyError !== undefined) throw bodyError;
      return true;
    }
    const res = http.getResponse<Response>();

    const { category, when } = this.budgetOf(context);
    const orgBudget = category !== undefined && (when === undefined || when(req)) ? category : undefined;
    const general: RateLimitBudgetRef = { category: 'general', subject: org.apiKeyId };
    // A body that could not be read: counted against the key's general budget, then its own error;
    // it creates and searches nothing, so the creation and search budgets are not charged.
    if (orgBudget === undefined || bodyError !== undefined) {
      this.apply(res, ['general'], await this.rateLimits.consumeAll([general]));
      if (bodyError !== undefined) throw bodyError;
      return true;
    }
    const budget: RateLimitBudgetRef = { category: orgBudget, subject: org.orgId };
    if (req.headers[IDEMPOTENCY_HEADER] === undefined) {
      this.apply(res, ['general', orgBudget], await this.rateLimits.consumeAll([general, budget]));
      return true;
    }
    this.apply(res, ['general'], await this.rateLimits.consumeAll([general]));
    if (await this.idempotency.beforeCharge(context)) return true;
    try {
      this.apply(res, [orgBudget], await this.rateLimits.consumeAll([budget]));
    } catch (err) {
      if (err instanceof RateLimitExceededException) await this.idempotency.release(context);
      throw err;
    }
    return true;
  }

  /** Sets each checked budget's headers; throws the 429 of the refused one, if any. */
  private apply(res: Response, names: (keyof typeof HEADERS)[], results: RateLimitResult[]): void {
    results.forEach((r, i) => {
      const h = HEADERS[names[i]];
      res.setHeader(h.limit, r.limit);
      res.setHeader(h.remaining, r.remaining);
      res.setHeader(h.reset, r.resetSeconds);
      if (r.allowed) return;
      const wait = Math.max(1, r.resetSeconds);
      res.setHeader('Retry-After', wait);
      this.metrics.rateLimitRejected(names[i]);
      throw new RateLimitExceededException(wait);
    });
  }

  private budgetOf(context: ExecutionContext): HandlerBudget {
    const handler = context.getHandler();
    const cls = context.getClass();
    let byClass = this.budgets.get(handler);
    let found = byClass?.get(cls);
    if (found) return found;
    const targets = [handler, cls];
    found = {
      category: this.reflector.getAllAndOverride<ThrottleCategoryName | undefined>(
        THROTTLE_CATEGORY_KEY,
        targets,
      ),
      when: this.reflector.getAllAndOverride<ThrottleCondition | undefined>(THROTTLE_WHEN_KEY, targets),
    };
    if (!byClass) this.budgets.set(handler, (byClass = new WeakMap()));
    byClass.set(cls, found);
    return found;
  }
}
