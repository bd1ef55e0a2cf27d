import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { REDIS } from '../redis/redis.module';

/** Failed sign-ins allowed per email and per client address within the window. */
const EMAIL_FAILURES = 5;
const IP_FAILURES = 30;
const WINDOW_SECONDS = 15 * 60;

export class TooManySignInAttemptsException extends HttpException {
  constructor(readonly retryAfterSeconds: number) {
    super(
      `Too many failed sign-in attempts. Try again in ${retryAfterSeconds} seconds.`,
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }
}

/**
 * Sign-in throttling on Redis: only failures are counted, per email and per client address;
 * a successful sign-in clears the email's counter. Blocked callers get 429 before the password
 * is checked, so a blocked account cannot be probed.
 */
@Injectable()
export class LoginThrottleService {
  private readonly byEmail: RateLimiterRedis;
  private readonly byIp: RateLimiterRedis;

  constructor(@Inject(REDIS) redis: Redis) {
    this.byEmail = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: 'dash_login_email',
      points: EMAIL_FAILURES,
      duration: WINDOW_SECONDS,
      blockDuration: WINDOW_SECONDS,
    });
    this.byIp = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: 'dash_login_ip',
      points: IP_FAILURES,
      duration: WINDOW_SECONDS,
      blockDuration: WINDOW_SECONDS,
    });
  }

  /** Throws 429 when either the email or the address has used up its failures. */
  async assertAllowed(email: string, ip: string): Promise<void> {
    const [e, i] = await Promise.all([this.byEmail.get(email), this.byIp.get(ip)]);
    const blocked = [e, i].filter((r): r is RateLimiterRes => r !== null && r.remainingPoints <= 0);
    if (blocked.length === 0) return;
    const waitMs = Math.max(...blocked.map((r) => r.msBeforeNext));
    throw new TooManySignInAttemptsException(Math.max(1, Math.ceil(waitMs / 1000)));
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    await Promise.all([this.penalty(this.byEmail, email), this.penalty(this.byIp, ip)]);
  }

  async recordSuccess(email: string): Promise<void> {
    await this.byEmail.delete(email);
  }

  /** `penalty` adds points without rejecting, so the counter keeps growing past the limit. */
  private async penalty(limiter: RateLimiterRedis, key: string): Promise<void> {
    const res = await limiter.penalty(key, 1);
    if (res.remainingPoints <= 0) await limiter.block(key, WINDOW_SECONDS);
  }
}
