import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** The body of every non-2xx response. */
export class ErrorResponseDto {
  @ApiProperty({ description: 'Human-readable reason.', example: 'Core not found.' }) message!: string;
  @ApiProperty({ description: 'HTTP status code of the response.', type: 'integer', example: 404 })
  status!: number;
  @ApiPropertyOptional({
    description: 'Machine-readable error code, one per HTTP status (`malformed_json` on a 400 too).',
    example: 'not_found',
  })
  code?: string;
  @ApiPropertyOptional({
    description: 'Domain reason a client can branch on (see the enum), present when the error has one.',
    example: 'core_not_ready',
  })
  reason?: string;
  @ApiPropertyOptional({ description: 'Request id, also in the X-Request-Id header.' }) requestId?: string;
}
