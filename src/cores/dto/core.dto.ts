import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { GENERATION_STATUSES, GenerationStatus } from '../../jobs/job.types';
import { STORED_MAX_EDGE } from '../../storage';
import { IMAGES_NOT_REMOVED_INCIDENT } from '../image-incident';

/** The data-URL prefix as a flag-free pattern (JSON Schema has no flags); storage re-checks it. */
const DATA_URL = /^data:image\/[a-zA-Z0-9.+-]+;base64,/;

/** Images per core, across `imageUrls` and `images` (the contract's 1 to 5). */
export const MAX_IMAGES_PER_CORE = 5;
export const MAX_CORE_NAME_LENGTH = 255;
/** Longest search text of a core list. */
export const MAX_CORE_QUERY_LENGTH = 200;
/** Highest page number a list accepts (a larger offset would overflow PostgreSQL's bigint). */
export const MAX_PAGE = 1_000_000;

class CoreImagesInput {
  @ApiPropertyOptional({
    description: 'Public https image URLs (http, private, loopback and link-local addresses are rejected).',
    type: [String],
    format: 'uri',
    maxItems: MAX_IMAGES_PER_CORE,
    example: ['https://images.example.com/look-1.jpg'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_IMAGES_PER_CORE)
  @IsString({ each: true })
  @MaxLength(4096, { each: true })
  imageUrls?: string[];

  @ApiPropertyOptional({
    description:
      'Base64 data URLs of the form `data:image/<subtype>;base64,<data>`, each under 10 MB decoded.',
    type: [String],
    maxItems: MAX_IMAGES_PER_CORE,
    pattern: DATA_URL.source,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_IMAGES_PER_CORE)
  @IsString({ each: true })
  @Matches(DATA_URL, {
    each: true,
    message: 'each value in images must be a data URL data:image/<subtype>;base64,<data>',
  })
  images?: string[];
}

export class CoreCreateDto extends CoreImagesInput {
  @ApiProperty({
    description: 'Name of the core.',
    minLength: 1,
    maxLength: MAX_CORE_NAME_LENGTH,
    example: 'Autumn capsule',
  })
  @IsString()
  @MinLength(1, { message: 'name must not be empty' })
  @MaxLength(MAX_CORE_NAME_LENGTH)
  name!: string;
}

/** Whether a PATCH body replaces images (and so does the work of a create). */
export function replacesImages(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Partial<CoreUpdateDto>;
  return b.imageUrls !== undefined || b.images !== undefined;
}

export class CoreUpdateDto extends CoreImagesInput {
  @ApiPropertyOptional({
    description: 'New name.',
    minLength: 1,
    maxLength: MAX_CORE_NAME_LENGTH,
    example: 'Winter capsule',
  })
  // Absent means "keep the name"; null is not a name (400), unlike @IsOptional, which lets null through.
  @ValidateIf((_dto, value) => value !== undefined)
  @IsString()
  @MinLength(1, { message: 'name must not be empty' })
  @MaxLength(MAX_CORE_NAME_LENGTH)
  name?: string;
}

export class CoreListQueryDto {
  @ApiPropertyOptional({
    description: `Page number, from 1 to ${MAX_PAGE}.`,
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE,
    default: 1,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE)
  page?: number;

  @ApiPropertyOptional({
    description: 'Page size, 1 to 100 (larger values are rejected with 400).',
    type: 'integer',
    minimum: 1,
    maximum: 100,
    default: 20,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({
    description: 'Synonym-aware search over name, tags and style attributes (e.g. "boho" finds "bohemian").',
    maxLength: MAX_CORE_QUERY_LENGTH,
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CORE_QUERY_LENGTH)
  query?: string;
}

export class CoreIdParamDto {
  @ApiProperty({ description: 'Core id.' })
  @IsString()
  id!: string;
}

export class CoreImageDto {
  @ApiProperty({
    description:
      'Unauthenticated image URL; answers 404 once the image is deleted. The stored image is the ' +
      'ingested one re-encoded without metadata (EXIF orientation applied), scaled down to fit ' +
      `${STORED_MAX_EDGE} pixels on its long edge (never enlarged).`,
    format: 'uri',
  })
  imageURL!: string;
  @ApiProperty({ description: 'Caption of the image; null until generated.', type: String, nullable: true })
  caption!: string | null;
}

export class CoreResponseDto {
  @ApiProperty({ description: 'HTTP status code of the response.', type: 'integer', example: 200 })
  status!: number;
  @ApiProperty({ description: 'Core id.' }) id!: string;
  @ApiProperty({ description: 'Name.', maxLength: MAX_CORE_NAME_LENGTH }) name!: string;
  @ApiProperty({ enum: GENERATION_STATUSES, enumName: 'CoreStatus', description: 'Generation state.' })
  coreStatus!: GenerationStatus;
  @ApiProperty({ description: 'The taste profile; null while not generated.', type: String, nullable: true })
  taste!: string | null;
  @ApiProperty({ type: [String], description: 'Style words.' }) styleAttributes!: string[];
  @ApiProperty({ type: [String], description: 'Colour, pattern and palette tags.' }) tags!: string[];
  @ApiProperty({ type: [CoreImageDto] }) images!: CoreImageDto[];
  @ApiProperty({ description: 'Failure reason when coreStatus is failed.', type: String, nullable: true })
  error!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class CoreCreateResponseDto {
  @ApiProperty({ description: 'HTTP status code (202).', type: 'integer', example: 202 }) status!: number;
  @ApiProperty({ description: 'Id of the new core.' }) coreId!: string;
  @ApiProperty({ description: 'Id of the generation job.' }) jobId!: string;
  @ApiProperty({ enum: GENERATION_STATUSES, enumName: 'CoreStatus', example: 'processing' })
  coreStatus!: GenerationStatus;
}

export class CoreUpdateResponseDto extends CoreResponseDto {
  @ApiPropertyOptional({ description: 'New generation job, when images were replaced.' }) jobId?: string;
  @ApiPropertyOptional({ description: 'Replaced image objects removed.', type: 'integer', minimum: 0 })
  imagesPurged?: number;
  @ApiPropertyOptional({
    description: 'Replaced image objects that could not be removed.',
    type: 'integer',
    minimum: 0,
  })
  imagesFailed?: number;
}

export class CoreDeleteResponseDto {
  @ApiProperty({ type: 'integer', example: 200 }) status!: number;
  @ApiProperty() id!: string;
  @ApiProperty({ example: true }) deleted!: boolean;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Image objects removed.' }) imagesPurged!: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: `Image objects that could not be removed. ${IMAGES_NOT_REMOVED_INCIDENT}`,
  })
  imagesFailed!: number;
}

export class CoreListResponseDto {
  @ApiProperty({ type: 'integer', example: 200 }) status!: number;
  @ApiProperty({ type: [CoreResponseDto] }) cores!: CoreResponseDto[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) limit!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
  @ApiProperty({ type: 'integer' }) totalPages!: number;
}
