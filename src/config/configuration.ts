import { resolve } from 'node:path';
import { DEV_API_KEY_PEPPER, DEV_SESSION_SECRET, EnvDto, splitList, validateEnv } from './env.schema';
import { armedFaults } from './armed-faults';

export { validateEnv };

export type Role = 'all' | 'api' | 'worker';

/** The S3-compatible bucket of the `s3` storage driver (also the S3ImageStore's options). */
export interface S3Config {
  endpoint: string;
  bucket: string;
  accessKey: string;
  secretKey: string;
  region: string;
  /** Base URL images are publicly served from; empty means `${endpoint}/${bucket}`. */
  publicUrl: string;
}

export interface AllConfig {
  app: {
    env: string;
    port: number;
    role: Role;
    logLevel: string;
    publicBaseUrl: string;
    bodyLimit: string;
  };
  ops: {
    /** Express `trust proxy`: a boolean, a hop count or a list of addresses/CIDRs/names. */
    trustProxy: boolean | number | string;
    /** After SIGTERM: readiness is 503 for `shutdownDelayMs`, then the listener closes; work ends within `shutdownGraceMs`. */
    shutdownDelayMs: number;
    shutdownGraceMs: number;
    /** Organizations whose dashboard owners may open the queue board (empty: every owner, outside production). */
    queueBoardOrgIds: string[];
  };
  metrics: { token: string; workerPort: number | null };
  /** OpenTelemetry tracing: on when an OTLP endpoint or a traces exporter is configured. */
  tracing: { enabled: boolean; serviceName: string };
  /**
   * `replicaUrls`: read replicas for reads that may lag (DATABASE_REPLICA_URLS; empty: none). `poolMax`
   * connections per pool at most; the API keeps `poolWarm` of them open and warmed from its start
   * (docs/decisions/0044-warm-database-connections.md). `connect: false` builds the data source without
   * connecting it (the CLI's help, which runs no command); not an environment setting.
   */
  db: {
    url: string;
    replicaUrls: string[];
    migrationsRun: boolean;
    poolMax: number;
    poolWarm: number;
    connect?: boolean;
  };
  redis: { url: string };
  queue: { prefix: string; concurrency: number };
  /** Background upkeep: the stuck-job reconciler and the orphan-object sweeper (0 disables a loop). */
  upkeep: {
    reconcileIntervalMs: number;
    reconcileGraceMs: number;
    sweepIntervalMs: number;
    sweepGraceMs: number;
  };
  /** Fault points the tests use to kill a process at a precise step; always empty outside NODE_ENV=test. */
  faults: string[];
  storage: {
    driver: 'fs' | 's3';
    dir: string;
    s3: S3Config;
  };
  taste: {
    provider: 'local' | 'openai';
    openai: { baseUrl: string; apiKey: string; model: string; textModel: string; timeoutMs: number };
  };
  ingest: { allowedHosts: string[]; timeoutMs: number };
  webhooks: { allowedHosts: string[]; timeoutMs: number; retryBaseMs: number; attempts: number };
  throttle: { generalPerMin: number; createPerMin: number; searchPerMin: number };
  auth: { pepper: string; keyCacheMs: number; sessionSecret: string; sessionAbsoluteTimeoutSeconds: number };
}

