import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { AuditService } from '../../src/audit/audit.service';
import { DashboardUsersService } from '../../src/dashboard/dashboard-users.service';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { launchBrowser, newContext, saveScreenshot, seriousA11yViolations } from '../support/browser';
import { chromiumMissing, IN_CI } from '../support/chromium';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

interface SignIn {
  email: string;
  password: string;
}

// As in dashboard.e2e-spec.ts: without Chromium these tests are skipped locally and fail in CI.
const describeInBrowser = chromiumMissing() && !IN_CI ? describe.skip : describe;

describeInBrowser('dashboard webhooks page in a browser (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let ctxA: BrowserContext;
  let page: Page;
  let orgA: OrgWithKey;
  let userA: SignIn;
  let userB: SignIn;
  let secret = '';
  let webhookId = '';
  const run = `${process.pid}-${Date.now()}`;

  async function createUser(org: OrgWithKey, label: string): Promise<SignIn> {
    const email = `${label}-${run}@example.com`;
    const password = `pw-${label}-${run}-long-enough`;
    const ctx = await t.app.get(ApiKeysService).cliContext(org.orgId);
    await t.app.get(DashboardUsersService).createUser(ctx, { email, password, role: 'owner' });
    return { email, password };
  }

  async function signIn(p: Page, who: SignIn): Promise<void> {
    await p.goto('/dashboard/sign-in');
    await p.getByLabel('Email').fill(who.email);
    await p.getByLabel('Password').fill(who.password);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.waitForURL((u) => u.pathname === '/dashboard');
  }

  async function check(p: Page, name: string): Promise<void> {
    expect(await seriousA11yViolations(p)).toEqual([]);
    await saveScreenshot(p, `dashboard-${name}`);
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startTestApp({ WEBHOOK_ALLOWED_HOSTS: 'localhost', WEBHOOK_RETRY_BASE_MS: '50' });
    orgA = await createOrgWithKey(t.app, `Webhook Org A ${run}`);
    const orgB = await createOrgWithKey(t.app, `Webhook Org B ${run}`);
    userA = await createUser(orgA, 'hook-owner');
    userB = await createUser(orgB, 'hook-other');
    browser = await launchBrowser();
    ctxA = await newContext(browser, t.baseUrl);
    page = await ctxA.newPage();
    await signIn(page, userA);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  it('adds an endpoint and shows its signing secret once', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL((u) => u.pathname === '/dashboard/webhooks');
    await expect(page.getByText('No endpoints yet.').count()).resolves.toBe(1);
    await check(page, 'webhooks-empty');

    await page.getByLabel('URL').fill(`${receiver.origin}/dash`);
    await page.getByLabel('Description (optional)').fill('Order pipeline');
    await page.getByRole('checkbox', { name: 'core.failed' }).uncheck();
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/dashboard/webhooks') && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Add endpoint' }).click(),
    ]);
    expect(response.status()).toBe(201);
    secret = await page.getByTestId('new-secret').inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    await check(page, 'webhooks-created');
    const row = page.locator('tr[data-webhook-id]');
    await expect(row.count()).resolves.toBe(1);
    webhookId = (await row.getAttribute('data-webhook-id')) ?? '';
    await expect(row.textContent()).resolves.toMatch(/core\.ready[\s\S]*Order pipeline[\s\S]*never/);
    await expect(row.textContent()).resolves.not.toContain('core.failed');

    // Shown once: the list page never has it again.
    await page.goto('/dashboard/webhooks');
    expect(await page.content()).not.toContain(secret);
    expect(await page.content()).not.toContain('whsec_');
  });

  it('shows a refused URL on the page (400) and keeps what was typed', async () => {
    await page.goto('/dashboard/webhooks');
    await page.getByLabel('URL').fill('http://localhost/insecure');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/dashboard/webhooks') && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Add endpoint' }).click(),
    ]);
    expect(response.status()).toBe(400);
    await expect(page.getByTestId('webhook-error').textContent()).resolves.toContain(
      'only https URLs are allowed',
    );
    await expect(page.getByLabel('URL').inputValue()).resolves.toBe('http://localhost/insecure');
    await check(page, 'webhooks-error');
    await expect(page.locator('tr[data-webhook-id]').count()).resolves.toBe(1);
  });

  // Unticking both boxes sent no `events` field, which the API reads as "all": the endpoint got both.
  it('refuses an endpoint with no event ticked (400 on the page) and keeps the boxes as they were', async () => {
    await page.goto('/dashboard/webhooks');
    await page.getByLabel('URL').fill(`${receiver.origin}/none`);
    await page.getByRole('checkbox', { name: 'core.ready' }).uncheck();
    await page.getByRole('checkbox', { name: 'core.failed' }).uncheck();
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/dashboard/webhooks') && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Add endpoint' }).click(),
    ]);
    expect(response.status()).toBe(400);
    await expect(page.getByTestId('webhook-error').textContent()).resolves.toContain(
      'choose at least one event',
    );
    await expect(page.getByRole('checkbox', { name: 'core.ready' }).isChecked()).resolves.toBe(false);
    await expect(page.getByRole('checkbox', { name: 'core.failed' }).isChecked()).resolves.toBe(false);
    await expect(page.locator('tr[data-webhook-id]').count()).resolves.toBe(1);
  });

  it('sends a test event and lists the delivery with its status', async () => {
    await page.goto('/dashboard/webhooks');
    await page.getByRole('link', { name: `Deliveries of ${receiver.origin}/dash` }).click();
    await page.waitForURL((u) => u.pathname === `/dashboard/webhooks/${webhookId}`);
    await expect(page.getByText('No deliveries yet.').count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('Test event queued');

    const [got] = await receiver.waitFor('/dash', 1);
    const body = new Webhook(secret).verify(got.body, {
      'webhook-id': got.headers['webhook-id'],
      'webhook-timestamp': got.headers['webhook-timestamp'],
      'webhook-signature': got.headers['webhook-signature'],
    });
    expect(body).toMatchObject({ type: 'webhook.test', data: { webhookId } });

    const deadline = Date.now() + 20000;
    while ((await page.locator('tr[data-delivery-id]').count()) === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      await page.reload();
    }
    const delivery = page.locator('tr[data-delivery-id]');
    await expect(delivery.count()).resolves.toBe(1);
    await expect(delivery.textContent()).resolves.toMatch(/webhook\.test[\s\S]*HTTP 204/);
    await check(page, 'webhook-detail');

    await page.goto('/dashboard/webhooks');
    await expect(page.locator(`tr[data-webhook-id="${webhookId}"]`).textContent()).resolves.toMatch(
      /delivered[\s\S]*HTTP 204/,
    );
  });

  it("another organization's user gets 404 for the endpoint", async () => {
    const ctxB = await newContext(browser, t.baseUrl);
    try {
      const pageB = await ctxB.newPage();
      await signIn(pageB, userB);
      const res = await pageB.goto(`/dashboard/webhooks/${webhookId}`);
      expect(res?.status()).toBe(404);
      await pageB.goto('/dashboard/webhooks');
      await expect(pageB.getByText('No endpoints yet.').count()).resolves.toBe(1);
    } finally {
      await ctxB.close();
    }
  });

  it('refuses a form without the CSRF token (403)', async () => {
    const cookie = (await ctxA.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    for (const [path, body] of [
      ['/dashboard/webhooks', `url=${encodeURIComponent(`${receiver.origin}/sneaky`)}`],
      [`/dashboard/webhooks/${webhookId}/test`, '_csrf=wrong'],
      [`/dashboard/webhooks/${webhookId}/delete`, ''],
    ]) {
      const res = await fetch(`${t.baseUrl}${path}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
      });
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
    }
    await page.goto('/dashboard/webhooks');
    await expect(page.locator('tr[data-webhook-id]').count()).resolves.toBe(1);
  });

  it('deletes the endpoint after a confirmation, recorded in the audit log with the user', async () => {
    await page.goto(`/dashboard/webhooks/${webhookId}`);
    await page.getByRole('link', { name: 'Delete endpoint' }).click();
    await page.waitForURL((u) => u.pathname === `/dashboard/webhooks/${webhookId}/delete`);
    await check(page, 'webhook-delete');
    await page.getByRole('button', { name: 'Yes, delete it' }).click();
    await page.waitForURL((u) => u.pathname === '/dashboard/webhooks');
    await expect(page.getByRole('status').textContent()).resolves.toContain('deleted');
    await expect(page.getByText('No endpoints yet.').count()).resolves.toBe(1);
    const { events } = await t.app.get(AuditService).list(orgA.orgId);
    const actions = events.filter((e) => e.targetId === webhookId).map((e) => [e.action, e.actorType]);
    expect(actions).toEqual([
      ['webhook.deleted', 'user'],
      ['webhook.created', 'user'],
    ]);
  });
});
