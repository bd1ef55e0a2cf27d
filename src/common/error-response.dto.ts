import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** The body of every non-2xx response. */
export class ErrorResponseDto {
  @ApiProperty({ description: 'Human-readable reason.', example: 'Core not found.' }) message!: string;
  @ApiProperty({ description: 'HTTP status code of the response.', type: 'integer', example: 404 })
  status!: number;
  @ApiPropertyOptional({ description: 'Machine-readable error code.', example: 'not_found' }) code?: string;
  @ApiPropertyOptional({ description: 'Request id, also in the X-Request-Id header.' }) requestId?: string;
}
