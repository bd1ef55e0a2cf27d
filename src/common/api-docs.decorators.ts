import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto';

const ERROR_TEXT: Record<number, string> = {
  400: 'Validation failed (the message names the field), or an image could not be fetched.',
  401: 'Missing, invalid or revoked API key.',
  404: 'Not found, or it belongs to another organization.',
  409: 'The core has no ready taste profile yet: poll GET /cores/{id} and retry.',
  413: 'Request body too large.',
  429: 'Rate limit exceeded; the message states the seconds to wait, also in Retry-After.',
  503:
    'PostgreSQL or Redis cannot be reached (retry after Retry-After seconds); on create and image ' +
    'replacement also: the generation job could not be queued, the core is stored with coreStatus ' +
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
