import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsArray, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { MAX_KEY_NAME_LENGTH } from '../../auth/api-key.entity';
import { MAX_CORE_NAME_LENGTH, MAX_CORE_QUERY_LENGTH } from '../../cores/dto/core.dto';
import { MAX_QUERY_LENGTH, PRODUCT_GENDERS } from '../../products/dto/product.dto';
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH } from '../dashboard-users.service';
import {
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  MAX_WEBHOOK_URL_LENGTH,
  WEBHOOK_EVENTS,
  type WebhookEvent,
} from '../../webhooks/webhook.types';

/** Every dashboard form carries the session's synchronizer token (checked by SessionGuard). */
export class DashboardFormDto {
  @IsOptional() @IsString() _csrf?: string;
}

export class SignInFormDto extends DashboardFormDto {
  @IsString() @MaxLength(MAX_EMAIL_LENGTH) email!: string;
  @IsString() @MaxLength(MAX_PASSWORD_LENGTH) password!: string;
  @IsOptional() @IsString() @MaxLength(2000) next?: string;
}

export class SignInQueryDto {
  @IsOptional() @IsString() @MaxLength(2000) next?: string;
}

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

/** A required name, trimmed, not blank, at most `max` characters (the API's limit for the same field). */
const FormName = (max: number): PropertyDecorator =>
  applyDecorators(
    Transform(trim),
    IsString(),
    Matches(/\S/, { message: 'name must not be empty' }),
    MaxLength(max),
  );

export class KeyCreateFormDto extends DashboardFormDto {
  @FormName(MAX_KEY_NAME_LENGTH) name!: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const emptyToUndefined = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

export class AuditQueryDto {
  @IsOptional() @Transform(emptyToUndefined) @IsString() @MaxLength(64) action?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(DATE, { message: 'from must be a date (YYYY-MM-DD)' })
  from?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(DATE, { message: 'to must be a date (YYYY-MM-DD)' })
  to?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^\d{1,6}$/, { message: 'page must be a whole number, 1 or more' })
  page?: string;
}

export class CoreListQueryFormDto {
  @IsOptional() @Transform(emptyToUndefined) @IsString() @MaxLength(MAX_CORE_QUERY_LENGTH) query?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^\d{1,6}$/, { message: 'page must be a whole number, 1 or more' })
  page?: string;
}

export class CoreRenameFormDto extends DashboardFormDto {
  @FormName(MAX_CORE_NAME_LENGTH) name!: string;
}

const toList = ({ value }: { value: unknown }): unknown => {
  const items = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return items
    .flatMap((v) => (typeof v === 'string' ? v.split(/\r?\n/) : [v]))
    .map((v) => (typeof v === 'string' ? v.trim() : v))
    .filter((v) => v !== '');
};

/** Image URLs one per line; uploaded files arrive as data URLs in repeated `images` fields (dashboard.js). */
export class CoreImagesFormDto extends DashboardFormDto {
  @IsOptional() @Transform(toList) @IsArray() @IsString({ each: true }) imageUrls?: string[];
  @IsOptional() @Transform(toList) @IsArray() @IsString({ each: true }) images?: string[];
}

export class ProductSearchFormDto extends DashboardFormDto {
  @IsOptional() @Transform(emptyToUndefined) @IsString() @MaxLength(MAX_QUERY_LENGTH) query?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsIn(PRODUCT_GENDERS) gender?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^\d+(\.\d+)?$/, { message: 'minPrice must be a number, 0 or more' })
  minPrice?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^\d+(\.\d+)?$/, { message: 'maxPrice must be a number, 0 or more' })
  maxPrice?: string;
}

/** The add-endpoint form: checkboxes send `events` once per ticked box (a string when only one). */
export class WebhookCreateFormDto extends DashboardFormDto {
  @Transform(trim)
  @IsString()
  @MaxLength(MAX_WEBHOOK_URL_LENGTH)
  url!: string;

  // No box ticked sends no field: the controller passes that on as no event (refused on the page), not
  // as the API's "absent means all".
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value))
  @IsArray()
  @IsIn(WEBHOOK_EVENTS, { each: true })
  events?: WebhookEvent[];

  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(MAX_WEBHOOK_DESCRIPTION_LENGTH)
  description?: string;
}
