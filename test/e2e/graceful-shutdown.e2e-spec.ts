import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOrgWithKey, freePort, startTestApp, TestApp } from '../support/app';
import { colourPng, waitForCore } from '../support/cores';
import { FakeOpenAi, startFakeOpenAi } from '../support/fake-openai';
import { HttpsFixture, startHttpsFixture } from '../support/https-fixture';
import { spawnEntry, Spawned, waitForStatus } from '../support/spawned';

async function until(what: string, check: () => boolean, timeoutMs = 60000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * SIGTERM to a process serving requests and running jobs (docs/decisions/0016-shutdown-sequence.md):
 * readiness turns 503 first, the worker takes no new job from then on (though it has free slots and a
 * job is queued during the drain), every in-flight request is answered, running jobs that outlive the
 * grace period go back to the queue, the process exits 0, and a second worker finishes every core.
 */
describe('graceful shutdown (spawned processes)', () => {
  let fixture: HttpsFixture;
  let openai: FakeOpenAi;
  let t: TestApp;
  const spawned: Spawned[] = [];

  beforeAll(async () => {
    fixture = await startHttpsFixture();
    // Each caption takes 5 s: longer than the grace period below, so running jobs are handed back.
    openai = await startFakeOpenAi(5000);
    // Only to create the organization and read cores back (no worker: ROLE=api).
    t = await startTestApp({ ROLE: 'api', RATE_LIMIT_GENERAL_PER_MIN: '100000' });
  });
  afterAll(async () => {
    for (const p of spawned) p.child.kill('SIGKILL');
    await t.close();
    await openai.close();
    await fixture.close();
  });

  it('loses neither in-flight requests nor running jobs', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      QUEUE_PREFIX: `shutdown-${process.pid}-${port}`,
      STORAGE_DIR: mkdtempSync(join(tmpdir(), 'shutdown-storage-')),
      PUBLIC_BASE_URL: base,
      TASTE_PROVIDER: 'openai',
      OPENAI_BASE_URL: openai.baseUrl,
      OPENAI_API_KEY: 'sk-fake',
      OPENAI_TIMEOUT_MS: '30000',
      IMAGE_FETCH_ALLOWED_HOSTS: 'localhost',
      // Two slots stay free beside the two running jobs: only the pause keeps new jobs away.
      GENERATION_CONCURRENCY: '4',
      RATE_LIMIT_CREATE_PER_MIN: '100',
      SHUTDOWN_DELAY_MS: '2000',
      SHUTDOWN_GRACE_MS: '1500',
      LOG_LEVEL: 'info',
    };
    const first = spawnEntry('main', { ...env, PORT: String(port) });
    spawned.push(first);
    await waitForStatus(`${base}/health/ready`, 200);

    const org = await createOrgWithKey(t.app);
    const post = (body: unknown) =>
      fetch(`${base}/api/v1/org/cores`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { coreId?: string } }));

    // Two jobs running in the first process (their captions are being written).
    const running = [
      await post({ name: 'Running 1', images: [await colourPng('#8b5a2b')] }),
      await post({ name: 'Running 2', images: [await colourPng('#1c2541')] }),
    ];
    expect(running.map((r) => r.status)).toEqual([202, 202]);
    await until('both jobs to call the provider', () => openai.visionRequests() >= 2);

    // Three requests in flight: their image takes 2.5 s to arrive (after the listener closes). A
    // fourth gets its image after 0.4 s, so its job is queued during the grace period, while this
    // process's worker still has free slots.
    const hitsBefore = fixture.hits.length;
    const inFlight = [1, 2, 3].map((i) =>
      post({ name: `In flight ${i}`, imageUrls: [`${fixture.origin}/delay/2500/red.png?n=${i}`] }),
    );
    const queuedDuringDrain = post({
      name: 'Queued during the drain',
      imageUrls: [`${fixture.origin}/delay/400/red.png`],
    });
    await until('the in-flight requests to fetch their images', () => fixture.hits.length >= hitsBefore + 4);

    first.child.kill('SIGTERM');
    await until('the drain to start', () => first.output().includes('draining'), 10000);
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(503);

    const answered = await Promise.all([...inFlight, queuedDuringDrain]);
    expect(answered.map((r) => r.status)).toEqual([202, 202, 202, 202]);
    expect(await first.exited).toBe(0);
    // The worker was paused at SIGTERM: the job queued during the drain never started here (its
    // caption was never asked for), and only the two running jobs were handed back.
    expect(openai.visionRequests()).toBe(2);
    expect(first.output()).toContain('2 running job(s) moved back to the queue');
    // The listener is closed: no new connections.
    await expect(fetch(`${base}/health/live`)).rejects.toThrow();

    // A second worker takes the handed-back and the queued jobs; every core ends ready.
    const second = spawnEntry('worker', env);
    spawned.push(second);
    for (const r of [...running, ...answered]) {
      const core = await waitForCore(t, org, r.body.coreId as string, 90000);
      expect(core.coreStatus).toBe('ready');
    }
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 240000);
});
