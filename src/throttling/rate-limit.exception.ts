import { ThrottlerException } from '@nestjs/throttler';
import { rateLimitMessage } from './rate-limit.service';

/** 429 with the seconds to wait in the message; the global filter adds `status` and `code: rate_limited`. */
export class RateLimitExceededException extends ThrottlerException {
  constructor(readonly retryAfterSeconds: number) {
    super(rateLimitMessage(retryAfterSeconds));
  }
}
