import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Min,
  validateSync,
  ValidateBy,
  ValidationOptions,
} from 'class-validator';

const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : Number(value);
const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : value === true || value === 'true' || value === '1';

/**
 * A connection string with one of `protocols`, as the driver reads it (WHATWG URL): unlike `@IsUrl`, it
 * takes host names with underscores (compose service names), passwords with any escaped character and
 * hosts without a dot.
 */
function IsConnectionUrl(protocols: string[], options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isConnectionUrl',
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          try {
            return protocols.includes(new URL(value).protocol.replace(/:$/, ''));
          } catch {
            return false;
          }
        },
        defaultMessage: () => `must be a ${protocols.join(' or ')}:// URL`,
      },
    },
    options,
  );
}

/** The value as shown in a configuration error: a URL's user and password are never printed. */
function shown(value: unknown): string {
  if (typeof value === 'string') {
    try {
      const url = new URL(value);
      if (url.username || url.password) {
        url.username = '***';
        url.password = '';
        return JSON.stringify(url.toString());
      }
    } catch {
      // not a URL: shown as given
    }
  }
  return JSON.stringify(value);
}

/**
 * The process environment, validated at boot. Names and defaults are those of DECISIONS.md
 * ("How the service is run"); a bad value stops the process with a message naming the variable.
 */
export class EnvDto {
  @IsOptional() @IsIn(['development', 'production', 'test']) NODE_ENV?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(65535) PORT?: number;
  @IsOptional() @IsIn(['all', 'api', 'worker']) ROLE?: string;
  @IsOptional() @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) LOG_LEVEL?: string;

  @IsOptional() @IsConnectionUrl(['postgres', 'postgresql']) DATABASE_URL?: string;
  @IsOptional() @Transform(toBool) @IsBoolean() DB_MIGRATIONS_RUN?: boolean;
  @IsOptional() @IsConnectionUrl(['redis', 'rediss']) REDIS_URL?: string;

  @IsOptional() @IsString() QUEUE_PREFIX?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(16) GENERATION_CONCURRENCY?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) RECONCILE_INTERVAL_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) RECONCILE_GRACE_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) SWEEP_INTERVAL_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) SWEEP_GRACE_MS?: number;
  /** Test-only fault points (comma list), honoured only with NODE_ENV=test. */
  @IsOptional() @IsString() FAULT_INJECTION?: string;

  @IsOptional() @IsIn(['fs', 's3']) STORAGE_DRIVER?: string;
  @IsOptional() @IsString() STORAGE_DIR?: string;
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true }) PUBLIC_BASE_URL?: string;
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true }) S3_ENDPOINT?: string;
  @IsOptional() @IsString() S3_BUCKET?: string;
  @IsOptional() @IsString() S3_ACCESS_KEY?: string;
  @IsOptional() @IsString() S3_SECRET_KEY?: string;
  @IsOptional() @IsString() S3_REGION?: string;
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true }) S3_PUBLIC_URL?: string;

  @IsOptional() @IsIn(['local', 'openai']) TASTE_PROVIDER?: string;
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true }) OPENAI_BASE_URL?: string;
  @IsOptional() @IsString() OPENAI_API_KEY?: string;
  @IsOptional() @IsString() OPENAI_MODEL?: string;
  @IsOptional() @IsString() OPENAI_TEXT_MODEL?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1000) OPENAI_TIMEOUT_MS?: number;

  @IsOptional() @IsString() IMAGE_FETCH_ALLOWED_HOSTS?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) IMAGE_FETCH_TIMEOUT_MS?: number;
  @IsOptional() @IsString() BODY_LIMIT?: string;

  @IsOptional() @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_GENERAL_PER_MIN?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_CREATE_PER_MIN?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_SEARCH_PER_MIN?: number;

  @IsOptional() @IsString() API_KEY_PEPPER?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(60000) API_KEY_CACHE_MS?: number;
  @IsOptional() @IsString() SESSION_SECRET?: string;
}

/** Validates raw env; throws an Error whose message names every bad variable. */
export function validateEnv(raw: Record<string, unknown>): EnvDto {
  const env = plainToInstance(EnvDto, raw, { enableImplicitConversion: false });
  const errors = validateSync(env, { skipMissingProperties: false, whitelist: false });
  if (errors.length > 0) {
    const lines = errors.map(
      (e) => `${e.property}=${shown(e.value)}: ${Object.values(e.constraints ?? {}).join('; ')}`,
    );
    throw new Error(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return env;
}
