import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import { DataSource } from 'typeorm';
import { startWorker } from '../../src/bootstrap';
import { buildConfig, validateEnv } from '../../src/config/configuration';
import { CoreImagesService } from '../../src/cores/core-images.service';
import { GenerationReconciler } from '../../src/cores/generation-reconciler.service';
import { QueueName } from '../../src/jobs/job.types';
import { api } from '../support/api';
import { createOrgWithKey, startTestApp, TestApp } from '../support/app';
import { colourPng, waitForCore } from '../support/cores';
import { ownDatabase, ownRedis, OwnRedis, spawnService, until } from '../support/services';

/** Nothing stays `processing` when the enqueue never happens, and a refused enqueue stays refused. */
describe('faults between the commit and the enqueue (e2e, spawned processes, own Redis)', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  // Reconcilers scan every job row: this file's processes use a database of their own.
  let DATABASE_URL: string;
  beforeAll(async () => {
    const db = await ownDatabase('reconcile');
    DATABASE_URL = db.url;
    cleanup.push(() => db.drop());
  });
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  });

  async function coreRow(app: TestApp, coreId: string): Promise<{ status: string; job: string | null }> {
    const [row] = (await app.app
      .get(DataSource)
      .query(
        'SELECT c.status, j.status AS job FROM cores c LEFT JOIN jobs j ON j.id = c.current_job_id WHERE c.id = $1',
        [coreId],
      )) as { status: string; job: string | null }[];
    return row;
  }

  it('a process killed between the commit and the enqueue: the core becomes ready after a restart', async () => {
    const shared = {
      DATABASE_URL,
      QUEUE_PREFIX: `fault-commit-${process.pid}`,
      STORAGE_DIR: mkdtempSync(join(tmpdir(), 'fault-commit-')),
    };
    const admin = await startTestApp({ ROLE: 'api', DATABASE_URL });
    cleanup.push(() => admin.close());
    const org = await createOrgWithKey(admin.app);

    const crashing = await spawnService({ ...shared, FAULT_INJECTION: 'crash-after-core-commit' });
    cleanup.push(() => crashing.kill());
    const refused = await fetch(`${crashing.baseUrl}/api/v1/org/cores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Crashed before enqueue', images: [await colourPng('#7a4419')] }),
    }).then(
      () => 'answered',
      () => 'connection lost',
    );
    expect(refused).toBe('connection lost');
    await crashing.exited;
    expect(crashing.child.signalCode).toBe('SIGKILL');

    const [core] = (await admin.app
      .get(DataSource)
      .query('SELECT id FROM cores WHERE org_id = $1', [org.orgId])) as { id: string }[];
    expect(await coreRow(admin, core.id)).toEqual({ status: 'processing', job: 'processing' });

    // The restarted process's reconciler finds the row processing with no queue entry and enqueues it.
    const restarted = await spawnService({
      ...shared,
      RECONCILE_INTERVAL_MS: '1000',
      RECONCILE_GRACE_MS: '0',
    });
    cleanup.push(() => restarted.kill());
    await until('core ready', async () => (await coreRow(admin, core.id)).status !== 'processing', 90000);
    expect(await coreRow(admin, core.id)).toEqual({ status: 'ready', job: 'ready' });
    await restarted.kill();
  }, 280_000);

  it('a job BullMQ failed for good while its row could not be marked: the reconciler marks it failed', async () => {
    const prefix = `fault-unrecorded-${process.pid}`;
    const t = await startTestApp({
      ROLE: 'api',
      QUEUE_PREFIX: prefix,
      RECONCILE_GRACE_MS: '0',
      DATABASE_URL,
    });
    cleanup.push(() => t.close());
    const org = await createOrgWithKey(t.app);
    const res = await api(t, org.key).post('/api/v1/org/cores', {
      name: 'Failed unrecorded',
      images: [await colourPng('#9c6644')],
    });
    expect(res.status).toBe(202);
    // A bare BullMQ worker whose every attempt fails and that records nothing (as when PostgreSQL was
    // down during the attempts and the failed handler).
    let failures = 0;
    const bare = new Worker(
      QueueName.Generation,
      async () => {
        throw new Error('database unreachable');
      },
      { connection: { url: process.env.REDIS_URL as string }, prefix },
    );
    bare.on('failed', () => (failures += 1));
    cleanup.push(() => bare.close());
    await until('attempts spent', () => failures >= 3, 60000);
    await bare.close();
    expect(await coreRow(t, res.body.coreId as string)).toEqual({ status: 'processing', job: 'processing' });

    expect(await t.app.get(GenerationReconciler).reconcile()).toEqual(
      expect.objectContaining({ requeued: 0, failed: 1 }),
    );
    expect(await coreRow(t, res.body.coreId as string)).toEqual({ status: 'failed', job: 'failed' });
    // A second pass (another process, or the next interval) finds nothing left to do for it.
    const again = await t.app.get(GenerationReconciler).reconcile();
    expect(again?.failed).toBe(0);
  }, 120_000);

  describe('with a Redis of its own', () => {
    let redis: OwnRedis;
    beforeAll(async () => {
      redis = await ownRedis();
      cleanup.push(() => redis.stop());
    });

    it('Redis restarted empty: the reconciler enqueues the lost job again', async () => {
      const shared = {
        DATABASE_URL,
        QUEUE_PREFIX: `fault-empty-${process.pid}`,
        STORAGE_DIR: mkdtempSync(join(tmpdir(), 'fault-empty-')),
        REDIS_URL: redis.url,
      };
      const apiApp = await startTestApp({ ...shared, ROLE: 'api' });
      cleanup.push(() => apiApp.close());
      const org = await createOrgWithKey(apiApp.app);
      const res = await api(apiApp, org.key).post('/api/v1/org/cores', {
        name: 'Lost in Redis',
        images: [await colourPng('#2e5e4e')],
      });
      expect(res.status).toBe(202);
      const coreId = res.body.coreId as string;

      await redis.stop();
      await redis.start(); // empty: no persistence
      let worker: INestApplicationContext | undefined;
      cleanup.push(async () => worker?.close());
      worker = await startWorker(
        buildConfig(
          validateEnv({
            ...process.env,
            ...shared,
            ROLE: 'worker',
            LOG_LEVEL: 'silent',
            RECONCILE_INTERVAL_MS: '500',
            RECONCILE_GRACE_MS: '0',
          }),
        ),
      );
      // Until the API's Redis client has reconnected (with its backoff), requests fail fast with 503
      // (the outage policy); it recovers by itself.
      await until(
        'the API to reconnect to the restarted Redis',
        async () => (await api(apiApp, null).get('/health/ready')).status === 200,
        30000,
      );
      const core = await waitForCore(apiApp, org, coreId, 60000);
      expect(core.coreStatus).toBe('ready');
      await worker.close();
      worker = undefined;
    });

    it('a refused enqueue answers 503 for good: Redis back, the core stays failed and no job runs', async () => {
      const prefix = `fault-refused-${process.pid}`;
      const t = await startTestApp({ REDIS_URL: redis.url, QUEUE_PREFIX: prefix, DATABASE_URL });
      cleanup.push(() => t.close());
      const org = await createOrgWithKey(t.app);

      // Redis goes away after the rate limits were counted and the images stored, before the enqueue.
      const images = t.app.get(CoreImagesService);
      const ingest = images.ingestAndStore.bind(images);
      images.ingestAndStore = async (sources) => {
        const stored = await ingest(sources);
        await redis.stop();
        return stored;
      };
      const res = await api(t, org.key).post('/api/v1/org/cores', {
        name: 'Refused by Redis',
        images: [await colourPng('#3d5a80')],
      });
      images.ingestAndStore = ingest;
      expect(res.status).toBe(503);
      expect(res.body).toEqual(
        expect.objectContaining({
          status: 503,
          code: 'unavailable',
          reason: 'enqueue_failed',
          message: expect.stringMatching(/could not be queued/),
        }),
      );
      const coreId = /core ([0-9a-f-]{36})/.exec(String(res.body.message))?.[1] as string;
      expect(await coreRow(t, coreId)).toEqual({ status: 'failed', job: 'failed' });

      await redis.start();
      // The service recovers by itself, and the job was never added: nothing can turn the core ready.
      await until(
        'service answers again',
        async () => (await api(t, org.key).get(`/api/v1/org/cores/${coreId}`)).status === 200,
        30000,
      );
      const queue = new Queue(QueueName.Generation, { connection: { url: redis.url }, prefix });
      queue.on('error', () => undefined);
      cleanup.push(() => queue.close());
      const [{ id: jobId }] = (await t.app
        .get(DataSource)
        .query('SELECT id FROM jobs WHERE core_id = $1', [coreId])) as { id: string }[];
      expect(await queue.getJobState(jobId)).toBe('unknown');
      await new Promise((r) => setTimeout(r, 3000));
      expect(await coreRow(t, coreId)).toEqual({ status: 'failed', job: 'failed' });
      const get = await api(t, org.key).get(`/api/v1/org/cores/${coreId}`);
      expect(get.body).toEqual(
        expect.objectContaining({ coreStatus: 'failed', error: expect.stringMatching(/replace the images/) }),
      );
    });
  });
});
