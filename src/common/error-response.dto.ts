import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

const NOT_READY_EXAMPLE =
  'Core 7c9e6679-7425-40de-944b-e07fc1f90ae7 has no ready taste profile (coreStatus is processing): poll ' +
  'GET /api/v1/org/cores/7c9e6679-7425-40de-944b-e07fc1f90ae7 until it is ready, then retry.';

/** The body of every non-2xx response. */
export class ErrorResponseDto {
  // One consistent example (a 409 with its reason): a tool that shows the properties' examples together
  // showed a 404 `not_found` with the reason `core_not_ready`, which only a 409 has.
  @ApiProperty({ description: 'Human-readable reason.', example: NOT_READY_EXAMPLE }) message!: string;
  @ApiProperty({ description: 'HTTP status code of the response.', type: 'integer', example: 409 })
  status!: number;
  @ApiPropertyOptional({
    description: 'Machine-readable error code, one per HTTP status (`malformed_json` on a 400 too).',
    example: 'conflict',
  })
  code?: string;
  @ApiPropertyOptional({
    description: 'Domain reason a client can branch on (see the enum), present when the error has one.',
    example: 'core_not_ready',
  })
  reason?: string;
  @ApiPropertyOptional({ description: 'Request id, also in the X-Request-Id header.' }) requestId?: string;
}
