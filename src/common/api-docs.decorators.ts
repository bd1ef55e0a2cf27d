import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto';

const ERROR_TEXT: Record<number, string> = {
  400:
    'Validation failed (the message names the field), or an image could not be used: reason ' +
    'image_rejected (refused by policy or content) or image_fetch_failed (could not be fetched).',
  401: 'Missing, invalid or revoked API key: reason api_key_missing, api_key_invalid or api_key_revoked.',
  404: 'Not found, or it belongs to another organization.',
  409: 'The core has no ready taste profile yet (reason core_not_ready): poll GET /cores/{id} and retry.',
  413: 'Request body too large.',
  415: 'The request body is not JSON (its Content-Type is not application/json).',
  429: 'Rate limit exceeded (reason rate_limited); the message states the seconds to wait, also in Retry-After.',
  503:
    'PostgreSQL or Redis cannot be reached (retry after Retry-After seconds); on create and image ' +
    'replacement also: the generation job could not be queued (reason enqueue_failed), the core is stored with coreStatus ' +
    'failed and a message; replace its images (PATCH) or retry later.',
};

/** Bearer security plus the error responses of an operation (401, 429 and 503 always). */
export function ApiOrgOperation(...statuses: number[]): MethodDecorator & ClassDecorator {
  const all = Array.from(new Set([...statuses, 401, 429, 503])).sort();
  return applyDecorators(
    ApiBearerAuth('bearer'),
    ...all.map((status) =>
      ApiResponse({
        status,
        description: ERROR_TEXT[status] ?? 'Error.',
        type: ErrorResponseDto,
        ...(status === 429 || status === 503
          ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } }
          : {}),
      }),
    ),
  );
}
