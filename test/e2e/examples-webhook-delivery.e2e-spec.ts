import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { api } from '../support/api';
import { createOrgWithKey, freePort, OrgWithKey, startTestApp, TestApp } from '../support/app';
import { colourPng, waitForCore } from '../support/cores';

const ROOT = join(__dirname, '..', '..');
const TLS_DIR = join(ROOT, 'test', 'fixtures', 'tls');

interface Attempt {
  event: string;
  httpStatus: number | null;
  succeeded: boolean;
}

/** `npm run example:webhook` serving https with the test CA's localhost certificate. */
async function startExample(
  port: number,
  secret: string,
): Promise<{ output: () => string; stop: () => void }> {
  let out = '';
  const child: ChildProcess = spawn('npm', ['run', '--silent', 'example:webhook'], {
    cwd: ROOT,
    detached: true,
    env: {
      ...process.env,
      PORT: String(port),
      WEBHOOK_SECRET: secret,
      TLS_CERT: join(TLS_DIR, 'server.pem'),
      TLS_KEY: join(TLS_DIR, 'server-key.pem'),
    },
  });
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 150_000;
  while (!out.includes(`webhook receiver listening on https://localhost:${port}`)) {
    if (Date.now() > deadline) throw new Error(`receiver did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    output: () => out,
    stop: () => {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
    },
  };
}

/** Real deliveries from the service, received and verified by the README's example receiver. */
describe('examples/webhook-receiver.ts receives real deliveries (e2e, TLS_CERT/TLS_KEY)', () => {
  let t: TestApp;
  let org: OrgWithKey;
  const stops: (() => void)[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_ALLOWED_HOSTS: 'localhost',
      WEBHOOK_TIMEOUT_MS: '3000',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_MAX_ATTEMPTS: '5',
      RATE_LIMIT_GENERAL_PER_MIN: '1000',
    });
    org = await createOrgWithKey(t.app);
  });
  afterAll(async () => {
    for (const stop of stops) stop();
    await t.close();
  });

  /** Polls the endpoint's delivery log until `done(list)`. */
  async function attempts(id: string, done: (list: Attempt[]) => boolean): Promise<Attempt[]> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const res = await api(t, org.key).get(`/api/v1/org/webhooks/${id}/deliveries`);
      expect(res.status).toBe(200);
      const list = res.body.deliveries as Attempt[];
      if (done(list)) return list;
      if (Date.now() > deadline) throw new Error(`deliveries: ${JSON.stringify(list)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Registers `https://localhost:PORT/hooks`, then starts the example there with `secret(issued)`. */
  async function endpointWithExample(secret: (issued: string) => string) {
    const port = await freePort();
    const res = await api(t, org.key).post('/api/v1/org/webhooks', {
      url: `https://localhost:${port}/hooks`,
    });
    expect(res.status).toBe(201);
    const example = await startExample(port, secret(res.body.secret as string));
    stops.push(example.stop);
    return { id: res.body.id as string, example };
  }

  it('verifies webhook.test and core.ready signed with the endpoint secret: 204, recorded as succeeded', async () => {
    const { id, example } = await endpointWithExample((issued) => issued);

    const test = await api(t, org.key).post(`/api/v1/org/webhooks/${id}/test`, {});
    expect(test.status).toBe(202);
    const deliveryId = test.body.deliveryId as string;
    await attempts(id, (list) => list.some((a) => a.event === 'webhook.test'));

    const created = await api(t, org.key).post('/api/v1/org/cores', {
      name: 'Delivered capsule',
      images: [await colourPng('#c19a6b')],
    });
    expect(created.status).toBe(202);
    const coreId = created.body.coreId as string;
    expect((await waitForCore(t, org, coreId)).coreStatus).toBe('ready');
    const list = await attempts(id, (l) => l.some((a) => a.event === 'core.ready'));

    expect(list.map((a) => [a.event, a.httpStatus, a.succeeded]).sort()).toEqual([
      ['core.ready', 204, true],
      ['webhook.test', 204, true],
    ]);
    expect(example.output()).toMatch(/^webhook\.test \[.+\]$/m);
    expect(example.output()).toContain(`webhook.test [${deliveryId}]`);
    expect(example.output()).toContain(`core.ready: "Delivered capsule" (${coreId}) can be searched`);
    expect(example.output()).not.toContain('refused');
  }, 300_000);

  it('refuses the same real deliveries with a wrong WEBHOOK_SECRET: the service records 401, not succeeded', async () => {
    const wrong = `whsec_${randomBytes(24).toString('base64')}`;
    const { id, example } = await endpointWithExample(() => wrong);

    const test = await api(t, org.key).post(`/api/v1/org/webhooks/${id}/test`, {});
    expect(test.status).toBe(202);
    const list = await attempts(id, (l) => l.filter((a) => a.event === 'webhook.test').length >= 2);
    for (const a of list) expect([a.event, a.httpStatus, a.succeeded]).toEqual(['webhook.test', 401, false]);
    expect(example.output()).toContain('refused a delivery: No matching signature found');
    expect(example.output()).not.toMatch(/^webhook\.test \[/m);
  }, 300_000);
});
