import { plainToInstance, Transform } from 'class-transformer';
import { typeFirstMessages } from '../common/validation';
import { redisConnectionOptions } from '../redis/redis-url';
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
  Matches,
  MinLength,
} from 'class-validator';

/** A number, or the value as given when it is none (so the message shows `PORT="abc"`, not null). */
const toInt = ({ value }: { value: unknown }) => {
  const n = Number(value);
  return typeof value === 'string' && Number.isFinite(n) ? n : value;
};
/** `true`/`1` and `false`/`0` in any case; anything else stays as given, so `@IsBoolean` names it. */
const toBool = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  return v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : value;
};

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

/** A `REDIS_URL`: one server (`redis://`, `rediss://`) or Redis Sentinel (`redis-sentinel://h1,h2/name`). */
function IsRedisUrl(options?: ValidationOptions): PropertyDecorator {
  let problem = '';
  return ValidateBy(
    {
      name: 'isRedisUrl',
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          try {
            redisConnectionOptions(value);
            return true;
          } catch (err) {
            problem = err instanceof Error ? err.message : String(err);
            return false;
          }
        },
        defaultMessage: () => problem || 'must be a redis:// or redis-sentinel:// URL',
      },
    },
    options,
  );
}

/** Express's `trust proxy` values: true/false, a hop count, or a comma list of names (loopback, ...), addresses and CIDRs. */
const TRUST_PROXY = /^(true|false|\d+|[A-Za-z0-9.:/]+(\s*,\s*[A-Za-z0-9.:/]+)*)$/;

/** A comma list of connection strings, each with one of `protocols` (empty: none). */
function IsConnectionUrlList(protocols: string[], options?: ValidationOptions): PropertyDecorator {
  const single = (value: string): boolean => {
    try {
      return protocols.includes(new URL(value).protocol.replace(/:$/, ''));
    } catch {
      return false;
    }
  };
  return ValidateBy(
    {
      name: 'isConnectionUrlList',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && splitList(value).every(single),
        defaultMessage: () => `must be a comma list of ${protocols.join(' or ')}:// URLs`,
      },
    },
    options,
  );
}

/** The items of a comma list, trimmed, empty ones dropped. */
export function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** The value as shown in a configuration error: the user and password of any URL in it are never printed. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.replace(/\/\/[^/?#@\s]*@/g, '//***@'));
  return JSON.stringify(value);
}

/**
 * The process environment, validated at boot. Names and defaults are those of the README's Configuration table
 * ("How the service is run"); a bad value stops the process with a message naming the variable.
 */
export class EnvDto {
  @IsOptional() @IsIn(['development', 'production', 'test']) NODE_ENV?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(65535) PORT?: number;
  @IsOptional() @IsIn(['all', 'api', 'worker']) ROLE?: string;
  @IsOptional() @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) LOG_LEVEL?: string;

  @IsOptional() @IsConnectionUrl(['postgres', 'postgresql']) DATABASE_URL?: string;
  @IsOptional() @Transform(toBool) @IsBoolean() DB_MIGRATIONS_RUN?: boolean;
  @IsOptional() @IsConnectionUrlList(['postgres', 'postgresql']) DATABASE_REPLICA_URLS?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(200) DATABASE_POOL_MAX?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(200) DATABASE_POOL_WARM?: number;
  @IsOptional() @IsRedisUrl() REDIS_URL?: string;

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
  @IsOptional()
  @Matches(/^[1-9]\d*(\.\d+)?\s*(b|kb|mb|gb)?$/i, { message: 'must be a size such as 70mb or 1048576' })
  BODY_LIMIT?: string;

  @IsOptional() @IsString() WEBHOOK_ALLOWED_HOSTS?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) @Max(10000) WEBHOOK_TIMEOUT_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(10) @Max(60000) WEBHOOK_RETRY_BASE_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(5) @Max(20) WEBHOOK_MAX_ATTEMPTS?: number;

  @IsOptional() @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_GENERAL_PER_MIN?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_CREATE_PER_MIN?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_SEARCH_PER_MIN?: number;

  @IsOptional() @IsString() API_KEY_PEPPER?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(60000) API_KEY_CACHE_MS?: number;
  @IsOptional() @IsString() SESSION_SECRET?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(60) SESSION_ABSOLUTE_TIMEOUT_SECONDS?: number;
  @IsOptional() @Transform(toBool) @IsBoolean() ALLOW_HTTP_PUBLIC_URL?: boolean;

  @IsOptional() @IsString() @MinLength(16) METRICS_TOKEN?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(65535) METRICS_PORT?: number;
  @IsOptional()
  @Matches(TRUST_PROXY, { message: 'must be true, false, a hop count or a list of addresses/CIDRs' })
  TRUST_PROXY?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(600000) SHUTDOWN_GRACE_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(60000) SHUTDOWN_DELAY_MS?: number;
  @IsOptional() @IsString() QUEUE_BOARD_ORG_IDS?: string;

  // OpenTelemetry: the SDK reads every OTEL_* variable itself; these decide whether it is loaded.
  @IsOptional() @IsString() OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  @IsOptional() @IsString() OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  @IsOptional() @IsString() OTEL_TRACES_EXPORTER?: string;
  @IsOptional() @IsString() OTEL_SDK_DISABLED?: string;
  @IsOptional() @IsString() OTEL_SERVICE_NAME?: string;
}

