import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { DashboardUsersService } from '../../src/dashboard/dashboard-users.service';
import { createKeyForOrg, createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { colourPng } from '../support/cores';
import { DashboardClient } from '../support/dashboard-client';
import {
  ownPostgres,
  OwnPostgres,
  ownRedis,
  OwnRedis,
  spawnService,
  SpawnedService,
  until,
} from '../support/services';

interface Answer {
  status: number;
  body: Record<string, unknown>;
  retryAfter: string | null;
}

/** One request to the spawned service; a request that hangs fails the test (no answer in 20 s). */
async function call(
  svc: SpawnedService,
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(`${svc.baseUrl}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20000),
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    retryAfter: res.headers.get('retry-after'),
  };
}

const UNAVAILABLE = (dependency: string) => ({
  status: 503,
  code: 'unavailable',
  message: expect.stringContaining(`the ${dependency} cannot be reached`),
  requestId: expect.any(String),
});

/** GET /health/ready answers 503 naming the one dependency that is down. */
async function expectNotReady(svc: SpawnedService, down: 'redis' | 'postgres'): Promise<void> {
  const ready = await call(svc, null, 'GET', '/health/ready');
  expect(ready.status).toBe(503);
  const state = (name: string) => (name === down ? 'down' : 'up');
  expect(ready.body).toEqual(
    expect.objectContaining({
      status: 503,
      code: 'unavailable',
      message: `Not ready: ${down} is down.`,
      checks: { postgres: state('postgres'), redis: state('redis'), storage: 'up' },
    }),
  );
}

async function readyCore(svc: SpawnedService, org: OrgWithKey, name: string): Promise<string> {
  const created = await call(svc, org.key, 'POST', '/api/v1/org/cores', {
    name,
    images: [await colourPng('#588157')],
  });
  expect(created.status).toBe(202);
  const id = created.body.coreId as string;
  await until(
    'core ready',
    async () => (await call(svc, org.key, 'GET', `/api/v1/org/cores/${id}`)).body.coreStatus === 'ready',
    60000,
  );
  return id;
}

/**
 * Dependency outages (docs/decisions/0018-outage-policy.md): a spawned service pointed at a Redis or
 * PostgreSQL of the test's own, stopped and started again. Every API request answers 503 with the
 * error body (never a 500, never a hang), readiness names the dependency that is down, and the
 * service recovers by itself.
 */
describe('outages (e2e, spawned service, own Redis and PostgreSQL)', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  });

  /** An admin app (for the organization and keys) and a spawned service, both stopped after the suite. */
  async function appAndService(
    name: string,
    adminEnv: Record<string, string>,
    serviceEnv: Record<string, string>,
  ): Promise<{ admin: TestApp; org: OrgWithKey; svc: Awaited<ReturnType<typeof spawnService>> }> {
    const admin = await startTestApp({ ROLE: 'api', ...adminEnv });
    cleanup.push(() => admin.close());
    const org = await createOrgWithKey(admin.app);
    const svc = await spawnService({
      ...serviceEnv,
      QUEUE_PREFIX: `outage-${name}-${process.pid}`,
      STORAGE_DIR: mkdtempSync(join(tmpdir(), `outage-${name}-`)),
    });
    cleanup.push(() => svc.kill());
    return { admin, org, svc };
  }

  it('Redis down: 503 everywhere under /api/v1/org, readiness says redis; back up: recovers', async () => {
    const redis: OwnRedis = await ownRedis();
    cleanup.push(() => redis.stop());
    const { admin, org, svc } = await appAndService('redis', {}, { REDIS_URL: redis.url });
    const coreId = await readyCore(svc, org, 'Before the Redis outage');
    const owner = { email: `outage-${process.pid}@example.com`, password: `outage-pw-${process.pid}` };
    const ctx = await admin.app.get(ApiKeysService).cliContext(org.orgId);
    await admin.app.get(DashboardUsersService).createUser(ctx, { ...owner, role: 'owner' });
    const signedIn = new DashboardClient(svc.baseUrl);
    expect((await signedIn.signIn(owner.email, owner.password)).status).toBe(303);
    const signingIn = new DashboardClient(svc.baseUrl);
    const signInToken = await signingIn.formToken('/dashboard/sign-in');

    const logBefore = svc.output().length;
    await redis.stop();
    // Reads that need no budget of their own fail closed too (ADR 0018): the general budget is
    // counted in Redis for every request.
    for (const [method, path, body] of [
      ['GET', `/api/v1/org/cores/${coreId}`],
      ['GET', '/api/v1/org/cores'],
      ['GET', '/api/v1/org/me'],
      ['GET', '/api/v1/org/webhooks'],
      ['POST', '/api/v1/org/cores', { name: 'During', images: [await colourPng('#000000')] }],
      ['POST', `/api/v1/org/cores/${coreId}/products`, {}],
    ] as [string, string, unknown][]) {
      const res = await call(svc, org.key, method, path, body);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 503 });
      expect(res.body).toEqual(UNAVAILABLE('redis'));
      expect(res.retryAfter).toBe('5');
    }
    await expectNotReady(svc, 'redis');
    expect((await call(svc, null, 'GET', '/health/live')).status).toBe(200);
    // The dashboard: its error page with a 503, not the API's JSON (a session that cannot be read) nor
    // "Something went wrong" (a sign-in whose throttle cannot be counted).
    for (const res of [
      await signedIn.get('/dashboard/keys'),
      await signingIn.post('/dashboard/sign-in', { ...owner, _csrf: signInToken }),
    ]) {
      expect({
        status: res.status,
        type: res.headers['content-type'],
        retryAfter: res.headers['retry-after'],
      }).toEqual({ status: 503, type: 'text/html; charset=utf-8', retryAfter: '5' });
      expect(res.text).toContain('The dashboard cannot reach its session store (Redis) right now.');
    }
    // The outage is in the structured log, not a flood: no raw error dumps on stderr (a queue nobody
    // listened to printed one per reconnection attempt), and each worker's connection errors as one
    // line per run (two a reconnection attempt), not one line each. The outage lasts long enough for
    // several attempts (they come 250 ms to 2 s apart).
    await new Promise((r) => setTimeout(r, 6000));
    const outageLog = svc.output().slice(logBefore);
    expect(outageLog).not.toMatch(/^Error: /m);
    for (const worker of ['generation', 'webhook']) {
      const lines = outageLog.split('\n').filter((l) => l.includes(`${worker} worker error: `));
      expect({ worker, atMostTwoLines: lines.length <= 2 }).toEqual({ worker, atMostTwoLines: true });
    }
    // The eight 503s (six API requests, two dashboard pages): one line for the run (each wrote an error
    // record with the driver's stack), and the readiness 503 a warning without one.
    expect(outageLog.match(/the redis cannot be reached \(/g)).toHaveLength(1);
    expect(outageLog).toContain('"msg":"503 GET /health/ready: Not ready: redis is down."');
    expect(outageLog).not.toContain('"stack"');

    await redis.start();
    await until(
      'recovered',
      async () => (await call(svc, org.key, 'GET', `/api/v1/org/cores/${coreId}`)).status === 200,
      30000,
    );
    const again = await call(svc, null, 'GET', '/health/ready');
    expect(again.status).toBe(200);
    expect(again.body.checks).toEqual({ postgres: 'up', redis: 'up', storage: 'up' });
    await readyCore(svc, org, 'After the Redis outage');
    expect(svc.child.exitCode).toBeNull();
  }, 280_000);

  it('Redis down from the start: no raw dump on stderr; SIGTERM still ends the service cleanly', async () => {
    const redis: OwnRedis = await ownRedis();
    cleanup.push(() => redis.stop());
    await redis.stop();
    const svc = await spawnService({
      REDIS_URL: redis.url,
      QUEUE_PREFIX: `outage-start-${process.pid}`,
      STORAGE_DIR: mkdtempSync(join(tmpdir(), 'outage-start-')),
      SHUTDOWN_DELAY_MS: '200',
      SHUTDOWN_GRACE_MS: '3000',
    });
    cleanup.push(() => svc.kill());
    await expectNotReady(svc, 'redis');
    // Several reconnection attempts (250 ms to 2 s apart). The queues' error listeners used to be
    // added by services that wait for the database first: each queue printed BullMQ's raw dump of the
    // errors that came before.
    await new Promise((r) => setTimeout(r, 3000));
    expect(svc.output()).not.toMatch(/^Error: /m);

    // A scrape answers without the queue gauge: it hung, reading job counts through a connection that
    // waits for Redis, and its pending command then held the shutdown too (exit 1 by the watchdog).
    const metrics = await fetch(`${svc.baseUrl}/metrics`, { signal: AbortSignal.timeout(15000) });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('# TYPE http_request_duration_seconds histogram');

    // BullMQ's graceful close of a worker waits for its connection to come back: the drain used to
    // hang until the watchdog ended the process with exit 1 (delay + grace + 15 s).
    svc.child.kill('SIGTERM');
    await svc.exited;
    expect(svc.output()).toContain('redis is unreachable: the queue workers close without waiting for it');
    expect({ code: svc.child.exitCode, signal: svc.child.signalCode }).toEqual({ code: 0, signal: null });
  }, 120_000);

  it('PostgreSQL down: 503 with the error body, readiness says postgres; back up: recovers', async () => {
    const pg: OwnPostgres = await ownPostgres();
    cleanup.push(() => pg.destroy());
    const { admin, org, svc } = await appAndService(
      'pg',
      { DATABASE_URL: pg.url, DB_MIGRATIONS_RUN: 'true' },
      { DATABASE_URL: pg.url },
    );
    const coreId = await readyCore(svc, org, 'Before the PostgreSQL outage');
    // Keys are cached in the process (docs/decisions/0026-lean-request-path.md): one it has resolved
    // just before the outage, one it has never seen.
    const seen = await createKeyForOrg(admin.app, org.orgId, 'seen');
    const unseen = await createKeyForOrg(admin.app, org.orgId, 'unseen');
    expect((await call(svc, seen.key, 'GET', '/api/v1/org/me')).status).toBe(200);

    const logBefore = svc.output().length;
    await pg.stop();
    for (const [key, method, path, body] of [
      [org.key, 'GET', `/api/v1/org/cores/${coreId}`],
      [org.key, 'GET', '/api/v1/org/cores'],
      [unseen.key, 'GET', '/api/v1/org/me'],
      [org.key, 'POST', '/api/v1/org/cores', { name: 'During', images: [await colourPng('#000000')] }],
    ] as [string, string, string, unknown][]) {
      const res = await call(svc, key, method, path, body);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 503 });
      expect(res.body).toEqual(UNAVAILABLE('database'));
      expect(res.retryAfter).toBe('5');
    }
    // GET /me of a cached key needs nothing from PostgreSQL (a revocation, which would need it, cannot
    // happen meanwhile).
    expect((await call(svc, seen.key, 'GET', '/api/v1/org/me')).status).toBe(200);
    await expectNotReady(svc, 'postgres');
    // The four 503s of the outage: one error line, not one record with a stack each (the log is
    // written in batches, at most 100 ms after a line).
    await until('the outage logged', async () => svc.output().slice(logBefore).includes('"level":40'), 5000);
    const outageLog = svc.output().slice(logBefore);
    expect(outageLog.match(/the database cannot be reached \(/g)).toHaveLength(1);
    expect(outageLog).not.toContain('"stack"');

    await pg.start();
    await until(
      'recovered',
      async () => (await call(svc, org.key, 'GET', `/api/v1/org/cores/${coreId}`)).status === 200,
      60000,
    );
    expect((await call(svc, null, 'GET', '/health/ready')).status).toBe(200);
    await readyCore(svc, org, 'After the PostgreSQL outage');
    expect(svc.child.exitCode).toBeNull();
  }, 280_000);
});
