import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import request from 'supertest';
import { CatalogueImportService } from '../../src/products/catalogue-import.service';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { assertMatchesContract } from '../support/contract';
import { colourPng, createReadyCore } from '../support/cores';

/** A price no other suite's catalogue uses: the search filtered to it sees exactly our products. */
const PRICE = 9871.37;
const COUNT = 15;

describe('excludeIds in product search (e2e)', () => {
  let t: TestApp;
  let org: OrgWithKey;
  let coreId: string;
  const ids = Array.from({ length: COUNT }, (_, i) => `excl-${process.pid}-${String(i).padStart(2, '0')}`);

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_GENERAL_PER_MIN: '1000', RATE_LIMIT_SEARCH_PER_MIN: '1000' });
    async function* feed() {
      let line = 1;
      for (const [i, id] of ids.entries()) {
        yield {
          line: ++line,
          row: {
            id,
            title: `Camel wool coat ${i}`,
            brand: `Maker ${i % 5}`,
            price: `${PRICE} USD`,
            link: `https://shop.example.com/${id}`,
            image_link: `https://cdn.example.com/${id}.jpg`,
            gender: 'unisex',
            color: 'camel',
            product_type: i % 2 ? 'Coats' : 'Jackets',
          },
        };
      }
    }
    const summary = await t.app.get(CatalogueImportService).importRows(feed());
    expect(summary.rejected).toBe(0);
    org = await createOrgWithKey(t.app);
    const camel = await colourPng('#c19a6b', 64);
    ({ coreId } = await createReadyCore(t, org, { name: 'Camel', images: [camel, camel] }));
  }, 240000);
  afterAll(() => t.close());

  const search = (body: unknown) =>
    request(t.app.getHttpServer())
      .post(`/api/v1/org/cores/${coreId}/products`)
      .set('Authorization', `Bearer ${org.key}`)
      .send(body as object);
  const window = { minPrice: PRICE, maxPrice: PRICE };
  const idsOf = (body: { products: { id: string }[] }) => body.products.map((p) => p.id);

  it('pages through the matches without repeats: 10, then the remaining 5, then none', async () => {
    const first = await search(window).expect(200);
    assertMatchesContract('post', `/api/v1/org/cores/${coreId}/products`, 200, first.body);
    const page1 = idsOf(first.body);
    expect(page1).toHaveLength(10);
    const page2 = idsOf((await search({ ...window, excludeIds: page1 }).expect(200)).body);
    expect(page2).toHaveLength(COUNT - 10);
    expect(page2.filter((id) => page1.includes(id))).toEqual([]);
    expect([...page1, ...page2].sort()).toEqual(ids);
    const page3 = await search({ ...window, excludeIds: [...page1, ...page2] }).expect(200);
    expect(page3.body.products).toEqual([]);
  });

  it('returns the best of the remaining: excluding the top 3 moves the 4th to the top', async () => {
    const all = idsOf((await search(window).expect(200)).body);
    const rest = idsOf((await search({ ...window, excludeIds: all.slice(0, 3) }).expect(200)).body);
    expect(rest).toHaveLength(10);
    // The ranking is the same; diversity caps may reorder within the page.
    expect(rest[0]).toBe(all[3]);
    expect(rest.filter((id) => all.slice(0, 3).includes(id))).toEqual([]);
    expect(all.slice(3).every((id) => rest.includes(id))).toBe(true);
  });

  it('ignores unknown ids', async () => {
    const plain = idsOf((await search(window).expect(200)).body);
    const unknown = Array.from({ length: 100 }, (_, i) => `no-such-product-${i}`);
    expect(idsOf((await search({ ...window, excludeIds: unknown }).expect(200)).body)).toEqual(plain);
    expect(idsOf((await search({ ...window, excludeIds: [] }).expect(200)).body)).toEqual(plain);
  });

  it('400 for a non-array, more than 100 ids or a non-string id', async () => {
    const cases: [unknown, RegExp][] = [
      ['excl-1', /excludeIds must be an array/],
      [null, /excludeIds must be an array/],
      [{ id: 'x' }, /excludeIds must be an array/],
      [Array.from({ length: 101 }, (_, i) => `id-${i}`), /excludeIds must contain no more than 100 elements/],
      [['ok', 7], /each value in excludeIds must be a string/],
      [[null], /each value in excludeIds must be a string/],
    ];
    for (const [excludeIds, message] of cases) {
      const res = await search({ excludeIds });
      expect({ excludeIds, status: res.status }).toEqual({ excludeIds, status: 400 });
      assertMatchesContract('post', `/api/v1/org/cores/${coreId}/products`, 400, res.body);
      expect(res.body.message).toMatch(message);
    }
  });

  it('MCP search_products honours and validates excludeIds', async () => {
    const client = new Client({ name: 'e2e-exclude', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', t.baseUrl), {
        requestInit: { headers: { Authorization: `Bearer ${org.key}` } },
      }),
    );
    try {
      type Result = {
        structuredContent?: { products?: { id: string }[] };
        isError?: boolean;
        content?: { text?: string }[];
      };
      const call = (args: Record<string, unknown>) =>
        client.callTool({
          name: 'search_products',
          arguments: { coreId, ...window, ...args },
        }) as Promise<Result>;
      const page1 = ((await call({})).structuredContent?.products ?? []).map((p) => p.id);
      expect(page1).toHaveLength(10);
      const second = await call({ excludeIds: page1 });
      expect(second.isError).toBeFalsy();
      const page2 = (second.structuredContent?.products ?? []).map((p) => p.id);
      expect(page2).toHaveLength(COUNT - 10);
      expect(page2.filter((id) => page1.includes(id))).toEqual([]);
      const bad = await call({ excludeIds: 'nope' });
      expect(bad.isError).toBe(true);
      expect((bad.content ?? []).map((c) => c.text).join('')).toMatch(/excludeIds must be an array/);
      const tools = await client.listTools();
      const search = tools.tools.find((tool) => tool.name === 'search_products');
      expect(Object.keys(search?.inputSchema.properties ?? {})).toContain('excludeIds');
      const create = tools.tools.find((tool) => tool.name === 'create_core');
      expect(Object.keys(create?.inputSchema.properties ?? {})).toContain('idempotencyKey');
    } finally {
      await client.close();
    }
  });
});
