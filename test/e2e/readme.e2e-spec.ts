import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../support/app';
import { runAsync } from '../support/cli';
import { TS_REGISTER } from '../support/ts-register';

const ROOT = join(__dirname, '..', '..');
const MARKER = '<!-- walkthrough: examples/walkthrough.sh without its first line -->';

/** The fenced bash block right after the walkthrough marker in README.md. */
function readmeWalkthrough(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(MARKER);
  if (at < 0) throw new Error(`README.md has no "${MARKER}"`);
  const block = /```bash\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!block) throw new Error('no bash block after the walkthrough marker');
  return block[1];
}

/**
 * A newcomer's first minutes against the real server as a child process with its own database (as
 * `npm run demo` starts it, `main --demo`): the start-up banner with the demo key last, no route
 * lines at info, `/` and the favicon, then the README's walkthrough pasted into bash from another
 * directory.
 */
describe('README: start-up and walkthrough (e2e, spawned server)', () => {
  const dbName = `taste_readme_${process.pid}`;
  const admin = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  let server: ChildProcess;
  let out = '';
  let base = '';
  let key = '';

  beforeAll(async () => {
    const pg = new Client({ connectionString: admin });
    await pg.connect();
    await pg.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await pg.query(`CREATE DATABASE "${dbName}"`);
    await pg.end();
    const databaseUrl = new URL(admin);
    databaseUrl.pathname = `/${dbName}`;

    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ['-r', TS_REGISTER, join(ROOT, 'src', 'main.ts'), '--demo'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        PUBLIC_BASE_URL: base,
        DATABASE_URL: databaseUrl.toString(),
        DB_MIGRATIONS_RUN: 'true',
        LOG_LEVEL: 'info',
        QUEUE_PREFIX: `readme-${port}`,
        STORAGE_DIR: mkdtempSync(join(tmpdir(), 'readme-storage-')),
        TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
      },
    });
    server.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    server.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    const deadline = Date.now() + 180_000;
    while (!/Dashboard sign-in .*\n/.test(out)) {
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`server did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    key = /API key \(shown once\) +(tpk_\w+)/.exec(out)?.[1] ?? '';
  }, 240_000);

  afterAll(async () => {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    const pg = new Client({ connectionString: admin });
    await pg.connect();
    await pg.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await pg.end();
  });

  it('prints one banner after listening, with the demo key and sign-in last, and no route lines at info', () => {
    const text = out
      .split('\n')
      .filter((line) => !line.startsWith('{'))
      .join('\n')
      .trim();
    expect(text.match(/listening on/g)).toHaveLength(1);
    expect(text).toContain(`Taste Profile Service listening on ${base}`);
    expect(text).toContain(`Dashboard     ${base}/dashboard`);
    expect(text).toContain(`API docs      ${base}/api/docs`);
    expect(text).toContain(`MCP endpoint  ${base}/mcp`);
    const lines = text.split('\n');
    expect(lines[lines.length - 1]).toContain(`export TASTE_API_KEY=${key}`);
    expect(lines[lines.length - 2]).toMatch(/^ {2}Dashboard sign-in +demo@example\.com \/ \S{12,}$/);
    expect(key).toMatch(/^tpk_\w{38}$/);

    const json = out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { context?: string; msg?: string });
    expect(json.some((l) => l.context === 'NestApplication')).toBe(true);
    expect(json.filter((l) => ['RoutesResolver', 'RouterExplorer'].includes(l.context ?? ''))).toEqual([]);
    expect(out).not.toContain('Mapped {');
  });

  it('GET / redirects to the dashboard, and the favicon is served', async () => {
    const root = await fetch(`${base}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/dashboard');
    const icon = await fetch(`${base}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/x-icon');
    const bytes = Buffer.from(await icon.arrayBuffer());
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
    const signIn = await (await fetch(`${base}/dashboard/sign-in`)).text();
    expect(signIn).toContain('<link rel="icon" href="/favicon.ico"');
  });

  it("README's walkthrough block is examples/walkthrough.sh, and pasted into bash it creates, polls and searches", async () => {
    const block = readmeWalkthrough();
    const script = readFileSync(join(ROOT, 'examples', 'walkthrough.sh'), 'utf8');
    expect(script.split('\n').slice(1).join('\n')).toBe(block);

    // From another directory, as a reader pastes it (bash -s reads the pasted text from stdin).
    const res = await runAsync('bash', ['-s'], {
      cwd: mkdtempSync(join(tmpdir(), 'reader-')),
      env: { BASE_URL: base, TASTE_API_KEY: key },
      input: block,
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const answers = res.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(answers[0]).toMatchObject({ status: 200, organization: { name: 'Demo Organization' } });
    expect(answers[1]).toMatchObject({ status: 202, coreStatus: 'processing' });
    expect(answers[2]).toMatchObject({
      id: answers[1].coreId,
      coreStatus: 'ready',
      taste: expect.any(String),
    });
    expect(answers[3]).toMatchObject({ status: 200, coreName: 'Camel capsule', query: 'coat' });
  }, 120_000);

  it('the walkthrough stops with the reason when the key is missing or wrong', async () => {
    const missing = await runAsync('bash', ['-s'], {
      env: { BASE_URL: base, TASTE_API_KEY: '' },
      input: readmeWalkthrough(),
    });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('export TASTE_API_KEY=tpk_...');
    const wrong = await runAsync('bash', ['-s'], {
      env: { BASE_URL: base, TASTE_API_KEY: 'tpk_wrong' },
      input: readmeWalkthrough(),
    });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toContain('Invalid API key.');
  }, 120_000);
});
