import { Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { RateLimitService } from './rate-limit.service';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * `@nestjs/throttler` storage on Redis through {@link RateLimitService}: a sliding window in which a
 * refused request is not recorded (so it does not use up the budget). `blockDuration` is not
 * used: a caller is admitted again as soon as the oldest counted request leaves the window.
 */
@Injectable()
export class RateLimitStorage implements ThrottlerStorage {
  constructor(private readonly rateLimits: RateLimitService) {}

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const r = await this.rateLimits.hit(key, limit, ttl);
    return {
      totalHits: r.limit - r.remaining,
      timeToExpire: r.resetSeconds,
      isBlocked: !r.allowed,
      timeToBlockExpire: r.allowed ? 0 : Math.max(1, r.resetSeconds),
    };
  }
}
