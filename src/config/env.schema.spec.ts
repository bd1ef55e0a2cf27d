import { buildConfig, validateEnv } from './configuration';

describe('configuration', () => {
  it('applies the documented defaults (README, Configuration)', () => {
    const c = buildConfig(validateEnv({}));
    expect(c.app.port).toBe(3000);
    expect(c.storage.driver).toBe('fs');
    expect(c.taste.provider).toBe('local');
    expect(c.throttle).toEqual({ generalPerMin: 120, createPerMin: 5, searchPerMin: 20 });
    expect(c.db.migrationsRun).toBe(true);
    expect(c.ingest.allowedHosts).toEqual([]);
  });

  it('parses typed values', () => {
    const c = buildConfig(
      validateEnv({
        PORT: '8080',
        DB_MIGRATIONS_RUN: 'false',
        IMAGE_FETCH_ALLOWED_HOSTS: 'a.test, B.test',
        RATE_LIMIT_CREATE_PER_MIN: '7',
      }),
    );
    expect(c.app.port).toBe(8080);
    expect(c.db.migrationsRun).toBe(false);
    expect(c.ingest.allowedHosts).toEqual(['a.test', 'b.test']);
    expect(c.throttle.createPerMin).toBe(7);
  });

  it('names a value that is no number as given, with the type alone', () => {
    expect(() => validateEnv({ PORT: 'abc' })).toThrow(/PORT="abc": PORT must be an integer number$/m);
    expect(() => validateEnv({ PORT: '70000' })).toThrow(/PORT=70000: PORT must not be greater than 65535$/m);
  });

  it('reads a variable set to the empty string as unset, as .env.example lists the optional ones', () => {
    const c = buildConfig(
      validateEnv({
        METRICS_TOKEN: '',
        OPENAI_TEXT_MODEL: '',
        OPENAI_MODEL: '',
        PORT: '',
        DB_MIGRATIONS_RUN: '',
      }),
    );
    expect(c.metrics.token).toBe('');
    expect(c.taste.openai.textModel).toBe(buildConfig(validateEnv({})).taste.openai.textModel);
    expect(c.taste.openai.textModel).not.toBe('');
    expect(c.app.port).toBe(3000);
    expect(c.db.migrationsRun).toBe(true);
  });

  it.each([
    ['TRUE', true],
    ['1', true],
    ['False', false],
    ['0', false],
  ])('reads the boolean %s as %s', (value, expected) => {
    expect(buildConfig(validateEnv({ DB_MIGRATIONS_RUN: value })).db.migrationsRun).toBe(expected);
  });

  it.each([
    ['PORT', 'abc'],
    // Any word but true/false/1/0 was false, silently: `yes` turned migrations off.
    ['DB_MIGRATIONS_RUN', 'yes'],
    ['ALLOW_HTTP_PUBLIC_URL', 'on'],
    // `lots` stopped the start without naming the variable; `-5mb` answered every create 413.
    ['BODY_LIMIT', 'lots'],
    ['BODY_LIMIT', '-5mb'],
    ['BODY_LIMIT', '0'],
    ['STORAGE_DRIVER', 'ftp'],
    ['TASTE_PROVIDER', 'magic'],
    ['DATABASE_URL', 'mysql://x'],
    ['RATE_LIMIT_GENERAL_PER_MIN', '0'],
    ['ROLE', 'both'],
  ])('fails fast naming %s when it is %s', (name, value) => {
    expect(() => validateEnv({ [name]: value })).toThrow(new RegExp(`${name}=`));
  });

  it.each([
    ['DATABASE_URL', 'postgres://app:p%3Ass@pg_primary:5432/taste'],
    ['DATABASE_URL', 'postgresql://postgres@db/taste?sslmode=require'],
    ['REDIS_URL', 'redis://:secret@redis_cache:6379/2'],
  ])('accepts the connection string %s=%s', (name, value) => {
    expect(() => validateEnv({ [name]: value })).not.toThrow();
  });

  it('never prints the credentials of a refused connection string', () => {
    let message = '';
    try {
      validateEnv({ DATABASE_URL: 'mysql://app:hunter2@db/taste' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('DATABASE_URL=');
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('app:');
  });

  it.each([
    ['loopback', 'loopback'],
    ['true', true],
    ['false', false],
    ['2', 2],
    ['loopback, 10.0.0.0/8', 'loopback, 10.0.0.0/8'],
  ])('maps TRUST_PROXY=%s to the express value', (value, expected) => {
    expect(buildConfig(validateEnv({ TRUST_PROXY: value })).ops.trustProxy).toEqual(expected);
  });

  it('refuses a TRUST_PROXY that is not an express value', () => {
    expect(() => validateEnv({ TRUST_PROXY: 'everyone; please' })).toThrow(/TRUST_PROXY=/);
  });

  it('turns tracing on only for an OTLP endpoint or a traces exporter', () => {
    expect(buildConfig(validateEnv({})).tracing.enabled).toBe(false);
    expect(buildConfig(validateEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).tracing.enabled).toBe(
      true,
    );
    expect(buildConfig(validateEnv({ OTEL_TRACES_EXPORTER: 'otlp' })).tracing.enabled).toBe(true);
    expect(buildConfig(validateEnv({ OTEL_TRACES_EXPORTER: 'none' })).tracing.enabled).toBe(false);
    expect(
      buildConfig(validateEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }))
        .tracing.enabled,
    ).toBe(false);
  });

  it('applies the production start rules only in production, naming every unsafe variable', () => {
    expect(() => validateEnv({ NODE_ENV: 'development' })).not.toThrow();
    let message = '';
    try {
      validateEnv({ NODE_ENV: 'production', SESSION_SECRET: 'please-change-me-please-change-me-now' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('API_KEY_PEPPER is not set');
    expect(message).toContain('SESSION_SECRET is a development default');
    expect(message).toContain('PUBLIC_BASE_URL must be an https://');
  });
});

describe('deployment settings', () => {
  it('sizes the database pools: 10 connections at most, 8 of them warmed, never more warmed than allowed', () => {
    expect(buildConfig(validateEnv({})).db).toEqual(expect.objectContaining({ poolMax: 10, poolWarm: 8 }));
    const small = buildConfig(validateEnv({ DATABASE_POOL_MAX: '4' })).db;
    expect([small.poolMax, small.poolWarm]).toEqual([4, 4]);
    const off = buildConfig(validateEnv({ DATABASE_POOL_WARM: '0' })).db;
    expect([off.poolMax, off.poolWarm]).toEqual([10, 0]);
    expect(() => validateEnv({ DATABASE_POOL_MAX: '0' })).toThrow(/DATABASE_POOL_MAX/);
    expect(() => validateEnv({ DATABASE_POOL_WARM: '-1' })).toThrow(/DATABASE_POOL_WARM/);
    expect(() => validateEnv({ DATABASE_POOL_WARM: 'many' })).toThrow(/DATABASE_POOL_WARM/);
  });

  it('reads DATABASE_REPLICA_URLS as a comma list (empty: no replicas)', () => {
    expect(buildConfig(validateEnv({})).db.replicaUrls).toEqual([]);
    expect(buildConfig(validateEnv({ DATABASE_REPLICA_URLS: '' })).db.replicaUrls).toEqual([]);
    expect(
      buildConfig(
        validateEnv({
          DATABASE_REPLICA_URLS: 'postgres://ro@replica_1:5432/taste, postgresql://ro@replica-2/taste',
        }),
      ).db.replicaUrls,
    ).toEqual(['postgres://ro@replica_1:5432/taste', 'postgresql://ro@replica-2/taste']);
  });

  it('refuses a replica list with a non-PostgreSQL URL, without printing any credentials', () => {
    let message = '';
    try {
      validateEnv({ DATABASE_REPLICA_URLS: 'postgres://ro:pw1@a/taste,mysql://ro:pw2@b/taste' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('DATABASE_REPLICA_URLS=');
    expect(message).not.toContain('pw1');
    expect(message).not.toContain('pw2');
  });

  it('accepts a Redis Sentinel URL and refuses a broken one without printing its password', () => {
    expect(() => validateEnv({ REDIS_URL: 'redis-sentinel://:pw@s1:26379,s2:26379/mymaster' })).not.toThrow();
    let message = '';
    try {
      validateEnv({ REDIS_URL: 'redis-sentinel://:hunter2@s1:port/mymaster' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('REDIS_URL=');
    expect(message).not.toContain('hunter2');
  });
});
