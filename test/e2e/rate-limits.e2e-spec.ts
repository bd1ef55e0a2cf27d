import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type Redis from 'ioredis';
import request from 'supertest';
import { REDIS } from '../../src/redis/redis.module';
import { createKeyForOrg, createOrgWithKey, startTestApp, TestApp } from '../support/app';
import { RateLimitService } from '../../src/throttling/rate-limit.service';
import { fixtureImages, HttpsFixture, startHttpsFixture } from '../support/https-fixture';

const GENERAL = 10;

describe('rate limits: general per-key budget (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_GENERAL_PER_MIN: String(GENERAL) });
  });
  afterAll(() => t.close());

  const me = (key: string) =>
    request(t.app.getHttpServer()).get('/api/v1/org/me').set('Authorization', `Bearer ${key}`);

  it('admits exactly the limit per minute, then 429 with the seconds, Retry-After and headers', async () => {
    const org = await createOrgWithKey(t.app);
    for (let i = 1; i <= GENERAL; i++) {
      const res = await me(org.key).expect(200);
      expect(res.headers['x-ratelimit-limit']).toBe(String(GENERAL));
      expect(res.headers['x-ratelimit-remaining']).toBe(String(GENERAL - i));
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(60);
    }
    const res = await me(org.key).expect(429);
    expect(res.body).toMatchObject({ status: 429, code: 'rate_limited', reason: 'rate_limited' });
    expect(res.body.message).toMatch(/^Rate limit exceeded: try again in \d+ seconds?\.$/);
    const seconds = Number(/in (\d+) second/.exec(res.body.message)?.[1]);
    expect(seconds).toBeGreaterThanOrEqual(55);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(res.headers['retry-after']).toBe(String(seconds));
    expect(res.headers['x-ratelimit-limit']).toBe(String(GENERAL));
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expect(res.headers['x-ratelimit-reset']).toBe(String(seconds));
  });

  it('counts per API key: a second key of the same organization has its own general budget', async () => {
    const org = await createOrgWithKey(t.app);
    const second = await createKeyForOrg(t.app, org.orgId);
    for (let i = 0; i < GENERAL; i++) await me(org.key).expect(200);
    await me(org.key).expect(429);
    await me(second.key).expect(200);
  });

  it('authenticates first: an invalid key gets 401, not 429, and no rate-limit headers', async () => {
    const res = await me('tpk_invalid').expect(401);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('does not count refused requests: after a 429 the budget is still exhausted by admitted ones only', async () => {
    const org = await createOrgWithKey(t.app);
    for (let i = 0; i < GENERAL; i++) await me(org.key).expect(200);
    for (let i = 0; i < 5; i++) await me(org.key).expect(429);
    const res = await me(org.key).expect(429);
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    // Six refusals later the window still holds the ten admitted requests only.
    const usage = await t.app.get(RateLimitService).usage(org.orgId, [org.keyId]);
    expect(usage.general[org.keyId]).toMatchObject({ limit: GENERAL, used: GENERAL });
  });

  // A malformed body was answered 400 before the budget was looked at: uncounted, and a key over its
  // budget could still have its bodies read and parsed.
  it('counts a body that cannot be read against the general budget: over it, 429 not 400', async () => {
    const org = await createOrgWithKey(t.app);
    const post = (path: string, type: string, body: string) =>
      request(t.app.getHttpServer())
        .post(path)
        .set('Authorization', `Bearer ${org.key}`)
        .set('Content-Type', type)
        .send(body);
    for (let i = 1; i <= GENERAL; i++) {
      const res =
        i % 2 === 0
          ? await post('/api/v1/org/cores', 'application/json', '{"name": "malformed"').expect(400)
          : await post('/api/v1/org/webhooks', 'text/plain', 'https://example.com/hook').expect(415);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(GENERAL - i));
    }
    const over = await post('/api/v1/org/cores', 'application/json', '{"name": "malformed"').expect(429);
    expect(over.body).toMatchObject({ status: 429, code: 'rate_limited' });
    // Nothing was created or searched: the creation budget is untouched.
    const usage = await t.app.get(RateLimitService).usage(org.orgId, [org.keyId]);
    expect(usage.general[org.keyId]).toMatchObject({ used: GENERAL });
    expect(usage.create.used).toBe(0);
  });

  it("counts MCP requests against the key's general budget", async () => {
    const org = await createOrgWithKey(t.app);
    for (let i = 0; i < GENERAL; i++) {
      const res = await request(t.app.getHttpServer())
        .post('/mcp')
        .set('Authorization', `Bearer ${org.key}`)
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: i, method: 'ping' });
      expect(res.status).not.toBe(429);
    }
    await me(org.key).expect(429);
  });

  it('leaves public routes unthrottled', async () => {
    const res = await request(t.app.getHttpServer()).get('/health/live').expect(200);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

function countFiles(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    n += entry.isDirectory() ? countFiles(join(dir, entry.name)) : 1;
  }
  return n;
}

describe('rate limits: creation and search budgets per organization (e2e)', () => {
  let t: TestApp;
  let fixture: HttpsFixture;
  let png: string;

  beforeAll(async () => {
    fixture = await startHttpsFixture();
    t = await startTestApp({ IMAGE_FETCH_ALLOWED_HOSTS: 'localhost', RATE_LIMIT_SEARCH_PER_MIN: '3' });
    png = `data:image/png;base64,${(await fixtureImages()).redPng.toString('base64')}`;
  });
  afterAll(async () => {
    await t.close();
    await fixture.close();
  });

  const http = () => request(t.app.getHttpServer());
  const create = (key: string, body: object) =>
    http().post('/api/v1/org/cores').set('Authorization', `Bearer ${key}`).send(body);
  const total = async (key: string) =>
    (await http().get('/api/v1/org/cores').set('Authorization', `Bearer ${key}`).expect(200)).body
      .total as number;

  it('admits exactly 5 creates a minute; a refused create fetches nothing, stores nothing, writes nothing', async () => {
    const org = await createOrgWithKey(t.app);
    for (let i = 1; i <= 5; i++) {
      const res = await create(org.key, { name: `c${i}`, images: [png] }).expect(202);
      expect(res.headers['x-ratelimit-limit-create']).toBe('5');
      expect(res.headers['x-ratelimit-remaining-create']).toBe(String(5 - i));
      expect(res.headers['x-ratelimit-limit']).toBe('120');
    }
    const objects = countFiles(t.config.storage.dir);
    const hits = fixture.hits.length;
    const res = await create(org.key, { name: 'refused', imageUrls: [`${fixture.origin}/red.png`] }).expect(
      429,
    );
    expect(res.body).toMatchObject({ status: 429, code: 'rate_limited', reason: 'rate_limited' });
    expect(res.body.message).toMatch(/^Rate limit exceeded: try again in \d+ seconds?\.$/);
    const seconds = Number(/in (\d+) second/.exec(res.body.message)?.[1]);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(res.headers['retry-after']).toBe(String(seconds));
    expect(res.headers['x-ratelimit-remaining-create']).toBe('0');
    expect(res.headers['x-ratelimit-reset-create']).toBe(String(seconds));
    expect(fixture.hits.length).toBe(hits);
    expect(countFiles(t.config.storage.dir)).toBe(objects);
    expect(await total(org.key)).toBe(5);
  });

  it('rejects before reading the body: an invalid body over the limit is 429, not 400', async () => {
    const org = await createOrgWithKey(t.app);
    for (let i = 0; i < 5; i++) await create(org.key, { name: `c${i}`, images: [png] }).expect(202);
    await create(org.key, { nope: true }).expect(429);
  });

  it('shares the creation budget between the keys of an organization, each key keeping its own general budget', async () => {
    const org = await createOrgWithKey(t.app);
    const second = await createKeyForOrg(t.app, org.orgId);
    for (let i = 0; i < 5; i++) await create(org.key, { name: `c${i}`, images: [png] }).expect(202);
    const res = await create(second.key, { name: 'second key', images: [png] }).expect(429);
    expect(res.headers['x-ratelimit-remaining']).toBe('119');
    const other = await createOrgWithKey(t.app);
    await create(other.key, { name: 'other org', images: [png] }).expect(202);
  });

  it('charges an image-replacing PATCH one creation unit (429 with the create headers), a rename none', async () => {
    const org = await createOrgWithKey(t.app);
    const auth = { Authorization: `Bearer ${org.key}` };
    const { coreId } = (await create(org.key, { name: 'c', images: [png] }).expect(202)).body as {
      coreId: string;
    };
    for (let i = 1; i <= 4; i++) {
      const res = await http()
        .patch(`/api/v1/org/cores/${coreId}`)
        .set(auth)
        .send({ images: [png] })
        .expect(200);
      expect(res.headers['x-ratelimit-limit-create']).toBe('5');
      expect(res.headers['x-ratelimit-remaining-create']).toBe(String(4 - i));
    }
    const urls = async () =>
      (
        (await http().get(`/api/v1/org/cores/${coreId}`).set(auth).expect(200)).body as {
          images: { imageURL: string }[];
        }
      ).images.map((i) => i.imageURL);
    const before = await urls();
    const hits = fixture.hits.length;
    const refused = await http()
      .patch(`/api/v1/org/cores/${coreId}`)
      .set(auth)
      .send({ imageUrls: [`${fixture.origin}/red.png`] })
      .expect(429);
    expect(refused.body).toMatchObject({ status: 429, code: 'rate_limited', reason: 'rate_limited' });
    expect(refused.body.message).toMatch(/try again in \d+ seconds?/);
    expect(refused.headers['x-ratelimit-remaining-create']).toBe('0');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(fixture.hits.length).toBe(hits);
    expect(await urls()).toEqual(before);
    const rename = await http()
      .patch(`/api/v1/org/cores/${coreId}`)
      .set(auth)
      .send({ name: 'renamed while the budget is spent' })
      .expect(200);
    expect(rename.headers['x-ratelimit-limit-create']).toBeUndefined();
  });

  it('admits exactly 5 of 50 simultaneous creates', async () => {
    const org = await createOrgWithKey(t.app);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => create(org.key, { name: `p${i}`, images: [png] })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(45);
    expect(await total(org.key)).toBe(5);
    const usage = await t.app.get(RateLimitService).usage(org.orgId, [org.keyId]);
    expect(usage.create).toMatchObject({ limit: 5, used: 5, remaining: 0 });
    expect(usage.search).toMatchObject({ limit: 3, used: 0, remaining: 3, resetSeconds: 0 });
    expect(usage.general[org.keyId]).toMatchObject({ limit: 120, used: 51 });
  });

  it('shares counters between two API processes on the same Redis', async () => {
    const t2 = await startTestApp({ IMAGE_FETCH_ALLOWED_HOSTS: 'localhost', ROLE: 'api' });
    try {
      const org = await createOrgWithKey(t.app);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          request((i % 2 === 0 ? t : t2).app.getHttpServer())
            .post('/api/v1/org/cores')
            .set('Authorization', `Bearer ${org.key}`)
            .send({ name: `two-${i}`, images: [png] }),
        ),
      );
      expect(results.filter((r) => r.status === 202)).toHaveLength(5);
      expect(results.filter((r) => r.status === 429)).toHaveLength(15);
      expect(await total(org.key)).toBe(5);
    } finally {
      await t2.close();
    }
  });

  it('admits exactly the search limit per organization, counting searches of missing cores too', async () => {
    const org = await createOrgWithKey(t.app);
    const search = (key: string, id: string) =>
      http().post(`/api/v1/org/cores/${id}/products`).set('Authorization', `Bearer ${key}`).send({});
    for (let i = 1; i <= 3; i++) {
      const res = await search(org.key, 'no-such-core').expect(404);
      expect(res.headers['x-ratelimit-limit-search']).toBe('3');
      expect(res.headers['x-ratelimit-remaining-search']).toBe(String(3 - i));
    }
    const res = await search(org.key, 'no-such-core').expect(429);
    expect(res.body.message).toMatch(/^Rate limit exceeded: try again in \d+ seconds?\.$/);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    const second = await createKeyForOrg(t.app, org.orgId);
    await search(second.key, 'no-such-core').expect(429);
    // Creation is a separate budget.
    await create(org.key, { name: 'still allowed', images: [png] }).expect(202);
  });
});

