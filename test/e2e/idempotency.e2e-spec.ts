import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { IdempotencyService } from '../../src/idempotency/idempotency.service';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { assertMatchesContract } from '../support/contract';
import { fixtureImages } from '../support/https-fixture';

const CREATE_LIMIT = 3;
const TLS_DIR = join(__dirname, '..', 'fixtures', 'tls');

/** An HTTPS image server whose image takes `delayMs` to arrive, so a creation stays in flight meanwhile. */
async function slowImageServer(
  delayMs: number,
): Promise<{ server: Server; url: string; hits: () => number }> {
  const png = (await fixtureImages()).redPng;
  let hits = 0;
  const server = createServer(
    { key: readFileSync(join(TLS_DIR, 'server-key.pem')), cert: readFileSync(join(TLS_DIR, 'server.pem')) },
    (_req, res) => {
      hits += 1;
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
        res.end(png);
      }, delayMs);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, url: `https://localhost:${port}/slow-ok.png`, hits: () => hits };
}

describe('Idempotency-Key on POST /cores (e2e)', () => {
  let t: TestApp;
  let png: string;
  let slow: Awaited<ReturnType<typeof slowImageServer>>;

  beforeAll(async () => {
    slow = await slowImageServer(1500);
    t = await startTestApp({
      RATE_LIMIT_CREATE_PER_MIN: String(CREATE_LIMIT),
      RATE_LIMIT_GENERAL_PER_MIN: '1000',
      IMAGE_FETCH_ALLOWED_HOSTS: 'localhost',
    });
    png = `data:image/png;base64,${(await fixtureImages()).redPng.toString('base64')}`;
  });
  afterAll(async () => {
    await t.close();
    slow.server.close();
  });

  const create = (org: OrgWithKey, body: object, key?: string) => {
    let req = request(t.app.getHttpServer())
      .post('/api/v1/org/cores')
      .set('Authorization', `Bearer ${org.key}`);
    if (key !== undefined) req = req.set('Idempotency-Key', key);
    return req.send(body);
  };
  const countCores = async (org: OrgWithKey) =>
    (await request(t.app.getHttpServer()).get('/api/v1/org/cores').set('Authorization', `Bearer ${org.key}`))
      .body.total as number;

  it('replays the first response (same status and body, Idempotent-Replayed) without creating or charging', async () => {
    const org = await createOrgWithKey(t.app);
    const first = await create(org, { name: 'Once', images: [png] }, 'order-1');
    expect(first.status).toBe(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(first.headers['x-ratelimit-remaining-create']).toBe(String(CREATE_LIMIT - 1));

    // The same JSON value: key order and whitespace do not matter.
    const replay = await request(t.app.getHttpServer())
      .post('/api/v1/org/cores')
      .set('Authorization', `Bearer ${org.key}`)
      .set('Idempotency-Key', 'order-1')
      .set('Content-Type', 'application/json')
      .send(`{ "images": ["${png}"],   "name": "Once" }`);
    expect(replay.status).toBe(202);
    assertMatchesContract('post', '/api/v1/org/cores', 202, replay.body);
    expect(replay.body).toEqual(first.body);
    // Byte for byte (a client may hash it): jsonb storage had reordered the keys.
    expect(replay.text).toBe(first.text);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    // Not charged: the budget is where the first request left it.
    expect(replay.headers['x-ratelimit-remaining-create']).toBeUndefined();
    expect(await countCores(org)).toBe(1);

    // Spend the rest of the budget with new requests; the replay is still answered.
    const second = await create(org, { name: 'Two', images: [png] });
    expect(second.headers['x-ratelimit-remaining-create']).toBe(String(CREATE_LIMIT - 2));
    await create(org, { name: 'Three', images: [png] }).expect(202);
    await create(org, { name: 'Four', images: [png] }).expect(429);
    const late = await create(org, { name: 'Once', images: [png] }, 'order-1');
    expect(late.status).toBe(202);
    expect(late.body).toEqual(first.body);
    expect(late.headers['idempotent-replayed']).toBe('true');
    expect(await countCores(org)).toBe(3);

    // Keys are per organization: another organization's "order-1" is its own.
    const other = await createOrgWithKey(t.app);
    const theirs = await create(other, { name: 'Once', images: [png] }, 'order-1');
    expect(theirs.status).toBe(202);
    expect(theirs.body.coreId).not.toBe(first.body.coreId);
  });

  it('the same key with a different body: 422; a new key creates', async () => {
    const org = await createOrgWithKey(t.app);
    await create(org, { name: 'A', images: [png] }, 'k-422').expect(202);
    const res = await create(org, { name: 'B', images: [png] }, 'k-422');
    expect(res.status).toBe(422);
    assertMatchesContract('post', '/api/v1/org/cores', 422, res.body);
    expect(res.body).toMatchObject({ status: 422, code: 'unprocessable_entity' });
    expect(res.body.message).toMatch(/different request body/);
    expect(await countCores(org)).toBe(1);
  });

  it('a first request that failed is not stored: the key may be used again', async () => {
    const org = await createOrgWithKey(t.app);
    const bad = await create(
      org,
      { name: 'Bad', images: ['data:image/png;base64,bm90IGFuIGltYWdl'] },
      'k-retry',
    );
    expect(bad.status).toBe(400);
    const again = await create(
      org,
      { name: 'Bad', images: ['data:image/png;base64,bm90IGFuIGltYWdl'] },
      'k-retry',
    );
    expect(again.status).toBe(400);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    const fixed = await create(org, { name: 'Good', images: [png] }, 'k-retry');
    expect(fixed.status).toBe(202);
  });

  it('an empty, over-long or non-printable key is 400 and charges nothing', async () => {
    const org = await createOrgWithKey(t.app);
    for (const key of ['', 'k'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const res = await create(org, { name: 'X', images: [png] }, key);
      expect({ key, status: res.status }).toEqual({ key, status: 400 });
      expect(res.body.message).toMatch(/Idempotency-Key must be 1 to 255 printable ASCII characters/);
    }
    expect(await countCores(org)).toBe(0);
    const ok = await create(org, { name: 'X', images: [png] }, `~${'k'.repeat(253)} `);
    expect(ok.status).toBe(202);
    expect(ok.headers['x-ratelimit-remaining-create']).toBe(String(CREATE_LIMIT - 1));
  });

  it('two parallel requests with one key: exactly one creates, the other is 409; then it replays', async () => {
    const org = await createOrgWithKey(t.app);
    const body = { name: 'Parallel', imageUrls: [slow.url] };
    const hitsBefore = slow.hits();
    const [a, b] = await Promise.all([create(org, body, 'par-1'), create(org, body, 'par-1')]);
    expect([a.status, b.status].sort()).toEqual([202, 409]);
    const conflict = a.status === 409 ? a : b;
    const winner = a.status === 202 ? a : b;
    assertMatchesContract('post', '/api/v1/org/cores', 409, conflict.body);
    expect(conflict.body.message).toMatch(/still being processed/);
    expect(slow.hits() - hitsBefore).toBe(1); // the refused request fetched nothing
    expect(await countCores(org)).toBe(1);
    const replay = await create(org, body, 'par-1');
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual(winner.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('stores keys in PostgreSQL and deletes expired ones; an expired key creates again', async () => {
    const org = await createOrgWithKey(t.app);
    const first = await create(org, { name: 'Old', images: [png] }, 'k-expire');
    expect(first.status).toBe(202);
    const db = t.app.get(DataSource);
    const [row]: { state: string; hours: number }[] = await db.query(
      `SELECT state, round(extract(epoch FROM expires_at - created_at) / 3600) AS hours
       FROM idempotency_keys WHERE org_id = $1 AND key = $2`,
      [org.orgId, 'k-expire'],
    );
    expect(row).toEqual({ state: 'completed', hours: '24' });
    await db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE org_id = $1`, [
      org.orgId,
    ]);
    const fresh = await create(org, { name: 'Old', images: [png] }, 'k-expire');
    expect(fresh.status).toBe(202);
    expect(fresh.body.coreId).not.toBe(first.body.coreId);
    await db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE org_id = $1`, [
      org.orgId,
    ]);
    await t.app.get(IdempotencyService).sweepExpired();
    const left: unknown[] = await db.query('SELECT 1 FROM idempotency_keys WHERE org_id = $1', [org.orgId]);
    expect(left).toHaveLength(0);
  });
});

describe('MCP create_core idempotencyKey (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_GENERAL_PER_MIN: '1000', RATE_LIMIT_CREATE_PER_MIN: '2' });
  });
  afterAll(() => t.close());

  async function connect(org: OrgWithKey): Promise<Client> {
    const client = new Client({ name: 'e2e-idempotency', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', t.baseUrl), {
        requestInit: { headers: { Authorization: `Bearer ${org.key}` } },
      }),
    );
    return client;
  }
  type Result = {
    structuredContent?: Record<string, unknown>;
    isError?: boolean;
    content?: { text?: string }[];
  };
  const text = (r: Result) => (r.content ?? []).map((c) => c.text ?? '').join('\n');

  it('replays create_core with the same idempotencyKey (shared with REST), 422 for other arguments', async () => {
    const org = await createOrgWithKey(t.app);
    const png = `data:image/png;base64,${(await fixtureImages()).redPng.toString('base64')}`;
    const mcp = await connect(org);
    try {
      const call = (args: Record<string, unknown>) =>
        mcp.callTool({ name: 'create_core', arguments: args }) as Promise<Result>;
      const first = await call({ name: 'Agent core', images: [png], idempotencyKey: 'agent-1' });
      expect(first.isError).toBeFalsy();
      const again = await call({ idempotencyKey: 'agent-1', images: [png], name: 'Agent core' });
      expect(again.isError).toBeFalsy();
      expect(again.structuredContent).toEqual(first.structuredContent);
      expect(text(again)).toMatch(/already created with this idempotencyKey/);
      // REST with the same key and body replays the same core.
      const rest = await request(t.app.getHttpServer())
        .post('/api/v1/org/cores')
        .set('Authorization', `Bearer ${org.key}`)
        .set('Idempotency-Key', 'agent-1')
        .send({ name: 'Agent core', images: [png] });
      expect(rest.status).toBe(202);
      expect(rest.body.coreId).toBe(first.structuredContent?.coreId);

      const other = await call({ name: 'Other', images: [png], idempotencyKey: 'agent-1' });
      expect(other.isError).toBe(true);
      // The agent's own words: its argument and its arguments (it sent no header and no body).
      expect(text(other)).toMatch(/This idempotencyKey was already used with a different set of arguments/);
      const empty = await call({ name: 'Other', images: [png], idempotencyKey: '' });
      expect(empty.isError).toBe(true);
      expect(text(empty)).toMatch(/idempotencyKey must be 1 to 255/);
      expect(text(empty)).not.toMatch(/Idempotency-Key/);

      // One unit of the creation budget (2) was used: one more creation passes, then 429; replays still answer.
      expect((await call({ name: 'Second', images: [png] })).isError).toBeFalsy();
      expect(text(await call({ name: 'Third', images: [png] }))).toMatch(/^Rate limit exceeded/);
      const late = await call({ name: 'Agent core', images: [png], idempotencyKey: 'agent-1' });
      expect(late.isError).toBeFalsy();
      expect(late.structuredContent).toEqual(first.structuredContent);
      const total = (
        await request(t.app.getHttpServer())
          .get('/api/v1/org/cores')
          .set('Authorization', `Bearer ${org.key}`)
      ).body.total;
      expect(total).toBe(2);
    } finally {
      await mcp.close();
    }
  });
});
