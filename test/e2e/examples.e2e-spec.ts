import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { createOrgWithKey, freePort, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { runAsync } from '../support/cli';

const ROOT = join(__dirname, '..', '..');

/** Each examples/ program through its one README command (`npm run example:...`). */
describe('examples/ (e2e)', () => {
  let t: TestApp;
  let org: OrgWithKey;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_CREATE_PER_MIN: '100' });
    org = await createOrgWithKey(t.app);
  });
  afterAll(() => t.close());

  const example = (name: string, key: string) =>
    runAsync('npm', ['run', '--silent', `example:${name}`], {
      env: { BASE_URL: t.baseUrl, TASTE_API_KEY: key },
    });

  it('npm run example:sdk creates a core, polls until ready and searches', async () => {
    const res = await example('sdk', org.key);
    expect(res.stderr).not.toMatch(/error/i);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^created core [0-9a-f-]{36} \(job [0-9a-f-]{36}\)$/m);
    expect(res.stdout).toMatch(/^taste: .*camel/m);
    expect(res.stdout).toMatch(/^\d+ products for "SDK example":$/m);
  }, 180_000);

  it('npm run example:mcp lists the tools, creates a core, polls get_core and searches', async () => {
    const res = await example('mcp', org.key);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('tools: create_core, get_core, search_products');
    expect(res.stdout).toMatch(/^created core [0-9a-f-]{36}$/m);
    expect(res.stdout).toMatch(/^taste: .*camel/m);
    expect(res.stdout).toMatch(/^\d+ products for "MCP example":$/m);
  }, 180_000);

  it('the examples say "Invalid API key." for a wrong key, and what to set for a missing one', async () => {
    const sdk = await example('sdk', 'tpk_wrong');
    expect(sdk.code).toBe(1);
    expect(sdk.stderr).toContain('Invalid API key.');
    const mcp = await example('mcp', 'tpk_wrong');
    expect(mcp.code).toBe(1);
    expect(mcp.stderr).toContain('Invalid API key.');
    const missing = await example('mcp', '');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Set TASTE_API_KEY');
  }, 180_000);

  describe('npm run example:webhook', () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    let receiver: ChildProcess;
    let out = '';
    let url = '';

    beforeAll(async () => {
      const port = await freePort();
      url = `http://127.0.0.1:${port}/`;
      receiver = spawn('npm', ['run', '--silent', 'example:webhook'], {
        cwd: ROOT,
        detached: true,
        env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: secret },
      });
      receiver.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      receiver.stderr?.on('data', (d: Buffer) => (out += d.toString()));
      const deadline = Date.now() + 150_000;
      while (!out.includes('webhook receiver listening')) {
        if (Date.now() > deadline) throw new Error(`receiver did not start:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }, 180_000);
    afterAll(() => {
      if (receiver.pid) process.kill(-receiver.pid, 'SIGTERM');
    });

    /** A delivery as the README's Webhooks section defines it: body { type, timestamp, data }, Standard Webhooks headers. */
    function delivery(name: string, signingSecret: string, at = new Date()) {
      const id = `msg_${randomBytes(8).toString('hex')}`;
      const body = JSON.stringify({
        type: 'core.ready',
        timestamp: at.toISOString(),
        data: { coreId: 'c-1', jobId: 'j-1', name, coreStatus: 'ready', error: null },
      });
      const headers = {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(signingSecret).sign(id, at, body),
      };
      return fetch(url, { method: 'POST', headers, body });
    }

    it('accepts a delivery signed with the endpoint secret (204) and handles the event', async () => {
      const res = await delivery('Signed capsule', secret);
      expect(res.status).toBe(204);
      await new Promise((r) => setTimeout(r, 200));
      expect(out).toContain('core.ready: "Signed capsule" (c-1) can be searched');
    });

    it('refuses a forged signature and a stale timestamp (401) without handling them', async () => {
      const forged = await delivery('Forged capsule', `whsec_${randomBytes(24).toString('base64')}`);
      expect(forged.status).toBe(401);
      expect(await forged.text()).toContain('invalid signature');
      const stale = await delivery('Stale capsule', secret, new Date(Date.now() - 3600_000));
      expect(stale.status).toBe(401);
      const unsigned = await fetch(url, { method: 'POST', body: '{"type":"core.ready"}' });
      expect(unsigned.status).toBe(401);
      await new Promise((r) => setTimeout(r, 200));
      expect(out).toContain('refused a delivery');
      expect(out).not.toContain('Forged capsule');
      expect(out).not.toContain('Stale capsule');
    });
  });
});