/** Maps the validated environment to typed namespaces with the defaults the README's Configuration table lists. */
export function buildConfig(env: EnvDto): AllConfig {
  return {
    app: appConfig(env),
    ops: opsConfig(env),
    metrics: { token: env.METRICS_TOKEN ?? '', workerPort: env.METRICS_PORT ?? null },
    tracing: tracingConfig(env),
    db: dbConfig(env),
    redis: { url: env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
    queue: { prefix: env.QUEUE_PREFIX ?? 'taste', concurrency: env.GENERATION_CONCURRENCY ?? 2 },
    upkeep: upkeepConfig(env),
    faults: armedFaults(env),
    storage: storageConfig(env),
    taste: tasteConfig(env),
    ingest: {
      allowedHosts: hostList(env.IMAGE_FETCH_ALLOWED_HOSTS),
      timeoutMs: env.IMAGE_FETCH_TIMEOUT_MS ?? 10000,
    },
    webhooks: webhooksConfig(env),
    throttle: {
      generalPerMin: env.RATE_LIMIT_GENERAL_PER_MIN ?? 120,
      createPerMin: env.RATE_LIMIT_CREATE_PER_MIN ?? 5,
      searchPerMin: env.RATE_LIMIT_SEARCH_PER_MIN ?? 20,
    },
    auth: authConfig(env),
  };
}

function dbConfig(env: EnvDto): AllConfig['db'] {
  const poolMax = env.DATABASE_POOL_MAX ?? 10;
  return {
    url: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/taste',
    replicaUrls: splitList(env.DATABASE_REPLICA_URLS),
    migrationsRun: env.DB_MIGRATIONS_RUN ?? true,
    poolMax,
    poolWarm: Math.min(env.DATABASE_POOL_WARM ?? 8, poolMax),
  };
}

function appConfig(env: EnvDto): AllConfig['app'] {
  const port = env.PORT ?? 3000;
  return {
    env: env.NODE_ENV ?? 'development',
    port,
    role: (env.ROLE ?? 'all') as Role,
    logLevel: env.LOG_LEVEL ?? 'info',
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    // Five base64 images just under 10 MB each are about 70 MB of JSON (README, Configuration: BODY_LIMIT, 413 above it).
    bodyLimit: env.BODY_LIMIT ?? '70mb',
  };
}

function opsConfig(env: EnvDto): AllConfig['ops'] {
  return {
    trustProxy: parseTrustProxy(env.TRUST_PROXY ?? 'loopback'),
    shutdownDelayMs: env.SHUTDOWN_DELAY_MS ?? 5000,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS ?? 25000,
    queueBoardOrgIds: splitList(env.QUEUE_BOARD_ORG_IDS),
  };
}

function tracingConfig(env: EnvDto): AllConfig['tracing'] {
  const exporterOn = env.OTEL_TRACES_EXPORTER
    ? env.OTEL_TRACES_EXPORTER !== 'none'
    : Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  return {
    enabled: env.OTEL_SDK_DISABLED !== 'true' && exporterOn,
    serviceName: env.OTEL_SERVICE_NAME ?? 'taste-profile-service',
  };
}

function upkeepConfig(env: EnvDto): AllConfig['upkeep'] {
  return {
    reconcileIntervalMs: env.RECONCILE_INTERVAL_MS ?? 60_000,
    reconcileGraceMs: env.RECONCILE_GRACE_MS ?? 30_000,
    sweepIntervalMs: env.SWEEP_INTERVAL_MS ?? 3_600_000,
    sweepGraceMs: env.SWEEP_GRACE_MS ?? 3_600_000,
  };
}

function storageConfig(env: EnvDto): AllConfig['storage'] {
  return {
    driver: (env.STORAGE_DRIVER ?? 'fs') as 'fs' | 's3',
    dir: resolve(env.STORAGE_DIR ?? 'var/storage'),
    s3: {
      endpoint: env.S3_ENDPOINT ?? 'http://127.0.0.1:9000',
      bucket: env.S3_BUCKET ?? 'taste-images',
      accessKey: env.S3_ACCESS_KEY ?? '',
      secretKey: env.S3_SECRET_KEY ?? '',
      region: env.S3_REGION ?? 'us-east-1',
      publicUrl: (env.S3_PUBLIC_URL ?? '').replace(/\/+$/, ''),
    },
  };
}

function tasteConfig(env: EnvDto): AllConfig['taste'] {
  return {
    provider: (env.TASTE_PROVIDER ?? 'local') as 'local' | 'openai',
    openai: {
      baseUrl: env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
      apiKey: env.OPENAI_API_KEY ?? '',
      model: env.OPENAI_MODEL ?? 'gpt-4o-mini',
      textModel: env.OPENAI_TEXT_MODEL ?? env.OPENAI_MODEL ?? 'gpt-4o-mini',
      timeoutMs: env.OPENAI_TIMEOUT_MS ?? 30000,
    },
  };
}

function webhooksConfig(env: EnvDto): AllConfig['webhooks'] {
  return {
    allowedHosts: hostList(env.WEBHOOK_ALLOWED_HOSTS),
    // README, Webhooks (docs/decisions/0008-webhook-delivery-and-idempotency-keys.md): a 2xx within 10 s is success; the first retry within 60 s; at least 5 attempts.
    timeoutMs: env.WEBHOOK_TIMEOUT_MS ?? 10000,
    retryBaseMs: env.WEBHOOK_RETRY_BASE_MS ?? 10000,
    attempts: env.WEBHOOK_MAX_ATTEMPTS ?? 8,
  };
}

function authConfig(env: EnvDto): AllConfig['auth'] {
  return {
    pepper: env.API_KEY_PEPPER ?? DEV_API_KEY_PEPPER,
    keyCacheMs: env.API_KEY_CACHE_MS ?? 60000,
    sessionSecret: env.SESSION_SECRET ?? DEV_SESSION_SECRET,
    // A dashboard session ends this long after sign-in, however active it is (the idle timeout is 8 h).
    sessionAbsoluteTimeoutSeconds: env.SESSION_ABSOLUTE_TIMEOUT_SECONDS ?? 12 * 3600,
  };
}

/** A comma list of host names: trimmed, lower case, empty entries dropped. */
function hostList(value: string | undefined): string[] {
  return splitList(value).map((h) => h.toLowerCase());
}

function parseTrustProxy(value: string): boolean | number | string {
  const v = value.trim();
  if (v === 'true' || v === 'false') return v === 'true';
  return /^\d+$/.test(v) ? Number(v) : v;
}

/** Loader for ConfigModule: validate the process environment once, fail fast on a bad value. */
export function loadConfig(): AllConfig {
  return buildConfig(validateEnv(process.env));
}
