import request from 'supertest';
import { startTestApp, createOrgWithKey, TestApp, OrgWithKey } from '../support/app';

describe('error contract (e2e)', () => {
  let t: TestApp;
  let org: OrgWithKey;

  beforeAll(async () => {
    t = await startTestApp({ BODY_LIMIT: '1kb' });
    org = await createOrgWithKey(t.app);
  });
  afterAll(() => t.close());

  const http = () => request(t.app.getHttpServer());
  const expectErrorBody = (body: unknown, status: number) => {
    expect(body).toEqual(expect.objectContaining({ status, message: expect.any(String) }));
    expect(Object.keys(body as object).sort()).toEqual(expect.arrayContaining(['message', 'status']));
  };

  it('404 on an unknown route outside the API, with the error body', async () => {
    const res = await http().get('/no/such/thing').expect(404);
    expectErrorBody(res.body, 404);
    expect(res.headers['content-type']).toMatch(/application\/json/);
  });

  it('405 with Allow for a method a path does not answer, after authentication; 404 for an unknown path', async () => {
    const auth = (r: request.Test) => r.set('Authorization', `Bearer ${org.key}`);
    const list = await auth(http().delete('/api/v1/org/cores')).expect(405);
    expectErrorBody(list.body, 405);
    expect(list.body.code).toBe('method_not_allowed');
    expect(list.body.message).toBe('DELETE is not allowed on /api/v1/org/cores; it allows GET, HEAD, POST.');
    expect(list.body.requestId).toBe(list.headers['x-request-id']);
    expect(list.headers.allow).toBe('GET, HEAD, POST');
    expect(list.headers['content-type']).toMatch(/application\/json/);

    // Any id: the route's path, whatever the core (its own 404 needs the method the route answers).
    const core = await auth(http().put('/api/v1/org/cores/00000000-0000-4000-8000-000000000000')).expect(405);
    expect(core.headers.allow).toBe('DELETE, GET, HEAD, PATCH');
    const search = await auth(http().get('/api/v1/org/cores/some-id/products')).expect(405);
    expect(search.headers.allow).toBe('POST');

    // Authentication still comes first, and a path no route has stays a 404 without Allow.
    await http().delete('/api/v1/org/cores').expect(401);
    const unknown = await auth(http().delete('/api/v1/org/nothing-here')).expect(404);
    expect(unknown.headers.allow).toBeUndefined();
    // A route's own 404 is not turned into a 405.
    const missing = await auth(http().get('/api/v1/org/cores/00000000-0000-4000-8000-000000000000')).expect(
      404,
    );
    expect(missing.headers.allow).toBeUndefined();
  });

  it('400 on malformed JSON, with the error body and a request id', async () => {
    const res = await http()
      .post('/api/v1/org/cores')
      .set('Authorization', `Bearer ${org.key}`)
      .set('Content-Type', 'application/json')
      .send('{"name": ')
      .expect(400);
    expectErrorBody(res.body, 400);
    expect(res.body.requestId).toBe(res.headers['x-request-id']);
  });

  it('401 for an anonymous body over the limit (authentication first), 413 with a key', async () => {
    const anonymous = await http()
      .post('/api/v1/org/cores')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ blob: 'x'.repeat(4096) }))
      .expect(401);
    expectErrorBody(anonymous.body, 401);
    const res = await http()
      .post('/api/v1/org/cores')
      .set('Authorization', `Bearer ${org.key}`)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ blob: 'x'.repeat(4096) }))
      .expect(413);
    expectErrorBody(res.body, 413);
  });

  it('keeps a safe caller-provided X-Request-Id and replaces an unsafe one', async () => {
    const ok = await http().get('/health/live').set('X-Request-Id', 'abc-123').expect(200);
    expect(ok.headers['x-request-id']).toBe('abc-123');
    const bad = await http().get('/health/live').set('X-Request-Id', 'a b<script>').expect(200);
    expect(bad.headers['x-request-id']).not.toBe('a b<script>');
  });

  it('health endpoints need no key; ready checks postgres and redis', async () => {
    await http().get('/health/live').expect(200, { status: 'ok' });
    const res = await http().get('/health/ready').expect(200);
    expect(res.body.details).toEqual(
      expect.objectContaining({
        postgres: expect.objectContaining({ status: 'up' }),
        redis: { status: 'up' },
      }),
    );
  });

  it('serves the OpenAPI document and Swagger UI', async () => {
    const doc = await http().get('/api/docs-json').expect(200);
    expect(doc.body.paths['/api/v1/org/me'].get.operationId).toBe('getMe');
    expect(doc.body.components.securitySchemes.bearer).toEqual(expect.objectContaining({ scheme: 'bearer' }));
    const ui = await http().get('/api/docs').expect(200);
    expect(ui.text).toContain('swagger-ui');
  });
});
