import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import request from 'supertest';
import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { AuditService } from '../../src/audit/audit.service';
import { WEBHOOK_QUEUE } from '../../src/webhooks/webhook.types';
import { api } from '../support/api';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { assertMatchesWebhook } from '../support/contract';
import { colourPng, postColourCore, waitForCore } from '../support/cores';
import { ReceivedRequest, startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

const FAST = {
  WEBHOOK_TIMEOUT_MS: '1500',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_MAX_ATTEMPTS: '5',
  RATE_LIMIT_GENERAL_PER_MIN: '1000',
};

interface Attempt {
  id: string;
  event: string;
  attempt: number;
  at: string;
  httpStatus: number | null;
  error: string | null;
  succeeded: boolean;
}

/** Verifies a received request with the standardwebhooks package and returns the parsed body. */
function verified(secret: string, r: ReceivedRequest): Record<string, unknown> {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': r.headers['webhook-id'],
    'webhook-timestamp': r.headers['webhook-timestamp'],
    'webhook-signature': r.headers['webhook-signature'],
  }) as Record<string, unknown>;
}

async function register(
  t: TestApp,
  org: OrgWithKey,
  body: Record<string, unknown>,
): Promise<{ id: string; secret: string }> {
  const res = await api(t, org.key).post('/api/v1/org/webhooks', body);
  if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id as string, secret: res.body.secret as string };
}

/** Polls the deliveries list until `count` attempts are listed. */
async function waitForAttempts(t: TestApp, org: OrgWithKey, id: string, count: number): Promise<Attempt[]> {
  const deadline = Date.now() + 30000;
  for (;;) {
    const res = await api(t, org.key).get(`/api/v1/org/webhooks/${id}/deliveries`);
    expect(res.status).toBe(200);
    const list = res.body.deliveries as Attempt[];
    if (list.length >= count) return list;
    if (Date.now() > deadline)
      throw new Error(`only ${list.length} of ${count} attempts: ${JSON.stringify(list)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** An OpenAI-compatible provider that always answers 401: generation fails for good (core.failed). */
function failingProvider(): Promise<{ server: Server; url: string }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'bad key', type: 'invalid_request_error', code: null } }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${port}/v1` });
    }),
  );
}

