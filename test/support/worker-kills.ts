import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { api } from './api';
import { createOrgWithKey, startTestApp } from './app';
import { colourPng } from './cores';
import { spawnService, SpawnedService, until } from './services';

export interface KilledJobOutcome {
  /** The job row and its core's status once the job left `processing`. */
  job: { status: string; attempts: number; core: string };
  /** GET /cores/{id} at the end. */
  core: Record<string, unknown>;
  /** Whether the job was still `processing` right after each kill. */
  processingAfterKills: boolean[];
}

/**
 * An API-only process creates a core; `kills` spawned workers (`src/worker.ts`, with the 3 s
 * `slow-generation` pause) each take the job and are SIGKILLed mid-generation; a last worker is left
 * to finish. Every worker runs with `fast-stall-detection` (a 4 s lock, a stalled check every second):
 * the mechanism is BullMQ's own, only its timers are shorter. Returns how the job ended.
 */
export async function killWorkersDuringOneJob(label: string, kills: number): Promise<KilledJobOutcome> {
  const shared = {
    QUEUE_PREFIX: `${label}-${process.pid}`,
    STORAGE_DIR: mkdtempSync(join(tmpdir(), `${label}-`)),
  };
  const apiApp = await startTestApp({ ...shared, ROLE: 'api' });
  const workers: SpawnedService[] = [];
  try {
    const org = await createOrgWithKey(apiApp.app);
    const res = await api(apiApp, org.key).post('/api/v1/org/cores', {
      name: label,
      images: [await colourPng('#a23b72')],
    });
    if (res.status !== 202) throw new Error(`create: ${res.status}`);
    const jobId = res.body.jobId as string;
    const job = async (): Promise<KilledJobOutcome['job']> =>
      (
        (await apiApp.app
          .get(DataSource)
          .query(
            'SELECT j.status, j.attempts, c.status AS core FROM jobs j JOIN cores c ON c.id = j.core_id WHERE j.id = $1',
            [jobId],
          )) as KilledJobOutcome['job'][]
      )[0];

    const processingAfterKills: boolean[] = [];
    for (let n = 1; n <= kills; n += 1) {
      const worker = await spawnService(
        { ...shared, FAULT_INJECTION: 'slow-generation,fast-stall-detection' },
        { entry: 'worker' },
      );
      workers.push(worker);
      await until(`start ${n} of job ${jobId}`, async () => (await job()).attempts >= n, 120000);
      await worker.kill('SIGKILL');
      processingAfterKills.push((await job()).status === 'processing');
    }
    workers.push(
      await spawnService({ ...shared, FAULT_INJECTION: 'fast-stall-detection' }, { entry: 'worker' }),
    );
    await until('job finished', async () => (await job()).status !== 'processing', 150000);
    const core = await api(apiApp, org.key).get(`/api/v1/org/cores/${res.body.coreId as string}`);
    return { job: await job(), core: core.body, processingAfterKills };
  } finally {
    for (const w of workers) await w.kill();
    await apiApp.close();
  }
}
