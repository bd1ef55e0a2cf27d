import { ConfigService } from '@nestjs/config';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApiKeyRevocationListener } from '../../src/auth/api-key-revocation.listener';
import { hashApiKey } from '../../src/auth/api-key.format';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { createKeyForOrg, createOrgWithKey, startTestApp, TestApp } from '../support/app';
import { cliAsync } from '../support/cli';

/**
 * API keys are cached in each API process; a revocation in any process (another app instance, the
 * CLI's own process) is announced through Redis and refused at once everywhere
 * (docs/decisions/0026-lean-request-path.md).
 */
describe('API key cache and revocation across processes (e2e)', () => {
  let a: TestApp;
  let b: TestApp;

  const me = (t: TestApp, key: string) =>
    request(t.app.getHttpServer()).get('/api/v1/org/me').set('Authorization', `Bearer ${key}`);

  async function until(what: string, check: () => boolean): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const cacheOf = (t: TestApp) => t.app.get(ApiKeysService).cache;

  /** Sets or clears revoked_at behind the service's back: no announcement. */
  const setRevokedSilently = (keyId: string, revoked: boolean) =>
    a.app
      .get(DataSource)
      .query(`UPDATE api_keys SET revoked_at = ${revoked ? 'now()' : 'NULL'} WHERE id = $1`, [keyId]);

  beforeAll(async () => {
    a = await startTestApp({ ROLE: 'api' });
    b = await startTestApp({ ROLE: 'api' });
    await until('both caches are subscribed', () => cacheOf(a).enabled && cacheOf(b).enabled);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('serves a key from memory: a revocation written without an announcement is not seen', async () => {
    const org = await createOrgWithKey(a.app);
    await me(b, org.key).expect(200);
    await setRevokedSilently(org.keyId, true);
    // Proof that B answers from its cache (the tests below would pass without one otherwise).
    await me(b, org.key).expect(200);
    // A never resolved the key: it reads the row.
    await me(a, org.key).expect(401);
  });

  /**
   * Resolves once `t` no longer holds `key` in memory: it has read the revocation's announcement. The
   * publisher's reply and the subscriber's message travel on two connections, so under load the next
   * request can be read first; the announcement itself must still arrive (and times out otherwise).
   */
  const announced = (t: TestApp, key: string) => {
    const hash = hashApiKey(key, t.app.get(ConfigService).get('auth', { infer: true }).pepper);
    return until('the revocation is announced', () => cacheOf(t).get(hash) === undefined);
  };

  it('refuses a key revoked through another app instance once the announcement arrives', async () => {
    const org = await createOrgWithKey(a.app);
    const other = await createKeyForOrg(a.app, org.orgId, 'keeps working');
    await me(b, org.key).expect(200);
    await me(b, other.key).expect(200);
    const keys = a.app.get(ApiKeysService);
    await keys.revokeKey(await keys.cliContext(org.orgId), org.keyId);
    await announced(b, org.key);
    const res = await me(b, org.key).expect(401);
    expect(res.body).toMatchObject({ status: 401, message: 'API key has been revoked.' });
    await me(b, other.key).expect(200);
  });

  it('refuses a key revoked by the CLI (its own process) once the announcement arrives', async () => {
    const org = await createOrgWithKey(a.app);
    await me(a, org.key).expect(200);
    await me(b, org.key).expect(200);
    const revoked = await cliAsync(process.env as Record<string, string>, 'key:revoke', '--id', org.keyId);
    expect(revoked.code).toBe(0);
    await announced(a, org.key);
    await announced(b, org.key);
    await me(a, org.key).expect(401);
    await me(b, org.key).expect(401);
  }, 180_000);

  it('turns the cache off while the subscription is lost, and back on once subscribed again', async () => {
    const org = await createOrgWithKey(a.app);
    await me(b, org.key).expect(200);
    const listener = b.app.get(ApiKeyRevocationListener) as unknown as {
      subscriber: { disconnect(): void; connect(): Promise<void> };
    };
    listener.subscriber.disconnect();
    await until('the cache is off', () => !cacheOf(b).enabled);
    // A revocation announced now could be missed: B must read the row instead of its memory.
    await setRevokedSilently(org.keyId, true);
    await me(b, org.key).expect(401);
    await setRevokedSilently(org.keyId, false);
    await me(b, org.key).expect(200);
    await listener.subscriber.connect();
    await until('the cache is on again', () => cacheOf(b).enabled);
    await me(b, org.key).expect(200);
    await setRevokedSilently(org.keyId, true);
    await me(b, org.key).expect(200);
  });
});
