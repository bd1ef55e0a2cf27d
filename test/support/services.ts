import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './app';
import { TS_REGISTER } from './ts-register';

const ROOT = join(__dirname, '..', '..');
const PG_BIN = '/usr/lib/postgresql/15/bin';

async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 60000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A private `redis-server` on a free port (no persistence): stop and start it to simulate an outage. */
export interface OwnRedis {
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const redis: OwnRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        {
          stdio: 'ignore',
        },
      );
      await until('redis-server', async () => {
        try {
          execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'pipe' });
          return true;
        } catch {
          return false;
        }
      });
    },
    async stop() {
      if (!child) return;
      const c = child;
      child = undefined;
      c.kill('SIGKILL');
      await exited(c);
    },
  };
  await redis.start();
  return redis;
}

/** A private PostgreSQL 15 cluster in a temporary directory, run as the `postgres` OS user. */
export interface OwnPostgres {
  /** Connection URL of its `taste` database (created). */
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

export async function ownPostgres(): Promise<OwnPostgres> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'own-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const asPostgres = (cmd: string, args: string[]) =>
    execFileSync('runuser', ['-u', 'postgres', '--', join(PG_BIN, cmd), ...args], { stdio: 'pipe' });
  asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const pgCtl = (...args: string[]) =>
    asPostgres('pg_ctl', [
      '-D',
      data,
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      ...args,
    ]);
  const pg: OwnPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/taste`,
    async start() {
      pgCtl('-w', '-l', join(dir, 'log'), 'start');
    },
    async stop() {
      pgCtl('-w', '-m', 'immediate', 'stop');
    },
    async destroy() {
      try {
        pgCtl('-w', '-m', 'immediate', 'stop');
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await pg.start();
  execFileSync(
    'runuser',
    ['-u', 'postgres', '--', join(PG_BIN, 'createdb'), '-h', '127.0.0.1', '-p', String(port), 'taste'],
    {
      stdio: 'pipe',
    },
  );
  return pg;
}

/** The service as `node src/main.ts` (through the TypeScript hook) in a child process, on a free port. */
export interface SpawnedService {
  baseUrl: string;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function spawnService(
  env: Record<string, string>,
  opts: { entry?: 'main' | 'worker'; waitReady?: boolean } = {},
): Promise<SpawnedService> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    ['-r', TS_REGISTER, join(ROOT, 'src', `${opts.entry ?? 'main'}.ts`)],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
        PORT: String(port),
        PUBLIC_BASE_URL: baseUrl,
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const done = exited(child);
  const service: SpawnedService = {
    baseUrl,
    child,
    exited: done,
    output: () => out,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await done;
    },
  };
  if (opts.entry !== 'worker' && opts.waitReady !== false) {
    await until(
      `service on ${baseUrl}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`service exited: ${out}`);
        try {
          return (await fetch(`${baseUrl}/health/live`)).ok;
        } catch {
          return false;
        }
      },
      120000,
    );
  }
  return service;
}

export { until };

/**
 * A fresh database of its own on the shared PostgreSQL, migrated, for tests whose reconciler scans
 * every job row: with the shared test database it would pick up other test files' jobs.
 */
export async function ownDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const { Client } = await import('pg');
  const { DataSource } = await import('typeorm');
  const { dataSourceOptions } = await import('../../src/database/data-source');
  const base = new URL(process.env.DATABASE_URL as string);
  const name = `${base.pathname.slice(1)}_${label}_${process.pid}`.slice(0, 63);
  const admin = new URL(base);
  admin.pathname = '/postgres';
  const run = async (sql: string) => {
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await run(`CREATE DATABASE "${name}"`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const ds = new DataSource(dataSourceOptions(url.toString()));
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
