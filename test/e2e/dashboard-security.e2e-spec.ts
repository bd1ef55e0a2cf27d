import type Redis from 'ioredis';
import request from 'supertest';
import { AuditService } from '../../src/audit/audit.service';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { DashboardUsersService } from '../../src/dashboard/dashboard-users.service';
import { REDIS } from '../../src/redis/redis.module';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { colourPng, createReadyCore } from '../support/cores';
import { DashboardClient } from '../support/dashboard-client';

/** Dashboard roles, sessions, sign-in lockout and audit actors, over HTTP against the real app. */
describe('dashboard roles, sessions and lockout (e2e)', () => {
  let t: TestApp;
  let org: OrgWithKey;
  let coreId: string;
  const run = `${process.pid}-${Date.now()}`;
  const owner = { email: `owner-${run}@example.com`, password: `owner-pw-${run}` };
  const member = { email: `member-${run}@example.com`, password: `member-pw-${run}` };

  async function addUser(o: OrgWithKey, who: { email: string; password: string }, role: 'owner' | 'member') {
    const ctx = await t.app.get(ApiKeysService).cliContext(o.orgId);
    return t.app.get(DashboardUsersService).createUser(ctx, { ...who, role });
  }

  async function signedIn(who: { email: string; password: string }): Promise<DashboardClient> {
    const client = new DashboardClient(t.baseUrl);
    const res = await client.signIn(who.email, who.password);
    expect(res.status).toBe(303);
    return client;
  }

  const events = async (orgId: string, action: string) =>
    (await t.app.get(AuditService).list(orgId, { action, limit: 100 })).events;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_CREATE_PER_MIN: '3' });
    org = await createOrgWithKey(t.app);
    await addUser(org, owner, 'owner');
    await addUser(org, member, 'member');
    coreId = (await createReadyCore(t, org, { name: 'Roles core', images: [await colourPng('#336699')] }))
      .coreId;
  }, 120_000);
  afterAll(() => t.close());

  it('creates no server-side session for anonymous visits; the sign-in form works with a signed cookie', async () => {
    const anonymous = new DashboardClient(t.baseUrl);
    const page = await anonymous.get('/dashboard/sign-in');
    expect(page.status).toBe(200);
    expect(page.setCookies.some((c) => c.startsWith('tps_dashboard='))).toBe(false);
    expect(page.setCookies.find((c) => c.startsWith('tps_csrf='))).toMatch(/HttpOnly/i);
    const redirect = await anonymous.get('/dashboard/keys');
    expect(redirect.status).toBe(303);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const wrong = await anonymous.post('/dashboard/sign-in', {
      email: owner.email,
      password: 'nope-nope-nope',
      _csrf: token,
    });
    expect(wrong.status).toBe(401);
    expect([...anonymous.cookies.keys()]).toEqual(['tps_csrf']);

    // The token must match the cookie, and the cookie must be one this server signed.
    const noCookie = new DashboardClient(t.baseUrl);
    expect((await noCookie.post('/dashboard/sign-in', { ...owner, _csrf: token })).status).toBe(403);
    const forged = new DashboardClient(t.baseUrl);
    forged.cookies.set('tps_csrf', 'abc.def');
    expect((await forged.post('/dashboard/sign-in', { ...owner, _csrf: 'abc.def' })).status).toBe(403);

    const ok = await anonymous.post('/dashboard/sign-in', { ...owner, _csrf: token });
    expect(ok.status).toBe(303);
    expect(anonymous.cookies.has('tps_dashboard')).toBe(true);
    expect((await anonymous.get('/dashboard')).status).toBe(200);
  });

  it('answers an address it has no page for with its own 404 page, after sign-in', async () => {
    const anonymous = new DashboardClient(t.baseUrl);
    const away = await anonymous.get('/dashboard/no-such-page');
    expect(away.status).toBe(303);
    expect(away.headers.location).toBe('/dashboard/sign-in?next=%2Fdashboard%2Fno-such-page');
    const m = await signedIn(member);
    for (const path of [
      '/dashboard/no-such-page',
      '/dashboard/keys/extra/parts',
      `/dashboard/cores/${coreId}/nope`,
    ]) {
      const page = await m.get(path);
      expect(page.status).toBe(404);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('There is no dashboard page at this address.');
      expect(page.text).toContain('Sign out'); // the signed-in layout, not the API's JSON
    }
  });

  it('lets a member browse cores, search and read the audit log, and refuses owner actions with 403', async () => {
    const m = await signedIn(member);
    expect((await m.get('/dashboard/cores')).status).toBe(200);
    const detail = await m.get(`/dashboard/cores/${coreId}`);
    expect(detail.status).toBe(200);
    expect(detail.text).not.toContain('Replace images</button>');
    expect(detail.text).not.toContain(`/dashboard/cores/${coreId}/delete`);
    const audit = await m.get('/dashboard/audit');
    expect(audit.status).toBe(200);
    expect(audit.text).not.toContain('export.csv');
    const keysPage = await m.get('/dashboard/keys');
    expect(keysPage.status).toBe(200);
    expect(keysPage.text).not.toContain('Create key</button>');
    expect(keysPage.text).not.toContain('href="/dashboard/webhooks"');
    const _csrf = await m.formToken(`/dashboard/cores/${coreId}/search`);
    expect((await m.post(`/dashboard/cores/${coreId}/search`, { _csrf, query: 'blue' })).status).toBe(200);

    const refused = [
      await m.post('/dashboard/keys', { _csrf, name: 'member key' }),
      await m.get(`/dashboard/keys/${org.keyId}/revoke`),
      await m.post(`/dashboard/keys/${org.keyId}/revoke`, { _csrf }),
      await m.get('/dashboard/audit/export.csv'),
      await m.post(`/dashboard/cores/${coreId}/rename`, { _csrf, name: 'member rename' }),
      await m.post(`/dashboard/cores/${coreId}/images`, { _csrf, images: await colourPng('#ff0000') }),
      await m.get(`/dashboard/cores/${coreId}/delete`),
      await m.post(`/dashboard/cores/${coreId}/delete`, { _csrf }),
      await m.get('/dashboard/webhooks'),
      await m.post('/dashboard/webhooks', { _csrf, url: 'https://example.com/hook' }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(403);
      expect(res.text).toContain('Only organization owners');
    }
    const keys = await t.app.get(ApiKeysService).listKeys(org.orgId);
    expect(keys.map((k) => k.name)).not.toContain('member key');
    expect(keys.find((k) => k.id === org.keyId)?.revokedAt).toBeNull();
    await request(t.app.getHttpServer())
      .get(`/api/v1/org/cores/${coreId}`)
      .set('Authorization', `Bearer ${org.key}`)
      .expect(200)
      .expect((res) => expect(res.body.name).toBe('Roles core'));
  });

  it('lets an owner create and revoke keys and export the audit log; key events name the user', async () => {
    const o = await signedIn(owner);
    const keysPage = await o.get('/dashboard/keys');
    expect(keysPage.text).toContain('Create key</button>');
    const _csrf = await o.formToken('/dashboard/keys');
    const created = await o.post('/dashboard/keys', { _csrf, name: `owner key ${run}` });
    expect(created.status).toBe(201);
    const key = (await t.app.get(ApiKeysService).listKeys(org.orgId)).find(
      (k) => k.name === `owner key ${run}`,
    );
    expect(key).toBeDefined();
    expect((await o.post(`/dashboard/keys/${key!.id}/revoke`, { _csrf })).status).toBe(303);
    const csv = await o.get('/dashboard/audit/export.csv');
    expect(csv.status).toBe(200);
    expect(csv.text).toContain('api_key.revoked');

    const ownerId = (await t.app.get(DashboardUsersService).verifyPassword(owner.email, owner.password))!.id;
    for (const action of ['api_key.created', 'api_key.revoked']) {
      const event = (await events(org.orgId, action)).find((e) => e.targetId === key!.id);
      expect(event).toMatchObject({ actorType: 'user', actorId: ownerId, actorLabel: owner.email });
    }
    // Keys created by the CLI name the CLI.
    const cliKey = (await events(org.orgId, 'api_key.created')).find((e) => e.targetId === org.keyId);
    expect(cliKey).toMatchObject({ actorType: 'cli' });
  });

  it('audits image replacement with counts and actor, and charges the creation budget (REST and dashboard)', async () => {
    const o2 = await createOrgWithKey(t.app);
    const boss = { email: `boss-${run}@example.com`, password: `boss-pw-${run}` };
    await addUser(o2, boss, 'owner');
    const { coreId: id } = await createReadyCore(t, o2, { images: [await colourPng('#123456')] }); // unit 1
    await request(t.app.getHttpServer())
      .patch(`/api/v1/org/cores/${id}`)
      .set('Authorization', `Bearer ${o2.key}`)
      .send({ images: [await colourPng('#654321')] })
      .expect(200); // unit 2
    const rest = await events(o2.orgId, 'core.images_replaced');
    expect(rest).toHaveLength(1);
    expect(rest[0]).toMatchObject({ actorType: 'api_key', actorId: o2.keyId, targetId: id });
    expect(rest[0].metadata).toMatchObject({ imagesPurged: 1, imagesFailed: 0 });

    const b = await signedIn(boss);
    const _csrf = await b.formToken(`/dashboard/cores/${id}`);
    expect(
      (await b.post(`/dashboard/cores/${id}/images`, { _csrf, images: await colourPng('#abcdef') })).status,
    ).toBe(303); // unit 3
    expect((await b.get(`/dashboard/cores/${id}`)).text).toContain('Images replaced');
    const dash = await events(o2.orgId, 'core.images_replaced');
    expect(dash).toHaveLength(2);
    expect(dash[0]).toMatchObject({ actorType: 'user', actorLabel: boss.email });

    // The budget (3 a minute here) is spent: the dashboard's replacement is refused like a create.
    expect(
      (await b.post(`/dashboard/cores/${id}/images`, { _csrf, images: await colourPng('#00ff00') })).status,
    ).toBe(303);
    expect((await b.get(`/dashboard/cores/${id}`)).text).toMatch(
      /Rate limit exceeded: try again in \d+ seconds?/,
    );
    expect(await events(o2.orgId, 'core.images_replaced')).toHaveLength(2);
    await request(t.app.getHttpServer())
      .post('/api/v1/org/cores')
      .set('Authorization', `Bearer ${o2.key}`)
      .send({ images: [await colourPng('#111111')] })
      .expect(429);
  });

  it("caps dashboard forms at 1 MB, except an owner's image replacement", async () => {
    const big = 'x'.repeat(2 * 1024 * 1024);
    const anonymous = new DashboardClient(t.baseUrl);
    const _csrfAnon = await anonymous.formToken('/dashboard/sign-in');
    const signIn = await anonymous.post('/dashboard/sign-in', { ...owner, _csrf: _csrfAnon, padding: big });
    expect(signIn.status).toBe(413);
    const anonImages = await anonymous.post(`/dashboard/cores/${coreId}/images`, {
      images: `data:image/png;base64,${big}`,
    });
    expect(anonImages.status).toBe(413);
    const o = await signedIn(owner);
    const _csrf = await o.formToken(`/dashboard/cores/${coreId}`);
    expect(
      (await o.post(`/dashboard/cores/${coreId}/rename`, { _csrf, name: 'n', padding: big })).status,
    ).toBe(413);
    const replaced = await o.post(`/dashboard/cores/${coreId}/images`, {
      _csrf,
      images: `data:image/png;base64,${big}`,
    });
    expect(replaced.status).toBe(303); // read and refused as an image, on the page
    expect((await o.get(`/dashboard/cores/${coreId}`)).text).toMatch(/image 1/i);
  });

  it('ends a session at its absolute lifetime, however active it was', async () => {
    const o = await signedIn(owner);
    expect((await o.get('/dashboard')).status).toBe(200);
    const sid = decodeURIComponent(o.cookies.get('tps_dashboard')!).replace(/^s:/, '').replace(/\..*$/, '');
    const redis = t.app.get<Redis>(REDIS);
    const key = `dashboard:sess:${sid}`;
    const stored = JSON.parse((await redis.get(key))!) as { signedInAt: number };
    expect(typeof stored.signedInAt).toBe('number');
    // Signed in 12 h + 1 s ago (the default SESSION_ABSOLUTE_TIMEOUT_SECONDS is 12 h).
    stored.signedInAt -= 12 * 3600 * 1000 + 1000;
    await redis.set(key, JSON.stringify(stored), 'KEEPTTL');
    const res = await o.get('/dashboard');
    expect(res.status).toBe(303);
    expect(res.location).toMatch(/^\/dashboard\/sign-in/);
    expect(await redis.exists(key)).toBe(0);
  });

  it('ends every session of a user whose password changed', async () => {
    const who = { email: `changer-${run}@example.com`, password: `changer-pw-${run}` };
    const user = await addUser(org, who, 'member');
    const a = await signedIn(who);
    const b = await signedIn(who);
    expect((await a.get('/dashboard')).status).toBe(200);
    const ctx = await t.app.get(ApiKeysService).cliContext(org.orgId);
    await t.app
      .get(DashboardUsersService)
      .createUser(ctx, { email: who.email, password: `${who.password}-new`, role: 'member', reset: true });
    for (const c of [a, b]) expect((await c.get('/dashboard')).status).toBe(303);
    expect(user.id).toBeDefined();
    expect(
      (await signedIn({ email: who.email, password: `${who.password}-new` }).then((c) => c.get('/dashboard')))
        .status,
    ).toBe(200);
  });

  it('locks sign-in per (email, client address): failures from one address do not lock the user out elsewhere', async () => {
    const who = { email: `locked-${run}@example.com`, password: `locked-pw-${run}` };
    await addUser(org, who, 'member');
    const attacker = new DashboardClient(t.baseUrl, '127.0.0.2');
    for (let i = 0; i < 5; i++)
      expect((await attacker.signIn(who.email, `wrong-${i}-password`)).status).toBe(401);
    const blocked = await attacker.signIn(who.email, who.password);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    const user = new DashboardClient(t.baseUrl, '127.0.0.3');
    expect((await user.signIn(who.email, who.password)).status).toBe(303);
  });
});
