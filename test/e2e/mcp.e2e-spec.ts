import { randomUUID } from 'node:crypto';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { RateLimitService } from '../../src/throttling/rate-limit.service';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { fixtureImages } from '../support/https-fixture';

interface ToolResult {
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: { error?: { status?: number; reason?: string } };
}

interface ToolInfo {
  name: string;
  description?: string;
  inputSchema: {
    properties?: Record<string, unknown>;
    required?: string[];
    additionalProperties?: boolean;
    anyOf?: unknown[];
  };
  outputSchema?: { properties?: Record<string, unknown> };
}

interface McpTestClient {
  /** The negotiated protocol revision (v2 client only). */
  protocolVersion?: string;
  listTools(): Promise<ToolInfo[]>;
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

type ClientKind = 'client v2 (2026-07-28)' | 'client v2 (2025 handshake)' | 'sdk v1 client';

async function connect(kind: ClientKind, baseUrl: string, key: string): Promise<McpTestClient> {
  const url = new URL('/mcp', baseUrl);
  const requestInit = { headers: { Authorization: `Bearer ${key}` } };
  if (kind === 'sdk v1 client') {
    const client = new ClientV1({ name: 'e2e-v1', version: '1.0.0' });
    await client.connect(new TransportV1(url, { requestInit }));
    return {
      listTools: async () => (await client.listTools()).tools as ToolInfo[],
      call: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
      close: () => client.close(),
    };
  }
  const client = new ClientV2(
    { name: 'e2e-v2', version: '1.0.0' },
    kind === 'client v2 (2026-07-28)' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  await client.connect(new TransportV2(url, { requestInit }));
  return {
    protocolVersion: client.getNegotiatedProtocolVersion(),
    listTools: async () => (await client.listTools()).tools as ToolInfo[],
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
    close: () => client.close(),
  };
}

const text = (r: ToolResult) => (r.content ?? []).map((c) => c.text ?? '').join('\n');
const RATE_LIMITED = /^Rate limit exceeded: try again in \d+ seconds?\.$/;

describe('MCP server at POST /mcp (e2e)', () => {
  let t: TestApp;
  let png: string;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_GENERAL_PER_MIN: '1000' });
    png = `data:image/png;base64,${(await fixtureImages()).redPng.toString('base64')}`;
  });
  afterAll(() => t.close());

  const http = () => request(t.app.getHttpServer());
  const restCreate = (org: OrgWithKey, body: object) =>
    http().post('/api/v1/org/cores').set('Authorization', `Bearer ${org.key}`).send(body);

  it('requires an API key (401 with WWW-Authenticate: Bearer)', async () => {
    const res = await http()
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
      .expect(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.body).toMatchObject({ status: 401, message: expect.any(String) });
  });

  it('refuses a foreign browser Origin and other methods than POST', async () => {
    const org = await createOrgWithKey(t.app);
    const res = await http()
      .post('/mcp')
      .set('Authorization', `Bearer ${org.key}`)
      .set('Origin', 'https://evil.example')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
      .expect(403);
    expect(res.body).toMatchObject({ status: 403 });
    const get = await http().get('/mcp').set('Authorization', `Bearer ${org.key}`).expect(405);
    expect(get.headers.allow).toBe('POST');
  });

  describe.each<ClientKind>(['client v2 (2026-07-28)', 'client v2 (2025 handshake)', 'sdk v1 client'])(
    'with the %s',
    (kind) => {
      let org: OrgWithKey;
      let mcp: McpTestClient;

      beforeAll(async () => {
        org = await createOrgWithKey(t.app);
        mcp = await connect(kind, t.baseUrl, org.key);
      });
      afterAll(() => mcp.close());

      it('lists create_core, get_core and search_products with descriptions and schemas', async () => {
        if (kind === 'client v2 (2026-07-28)') expect(mcp.protocolVersion).toBe('2026-07-28');
        if (kind === 'client v2 (2025 handshake)') expect(mcp.protocolVersion).toMatch(/^2025-/);
        const tools = await mcp.listTools();
        const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
        expect(Object.keys(byName).sort()).toEqual(['create_core', 'get_core', 'search_products']);
        expect(Object.keys(byName.create_core.inputSchema.properties ?? {}).sort()).toEqual([
          'idempotencyKey',
          'imageUrls',
          'images',
          'name',
        ]);
        expect(byName.create_core.inputSchema.required).toEqual(['name']);
        // What the handler refuses, the schema says: other properties, and a call without images.
        expect(byName.create_core.inputSchema).toMatchObject({
          additionalProperties: false,
          anyOf: [{ required: ['images'] }, { required: ['imageUrls'] }],
        });
        for (const tool of tools) expect(tool.inputSchema).toMatchObject({ additionalProperties: false });
        expect(Object.keys(byName.search_products.inputSchema.properties ?? {}).sort()).toEqual([
          'coreId',
          'excludeIds',
          'gender',
          'maxPrice',
          'minPrice',
          'query',
        ]);
        for (const tool of tools) {
          expect(tool.description?.length).toBeGreaterThan(40);
          expect(tool.outputSchema?.properties).toBeDefined();
        }
      });

      it('creates a core, polls it with get_core until ready, then searches products', async () => {
        const created = await mcp.call('create_core', { name: `MCP ${kind}`, images: [png] });
        expect(created.isError).toBeFalsy();
        expect(created.structuredContent).toEqual({
          coreId: expect.any(String),
          jobId: expect.any(String),
          coreStatus: 'processing',
        });
        const coreId = String(created.structuredContent?.coreId);
        expect(text(created)).toContain(coreId);

        const deadline = Date.now() + 30_000;
        let core: ToolResult;
        for (;;) {
          core = await mcp.call('get_core', { coreId });
          expect(core.isError).toBeFalsy();
          if (core.structuredContent?.coreStatus !== 'processing' || Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 300));
        }
        expect(core.structuredContent).toMatchObject({
          id: coreId,
          coreStatus: 'ready',
          taste: expect.any(String),
        });
        const rest = await http()
          .get(`/api/v1/org/cores/${coreId}`)
          .set('Authorization', `Bearer ${org.key}`);
        const { status: _status, ...restCore } = rest.body as Record<string, unknown>;
        // The REST core, plus the list of model-written (untrusted) fields.
        expect(core.structuredContent).toEqual({
          ...restCore,
          untrustedFields: ['taste', 'styleAttributes', 'tags', 'images[].caption'],
        });

        const found = await mcp.call('search_products', {
          coreId,
          query: 'coat',
          gender: 'women',
          maxPrice: 1000,
        });
        expect(found.isError).toBeFalsy();
        expect(found.structuredContent).toMatchObject({ coreName: `MCP ${kind}`, query: 'coat' });
        expect(Array.isArray(found.structuredContent?.products)).toBe(true);
        expect((found.structuredContent?.products as unknown[]).length).toBeLessThanOrEqual(10);
      });

      it('reports 404, validation and 409 failures as tool errors with the REST messages', async () => {
        const missing = await mcp.call('get_core', { coreId: 'no-such-core' });
        expect(missing.isError).toBe(true);
        const rest404 = await http()
          .get('/api/v1/org/cores/no-such-core')
          .set('Authorization', `Bearer ${org.key}`);
        expect(text(missing)).toBe(rest404.body.message);
        expect(missing._meta?.error).toEqual({ status: 404 });

        const invalid = await mcp.call('create_core', { name: '', images: ['not-a-data-url'] });
        expect(invalid.isError).toBe(true);
        const rest400 = await restCreate(org, { name: '', images: ['not-a-data-url'] }).expect(400);
        expect(text(invalid)).toBe(rest400.body.message);

        const prices = await mcp.call('search_products', {
          coreId: 'no-such-core',
          minPrice: 50,
          maxPrice: 10,
        });
        expect(prices.isError).toBe(true);
        expect(text(prices)).toMatch(/minPrice must not exceed maxPrice/);

        // Created through an API-only app with a queue of its own, so it stays processing.
        const apiOnly = await startTestApp({ ROLE: 'api' });
        const created = await request(apiOnly.app.getHttpServer())
          .post('/api/v1/org/cores')
          .set('Authorization', `Bearer ${org.key}`)
          .send({ name: 'not ready yet', images: [png] })
          .expect(202);
        await apiOnly.close();
        const coreId = String(created.body.coreId);
        const early = await mcp.call('search_products', { coreId });
        expect(early.isError).toBe(true);
        expect(text(early)).toMatch(/has no ready taste profile/);
        // An agent has the tools, not the REST routes.
        expect(text(early)).toMatch(
          /call get_core until coreStatus is "ready", then call search_products again/,
        );
        expect(text(early)).not.toMatch(/GET \/api/);
        expect(early._meta?.error).toEqual({ status: 409, reason: 'core_not_ready' });
      });
    },
  );

  it('shares the creation budget with REST: 5 REST creates, then create_core is refused with the seconds', async () => {
    const org = await createOrgWithKey(t.app);
    for (let i = 0; i < 5; i++) await restCreate(org, { name: `rest ${i}`, images: [png] }).expect(202);
    const mcp = await connect('client v2 (2026-07-28)', t.baseUrl, org.key);
    try {
      const refused = await mcp.call('create_core', { name: 'one too many', images: [png] });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(RATE_LIMITED);
      expect(refused._meta?.error).toEqual({ status: 429, reason: 'rate_limited' });
      const list = await http()
        .get('/api/v1/org/cores')
        .set('Authorization', `Bearer ${org.key}`)
        .expect(200);
      expect(list.body.total).toBe(5);
    } finally {
      await mcp.close();
    }
  });

  it('shares the creation budget the other way: 5 create_core calls, then POST /cores is 429', async () => {
    const org = await createOrgWithKey(t.app);
    const mcp = await connect('sdk v1 client', t.baseUrl, org.key);
    try {
      for (let i = 0; i < 5; i++) {
        const r = await mcp.call('create_core', { name: `mcp ${i}`, images: [png] });
        expect(r.isError).toBeFalsy();
      }
      const res = await restCreate(org, { name: 'one too many', images: [png] }).expect(429);
      expect(res.body.message).toMatch(RATE_LIMITED);
      const again = await mcp.call('create_core', { name: 'still too many', images: [png] });
      expect(text(again)).toMatch(RATE_LIMITED);
    } finally {
      await mcp.close();
    }
  });

  it('shares the search budget with REST both ways, and a refused search is not charged', async () => {
    const search = (org: OrgWithKey, id: string) =>
      http().post(`/api/v1/org/cores/${id}/products`).set('Authorization', `Bearer ${org.key}`).send({});
    const missing = randomUUID();

    // 20 REST searches (of a missing core: they count too), then search_products is refused.
    const restFirst = await createOrgWithKey(t.app);
    for (let i = 0; i < 20; i++) await search(restFirst, missing).expect(404);
    let mcp = await connect('client v2 (2026-07-28)', t.baseUrl, restFirst.key);
    try {
      const refused = await mcp.call('search_products', { coreId: missing });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(RATE_LIMITED);
    } finally {
      await mcp.close();
    }
    const usage = await t.app.get(RateLimitService).usage(restFirst.orgId, []);
    expect(usage.search).toMatchObject({ limit: 20, used: 20 });

    // 20 search_products calls, then the REST search is 429.
    const mcpFirst = await createOrgWithKey(t.app);
    mcp = await connect('sdk v1 client', t.baseUrl, mcpFirst.key);
    try {
      for (let i = 0; i < 20; i++) {
        const r = await mcp.call('search_products', { coreId: missing });
        expect(text(r)).not.toMatch(RATE_LIMITED);
      }
    } finally {
      await mcp.close();
    }
    const res = await search(mcpFirst, missing).expect(429);
    expect(res.body.message).toMatch(RATE_LIMITED);
  });
});