/** Development values of the secrets: refused in production. */
export const DEV_API_KEY_PEPPER = 'taste-dev-pepper-change-me';
export const DEV_SESSION_SECRET = 'taste-dev-session-secret-change-me';
const MIN_SECRET_LENGTH = 32;

/**
 * The production start rules (README, Safe defaults: "Production start"): one line per unsafe
 * setting, naming the variable. Empty outside `NODE_ENV=production`.
 */
export function productionProblems(env: EnvDto): string[] {
  if (env.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  const secrets: [string, string | undefined, string][] = [
    ['API_KEY_PEPPER', env.API_KEY_PEPPER, DEV_API_KEY_PEPPER],
    ['SESSION_SECRET', env.SESSION_SECRET, DEV_SESSION_SECRET],
  ];
  for (const [name, value, dev] of secrets) {
    if (!value)
      problems.push(
        `${name} is not set: production needs a secret of at least ${MIN_SECRET_LENGTH} characters`,
      );
    else if (value === dev || /change[-_ ]?me/i.test(value))
      problems.push(`${name} is a development default: set a secret of your own`);
    else if (value.length < MIN_SECRET_LENGTH)
      problems.push(`${name} is shorter than ${MIN_SECRET_LENGTH} characters`);
  }
  if (!env.PUBLIC_BASE_URL?.startsWith('https://') && env.ALLOW_HTTP_PUBLIC_URL !== true) {
    problems.push(
      'PUBLIC_BASE_URL must be an https:// address in production (ALLOW_HTTP_PUBLIC_URL=true allows http)',
    );
  }
  return problems;
}

/**
 * Validates raw env; throws an Error whose message names every bad variable. A variable set to the empty
 * string is unset: `.env.example` (and so `docker run --env-file`) lists the optional ones empty, and
 * `METRICS_TOKEN=` failed its minimum length while `OPENAI_TEXT_MODEL=` sent the model "".
 */
export function validateEnv(raw: Record<string, unknown>): EnvDto {
  const set = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== ''));
  const env = plainToInstance(EnvDto, set, { enableImplicitConversion: false });
  const errors = validateSync(env, { skipMissingProperties: false, whitelist: false });
  if (errors.length > 0) {
    const lines = errors.map(
      (e) => `${e.property}=${shown(e.value)}: ${typeFirstMessages(e.constraints ?? {}).join('; ')}`,
    );
    throw new Error(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const unsafe = productionProblems(env);
  if (unsafe.length > 0) throw new Error(`Unsafe production configuration:\n  ${unsafe.join('\n  ')}`);
  return env;
}