describe('webhooks (e2e, local HTTPS receiver)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver({
      '/flaky': [500, 500, 204],
      '/slow': ['hang', 200],
      '/redirect': [302],
      '/always-500': [500],
    });
    t = await startTestApp({ ...FAST, WEBHOOK_ALLOWED_HOSTS: 'localhost' });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('registers an endpoint: 201 with the secret once; the list never shows it; audit events with the key', async () => {
    const org = await createOrgWithKey(t.app);
    const url = `${receiver.origin}/registered?token=abc`;
    const res = await api(t, org.key).post('/api/v1/org/webhooks', { url });
    expect(res.status).toBe(201);
    expect(res.headers['x-ratelimit-limit']).toBe('1000');
    expect(Object.keys(res.body).sort()).toEqual(
      ['createdAt', 'description', 'events', 'id', 'secret', 'status', 'url'].sort(),
    );
    expect(res.body).toMatchObject({
      status: 201,
      url,
      events: ['core.ready', 'core.failed'],
      description: null,
    });
    const secret = res.body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);

    const second = await api(t, org.key).post('/api/v1/org/webhooks', {
      url: `${receiver.origin}/second`,
      events: ['core.failed'],
      description: 'Failures only',
    });
    expect(second.status).toBe(201);
    expect(second.body.secret).not.toBe(secret);

    const list = await api(t, org.key).get('/api/v1/org/webhooks');
    expect(list.status).toBe(200);
    expect(list.body.status).toBe(200);
    const hooks = list.body.webhooks as Record<string, unknown>[];
    // Newest first, exactly the contract's fields, never a secret.
    expect(hooks.map((h) => h.id)).toEqual([second.body.id, res.body.id]);
    expect(Object.keys(hooks[0]).sort()).toEqual(
      ['createdAt', 'description', 'events', 'id', 'lastDelivery', 'url'].sort(),
    );
    expect(hooks[0]).toMatchObject({
      events: ['core.failed'],
      description: 'Failures only',
      lastDelivery: null,
    });
    expect(JSON.stringify(list.body)).not.toContain(secret.slice(6));
    expect(JSON.stringify(list.body)).not.toContain('whsec_');

    const del = await api(t, org.key).delete(`/api/v1/org/webhooks/${res.body.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ status: 200, id: res.body.id, deleted: true });
    const after = await api(t, org.key).get('/api/v1/org/webhooks');
    expect((after.body.webhooks as { id: string }[]).map((h) => h.id)).toEqual([second.body.id]);
    expect((await api(t, org.key).delete(`/api/v1/org/webhooks/${res.body.id}`)).status).toBe(404);

    const { events } = await t.app.get(AuditService).list(org.orgId);
    const created = events.find((e) => e.action === 'webhook.created' && e.targetId === res.body.id);
    const deleted = events.find((e) => e.action === 'webhook.deleted' && e.targetId === res.body.id);
    for (const e of [created, deleted]) {
      expect(e).toBeDefined();
      expect(e?.actorType).toBe('api_key');
      expect(e?.actorId).toBe(org.keyId);
      // The URL is recorded without its query (it may carry a token), and never the secret.
      expect(JSON.stringify(e?.metadata)).not.toContain('token=abc');
      expect(JSON.stringify(e?.metadata)).not.toContain('whsec_');
    }
  });

  it('answers 400 with the error body for bad input and bad URLs', async () => {
    const org = await createOrgWithKey(t.app);
    const bad: [unknown, RegExp][] = [
      [{}, /url/],
      [{ url: 42 }, /url/],
      [{ url: '' }, /^url must not be empty$/],
      [{ url: 'not-a-url' }, /url: not a valid URL/],
      // Stored as sent, these came back from the list failing the schema's own `format: uri`.
      [{ url: ` ${receiver.origin}/x ` }, /url: must not contain spaces or line breaks/],
      [{ url: `${receiver.origin}/a b` }, /url: must not contain spaces or line breaks/],
      [{ url: `${receiver.origin}/x\n` }, /url: must not contain spaces or line breaks/],
      [{ url: `http://localhost:${receiver.port}/x` }, /url: only https URLs are allowed/],
      [{ url: 'ftp://example.com/x' }, /url: only https URLs are allowed/],
      [{ url: 'https://user:pw@example.com/x' }, /credentials/],
      [{ url: 'https://127.0.0.1/x' }, /127\.0\.0\.1 is not a public address/],
      [{ url: 'https://2130706433/x' }, /127\.0\.0\.1 is not a public address/],
      [{ url: 'https://[::ffff:169.254.169.254]/x' }, /not a public address/],
      [{ url: 'https://10.1.2.3/x' }, /not a public address/],
      [{ url: 'https://example.com:8443/x' }, /port 8443 is not allowed/],
      [{ url: `https://example.com/${'a'.repeat(2049)}` }, /url must be shorter than or equal to 2048/],
      [{ url: `${receiver.origin}/x`, events: [] }, /events should not be empty/],
      [{ url: `${receiver.origin}/x`, events: ['core.ready', 'core.ready'] }, /events must not repeat/],
      [{ url: `${receiver.origin}/x`, events: ['core.created'] }, /events must be one of/],
      [{ url: `${receiver.origin}/x`, events: 'core.ready' }, /events must be an array/],
      [{ url: `${receiver.origin}/x`, events: null }, /events must be an array/],
      [{ url: `${receiver.origin}/x`, description: 'd'.repeat(256) }, /description must be shorter/],
      [{ url: `${receiver.origin}/x`, secret: 'whsec_mine' }, /property secret should not exist/],
    ];
    for (const [body, message] of bad) {
      const res = await api(t, org.key).post('/api/v1/org/webhooks', body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body).toMatchObject({ status: 400, code: 'bad_request' });
      expect(res.body.message).toMatch(message);
    }
    const longUrl = `${receiver.origin}/`;
    const ok = await api(t, org.key).post('/api/v1/org/webhooks', {
      url: longUrl + 'a'.repeat(2048 - longUrl.length),
      description: 'd'.repeat(255),
    });
    expect(ok.status).toBe(201);
    expect((await api(t, org.key).get('/api/v1/org/webhooks')).body.webhooks).toHaveLength(1);
  });

  it('allows 10 endpoints per organization: the 11th is 409, other organizations are unaffected', async () => {
    const org = await createOrgWithKey(t.app);
    const other = await createOrgWithKey(t.app);
    // In parallel: the organization row lock keeps the count exact.
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api(t, org.key).post('/api/v1/org/webhooks', { url: `${receiver.origin}/many/${i}` }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.status)).toEqual([409, 409]);
    expect(refused[0].body).toMatchObject({ status: 409, code: 'conflict' });
    expect(refused[0].body.message).toMatch(/at most 10/);
    expect((await api(t, org.key).get('/api/v1/org/webhooks')).body.webhooks).toHaveLength(10);
    expect(
      (await api(t, other.key).post('/api/v1/org/webhooks', { url: `${receiver.origin}/o` })).status,
    ).toBe(201);
  });

  it("another organization's endpoint, an unknown or a malformed id: 404 on every route", async () => {
    const owner = await createOrgWithKey(t.app);
    const stranger = await createOrgWithKey(t.app);
    const { id } = await register(t, owner, { url: `${receiver.origin}/owned` });
    for (const hookId of [id, '00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const del = await api(t, stranger.key).delete(`/api/v1/org/webhooks/${hookId}`);
      const test = await api(t, stranger.key).post(`/api/v1/org/webhooks/${hookId}/test`);
      const log = await api(t, stranger.key).get(`/api/v1/org/webhooks/${hookId}/deliveries`);
      for (const res of [del, test, log]) {
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
      }
    }
    expect((await api(t, stranger.key).get('/api/v1/org/webhooks')).body.webhooks).toEqual([]);
    expect((await api(t, owner.key).get('/api/v1/org/webhooks')).body.webhooks).toHaveLength(1);
    expect(receiver.to('/owned')).toHaveLength(0);
  });

  it('sends a signed webhook.test event; the log and lastDelivery record the attempt', async () => {
    const org = await createOrgWithKey(t.app);
    const { id, secret } = await register(t, org, { url: `${receiver.origin}/test-event` });
    const res = await api(t, org.key).post(`/api/v1/org/webhooks/${id}/test`);
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['deliveryId', 'status']);
    const [got] = await receiver.waitFor('/test-event', 1);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toBe(res.body.deliveryId);
    expect(Number(got.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const body = verified(secret, got);
    expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data']);
    expect(body).toEqual({ type: 'webhook.test', timestamp: expect.any(String), data: { webhookId: id } });
    assertMatchesWebhook('webhook.test', body); // the document describes it (it did not)
    expect(new Date(body.timestamp as string).toISOString()).toBe(body.timestamp);
    // A wrong secret does not verify.
    expect(() => verified(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, got)).toThrow();

    const [attempt] = await waitForAttempts(t, org, id, 1);
    expect(Object.keys(attempt).sort()).toEqual(
      ['at', 'attempt', 'error', 'event', 'httpStatus', 'id', 'succeeded'].sort(),
    );
    expect(attempt).toMatchObject({
      event: 'webhook.test',
      attempt: 1,
      httpStatus: 204,
      error: null,
      succeeded: true,
    });
    const list = await api(t, org.key).get('/api/v1/org/webhooks');
    expect((list.body.webhooks as Record<string, unknown>[])[0].lastDelivery).toEqual({
      at: attempt.at,
      event: 'webhook.test',
      httpStatus: 204,
      attempt: 1,
      succeeded: true,
    });
  });

  it('retries after HTTP 500 with the same webhook-id and a byte-identical body; each attempt is a row', async () => {
    const org = await createOrgWithKey(t.app);
    const { id, secret } = await register(t, org, { url: `${receiver.origin}/flaky` });
    const { deliveryId } = (await api(t, org.key).post(`/api/v1/org/webhooks/${id}/test`)).body as {
      deliveryId: string;
    };
    const got = await receiver.waitFor('/flaky', 3);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([deliveryId, deliveryId, deliveryId]);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    for (const r of got) expect(verified(secret, r)).toMatchObject({ type: 'webhook.test' });

    const attempts = await waitForAttempts(t, org, id, 3);
    expect(attempts.map((a) => [a.attempt, a.httpStatus, a.succeeded, a.error])).toEqual([
      [3, 204, true, null],
      [2, 500, false, 'endpoint answered HTTP 500'],
      [1, 500, false, 'endpoint answered HTTP 500'],
    ]);
    expect(new Set(attempts.map((a) => a.id)).size).toBe(3);
    // Settled: no fourth attempt is queued.
    const job = await t.app.get<Queue>(getQueueToken(WEBHOOK_QUEUE)).getJob(deliveryId);
    expect(job === undefined || (await job.isCompleted())).toBe(true);
    // Every attempt is counted by outcome, and the delivery queue is in the queue gauge.
    const metrics = (await request(t.app.getHttpServer()).get('/metrics').expect(200)).text;
    const count = (outcome: string): number =>
      Number(
        new RegExp(`^webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(metrics)?.[1] ?? 0,
      );
    expect(count('retrying')).toBeGreaterThanOrEqual(2);
    expect(count('succeeded')).toBeGreaterThanOrEqual(1);
    expect(metrics).toMatch(/^queue_jobs\{queue="webhook-delivery",state="waiting"\} \d+/m);
  });

  it('retries after a timeout with the same webhook-id', async () => {
    const org = await createOrgWithKey(t.app);
    const { id, secret } = await register(t, org, { url: `${receiver.origin}/slow` });
    const { deliveryId } = (await api(t, org.key).post(`/api/v1/org/webhooks/${id}/test`)).body as {
      deliveryId: string;
    };
    const got = await receiver.waitFor('/slow', 2);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([deliveryId, deliveryId]);
    expect(got[0].body).toBe(got[1].body);
    verified(secret, got[1]);
    const attempts = await waitForAttempts(t, org, id, 2);
    expect(attempts[1]).toMatchObject({ attempt: 1, httpStatus: null, succeeded: false });
    expect(attempts[1].error).toMatch(/timed out/);
    expect(attempts[0]).toMatchObject({ attempt: 2, httpStatus: 200, succeeded: true, error: null });
    // `at` is when the attempt was sent, its webhook-timestamp; it was when it ended (1.5 s later here).
    const sentAt = (a: Attempt) => Math.floor(Date.parse(a.at) / 1000);
    expect(sentAt(attempts[1])).toBe(Number(got[0].headers['webhook-timestamp']));
    expect(sentAt(attempts[0])).toBe(Number(got[1].headers['webhook-timestamp']));
  });

  it('does not follow redirects and gives up after the configured attempts (5)', async () => {
    const org = await createOrgWithKey(t.app);
    const { id } = await register(t, org, { url: `${receiver.origin}/redirect` });
    const { deliveryId } = (await api(t, org.key).post(`/api/v1/org/webhooks/${id}/test`)).body as {
      deliveryId: string;
    };
    const attempts = await waitForAttempts(t, org, id, 5);
    expect(attempts.map((a) => a.attempt)).toEqual([5, 4, 3, 2, 1]);
    for (const a of attempts) {
      expect(a).toMatchObject({
        httpStatus: 302,
        succeeded: false,
        error: 'redirect (HTTP 302) not followed',
      });
    }
    // Settled as failed: no sixth attempt is queued.
    const queue = t.app.get<Queue>(getQueueToken(WEBHOOK_QUEUE));
    const deadline = Date.now() + 10000;
    let job = await queue.getJob(deliveryId);
    while (job && !(await job.isCompleted()) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      job = await queue.getJob(deliveryId);
    }
    expect(job === undefined || (await job.isCompleted())).toBe(true);
    const [row]: { state: string }[] = await t.app
      .get(DataSource)
      .query('SELECT state FROM webhook_deliveries WHERE id = $1', [deliveryId]);
    expect(row.state).toBe('failed');
    expect(receiver.to('/redirect')).toHaveLength(5);
    expect(receiver.to('/ok')).toHaveLength(0);
  });

  it('sends core.ready after the result is committed, only to endpoints subscribed to it, with the exact body', async () => {
    const org = await createOrgWithKey(t.app);
    const ready = await register(t, org, { url: `${receiver.origin}/ready`, events: ['core.ready'] });
    const failedOnly = await register(t, org, {
      url: `${receiver.origin}/failed-only`,
      events: ['core.failed'],
    });
    const created = await api(t, org.key).post('/api/v1/org/cores', {
      name: 'Webhook core',
      images: [await colourPng('#c19a6b')],
    });
    expect(created.status).toBe(202);
    const [got] = await receiver.waitFor('/ready', 1);
    // Committed before it is sent: the core reads as ready when the event arrives.
    const core = await api(t, org.key).get(`/api/v1/org/cores/${created.body.coreId}`);
    expect(core.body.coreStatus).toBe('ready');
    const body = verified(ready.secret, got);
    expect(body).toEqual({
      type: 'core.ready',
      timestamp: expect.any(String),
      data: {
        coreId: created.body.coreId,
        jobId: created.body.jobId,
        name: 'Webhook core',
        coreStatus: 'ready',
        error: null,
      },
    });
    expect(Object.keys(body.data as object)).toEqual(['coreId', 'jobId', 'name', 'coreStatus', 'error']);
    assertMatchesWebhook('core.ready', body);
    expect(
      (await api(t, org.key).get(`/api/v1/org/webhooks/${failedOnly.id}/deliveries`)).body.deliveries,
    ).toEqual([]);
    expect(receiver.to('/failed-only')).toHaveLength(0);
    const [attempt] = await waitForAttempts(t, org, ready.id, 1);
    expect(attempt).toMatchObject({ event: 'core.ready', attempt: 1, succeeded: true });
  });

  it('deleting an endpoint drops its pending deliveries (no retry after the delete)', async () => {
    const slow = await startTestApp({
      ...FAST,
      WEBHOOK_RETRY_BASE_MS: '60000',
      WEBHOOK_ALLOWED_HOSTS: 'localhost',
    });
    try {
      const org = await createOrgWithKey(slow.app);
      const { id } = await register(slow, org, { url: `${receiver.origin}/always-500` });
      const { deliveryId } = (await api(slow, org.key).post(`/api/v1/org/webhooks/${id}/test`)).body as {
        deliveryId: string;
      };
      await waitForAttempts(slow, org, id, 1);
      const queue = slow.app.get<Queue>(getQueueToken(WEBHOOK_QUEUE));
      // The failed attempt leaves a delayed retry (60 s away).
      const deadline = Date.now() + 10000;
      while (!(await (await queue.getJob(deliveryId))?.isDelayed()) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await (await queue.getJob(deliveryId))?.isDelayed()).toBe(true);
      expect((await api(slow, org.key).delete(`/api/v1/org/webhooks/${id}`)).status).toBe(200);
      expect(await queue.getJob(deliveryId)).toBeUndefined();
      const rows: unknown[] = await slow.app
        .get(DataSource)
        .query('SELECT 1 FROM webhook_deliveries WHERE id = $1', [deliveryId]);
      expect(rows).toHaveLength(0);
      expect(receiver.to('/always-500').filter((r) => r.headers['webhook-id'] === deliveryId)).toHaveLength(
        1,
      );
    } finally {
      await slow.close();
    }
  });
});

describe('webhooks without an allow-list (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let provider: { server: Server; url: string };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    provider = await failingProvider();
    t = await startTestApp({
      ...FAST,
      WEBHOOK_ALLOWED_HOSTS: '',
      TASTE_PROVIDER: 'openai',
      OPENAI_BASE_URL: provider.url,
      OPENAI_API_KEY: 'sk-test',
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
    provider.server.close();
  });

  it('refuses loopback and private hosts at registration (400), by name too', async () => {
    const org = await createOrgWithKey(t.app);
    for (const url of ['https://localhost/hook', `https://localhost:${receiver.port}/hook`]) {
      const res = await api(t, org.key).post('/api/v1/org/webhooks', { url });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/not a public address|not public|port \d+ is not allowed/);
    }
    const res = await api(t, org.key).post('/api/v1/org/webhooks', { url: 'https://localhost/hook' });
    // The address it resolves to stays out of the answer (it would map the internal DNS).
    expect(res.body.message).toMatch(/host localhost resolves to an address that is not public/);
    expect(res.body.message).not.toMatch(/127\.0\.0\.1|::1/);
  });

  it('never delivers to a private address, even to an endpoint stored earlier (checked at delivery)', async () => {
    const org = await createOrgWithKey(t.app);
    // As if registered while the host was allowed or resolved elsewhere: the row bypasses registration.
    const [{ id }]: { id: string }[] = await t.app
      .get(DataSource)
      .query(
        `INSERT INTO webhook_endpoints (org_id, url, events, secret) VALUES ($1, $2, '{core.ready,core.failed}', $3) RETURNING id`,
        [
          org.orgId,
          `https://127.0.0.1:${receiver.port}/private`,
          `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
        ],
      );
    expect((await api(t, org.key).post(`/api/v1/org/webhooks/${id}/test`)).status).toBe(202);
    const attempts = await waitForAttempts(t, org, id, 5);
    for (const a of attempts) {
      expect(a).toMatchObject({ httpStatus: null, succeeded: false });
      expect(a.error).toMatch(/127\.0\.0\.1 is not a public address/);
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it('core.failed carries the failure reason (delivery rows written with the failure)', async () => {
    const org = await createOrgWithKey(t.app);
    const [{ id }]: { id: string }[] = await t.app
      .get(DataSource)
      .query(
        `INSERT INTO webhook_endpoints (org_id, url, events, secret) VALUES ($1, $2, '{core.failed}', $3) RETURNING id`,
        [org.orgId, 'https://127.0.0.1/failed', `whsec_${Buffer.alloc(32, 9).toString('base64')}`],
      );
    const created = await postColourCore(t, org, 'Doomed', '#123456');
    expect(created.status).toBe(202);
    const core = await waitForCore(t, org, created.body.coreId as string);
    expect(core.coreStatus).toBe('failed');
    const rows: { event: string; payload: string }[] = await t.app
      .get(DataSource)
      .query('SELECT event, payload FROM webhook_deliveries WHERE webhook_id = $1', [id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].event).toBe('core.failed');
    expect(JSON.parse(rows[0].payload)).toEqual({
      type: 'core.failed',
      timestamp: expect.any(String),
      data: {
        coreId: created.body.coreId,
        jobId: created.body.jobId,
        name: 'Doomed',
        coreStatus: 'failed',
        error: core.error,
      },
    });
    assertMatchesWebhook('core.failed', JSON.parse(rows[0].payload));
  });
});
