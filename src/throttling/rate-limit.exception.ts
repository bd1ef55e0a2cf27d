import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain-exception';

/** The domain reasons of the throttling module (docs/decisions/0038). */
export enum RateLimitErrorCode {
  /** A per-key or per-organization budget is spent: wait the seconds in `message` / `Retry-After`. */
  RateLimited = 'rate_limited',
}

/** 429 with the seconds to wait in the message; the global filter adds `status` and `code: rate_limited`. */
export class RateLimitExceededException extends DomainException<RateLimitErrorCode> {
  constructor(readonly retryAfterSeconds: number) {
    super(HttpStatus.TOO_MANY_REQUESTS, RateLimitErrorCode.RateLimited, rateLimitMessage(retryAfterSeconds));
  }
}

/** The 429 message of REST and MCP alike. */
export function rateLimitMessage(seconds: number): string {
  const s = Math.max(1, seconds);
  return `Rate limit exceeded: try again in ${s} ${s === 1 ? 'second' : 'seconds'}.`;
}
