import { ApiProperty } from '@nestjs/swagger';

export class MeOrganizationDto {
  @ApiProperty({ description: 'Organization id.', example: '6f1c2b1e-8a4d-4c1e-9d7a-1b2c3d4e5f60' })
  id!: string;
  @ApiProperty({ description: 'Organization name.', example: 'Acme Retail' }) name!: string;
}

export class MeApiKeyDto {
  @ApiProperty({ description: 'API key id.' }) id!: string;
  @ApiProperty({ description: 'Name given to the key at creation.', example: 'production' }) name!: string;
  @ApiProperty({ description: 'Non-secret display prefix of the key.', example: 'tpk_7Hq2Lm9x' })
  prefix!: string;
  @ApiProperty({ description: 'When the key was created.', format: 'date-time' }) createdAt!: string;
}

export class MeResponseDto {
  @ApiProperty({ description: 'HTTP status code of the response.', type: 'integer', example: 200 })
  status!: number;
  @ApiProperty({ type: MeOrganizationDto }) organization!: MeOrganizationDto;
  @ApiProperty({ type: MeApiKeyDto }) apiKey!: MeApiKeyDto;
}
