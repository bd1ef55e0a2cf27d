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
  /** Requests counted in the current window (this one included when admitted). */
  used: number;
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
 * Sliding-window logs, atomically, in one script for every budget a request draws from (one Redis
 * round trip per request, docs/decisions/0026-lean-request-path.md). For each key in order: drop
 * entries older than the window, then admit the request only if fewer than its limit remain. A refused
 * budget is not recorded and stops the script, so the budgets after it are neither checked nor charged
 * (a request refused by the general limit charges nothing; one refused by the creation limit was
 * admitted, and counted, by the general one). With ARGV[3] = '0' nothing is consumed (a peek).
 * Time comes from the Redis server so every API process agrees on it.
 * ARGV: window ms, member, consume flag, then one limit per key.
 * Returns { allowed (0/1), count in window, ms until the oldest entry leaves the window } per key
 * checked (fewer than the keys when one refused).
 */
const SLIDING_WINDOW_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local out = {}
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[3 + i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  local allowed = 0
  if ARGV[3] == '1' and count < limit then
    redis.call('ZADD', key, now, ARGV[2])
    redis.call('PEXPIRE', key, window)
    count = count + 1
    allowed = 1
  end
  local reset = 0
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if oldest[2] then reset = tonumber(oldest[2]) + window - now end
  if reset < 0 then reset = 0 end
  out[#out + 1] = allowed
  out[#out + 1] = count
  out[#out + 1] = reset
  if ARGV[3] == '1' and allowed == 0 then break end
end
return out
`;

type RedisWithRateLimit = Redis & {
  rateLimitHit(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<number[]>;
};

/** One budget a request draws from: `general` per API key id, `create` and `search` per organization id. */
export interface RateLimitBudgetRef {
  category: RateLimitCategory;
  subject: string;
}

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
    if (!('rateLimitHit' in redis)) redis.defineCommand('rateLimitHit', { lua: SLIDING_WINDOW_SCRIPT });
    this.redis = redis as RedisWithRateLimit;
  }

  limitFor(category: RateLimitCategory): number {
    return this.limits[category];
  }

  /** Counts one request against `category` for `subject` (API key id for general, org id otherwise) if allowed. */
  async consume(category: RateLimitCategory, subject: string): Promise<RateLimitResult> {
    const [result] = await this.consumeAll([{ category, subject }]);
    return result;
  }

  /**
   * Draws one unit from each budget, in order, in one Redis round trip. Stops at the first refused
   * budget (it and the ones after it are not charged): the results end with the refused one, or cover
   * every budget when all admitted the request.
   */
  consumeAll(budgets: readonly RateLimitBudgetRef[]): Promise<RateLimitResult[]> {
    return this.run(budgets, nextMember(), '1');
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

  /** Current state of one budget without consuming anything. */
  async peek(category: RateLimitCategory, subject: string): Promise<RateLimitUsageEntry> {
    const [r] = await this.run([{ category, subject }], '', '0');
    return { limit: r.limit, used: r.used, remaining: r.remaining, resetSeconds: r.resetSeconds };
  }

  private async run(
    budgets: readonly RateLimitBudgetRef[],
    member: string,
    consume: '0' | '1',
  ): Promise<RateLimitResult[]> {
    const limits = budgets.map((b) => this.limits[b.category]);
    const flat = await this.redis.rateLimitHit(
      budgets.length,
      ...budgets.map((b) => rateLimitKey(b.category, b.subject)),
      RATE_LIMIT_WINDOW_MS,
      member,
      consume,
      ...limits,
    );
    const results: RateLimitResult[] = [];
    for (let i = 0; i < flat.length; i += 3) {
      const limit = limits[i / 3];
      results.push({
        allowed: flat[i] === 1,
        limit,
        used: flat[i + 1],
        remaining: Math.max(0, limit - flat[i + 1]),
        resetSeconds: toSeconds(flat[i + 2]),
      });
    }
    return results;
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

/** A unique sorted-set member per admitted request: a random process prefix and a counter. */
const MEMBER_PREFIX = randomUUID();
let memberCounter = 0;
function nextMember(): string {
  memberCounter += 1;
  return `${MEMBER_PREFIX}:${memberCounter}`;
}

function toSeconds(ms: number): number {
  return ms > 0 ? Math.ceil(ms / 1000) : 0;
}
