import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { api } from '../support/api';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { colourPng } from '../support/cores';
import { spawnService, SpawnedService, until } from '../support/services';

/**
 * Workers SIGKILLed in the middle of a generation (spawned `src/worker.ts` processes): BullMQ's stalled
 * check hands the job to the next worker; two stalls are retried, a third fails the job, and either
 * way the core ends `ready` or `failed`, never `processing`.
 */
describe('workers killed mid-generation (e2e, spawned workers)', () => {
  const shared = {
    QUEUE_PREFIX: `fault-worker-${process.pid}`,
    STORAGE_DIR: mkdtempSync(join(tmpdir(), 'fault-worker-')),
  };
  let apiApp: TestApp;
  let org: OrgWithKey;
  const workers: SpawnedService[] = [];

  beforeAll(async () => {
    apiApp = await startTestApp({ ...shared, ROLE: 'api' });
    org = await createOrgWithKey(apiApp.app);
  });
  afterAll(async () => {
    for (const w of workers) await w.kill();
    await apiApp.close();
  });

  async function job(jobId: string): Promise<{ status: string; attempts: number; core: string }> {
    const [row] = (await apiApp.app
      .get(DataSource)
      .query(
        'SELECT j.status, j.attempts, c.status AS core FROM jobs j JOIN cores c ON c.id = j.core_id WHERE j.id = $1',
        [jobId],
      )) as { status: string; attempts: number; core: string }[];
    return row;
  }

  /** Starts a slow worker, waits until it has started the job for the `n`th time, then SIGKILLs it. */
  async function killDuringAttempt(jobId: string, n: number): Promise<void> {
    const worker = await spawnService({ ...shared, FAULT_INJECTION: 'slow-generation' }, { entry: 'worker' });
    workers.push(worker);
    await until(`start ${n} of job ${jobId}`, async () => (await job(jobId)).attempts >= n, 120000);
    await worker.kill('SIGKILL');
    expect((await job(jobId)).status).toBe('processing');
  }

  async function create(name: string): Promise<{ coreId: string; jobId: string }> {
    const res = await api(apiApp, org.key).post('/api/v1/org/cores', {
      name,
      images: [await colourPng('#a23b72')],
    });
    expect(res.status).toBe(202);
    return { coreId: res.body.coreId as string, jobId: res.body.jobId as string };
  }

  it('killed twice for the same job: the third worker finishes it and the core is ready', async () => {
    const { coreId, jobId } = await create('Killed twice');
    await killDuringAttempt(jobId, 1);
    await killDuringAttempt(jobId, 2);
    workers.push(await spawnService(shared, { entry: 'worker' }));
    await until('job finished', async () => (await job(jobId)).status !== 'processing', 150000);
    expect(await job(jobId)).toEqual(
      expect.objectContaining({ status: 'ready', core: 'ready', attempts: 3 }),
    );
    const core = await api(apiApp, org.key).get(`/api/v1/org/cores/${coreId}`);
    expect(core.body).toEqual(expect.objectContaining({ coreStatus: 'ready', taste: expect.any(String) }));
    for (const w of workers.splice(0)) await w.kill();
  }, 280_000);
});