describe('rate limits: both budgets of a request in one Redis round trip (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_GENERAL_PER_MIN: '10', RATE_LIMIT_SEARCH_PER_MIN: '4' });
  });
  afterAll(() => t.close());

  it('admits exactly 4 of 30 parallel searches: 6 refused by the search budget, 20 by the general one', async () => {
    const org = await createOrgWithKey(t.app);
    const redis = t.app.get<Redis & { rateLimitHit(...args: unknown[]): Promise<number[]> }>(REDIS);
    const original = redis.rateLimitHit.bind(redis);
    let calls = 0;
    redis.rateLimitHit = (...args: unknown[]) => {
      calls += 1;
      return original(...args);
    };
    try {
      const results = await Promise.all(
        Array.from({ length: 30 }, () =>
          request(t.app.getHttpServer())
            .post('/api/v1/org/cores/no-such-core/products')
            .set('Authorization', `Bearer ${org.key}`)
            .send({}),
        ),
      );
      // Admitted by both budgets: the search of a missing core is a 404.
      expect(results.filter((r) => r.status === 404)).toHaveLength(4);
      const refused = results.filter((r) => r.status === 429);
      // Refused by the search budget: admitted (and counted) by the general one, with both headers.
      const bySearch = refused.filter((r) => r.headers['x-ratelimit-limit-search'] === '4');
      expect(bySearch).toHaveLength(6);
      for (const r of bySearch) {
        expect(r.headers['x-ratelimit-remaining-search']).toBe('0');
        expect(r.headers['retry-after']).toBe(r.headers['x-ratelimit-reset-search']);
      }
      // Refused by the general budget: the search budget is neither checked nor charged.
      const byGeneral = refused.filter((r) => r.headers['x-ratelimit-limit-search'] === undefined);
      expect(byGeneral).toHaveLength(20);
      for (const r of byGeneral) expect(r.headers['x-ratelimit-remaining']).toBe('0');
      // One script call per request, whatever the number of budgets it draws from.
      expect(calls).toBe(30);
    } finally {
      redis.rateLimitHit = original;
    }
    const usage = await t.app.get(RateLimitService).usage(org.orgId, [org.keyId]);
    expect(usage.search).toMatchObject({ limit: 4, used: 4, remaining: 0 });
    expect(usage.general[org.keyId]).toMatchObject({ limit: 10, used: 10, remaining: 0 });
  });
});
