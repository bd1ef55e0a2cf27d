import { ThrottlerException } from '@nestjs/throttler';

/** 429 with the seconds to wait in the message; the global filter adds `status` and `code: rate_limited`. */
export class RateLimitExceededException extends ThrottlerException {
  constructor(readonly retryAfterSeconds: number) {
    super(rateLimitMessage(retryAfterSeconds));
  }
}

/** The 429 message of REST and MCP alike. */
export function rateLimitMessage(seconds: number): string {
  const s = Math.max(1, seconds);
  return `Rate limit exceeded: try again in ${s} ${s === 1 ? 'second' : 'seconds'}.`;
}
