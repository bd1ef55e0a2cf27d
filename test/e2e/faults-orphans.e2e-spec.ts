import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { OrphanSweeper } from '../../src/cores/orphan-sweeper.service';
import { QueueName } from '../../src/jobs/job.types';
import { ImageStore, newImageKey } from '../../src/storage';
import { api } from '../support/api';
import { createOrgWithKey, startTestApp, TestApp } from '../support/app';
import { colourPng, createReadyCore } from '../support/cores';
import { startS3Server, S3TestServer } from '../support/s3-server';
import { spawnService, until } from '../support/services';

/** Every file under `dir`, relative, sorted. */
function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`);
      else out.push(`${rel}${e.name}`);
    }
  };
  walk(dir, '');
  return out.sort();
}

/** Objects nobody references are found and removed; deleting a core mid-generation leaves nothing. */
describe('orphan objects (e2e)', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  });

  it('fs: a process killed between the object writes and the commit leaves objects the sweeper removes', async () => {
    const storage = mkdtempSync(join(tmpdir(), 'orphans-fs-'));
    const keep = await startTestApp({ STORAGE_DIR: storage, SWEEP_GRACE_MS: '3600000' });
    cleanup.push(() => keep.close());
    const org = await createOrgWithKey(keep.app);
    const ready = await createReadyCore(keep, org, { name: 'Kept', images: [await colourPng('#264653')] });
    const kept = files(storage);

    const crashing = await spawnService({
      STORAGE_DIR: storage,
      QUEUE_PREFIX: `orphans-${process.pid}`,
      FAULT_INJECTION: 'crash-before-core-commit',
    });
    cleanup.push(() => crashing.kill());
    const outcome = await fetch(`${crashing.baseUrl}/api/v1/org/cores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Never committed',
        images: [await colourPng('#e76f51'), await colourPng('#2a9d8f')],
      }),
    }).then(
      () => 'answered',
      () => 'connection lost',
    );
    expect(outcome).toBe('connection lost');
    await crashing.exited;
    // A write cut short leaves its temporary file too.
    mkdirSync(join(storage, 'img'), { recursive: true });
    writeFileSync(join(storage, 'img', `${'a'.repeat(32)}.png.0123456789ab.tmp`), 'half an image');

    const leftovers = files(storage).filter((f) => !kept.includes(f));
    expect(leftovers.filter((f) => /^img\/[0-9a-f]{32}\.png$/.test(f))).toHaveLength(2);
    const rows = (await keep.app
      .get(DataSource)
      .query('SELECT id FROM cores WHERE org_id = $1', [org.orgId])) as unknown[];
    expect(rows).toHaveLength(1); // the crashed create committed nothing

    // Within the grace period nothing is touched (an upload may still be committing).
    expect(await keep.app.get(OrphanSweeper).sweep()).toEqual({ checked: 0, removed: 0, temporaries: 0 });
    expect(files(storage)).toEqual([...kept, ...leftovers].sort());

    const sweeping = await startTestApp({
      STORAGE_DIR: storage,
      SWEEP_GRACE_MS: '0',
      SWEEP_INTERVAL_MS: '0',
    });
    cleanup.push(() => sweeping.close());
    expect(await sweeping.app.get(OrphanSweeper).sweep()).toEqual({ checked: 3, removed: 2, temporaries: 1 });
    expect(files(storage)).toEqual(kept);
    const image = await fetch((ready.core.images as { imageURL: string }[])[0].imageURL);
    expect(image.status).toBe(200);
  }, 280_000);

  describe('s3', () => {
    let s3: S3TestServer;
    let t: TestApp;
    beforeAll(async () => {
      s3 = await startS3Server();
      cleanup.push(() => s3.close());
      t = await startTestApp({
        STORAGE_DRIVER: 's3',
        S3_ENDPOINT: s3.endpoint,
        S3_BUCKET: s3.bucket,
        S3_ACCESS_KEY: s3.accessKey,
        S3_SECRET_KEY: s3.secretKey,
        SWEEP_GRACE_MS: '0',
      });
      cleanup.push(() => t.close());
    });

    it('removes objects no core image references and keeps the others', async () => {
      const org = await createOrgWithKey(t.app);
      const ready = await createReadyCore(t, org, { name: 'On S3', images: [await colourPng('#e9c46a')] });
      const store = t.app.get(ImageStore);
      const orphan = newImageKey('png');
      await store.put(orphan, Buffer.from('orphan'), 'image/png');
      // A demo catalogue image is not a core image: never swept.
      await store.put('demo/0123456789abcdef0123456789abcdef.png', Buffer.from('demo'), 'image/png');
      await new Promise((r) => setTimeout(r, 1100)); // S3 timestamps have one-second resolution

      const summary = await t.app.get(OrphanSweeper).sweep();
      expect(summary).toEqual({ checked: 2, removed: 1, temporaries: 0 });
      expect(await store.exists(orphan)).toBe(false);
      expect(await store.exists('demo/0123456789abcdef0123456789abcdef.png')).toBe(true);
      const url = (ready.core.images as { imageURL: string }[])[0].imageURL;
      expect(await store.exists(url.slice(url.indexOf('img/')))).toBe(true);
    });
  });

  it('a core deleted during its generation leaves no row and no object', async () => {
    const storage = mkdtempSync(join(tmpdir(), 'orphans-delete-'));
    const t = await startTestApp({ STORAGE_DIR: storage, FAULT_INJECTION: 'slow-generation' });
    cleanup.push(() => t.close());
    const org = await createOrgWithKey(t.app);
    const res = await api(t, org.key).post('/api/v1/org/cores', {
      name: 'Deleted mid-generation',
      images: [await colourPng('#6d597a'), await colourPng('#b56576')],
    });
    expect(res.status).toBe(202);
    const ds = t.app.get(DataSource);
    const attempts = async () =>
      (
        (await ds.query('SELECT attempts FROM jobs WHERE id = $1', [res.body.jobId])) as {
          attempts: number;
        }[]
      )[0]?.attempts ?? -1;
    await until('generation started', async () => (await attempts()) >= 1, 30000);
    expect(files(storage).filter((f) => f.startsWith('img/'))).toHaveLength(4); // two images and their meta

    const del = await api(t, org.key).delete(`/api/v1/org/cores/${res.body.coreId}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual(expect.objectContaining({ imagesPurged: 2, imagesFailed: 0 }));
    // The paused generation runs to its end (BullMQ records it done) and finds no row to write to.
    const queue = t.app.get<Queue>(getQueueToken(QueueName.Generation));
    await until(
      'the generation run to end',
      async () => ['completed', 'failed'].includes(await queue.getJobState(res.body.jobId as string)),
      30000,
    );
    expect(await ds.query('SELECT id FROM cores WHERE id = $1', [res.body.coreId])).toEqual([]);
    expect(await ds.query('SELECT id FROM jobs WHERE id = $1', [res.body.jobId])).toEqual([]);
    expect(files(storage).filter((f) => f.startsWith('img/'))).toEqual([]);
  });
});
