import request from 'supertest';
import { api, ApiResponse } from '../support/api';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { documentedHeadersMissing } from '../support/contract';
import { colourPng, createReadyCore } from '../support/cores';

/**
 * The response headers of the contract are the ones the service sends: every API header a response
 * carries is documented (checked on every call of `api()`), and here every documented one is there.
 */
describe('response headers (e2e)', () => {
  let t: TestApp;
  let org: OrgWithKey;
  let coreId: string;

  beforeAll(async () => {
    t = await startTestApp();
    org = await createOrgWithKey(t.app);
    ({ coreId } = await createReadyCore(t, org, { name: 'Headers', images: [await colourPng('#8a5a44')] }));
  });
  afterAll(() => t.close());

  it('sends every documented header: request id, the budgets that counted, WWW-Authenticate', async () => {
    const A = api(t, org.key);
    const missing = (method: string, path: string, res: ApiResponse) =>
      documentedHeadersMissing(method, path, res.status, res.headers);

    expect(missing('get', '/api/v1/org/me', await A.get('/api/v1/org/me'))).toEqual([]);
    const anonymous = await api(t, null).get('/api/v1/org/me');
    expect(anonymous.status).toBe(401);
    expect(missing('get', '/api/v1/org/me', anonymous)).toEqual([]);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer');

    const created = await A.post('/api/v1/org/cores', { name: 'More', images: [await colourPng('#445566')] });
    expect(created.status).toBe(202);
    // Idempotent-Replayed is sent on a replay only.
    expect(missing('post', '/api/v1/org/cores', created)).toEqual(['idempotent-replayed']);
    const search = `/api/v1/org/cores/${coreId}/products`;
    const found = await A.post(search, {});
    expect(found.status).toBe(200);
    expect(missing('post', search, found)).toEqual([]);
    const job = `/api/v1/org/jobs/${String(created.body.jobId)}`;
    expect(missing('get', job, await A.get(job))).toEqual([]);

    // A request id given by the caller (safe to log) is the one answered.
    const given = await request(t.app.getHttpServer())
      .get('/api/v1/org/me')
      .set('Authorization', `Bearer ${org.key}`)
      .set('X-Request-Id', 'trace-4711');
    expect(given.headers['x-request-id']).toBe('trace-4711');
  });

  it('an admitted search that fails still reports the search budget it used', async () => {
    const path = '/api/v1/org/cores/00000000-0000-4000-8000-000000000000/products';
    const res = await api(t, org.key).post(path, {});
    expect(res.status).toBe(404);
    expect(res.headers['x-ratelimit-remaining-search']).toMatch(/^\d+$/);
  });
});
