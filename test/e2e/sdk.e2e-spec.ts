import { createTasteClient } from '../../sdk';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { colourPng } from '../support/cores';

/** The whole lifecycle through the generated SDK only: create → poll → search → patch → delete. */
describe('generated TypeScript SDK (e2e)', () => {
  let t: TestApp;
  let org: OrgWithKey;
  beforeAll(async () => {
    t = await startTestApp();
    org = await createOrgWithKey(t.app);
  });
  afterAll(() => t.close());

  it('drives a core through its lifecycle', async () => {
    const client = createTasteClient(t.baseUrl, org.key);
    const me = await client.GET('/api/v1/org/me');
    expect(me.data?.organization.id).toBe(org.orgId);

    const created = await client.POST('/api/v1/org/cores', {
      body: { name: 'SDK capsule', images: [await colourPng('#c19a6b')] },
    });
    expect(created.response.status).toBe(202);
    const coreId = created.data?.coreId as string;
    const jobId = created.data?.jobId as string;

    let status = created.data?.coreStatus;
    const deadline = Date.now() + 30000;
    while (status === 'processing' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      const job = await client.GET('/api/v1/org/jobs/{jobId}', { params: { path: { jobId } } });
      status = job.data?.jobStatus;
    }
    expect(status).toBe('ready');
    const core = await client.GET('/api/v1/org/cores/{id}', { params: { path: { id: coreId } } });
    expect(core.data?.coreStatus).toBe('ready');
    expect(core.data?.taste).toEqual(expect.any(String));

    const search = await client.POST('/api/v1/org/cores/{id}/products', {
      params: { path: { id: coreId } },
      body: { gender: 'women', maxPrice: 500 },
    });
    expect(search.response.status).toBe(200);
    expect(search.data?.coreName).toBe('SDK capsule');
    expect(Array.isArray(search.data?.products)).toBe(true);
    expect(search.data?.products.length).toBeLessThanOrEqual(10);

    const renamed = await client.PATCH('/api/v1/org/cores/{id}', {
      params: { path: { id: coreId } },
      body: { name: 'SDK capsule, renamed' },
    });
    expect(renamed.data?.name).toBe('SDK capsule, renamed');

    const missing = await client.GET('/api/v1/org/cores/{id}', {
      params: { path: { id: '00000000-0000-4000-8000-000000000000' } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toEqual(expect.objectContaining({ status: 404, message: expect.any(String) }));

    const deleted = await client.DELETE('/api/v1/org/cores/{id}', { params: { path: { id: coreId } } });
    expect(deleted.data).toEqual({
      status: 200,
      id: coreId,
      deleted: true,
      imagesPurged: 1,
      imagesFailed: 0,
    });
  });
});
