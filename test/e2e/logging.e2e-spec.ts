import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { candidateWarmStatement } from '../../src/products/products.repository';
import { freePort } from '../support/app';
import { cli } from '../support/cli';
import { TS_REGISTER } from '../support/ts-register';

const ROOT = join(__dirname, '..', '..');

const APP_NAME = `logs-e2e-${process.pid}`;

/** The real server as a child process with info-level JSON logs on stdout, read by the test. */
describe('structured logs (e2e, spawned server)', () => {
  let server: ChildProcess;
  let logs = '';
  let base = '';

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // Its own application_name, so its connections can be told from the other test files'.
    const dbUrl = new URL(process.env.DATABASE_URL as string);
    dbUrl.searchParams.set('application_name', APP_NAME);
    server = spawn(process.execPath, ['-r', TS_REGISTER, join(ROOT, 'src', 'main.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        LOG_LEVEL: 'info',
        QUEUE_PREFIX: `logs-${port}`,
        DATABASE_URL: dbUrl.toString(),
        DATABASE_POOL_WARM: '3',
        // No upkeep pass (the test default, said here because the first test relies on it): the
        // reconciler would run its queries on a warmed connection and replace its last statement.
        RECONCILE_INTERVAL_MS: '0',
        SWEEP_INTERVAL_MS: '0',
        TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
      },
    });
    server.stdout?.on('data', (d: Buffer) => (logs += d.toString()));
    server.stderr?.on('data', (d: Buffer) => (logs += d.toString()));
    const deadline = Date.now() + 60000;
    for (;;) {
      const ok = await fetch(`${base}/health/live`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`server did not start:\n${logs}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 90000);

  afterAll(() => {
    server.kill('SIGTERM');
  });

  it('listens with DATABASE_POOL_WARM connections open, each warmed with the search statement (0044)', async () => {
    const observer = new Client({ connectionString: process.env.DATABASE_URL });
    await observer.connect();
    const { rows } = await observer
      .query<{ query: string }>('SELECT query FROM pg_stat_activity WHERE application_name = $1', [APP_NAME])
      .finally(() => observer.end());
    // Before any request: the three warmed connections, plus whatever the start-up itself keeps open
    // (migrations, the reconciler), each warmed one last ran the candidate statement.
    const warmed = rows.filter(
      (r) => r.query.length > 0 && candidateWarmStatement().text.startsWith(r.query),
    );
    expect(warmed).toHaveLength(3);
    expect(logs).toContain('database connections warmed: 3');
  });

  it('writes JSON lines with the request id, and never the API key', async () => {
    const org = JSON.parse(cli('org:create', '--name', 'Logs Org').stdout);
    const { key } = JSON.parse(cli('key:create', '--org', org.id).stdout);
    const ok = await fetch(`${base}/api/v1/org/me`, {
      headers: { authorization: `Bearer ${key}`, 'x-request-id': 'log-test-1' },
    });
    expect(ok.status).toBe(200);
    const inQuery = await fetch(`${base}/api/v1/org/me?api_key=${key}`, {
      headers: { 'x-request-id': 'log-test-2' },
    });
    expect(inQuery.status).toBe(401);
    // A key in a header the service does not read (a client's mistake) was logged in clear.
    const elsewhere = await fetch(`${base}/api/v1/org/me`, {
      headers: {
        'x-request-id': 'log-test-3',
        'x-api-key': key,
        'proxy-authorization': `Bearer ${key}`,
        'x-custom': `token=${key}`,
      },
    });
    expect(elsewhere.status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));

    const lines = logs
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { req?: { id?: string; url?: string; headers?: Record<string, string> } });
    const first = lines.find((l) => l.req?.id === 'log-test-1');
    expect(first?.req?.headers?.authorization).toBe('[redacted]');
    const second = lines.find((l) => l.req?.id === 'log-test-2');
    expect(second?.req?.url).toBe('/api/v1/org/me?api_key=tpk_[redacted]');
    const third = lines.find((l) => l.req?.id === 'log-test-3');
    expect(third?.req?.headers).toMatchObject({
      'x-api-key': '[redacted]',
      'proxy-authorization': '[redacted]',
      'x-custom': 'token=tpk_[redacted]',
    });
    expect(logs).not.toContain(key);
    expect(logs).not.toContain(key.slice(4));
  });
});
