import type { OpenAPIObject } from '@nestjs/swagger';
import { AuthErrorCode } from '../auth/auth.exception';
import { CoreErrorCode } from '../cores/cores.exception';
import { JobErrorCode } from '../jobs/jobs.exception';
import { ImageErrorCode } from '../storage/storage.exception';
import { RateLimitErrorCode } from '../throttling/rate-limit.exception';

/** Every domain reason of the error body (`reason`), gathered from each module's enum (ADR 0038). */
export const ERROR_REASONS: readonly string[] = [
  ...Object.values(AuthErrorCode),
  ...Object.values(ImageErrorCode),
  ...Object.values(CoreErrorCode),
  ...Object.values(RateLimitErrorCode),
  ...Object.values(JobErrorCode),
];

/** Lists the reasons as the enum of `ErrorResponseDto.reason` (common/ cannot import the modules). */
export function documentErrorReasons(doc: OpenAPIObject): OpenAPIObject {
  const schema = doc.components?.schemas?.ErrorResponseDto as
    { properties?: Record<string, Record<string, unknown>> } | undefined;
  const reason = schema?.properties?.reason;
  if (reason) reason.enum = [...ERROR_REASONS];
  return doc;
}
