import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import Redis from 'ioredis';
import { AllConfig } from '../config/configuration';
import { MetricsService } from '../metrics/metrics.service';
import { REDIS } from '../redis/redis.module';
import { RateLimitExceededException } from './rate-limit.exception';

/** The three budgets: `general` per API key, `create` and `search` per organization. */
export type RateLimitCategory = 'general' | 'create' | 'search';

/** Every budget is "N per minute". */
export const RATE_LIMIT_WINDOW_MS = 60_000;

export interface RateLimitResult {
  /** Whether this request was admitted (and therefore counted). */
  allowed: boolean;
  limit: number;
  /** Requests still admitted in the current window after this one. */
  remaining: number;
  /**
   * Whole seconds until the oldest counted request leaves the window, i.e. until one more request
   * is admitted (0 when nothing is counted). For a refused request this is the wait (Retry-After).
   */
  resetSeconds: number;
}

export interface RateLimitUsageEntry {
  limit: number;
  used: number;
  remaining: number;
  resetSeconds: number;
}

export interface RateLimitUsage {
  create: RateLimitUsageEntry;
  search: RateLimitUsageEntry;
  /** Per API key id. */
  general: Record<string, RateLimitUsageEntry>;
}

/**
 * Sliding-window log, atomically, in one script: drop entries older than the window, then admit
 * the request only if fewer than `limit` remain (a refused request is never recorded, so it costs
 * nothing). Time comes from the Redis server so every API process agrees on it.
 * Returns { allowed (0/1), count in window, ms until the oldest entry leaves the window }.
 */
const SLIDING_WINDOW_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if ARGV[4] == '1' and count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  count = count + 1
  allowed = 1
end
local reset = 0
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
if reset < 0 then reset = 0 end
return { allowed, count, reset }
`;

type RedisWithRateLimit = Redis & {
  rateLimitHit(
    key: string,
    limit: number,
    windowMs: number,
    member: string,
    consume: '0' | '1',
  ): Promise<number[]>;
};

/** The Redis key of one budget; the HTTP throttler and the MCP tools build keys the same way. */
export function rateLimitKey(category: string, subject: string): string {
  return `rl:${category}:${subject}`;
}

/**
 * Rate-limit counters shared by every API process (one Redis). Used by the HTTP guard (through the
 * throttler storage) and by the MCP tools, so REST and MCP draw from the same budgets.
 */
@Injectable()
export class RateLimitService {
  private readonly limits: Record<RateLimitCategory, number>;
  private readonly redis: RedisWithRateLimit;

  constructor(
    @Inject(REDIS) redis: Redis,
    config: ConfigService<AllConfig, true>,
    private readonly metrics: MetricsService,
  ) {
    const t = config.get('throttle', { infer: true });
    this.limits = { general: t.generalPerMin, create: t.createPerMin, search: t.searchPerMin };
    if (!('rateLimitHit' in redis)) {
      redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: SLIDING_WINDOW_SCRIPT });
    }
    this.redis = redis as RedisWithRateLimit;
  }

  limitFor(category: RateLimitCategory): number {
    return this.limits[category];
  }

  /** Counts one request against `category` for `subject` (API key id for general, org id otherwise) if allowed. */
  consume(category: RateLimitCategory, subject: string): Promise<RateLimitResult> {
    return this.hit(rateLimitKey(category, subject), this.limits[category], RATE_LIMIT_WINDOW_MS);
  }
  /**
   * Draws one unit for callers outside the HTTP guard (MCP tools, the dashboard playground): a 429
   * `RateLimitExceededException` with the seconds to wait when the budget is spent.
   */
  async consumeOrThrow(category: RateLimitCategory, subject: string): Promise<void> {
    const result = await this.consume(category, subject);
    if (result.allowed) return;
    this.metrics.rateLimitRejected(category);
    throw new RateLimitExceededException(result.resetSeconds);
  }

  /** Low-level: consume one unit of `key` if fewer than `limit` were admitted in the last `windowMs`. */
  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    const [allowed, count, resetMs] = await this.redis.rateLimitHit(key, limit, windowMs, randomUUID(), '1');
    return {
      allowed: allowed === 1,
      limit,
      remaining: Math.max(0, limit - count),
      resetSeconds: toSeconds(resetMs),
    };
  }

  /** Current state of one budget without consuming anything. */
  async peek(category: RateLimitCategory, subject: string): Promise<RateLimitUsageEntry> {
    const limit = this.limits[category];
    const [, count, resetMs] = await this.redis.rateLimitHit(
      rateLimitKey(category, subject),
      limit,
      RATE_LIMIT_WINDOW_MS,
      '',
      '0',
    );
    return { limit, used: count, remaining: Math.max(0, limit - count), resetSeconds: toSeconds(resetMs) };
  }

  /** Current counts of an organization's budgets (and of the given keys' general budgets), for the dashboard. */
  async usage(orgId: string, keyIds: readonly string[] = []): Promise<RateLimitUsage> {
    const [create, search, ...general] = await Promise.all([
      this.peek('create', orgId),
      this.peek('search', orgId),
      ...keyIds.map((id) => this.peek('general', id)),
    ]);
    return { create, search, general: Object.fromEntries(keyIds.map((id, i) => [id, general[i]])) };
  }
}

function toSeconds(ms: number): number {
  return ms > 0 ? Math.ceil(ms / 1000) : 0;
}
