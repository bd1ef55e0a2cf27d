import request from 'supertest';
import sharp from 'sharp';
import { api, ApiResponse } from './api';
import { OrgWithKey, TestApp } from './app';

/** A PNG data URL of a flat colour (optionally with a second colour in stripes). */
export async function colourPng(hex: string, size = 64, stripe?: string): Promise<string> {
  const base = sharp({ create: { width: size, height: size, channels: 3, background: hex } });
  let png: Buffer;
  if (stripe) {
    const bar = await sharp({
      create: { width: size, height: Math.max(2, size / 8), channels: 3, background: stripe },
    })
      .png()
      .toBuffer();
    const composites = Array.from({ length: 4 }, (_, i) => ({ input: bar, top: i * (size / 4), left: 0 }));
    png = await base.composite(composites).png().toBuffer();
  } else {
    png = await base.png().toBuffer();
  }
  return `data:image/png;base64,${png.toString('base64')}`;
}

/** POST /cores with one flat-colour PNG, through the contract-checking client. */
export async function postColourCore(
  t: TestApp,
  org: OrgWithKey,
  name: string,
  hex: string,
): Promise<ApiResponse> {
  return api(t, org.key).post('/api/v1/org/cores', { name, images: [await colourPng(hex)] });
}

/** A create answered 503 because generation could not be queued (the core and job are failed). */
export function expectNotQueued(res: ApiResponse): void {
  expect(res.status).toBe(503);
  expect(res.body).toEqual(
    expect.objectContaining({
      status: 503,
      code: 'unavailable',
      reason: 'enqueue_failed',
      message: expect.stringMatching(/could not be queued/),
    }),
  );
}

/** Polls GET /cores/{id} until the core leaves `processing` (no sleeps beyond the poll interval). */
export async function waitForCore(
  t: TestApp,
  org: OrgWithKey,
  coreId: string,
  timeoutMs = 30000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  // 100 ms at first, then less often: a long wait (retries with backoff on a slow machine) must not
  // spend the key's 120 requests a minute and end in a 429.
  let pause = 100;
  for (;;) {
    const res = await request(t.app.getHttpServer())
      .get(`/api/v1/org/cores/${coreId}`)
      .set('Authorization', `Bearer ${org.key}`);
    if (res.status !== 200) throw new Error(`GET core ${coreId}: ${res.status} ${JSON.stringify(res.body)}`);
    if (res.body.coreStatus !== 'processing') return res.body as Record<string, unknown>;
    if (Date.now() > deadline) throw new Error(`core ${coreId} still processing after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(1000, pause * 1.25);
  }
}

/** Creates a core through POST /api/v1/org/cores and waits until it is ready. */
export async function createReadyCore(
  t: TestApp,
  org: OrgWithKey,
  opts: { name?: string; images: string[] },
): Promise<{ coreId: string; jobId: string; core: Record<string, unknown> }> {
  const res = await request(t.app.getHttpServer())
    .post('/api/v1/org/cores')
    .set('Authorization', `Bearer ${org.key}`)
    .send({ name: opts.name ?? 'Test core', images: opts.images });
  if (res.status !== 202) throw new Error(`create core: ${res.status} ${JSON.stringify(res.body)}`);
  const core = await waitForCore(t, org, res.body.coreId);
  if (core.coreStatus !== 'ready') throw new Error(`core failed: ${JSON.stringify(core)}`);
  return { coreId: res.body.coreId, jobId: res.body.jobId, core };
}
