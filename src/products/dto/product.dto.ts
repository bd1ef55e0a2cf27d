import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  registerDecorator,
  ValidateIf,
  ValidationArguments,
} from 'class-validator';
import type { ProductGender } from '../product.entity';

/** class-validator's own text ends "conforming to the specified constraints", which names none. */
const PRICE_MUST_BE_A_NUMBER = '$property must be a number';

export const PRODUCT_GENDERS: readonly ProductGender[] = ['women', 'men', 'unisex'];
export const MAX_QUERY_LENGTH = 500;
/** Product ids a search may exclude (`excludeIds`, README "Safe retries and 'show me more'"). */
export const MAX_EXCLUDE_IDS = 100;

/** `maxPrice` must not be below `minPrice` when both are given. */
function NotBelow(property: 'minPrice'): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'notBelow',
      target: target.constructor,
      propertyName: String(propertyName),
      constraints: [property],
      options: { message: `minPrice must not exceed maxPrice` },
      validator: {
        validate(value: unknown, args: ValidationArguments): boolean {
          const other = (args.object as Record<string, unknown>)[property];
          return typeof value !== 'number' || typeof other !== 'number' || other <= value;
        },
      },
    });
  };
}

export class ProductSearchDto {
  @ApiPropertyOptional({
    description:
      'Narrows the search. When omitted, the search uses the taste profile alone. Its colour words steer ' +
      "colour, a garment word selects the category, and a gender word (`men's`, `womens`) filters as " +
      '`gender` does when `gender` is not given. Products matching more of it rank first, what the product is (its last garment word, met by the product title before its category path) and its colour counting twice a describing word. A fabric word (`linen`, `suede`) is met by what a product is made of, not by a colour of that name.',
    maxLength: MAX_QUERY_LENGTH,
    example: 'wool coat',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_QUERY_LENGTH)
  query?: string;

  @ApiPropertyOptional({
    description: 'Product gender filter. `women` and `men` also match `unisex` products.',
    enum: PRODUCT_GENDERS,
    enumName: 'Gender',
    example: 'women',
  })
  @IsOptional()
  @IsIn(PRODUCT_GENDERS, { message: `gender must be one of: ${PRODUCT_GENDERS.join(', ')}` })
  gender?: ProductGender;

  @ApiPropertyOptional({ description: "Lowest price, in the catalogue's currency.", minimum: 0, example: 50 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: PRICE_MUST_BE_A_NUMBER })
  @Min(0)
  minPrice?: number;

  @ApiPropertyOptional({
    description: "Highest price, in the catalogue's currency; must not be below `minPrice`.",
    minimum: 0,
    example: 400,
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: PRICE_MUST_BE_A_NUMBER })
  @Min(0)
  @NotBelow('minPrice')
  maxPrice?: number;

  @ApiPropertyOptional({
    description:
      'Product ids never to return, e.g. those already shown ("show me more" without repeats). Unknown ids ' +
      'are ignored; the search still returns the best min(10, matches) of the remaining products.',
    type: [String],
    maxItems: MAX_EXCLUDE_IDS,
    example: ['SKU-10492', 'SKU-10493'],
  })
  // Absent means none; null is a non-array (400, as DECISIONS says), which @IsOptional let through.
  @ValidateIf((_dto, value) => value !== undefined)
  @IsArray()
  @ArrayMaxSize(MAX_EXCLUDE_IDS)
  @IsString({ each: true })
  excludeIds?: string[];
}

export class ProductDto {
  @ApiProperty({ description: 'Product id (the catalogue feed id).', example: 'SKU-10492' }) id!: string;
  @ApiProperty({ description: 'Product title.', example: 'Double-faced wool coat' }) title!: string;
  @ApiProperty({ description: 'The brand.', example: 'Maison Example' }) designer!: string;
  @ApiProperty({ description: "Price in the catalogue's currency.", example: 129 }) price!: number;
  @ApiPropertyOptional({ description: 'ISO 4217 currency code of `price` (default USD).', example: 'USD' })
  currency!: string;
  @ApiProperty({ description: 'Unauthenticated image URL.', format: 'uri' }) mediaUrl!: string;
  @ApiProperty({
    description: 'Alternative image URL, or null.',
    type: String,
    format: 'uri',
    nullable: true,
  })
  mediaUrlAlt!: string | null;
  @ApiProperty({
    description:
      "The link to send a shopper to (affiliate link where available, otherwise the retailer's URL).",
    format: 'uri',
  })
  url!: string;
  @ApiPropertyOptional({
    description: 'Relevance score, higher is better.',
    minimum: 0,
    maximum: 1,
    example: 0.87,
  })
  score!: number;
  @ApiPropertyOptional({
    description: 'Why the product matched, e.g. `colour: camel`, `material: wool`, `query: coat`.',
    type: [String],
    example: ['colour: camel', 'material: wool'],
  })
  matchReasons!: string[];
}

export class ProductSearchResponseDto {
  @ApiProperty({ description: 'The HTTP status code (200).', type: 'integer', example: 200 }) status!: number;
  @ApiProperty({ description: 'Name of the core.', example: 'Autumn capsule' }) coreName!: string;
  @ApiProperty({
    description: 'The query that was searched (empty when the taste profile alone was used).',
    example: 'wool coat',
  })
  query!: string;
  @ApiProperty({ description: 'At most 10 products, best match first.', type: [ProductDto], maxItems: 10 })
  products!: ProductDto[];
}
