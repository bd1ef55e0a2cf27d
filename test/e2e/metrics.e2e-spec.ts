import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createOrgWithKey, freePort, startTestApp, TestApp } from '../support/app';
import { colourPng, waitForCore } from '../support/cores';
import { sample } from '../support/metrics';
import { spawnEntry, waitForStatus } from '../support/spawned';

const TOKEN = 'metrics-token-for-the-e2e-test-0123456789';
const SAFE_PRODUCTION = {
  NODE_ENV: 'production',
  API_KEY_PEPPER: 'p'.repeat(40),
  SESSION_SECRET: 's'.repeat(40),
  PUBLIC_BASE_URL: 'https://taste.example.com',
};

describe('GET /metrics (e2e)', () => {
  describe('without METRICS_TOKEN outside production', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ RATE_LIMIT_CREATE_PER_MIN: '1' });
    });
    afterAll(() => t.close());
    const scrape = async (): Promise<string> => {
      const res = await request(t.app.getHttpServer()).get('/metrics').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      return res.text;
    };

    it('exposes the named series, with prom-client default process metrics', async () => {
      const text = await scrape();
      for (const name of [
        'http_request_duration_seconds',
        'rate_limit_rejections_total',
        'generation_jobs_total',
        'generation_duration_seconds',
        'queue_jobs',
        'webhook_deliveries_total',
        'process_cpu_user_seconds_total',
        'nodejs_eventloop_lag_seconds',
      ]) {
        expect(text).toContain(`# TYPE ${name} `);
      }
      for (const budget of ['general', 'create', 'search']) {
        expect(sample(text, 'rate_limit_rejections_total', { budget })).toBe(0);
      }
      for (const state of ['waiting', 'active', 'delayed', 'failed']) {
        expect(sample(text, 'queue_jobs', { queue: 'taste-generation', state })).toBeGreaterThanOrEqual(0);
      }
    });

    it('labels requests with the route pattern, never the raw URL', async () => {
      const org = await createOrgWithKey(t.app);
      const id = randomUUID();
      await request(t.app.getHttpServer())
        .get(`/api/v1/org/cores/${id}`)
        .set('Authorization', `Bearer ${org.key}`)
        .expect(404);
      await request(t.app.getHttpServer()).get(`/no/such/route/${id}`).expect(404);
      const text = await scrape();
      const labels = { method: 'GET', route: '/api/v1/org/cores/:id', status_code: '404' };
      expect(sample(text, 'http_request_duration_seconds_count', labels)).toBe(1);
      expect(
        sample(text, 'http_request_duration_seconds_count', { route: 'unmatched', status_code: '404' }),
      ).toBe(1);
      expect(text).not.toContain(id);
    });

    it('counts 429s per budget, and finished jobs with their duration', async () => {
      const org = await createOrgWithKey(t.app);
      const before = await scrape();
      const create = (name: string, image: string) =>
        request(t.app.getHttpServer())
          .post('/api/v1/org/cores')
          .set('Authorization', `Bearer ${org.key}`)
          .send({ name, images: [image] });
      const first = await create('Counted', await colourPng('#8b5a2b'));
      expect(first.status).toBe(202);
      expect((await create('Refused', await colourPng('#1c2541'))).status).toBe(429);
      expect((await waitForCore(t, org, first.body.coreId as string)).coreStatus).toBe('ready');

      const after = await scrape();
      const delta = (name: string, labels: Record<string, string> = {}) =>
        (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
      expect(delta('rate_limit_rejections_total', { budget: 'create' })).toBe(1);
      expect(delta('rate_limit_rejections_total', { budget: 'general' })).toBe(0);
      expect(delta('generation_jobs_total', { outcome: 'ready' })).toBe(1);
      expect(delta('generation_duration_seconds_count')).toBe(1);
      expect(delta('generation_seconds_per_image_count')).toBe(1);
      expect(
        delta('http_request_duration_seconds_count', {
          method: 'POST',
          route: '/api/v1/org/cores',
          status_code: '429',
        }),
      ).toBe(1);
    });
  });

  describe('with METRICS_TOKEN', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ ...SAFE_PRODUCTION, METRICS_TOKEN: TOKEN });
    });
    afterAll(() => t.close());

    it('requires the bearer token (401 with the error body otherwise)', async () => {
      for (const header of [undefined, 'Bearer wrong-token', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
        let req = request(t.app.getHttpServer()).get('/metrics');
        if (header) req = req.set('Authorization', header);
        const res = await req.expect(401);
        expect(res.body).toEqual({
          message: expect.stringContaining('METRICS_TOKEN'),
          status: 401,
          code: 'unauthorized',
          requestId: expect.any(String),
        });
      }
      const ok = await request(t.app.getHttpServer())
        .get('/metrics')
        .set('Authorization', `Bearer ${TOKEN}`)
        .expect(200);
      expect(ok.text).toContain('# TYPE http_request_duration_seconds histogram');
    });
  });

  describe('in production without METRICS_TOKEN', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(SAFE_PRODUCTION);
    });
    afterAll(() => t.close());

    it('is not served (404)', async () => {
      const res = await request(t.app.getHttpServer()).get('/metrics').expect(404);
      expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
      expect(res.text).not.toContain('http_request_duration_seconds');
    });
  });

  describe('a ROLE=worker process (spawned)', () => {
    it('serves GET /metrics on METRICS_PORT with the same token rule', async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/metrics`;
      const p = spawnEntry('worker', {
        METRICS_PORT: String(port),
        METRICS_TOKEN: TOKEN,
        QUEUE_PREFIX: `metrics-worker-${port}`,
        SHUTDOWN_DELAY_MS: '0',
      });
      try {
        await waitForStatus(url, 401);
        const refused = await fetch(url, { headers: { authorization: 'Bearer nope' } });
        expect(refused.status).toBe(401);
        expect(await refused.json()).toMatchObject({ status: 401 });
        const ok = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(ok.status).toBe(200);
        const text = await ok.text();
        expect(sample(text, 'generation_jobs_total', { outcome: 'ready' })).toBe(0);
        expect(sample(text, 'queue_jobs', { queue: 'taste-generation', state: 'waiting' })).toBe(0);
        expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
      } finally {
        p.child.kill('SIGTERM');
      }
      expect(await p.exited).toBe(0);
    }, 120000);
  });
});
