import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bullmq';
import { Queue, Worker } from 'bullmq';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { startWorker } from '../../src/bootstrap';
import { buildConfig, validateEnv } from '../../src/config/configuration';
import { DashboardUsersService } from '../../src/dashboard/dashboard-users.service';
import { QueueName } from '../../src/jobs/job.types';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { launchBrowser, newContext, saveScreenshot } from '../support/browser';
import { colourPng, waitForCore } from '../support/cores';

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The BullMQ queue board at /dashboard/queues, for dashboard owners only (Chromium). */
describe('queue board in the dashboard (e2e, browser)', () => {
  const shared = {
    QUEUE_PREFIX: `board-${process.pid}-${Date.now()}`,
    STORAGE_DIR: mkdtempSync(join(tmpdir(), 'board-storage-')),
  };
  const run = `${process.pid}-${Date.now()}`;
  let t: TestApp;
  let worker: INestApplicationContext | undefined;
  let browser: Browser;
  let org: OrgWithKey;
  const owner = { email: `owner-${run}@example.com`, password: `pw-owner-${run}-long-enough` };
  const member = { email: `member-${run}@example.com`, password: `pw-member-${run}-long-enough` };

  beforeAll(async () => {
    // An API-only process: nothing runs the generation queue until the test says so.
    t = await startTestApp({ ...shared, ROLE: 'api' });
    org = await createOrgWithKey(t.app);
    const ctx = await t.app.get(ApiKeysService).cliContext(org.orgId);
    const users = t.app.get(DashboardUsersService);
    await users.createUser(ctx, { ...owner, role: 'owner' });
    await users.createUser(ctx, { ...member, role: 'member' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await t.close();
  });

  async function signIn(page: Page, who: { email: string; password: string }): Promise<void> {
    await page.goto('/dashboard/sign-in');
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/dashboard');
  }

  it('an owner sees a failed generation job on the board and retries it; the core then becomes ready', async () => {
    const created = await request(t.app.getHttpServer())
      .post('/api/v1/org/cores')
      .set('Authorization', `Bearer ${org.key}`)
      .send({ name: 'Board retry', images: [await colourPng('#8b5a2b')] })
      .expect(202);
    const jobId = created.body.jobId as string;

    // A worker whose provider is down fails the job through all its attempts.
    const queue = t.app.get<Queue>(getQueueToken(QueueName.Generation));
    const failing = new Worker(
      QueueName.Generation,
      async () => {
        throw new Error('provider down');
      },
      { connection: { url: t.config.redis.url }, prefix: t.config.queue.prefix },
    );
    try {
      await until('the job to fail', async () => (await queue.getJobState(jobId)) === 'failed');
    } finally {
      await failing.close();
    }

    // A healthy worker from now on.
    worker = await startWorker(buildConfig(validateEnv({ ...process.env, ...shared, ROLE: 'worker' })));

    const ctx = await newContext(browser, t.baseUrl);
    const page = await ctx.newPage();
    await signIn(page, owner);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Queues' }).click();
    await page.waitForURL(/\/dashboard\/queues/);
    await page.goto(`/dashboard/queues/queue/${QueueName.Generation}?status=failed`);
    await page.getByText(jobId).first().waitFor();
    await page.getByText('provider down').first().waitFor();
    await saveScreenshot(page, 'queue-board-failed');

    // The job card's first action (its icons carry no text): retry; then the board's confirmation.
    const card = page
      .locator('section, article, div')
      .filter({ has: page.getByText(jobId, { exact: true }) })
      .filter({ has: page.getByRole('button') })
      .last();
    await card.getByRole('button').first().click();
    const dialog = page.getByRole('dialog').or(page.getByRole('alertdialog'));
    await dialog.getByText('Are you sure that you want to retry this job?').waitFor();
    await saveScreenshot(page, 'queue-board-retry-confirm');
    await dialog.getByRole('button', { name: 'Confirm' }).click();

    const core = await waitForCore(t, org, created.body.coreId as string, 60000);
    expect(core.coreStatus).toBe('ready');
    await until('the job to complete', async () => (await queue.getJobState(jobId)) === 'completed');
    await page.goto(`/dashboard/queues/queue/${QueueName.Generation}?status=completed`);
    await page.getByText(jobId).first().waitFor();
    await ctx.close();
  });

  it('a member gets no board and no link; an anonymous visitor is sent to sign-in', async () => {
    const ctx = await newContext(browser, t.baseUrl);
    const page = await ctx.newPage();
    await signIn(page, member);
    expect(await page.getByRole('link', { name: 'Queues' }).count()).toBe(0);
    const res = await page.goto('/dashboard/queues');
    expect(res?.status()).toBe(404);
    const api = await page.goto(`/dashboard/queues/api/queues`);
    expect(api?.status()).toBe(404);
    await ctx.close();

    const anonymous = await request(t.app.getHttpServer()).get('/dashboard/queues').expect(303);
    expect(anonymous.headers.location).toBe('/dashboard/sign-in');
    await request(t.app.getHttpServer()).get('/dashboard/queues/api/queues').expect(303);
  });

  it('the board has its own CSP, the other dashboard pages keep theirs', async () => {
    const ctx = await newContext(browser, t.baseUrl);
    const page = await ctx.newPage();
    await signIn(page, owner);
    const board = await page.goto('/dashboard/queues');
    expect(board?.status()).toBe(200);
    const csp = board?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    const overview = await page.goto('/dashboard');
    expect(overview?.headers()['content-security-policy']).toContain("style-src 'self';");
    await ctx.close();
  });
});
