import request from 'supertest';
import { startTestApp, TestApp } from '../support/app';
import { cli } from '../support/cli';

describe('admin CLI (e2e, spawned process)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('creates an org and a key, lists and revokes it, and the audit log records it', async () => {
    const org = cli('org:create', '--name', 'CLI Org');
    expect(org.code).toBe(0);
    const { id: orgId, name } = JSON.parse(org.stdout);
    expect(name).toBe('CLI Org');

    const created = cli('key:create', '--org', orgId, '--name', 'ci-key');
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        key: expect.stringMatching(/^tpk_/),
        prefix: key.key.slice(0, 12),
      }),
    );

    await request(t.app.getHttpServer())
      .get('/api/v1/org/me')
      .set('Authorization', `Bearer ${key.key}`)
      .expect(200);

    const listed = JSON.parse(cli('key:list', '--org', orgId).stdout);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toEqual(expect.objectContaining({ id: key.id, prefix: key.prefix, revokedAt: null }));
    expect(JSON.stringify(listed)).not.toContain(key.key);

    const revoked = cli('key:revoke', '--id', key.id);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout).revokedAt).toEqual(expect.any(String));
    await request(t.app.getHttpServer())
      .get('/api/v1/org/me')
      .set('Authorization', `Bearer ${key.key}`)
      .expect(401);

    const audit = JSON.parse(cli('audit:list', '--org', orgId).stdout);
    expect(audit.map((e: { action: string }) => e.action)).toEqual(['api_key.revoked', 'api_key.created']);
    expect(audit[0].actor).toEqual({ type: 'cli', id: null, label: 'admin CLI' });
  }, 120000);

  it('fails with a clear message and a non-zero exit on bad arguments', () => {
    const missing = cli('key:create');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('--org');
    expect(missing.stdout).toBe('');

    const unknownOrg = cli('key:list', '--org', 'not-an-id');
    expect(unknownOrg.code).not.toBe(0);
    expect(unknownOrg.stderr).toMatch(/Organization not-an-id not found/);
  }, 60000);
});
