import { Client } from 'pg';
import request from 'supertest';
import { startTestApp, TestApp } from '../support/app';
import { CLI_COMMAND_NAMES } from '../../src/cli/command-names';
import { cli, cliAsync } from '../support/cli';

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

    // commander's own messages, printed once with its prefix (not again as "error: error: ...").
    const unknownCommand = cli('frobnicate');
    expect(unknownCommand.code).toBe(1);
    expect(unknownCommand.stderr).toBe("error: unknown command 'frobnicate'\n");
    const unknownOption = cli('org:create', '--name', 'x', '--colour', 'blue');
    expect(unknownOption.code).toBe(1);
    expect(unknownOption.stdout).toBe('');
    expect(unknownOption.stderr).toBe("error: unknown option '--colour'\n");
  }, 60000);
});

describe('demo:bootstrap on a bare PostgreSQL (e2e, spawned process)', () => {
  const name = `taste_demo_${process.pid}`;
  const url = new URL(process.env.DATABASE_URL ?? '');
  url.pathname = `/${name}`;
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const dropDatabase = async (): Promise<void> => {
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.end();
  };
  // As `npm run demo` runs it: migrations on connect (the test run turns them off elsewhere).
  const env = { DATABASE_URL: url.toString(), DB_MIGRATIONS_RUN: 'true' };
  beforeAll(dropDatabase);
  afterAll(dropDatabase);

  it('creates the database, migrates it and prints a working key; a second run reuses the organization', async () => {
    const first = await cliAsync(env, 'demo:bootstrap');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const out = JSON.parse(first.stdout);
    expect(out.apiKey.key).toMatch(/^tpk_/);
    expect(out.dashboard.email).toEqual(expect.any(String));

    const second = await cliAsync(env, 'demo:bootstrap');
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout).organization.id).toBe(out.organization.id);
  }, 120000);
});

describe('admin CLI without its database (spawned process)', () => {
  /** The test database's server with a database name that does not exist there. */
  function missingDatabaseUrl(): string {
    const url = new URL(process.env.DATABASE_URL as string);
    url.pathname = '/taste_no_such_database';
    return url.toString();
  }
  /** A port with nothing listening: PostgreSQL unreachable. */
  const UNREACHABLE = 'postgres://postgres@127.0.0.1:1/taste';

  it.each([
    ['org:create', '--name', 'Nobody'],
    ['catalogue:import', '--file', 'feed.csv'],
  ])(
    "fails at once with PostgreSQL's one-line message when the database does not exist (%s)",
    async (...args: string[]) => {
      const res = await cliAsync({ DATABASE_URL: missingDatabaseUrl() }, ...args);
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('');
      // One line, no retries and no stack: a wrong name cannot come right by waiting.
      expect(res.stderr).toBe('error: database "taste_no_such_database" does not exist\n');
    },
    60000,
  );

  it('connects for exactly the commands that --help lists (src/cli/command-names.ts)', async () => {
    const help = await cliAsync({ DATABASE_URL: UNREACHABLE }, '--help');
    const listed = [...help.stdout.split('Commands:')[1].matchAll(/^ {2}([a-z]+:[a-z]+)/gm)].map((m) => m[1]);
    expect([...listed].sort()).toEqual([...CLI_COMMAND_NAMES].sort());
  }, 60000);

  it('prints help without PostgreSQL: --help, -h and help exit 0, no command is a usage error', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const res = await cliAsync({ DATABASE_URL: UNREACHABLE }, ...args);
      expect(res.code).toBe(0);
      expect(res.stderr).toBe('');
      expect(res.stdout).toContain('org:create');
      expect(res.stdout).toContain('catalogue:import');
    }
    const command = await cliAsync({ DATABASE_URL: UNREACHABLE }, 'key:create', '--help');
    expect(command.code).toBe(0);
    expect(command.stdout).toContain('--org');
    // demo:bootstrap creates its database before it connects, but not for its help.
    const demo = await cliAsync({ DATABASE_URL: UNREACHABLE }, 'demo:bootstrap', '--help');
    expect(demo.code).toBe(0);
    expect(demo.stdout).toContain('demo:bootstrap');
    // A misspelt command is named at once, not after ten connection attempts to the database.
    const misspelt = await cliAsync({ DATABASE_URL: UNREACHABLE }, 'org:creat', '--name', 'x');
    expect(misspelt.code).toBe(1);
    expect(misspelt.stdout).toBe('');
    expect(misspelt.stderr).toBe("error: unknown command 'org:creat'\n(Did you mean org:create?)\n");
    const none = await cliAsync({ DATABASE_URL: UNREACHABLE });
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('Usage:');
    expect(none.stderr).not.toContain('error:');
  }, 120000);
});
