import request from 'supertest';
import { startTestApp, createOrgWithKey, createKeyForOrg, TestApp, OrgWithKey } from '../support/app';
import { generateApiKey } from '../../src/auth/api-key.format';
import { assertMatchesContract } from '../support/contract';

describe('authentication and GET /api/v1/org/me (e2e)', () => {
  let t: TestApp;
  let org: OrgWithKey;

  beforeAll(async () => {
    t = await startTestApp();
    org = await createOrgWithKey(t.app, 'Acme Auth');
  });
  afterAll(() => t.close());

  const http = () => request(t.app.getHttpServer());

  it('returns the organization and key (never the key itself) for a valid key', async () => {
    const res = await http().get('/api/v1/org/me').set('Authorization', `Bearer ${org.key}`).expect(200);
    assertMatchesContract('get', '/api/v1/org/me', 200, res.body);
    expect(res.body).toEqual({
      status: 200,
      organization: { id: org.orgId, name: 'Acme Auth' },
      apiKey: { id: org.keyId, name: 'test', prefix: org.key.slice(0, 12), createdAt: expect.any(String) },
    });
    expect(JSON.stringify(res.body)).not.toContain(org.key);
    expect(res.headers['x-request-id']).toMatch(/.+/);
  });

  it.each([
    ['no Authorization header', undefined, 'api_key_missing'],
    ['a non-bearer scheme', `Basic ${Buffer.from('a:b').toString('base64')}`, 'api_key_missing'],
    ['an empty bearer', 'Bearer ', 'api_key_missing'],
    ['a malformed key', 'Bearer not-a-key', 'api_key_invalid'],
    ['a well-shaped key with a bad checksum', 'Bearer tpk_' + 'A'.repeat(38), 'api_key_invalid'],
    ['an unknown well-formed key', `Bearer ${generateApiKey()}`, 'api_key_invalid'],
  ])('gives 401 with the error body for %s', async (_label, header, reason) => {
    for (const path of ['/api/v1/org/me', '/api/v1/org/no-such-route']) {
      const req = http().get(path);
      if (header !== undefined) req.set('Authorization', header);
      const res = await req.expect(401);
      if (path === '/api/v1/org/me') assertMatchesContract('get', path, 401, res.body);
      expect(res.body).toMatchObject({
        status: 401,
        message: expect.any(String),
        code: 'unauthorized',
        reason,
      });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('never accepts a key in the query string', async () => {
    const res = await http().get(`/api/v1/org/me?api_key=${org.key}`).expect(401);
    expect(res.body.message).toMatch(/Authorization header/);
  });

  it('answers an unknown /api/v1/org route with 404 for an authenticated caller', async () => {
    const res = await http()
      .get('/api/v1/org/no-such-route')
      .set('Authorization', `Bearer ${org.key}`)
      .expect(404);
    expect(res.body).toMatchObject({ status: 404, message: expect.any(String) });
  });

  it('stops accepting a revoked key on the next request, while other keys keep working', async () => {
    const second = await createKeyForOrg(t.app, org.orgId, 'to-revoke');
    await http().get('/api/v1/org/me').set('Authorization', `Bearer ${second.key}`).expect(200);
    const { ApiKeysService } = await import('../../src/auth/api-keys.service');
    const keys = t.app.get(ApiKeysService);
    await keys.revokeKey(await keys.cliContext(org.orgId), second.id);
    const res = await http().get('/api/v1/org/me').set('Authorization', `Bearer ${second.key}`).expect(401);
    expect(res.body).toEqual(
      expect.objectContaining({
        status: 401,
        message: 'API key has been revoked.',
        reason: 'api_key_revoked',
      }),
    );
    await http().get('/api/v1/org/me').set('Authorization', `Bearer ${org.key}`).expect(200);
  });

  it('keeps organizations apart: each key sees its own organization', async () => {
    const other = await createOrgWithKey(t.app, 'Other Org');
    const res = await http().get('/api/v1/org/me').set('Authorization', `Bearer ${other.key}`).expect(200);
    expect(res.body.organization).toEqual({ id: other.orgId, name: 'Other Org' });
  });
});
