import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DashboardUsersService } from '../../src/dashboard/dashboard-users.service';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { DemoCatalogueService } from '../../src/products/demo-catalogue.service';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { launchBrowser, newContext, saveScreenshot, seriousA11yViolations } from '../support/browser';
import { chromiumMissing, IN_CI } from '../support/chromium';
import { colourPng, createReadyCore } from '../support/cores';

/** Set DASHBOARD_DOC_SCREENSHOTS=1 to refresh docs/screenshots/{keys,audit}.png (committed). */
const DOC_SCREENSHOTS = process.env.DASHBOARD_DOC_SCREENSHOTS === '1';
const DOCS_DIR = join(__dirname, '..', '..', 'docs', 'screenshots');

interface SignIn {
  email: string;
  password: string;
}

// Without Chromium, `npm test` has already said so once (test/run.ts) and fails in CI; locally the
// browser tests are skipped instead of failing twelve times with a launch error.
const describeInBrowser = chromiumMissing() && !IN_CI ? describe.skip : describe;

describeInBrowser('organization dashboard in a browser (e2e)', () => {
  let t: TestApp;
  let browser: Browser;
  let orgA: OrgWithKey;
  let orgB: OrgWithKey;
  let userA: SignIn;
  let userB: SignIn;
  let ctxA: BrowserContext;
  let pageA: Page;
  let coreId: string;
  let createdKey: { key: string; id: string };
  const run = `${process.pid}-${Date.now()}`;

  async function createUser(org: OrgWithKey, label: string): Promise<SignIn> {
    const keys = t.app.get(ApiKeysService);
    const users = t.app.get(DashboardUsersService);
    const email = `${label}-${run}@Example.com`;
    const password = `pw-${label}-${run}-long-enough`;
    await users.createUser(await keys.cliContext(org.orgId), { email, password, role: 'owner' });
    return { email: email.toLowerCase(), password };
  }

  async function signIn(page: Page, who: SignIn): Promise<void> {
    await page.goto('/dashboard');
    await page.waitForURL(/\/dashboard\/sign-in/);
    await page.getByLabel('Email').fill(who.email.toUpperCase());
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/dashboard');
  }

  /** No serious or critical accessibility violations, and a screenshot in test-artifacts/. */
  async function check(page: Page, name: string): Promise<void> {
    expect(await seriousA11yViolations(page)).toEqual([]);
    await saveScreenshot(page, `dashboard-${name}`);
  }

  async function docShot(page: Page, name: string): Promise<void> {
    if (!DOC_SCREENSHOTS) return;
    mkdirSync(DOCS_DIR, { recursive: true });
    await page.setViewportSize({ width: 1100, height: 640 });
    await page.screenshot({ path: join(DOCS_DIR, `${name}.png`) });
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  function sessionCookie(cookies: { name: string; value: string }[]): string {
    return cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  }

  beforeAll(async () => {
    t = await startTestApp();
    orgA = await createOrgWithKey(t.app, `Dashboard Org A ${run}`);
    orgB = await createOrgWithKey(t.app, `Dashboard Org B ${run}`);
    userA = await createUser(orgA, 'alice');
    userB = await createUser(orgB, 'bob');
    await t.app.get(DemoCatalogueService).load({ count: 150, idPrefix: `dash${process.pid}` });
    const ready = await createReadyCore(t, orgA, {
      name: 'Camel autumn',
      images: [await colourPng('#c19a6b', 96)],
    });
    coreId = ready.coreId;
    browser = await launchBrowser();
    ctxA = await newContext(browser, t.baseUrl);
    pageA = await ctxA.newPage();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('sends an anonymous visitor to the sign-in page and refuses a wrong password', async () => {
    const page = await ctxA.newPage();
    await page.goto('/dashboard/keys');
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await check(page, 'sign-in');
    await page.getByLabel('Email').fill(userA.email);
    await page.getByLabel('Password').fill('definitely-not-the-password');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/dashboard/sign-in') && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    expect(response.status()).toBe(401);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Wrong email or password');
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    // No server-side session for an anonymous visitor: the form's token is a signed cookie.
    const cookies = await ctxA.cookies();
    expect(cookies.some((c) => c.name === 'tps_dashboard')).toBe(false);
    expect(cookies.some((c) => c.name === 'tps_csrf' && c.httpOnly && c.sameSite === 'Lax')).toBe(true);
    await page.close();
  });

  it('signs in (creating the session only now) and shows the overview', async () => {
    const before = (await ctxA.cookies()).find((c) => c.name === 'tps_dashboard')?.value;
    expect(before).toBeUndefined();
    await signIn(pageA, userA);
    const after = (await ctxA.cookies()).find((c) => c.name === 'tps_dashboard')?.value;
    expect(after).toBeDefined();
    await expect(pageA.getByRole('heading', { level: 1 }).textContent()).resolves.toContain(
      'Dashboard Org A',
    );
    await expect(pageA.getByTestId('cores-count').textContent()).resolves.toBe('1');
    await check(pageA, 'overview');
  });

  it('creates an API key shown once that works against GET /api/v1/org/me', async () => {
    await pageA.getByRole('link', { name: 'API keys', exact: true }).first().click();
    await pageA.getByLabel('Name').fill('browser test key');
    await pageA.getByRole('button', { name: 'Create key' }).click();
    await expect(pageA.getByText('You will not see it again').count()).resolves.toBe(1);
    const key = await pageA.getByTestId('new-key').inputValue();
    expect(key).toMatch(/^tpk_/);
    await check(pageA, 'keys-created');
    const me = await fetch(`${t.baseUrl}/api/v1/org/me`, { headers: { Authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    const body = (await me.json()) as { apiKey: { id: string } };
    createdKey = { key, id: body.apiKey.id };
    // Shown once: a reload of the list never contains the key again.
    await pageA.goto('/dashboard/keys');
    expect(await pageA.content()).not.toContain(key);
    await expect(pageA.locator(`tr[data-key-id="${createdKey.id}"]`).textContent()).resolves.toContain(
      'active',
    );
  });

  it('revokes the key after a confirmation; the next API request gets 401', async () => {
    await pageA
      .locator(`tr[data-key-id="${createdKey.id}"]`)
      .getByRole('link', { name: /Revoke/ })
      .click();
    await expect(pageA.getByRole('heading', { level: 1 }).textContent()).resolves.toContain(
      'browser test key',
    );
    await check(pageA, 'key-revoke');
    await pageA.getByRole('button', { name: 'Yes, revoke this key' }).click();
    await pageA.waitForURL((u) => u.pathname === '/dashboard/keys');
    await expect(pageA.getByRole('status').textContent()).resolves.toContain('was revoked');
    await expect(pageA.locator(`tr[data-key-id="${createdKey.id}"]`).textContent()).resolves.toContain(
      'revoked',
    );
    const me = await fetch(`${t.baseUrl}/api/v1/org/me`, {
      headers: { Authorization: `Bearer ${createdKey.key}` },
    });
    expect(me.status).toBe(401);
    await check(pageA, 'keys');
    await docShot(pageA, 'keys');
  });

  it('serves its assets without the session: no cookie on a publicly cacheable response', async () => {
    const cookie = sessionCookie(await ctxA.cookies());
    const page = await fetch(`${t.baseUrl}/dashboard`, { headers: { cookie }, redirect: 'manual' });
    expect(page.status).toBe(200);
    expect(page.headers.get('set-cookie')).toContain('tps_dashboard=');
    for (const file of ['dashboard.css', 'dashboard.js']) {
      const res = await fetch(`${t.baseUrl}/dashboard/assets/${file}`, { headers: { cookie } });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toContain('public');
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('refuses a state-changing request without the CSRF token (403), even with a valid session', async () => {
    const cookie = sessionCookie(await ctxA.cookies());
    for (const body of ['name=sneaky', 'name=sneaky&_csrf=wrong-token']) {
      const res = await fetch(`${t.baseUrl}/dashboard/keys`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
      });
      expect(res.status).toBe(403);
    }
    const keys = await t.app.get(ApiKeysService).listKeys(orgA.orgId);
    expect(keys.map((k) => k.name)).not.toContain('sneaky');
  });

  it('shows the cores grid with search, the detail page, and renames a core', async () => {
    await pageA.goto('/dashboard/cores');
    await expect(pageA.locator(`[data-core-id="${coreId}"]`).count()).resolves.toBe(1);
    await check(pageA, 'cores');
    await pageA.getByLabel('Search by name, tag or style').fill('no-such-style-xyz');
    await pageA.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(pageA.locator(`[data-core-id="${coreId}"]`).count()).resolves.toBe(0);
    await pageA.goto('/dashboard/cores');
    await pageA.getByRole('link', { name: 'Camel autumn' }).click();
    await pageA.waitForURL((u) => u.pathname === `/dashboard/cores/${coreId}`);
    await expect(pageA.getByRole('heading', { name: 'Taste profile' }).count()).resolves.toBe(1);
    await expect(pageA.locator('.profile').textContent()).resolves.toMatch(/\w+/);
    await check(pageA, 'core');
    await pageA.getByLabel('Name', { exact: true }).fill('Camel autumn edit');
    await pageA.getByRole('button', { name: 'Save name' }).click();
    await expect(pageA.getByRole('status').textContent()).resolves.toContain(
      'Renamed to "Camel autumn edit"',
    );
  });

  it('runs the product search playground on a ready core', async () => {
    await pageA.goto(`/dashboard/cores/${coreId}/search`);
    await pageA.getByLabel('Query (optional)').fill('coat');
    await pageA.getByLabel('Maximum price').fill('100000');
    await pageA.getByRole('button', { name: 'Search', exact: true }).click();
    await pageA.waitForSelector('.product');
    const count = await pageA.locator('.product').count();
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThanOrEqual(10);
    await expect(pageA.locator('.product .price').first().textContent()).resolves.toMatch(/\d/);
    await check(pageA, 'search');
    await pageA.getByLabel('Minimum price').fill('50');
    await pageA.getByLabel('Maximum price').fill('10');
    await pageA.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(pageA.getByRole('alert').textContent()).resolves.toContain(
      'minPrice must not exceed maxPrice',
    );
  }, 120_000);

  it('replaces the images with an uploaded file (sent as a data URL) and starts a new job', async () => {
    await pageA.goto(`/dashboard/cores/${coreId}`);
    const png = (await colourPng('#2f4f4f', 96)).split(',')[1];
    await pageA.getByLabel('Upload image files').setInputFiles({
      name: 'slate.png',
      mimeType: 'image/png',
      buffer: Buffer.from(png, 'base64'),
    });
    await pageA.getByRole('button', { name: 'Replace images' }).click();
    await pageA.waitForURL((u) => u.pathname === `/dashboard/cores/${coreId}`);
    const notice = (await pageA.getByRole('status').textContent()) ?? '';
    expect(notice).toContain('Images replaced');
    expect(notice).toContain('Old images removed: 1, not removed: 0');
    await expect(pageA.locator('.gallery img').count()).resolves.toBe(1);
  });

  // The page used to keep the first five files and say "Images replaced" with no word of the sixth.
  it('refuses six image files on the page, naming the limit, and replaces nothing', async () => {
    await pageA.goto(`/dashboard/cores/${coreId}`);
    const png = Buffer.from((await colourPng('#8b0000', 32)).split(',')[1], 'base64');
    await pageA
      .getByLabel('Upload image files')
      .setInputFiles(
        [1, 2, 3, 4, 5, 6].map((i) => ({ name: `red-${i}.png`, mimeType: 'image/png', buffer: png })),
      );
    await pageA.getByRole('button', { name: 'Replace images' }).click();
    await expect(pageA.getByRole('alert').textContent()).resolves.toBe(
      'A core has 1 to 5 images: you chose 6. Choose at most 5.',
    );
    expect(new URL(pageA.url()).pathname).toBe(`/dashboard/cores/${coreId}`);
    await pageA.reload();
    await expect(pageA.locator('.gallery img').count()).resolves.toBe(1);
  });

  it("hides organization A's cores, keys and audit log from organization B's user", async () => {
    const ctxB = await newContext(browser, t.baseUrl);
    const pageB = await ctxB.newPage();
    try {
      await signIn(pageB, userB);
      await expect(pageB.getByRole('heading', { level: 1 }).textContent()).resolves.toContain(
        'Dashboard Org B',
      );
      await pageB.goto('/dashboard/cores');
      expect(await pageB.content()).not.toContain(coreId);
      await pageB.goto('/dashboard/keys');
      const keysHtml = await pageB.content();
      expect(keysHtml).not.toContain('browser test key');
      expect(keysHtml).not.toContain(createdKey.id);
      await pageB.goto('/dashboard/audit');
      const auditHtml = await pageB.content();
      expect(auditHtml).not.toContain(createdKey.id);
      expect(auditHtml).not.toContain(userA.email);
      const res = await pageB.goto(`/dashboard/cores/${coreId}`);
      expect(res?.status()).toBe(404);
      await check(pageB, 'not-found');
      expect((await pageB.goto(`/dashboard/cores/${coreId}/search`))?.status()).toBe(404);
      expect((await pageB.goto(`/dashboard/keys/${createdKey.id}/revoke`))?.status()).toBe(404);
    } finally {
      await ctxB.close();
    }
  });

  it('deletes a core from the page and finds the audit entry with its counts', async () => {
    await pageA.goto(`/dashboard/cores/${coreId}`);
    await pageA.getByRole('link', { name: 'Delete this core…' }).click();
    await check(pageA, 'core-delete');
    await pageA.getByRole('button', { name: 'Yes, delete this core' }).click();
    await pageA.waitForURL((u) => u.pathname === '/dashboard/cores');
    await expect(pageA.getByRole('status').textContent()).resolves.toContain(
      'Core deleted. Images removed: 1',
    );
    expect((await pageA.goto(`/dashboard/cores/${coreId}`))?.status()).toBe(404);

    await pageA.goto('/dashboard/audit');
    await pageA.getByLabel('Action').selectOption('core.deleted');
    await pageA.getByRole('button', { name: 'Filter' }).click();
    const row = pageA.locator('tr[data-action="core.deleted"]');
    await expect(row.count()).resolves.toBe(1);
    const text = (await row.textContent()) ?? '';
    expect(text).toContain(userA.email);
    expect(text).toContain(coreId);
    expect(text).toContain('Camel autumn edit');
    expect(text).toMatch(/Images purged\s*1/);
    expect(text).toMatch(/Images failed\s*0/);
    await check(pageA, 'audit-filtered');

    await pageA.goto('/dashboard/audit');
    await check(pageA, 'audit');
    await docShot(pageA, 'audit');

    const csv = await fetch(`${t.baseUrl}/dashboard/audit/export.csv?action=core.deleted`, {
      headers: { cookie: sessionCookie(await ctxA.cookies()) },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('"core.deleted"');
    expect(lines[1]).toContain(userA.email);
  });

  it('signs out: the session no longer opens the dashboard', async () => {
    const cookie = sessionCookie(await ctxA.cookies());
    await pageA.goto('/dashboard');
    await pageA.getByRole('button', { name: 'Sign out' }).click();
    await pageA.waitForURL(/\/dashboard\/sign-in/);
    const res = await fetch(`${t.baseUrl}/dashboard/keys`, { headers: { cookie }, redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain('/dashboard/sign-in');
  });
});
