import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { QueueName } from '../../src/jobs/job.types';
import { api } from '../support/api';
import { createOrgWithKey, startTestApp } from '../support/app';
import { colourPng } from '../support/cores';
import { ownPostgres, spawnService, until } from '../support/services';

/**
 * A PostgreSQL outage while a job is queued (own cluster, spawned worker): the core lookup fails on
 * every attempt and so does recording the failure; once PostgreSQL is back the reconciler finds the
 * job failed in BullMQ and marks job and core failed (docs/decisions/0019).
 */
describe('PostgreSQL down during generation (e2e, spawned worker, own PostgreSQL)', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  });

  it('PostgreSQL down through every attempt of a queued job: the core still ends failed, not processing', async () => {
    const pg = await ownPostgres();
    cleanup.push(() => pg.destroy());
    const shared = {
      DATABASE_URL: pg.url,
      QUEUE_PREFIX: `outage-pg-job-${process.pid}`,
      STORAGE_DIR: mkdtempSync(join(tmpdir(), 'outage-pg-job-')),
    };
    const admin = await startTestApp({ ...shared, ROLE: 'api', DB_MIGRATIONS_RUN: 'true' });
    cleanup.push(() => admin.close());
    const org = await createOrgWithKey(admin.app);
    const queue = new Queue(QueueName.Generation, {
      connection: { url: process.env.REDIS_URL as string },
      prefix: shared.QUEUE_PREFIX,
    });
    cleanup.push(() => queue.close());
    await queue.pause();
    const worker = await spawnService(
      { ...shared, RECONCILE_INTERVAL_MS: '1000', RECONCILE_GRACE_MS: '0' },
      { entry: 'worker' },
    );
    cleanup.push(() => worker.kill());
    // Its BullMQ worker connects only after the database connection is up.
    await until('worker connected', async () => (await queue.getWorkersCount()) > 0, 120000);
    const res = await api(admin, org.key).post('/api/v1/org/cores', {
      name: 'Queued through an outage',
      images: [await colourPng('#3a5a40')],
    });
    expect(res.status).toBe(202);
    const jobId = res.body.jobId as string;

    // The worker takes the job only once PostgreSQL is gone: the core lookup fails on every attempt,
    // and recording the failure fails too.
    await pg.stop();
    await queue.resume();
    await until('BullMQ gave up', async () => (await queue.getJobState(jobId)) === 'failed', 120000);
    await pg.start();
    const status = async () =>
      (
        (await admin.app
          .get(DataSource)
          .query(
            'SELECT c.status, j.status AS job FROM cores c JOIN jobs j ON j.id = c.current_job_id WHERE j.id = $1',
            [jobId],
          )) as { status: string; job: string }[]
      )[0];
    await until(
      'core leaves processing',
      async () => (await status().catch(() => undefined))?.status === 'failed',
      60000,
    );
    expect(await status()).toEqual({ status: 'failed', job: 'failed' });
    const core = await api(admin, org.key).get(`/api/v1/org/cores/${res.body.coreId as string}`);
    expect(core.body).toEqual(
      expect.objectContaining({ coreStatus: 'failed', error: expect.stringMatching(/replace the images/) }),
    );
  }, 280_000);
});
