import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { REDIS } from '../redis/redis.module';

/**
 * Failed sign-ins allowed per (email, client address) and per client address within the window.
 * The per-email budget is keyed by the address too, so nobody can lock a user out from elsewhere.
 */
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
 * Sign-in throttling on Redis, per (email, client address) and per client address. Each attempt takes a point from both
 * budgets before the password is checked, so attempts sent in parallel cannot all pass a check made
 * before any failure is recorded; a successful sign-in gives its points back and clears the email's
 * failures. Blocked callers get 429 before the password is checked, so a blocked account cannot be
 * probed.
 */
/** The per-email budget's key: the email at one client address. */
function emailAtAddress(email: string, ip: string): string {
  return `${email}|${ip}`;
}

@Injectable()
export class LoginThrottleService {
  private readonly byEmail: RateLimiterRedis;
  private readonly byIp: RateLimiterRedis;

  constructor(@Inject(REDIS) redis: Redis) {
    this.byEmail = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: 'dash_login_email_ip',
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

  /** Takes one attempt from the email's and the address's budgets; 429 when either is used up. */
  async takeAttempt(emailInput: string, ip: string): Promise<void> {
    const email = emailAtAddress(emailInput, ip);
    const taken = await Promise.allSettled([this.byEmail.consume(email), this.byIp.consume(ip)]);
    const refused = taken.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (refused.length === 0) return;
    // The budget that still had room gets its point back: the attempt was not made.
    if (taken[0].status === 'fulfilled') await this.byEmail.reward(email, 1);
    if (taken[1].status === 'fulfilled') await this.byIp.reward(ip, 1);
    const limits = refused.filter((r): r is RateLimiterRes => r instanceof RateLimiterRes);
    if (limits.length < refused.length) throw refused.find((r) => !(r instanceof RateLimiterRes));
    const waitMs = Math.max(...limits.map((r) => r.msBeforeNext));
    throw new TooManySignInAttemptsException(Math.max(1, Math.ceil(waitMs / 1000)));
  }

  /** A successful sign-in: the email's failures are forgotten and the address gets its point back. */
  async succeeded(emailInput: string, ip: string): Promise<void> {
    const email = emailAtAddress(emailInput, ip);
    await Promise.all([this.byEmail.delete(email), this.byIp.reward(ip, 1)]);
  }
}
