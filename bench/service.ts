/**
 * The built service as a user runs it, for the benchmarks and evaluations: a fresh database, `node
 * dist/main.js` with production settings in its own process (its info log written to a file), the
 * real CLI (`node dist/cli.js`) for organizations, keys and catalogue imports, and small HTTP helpers.
 * Nothing here imports the service's code: everything goes over HTTP or through the CLI.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

export const ROOT = join(__dirname, '..');
export const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/9';
export const TLS_DIR = join(ROOT, 'test', 'fixtures', 'tls');

/** Stops with a clear message when `npm run build` has not been run (the benchmarks never build). */
export function requireBuild(): void {
  if (!existsSync(join(ROOT, 'dist', 'main.js')) || !existsSync(join(ROOT, 'dist', 'cli.js'))) {
    console.error(
      'dist/main.js not found: run `npm run build` first (the benchmarks run the built service).',
    );
    process.exit(2);
  }
}

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops and creates database `name` (the service's migrations run when it starts). */
export async function freshDatabase(name: string): Promise<string> {
  if (!/^taste_(dev_bench|(bench|soak|eval)_[a-z0-9_]+)$/.test(name))
    throw new Error(`refusing to recreate database ${name}`);
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  return databaseUrl(name);
}

export async function sql<T = Record<string, unknown>>(url: string, text: string): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text)).rows as T[];
  } finally {
    await c.end();
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Service {
  base: string;
  port: number;
  env: Record<string, string>;
  logFile: string;
  /** The `node dist/main.js` process (its pid for /proc, its IPC channel when opened). */
  child: ChildProcess;
  /** Stops the service and removes its storage directory (the log file stays). */
  stop(): Promise<void>;
}

function randomSecret(): string {
  return randomBytes(36).toString('base64url'); // 48 characters
}

/** The environment of the service and the CLI: production, info logging, limits raised. */
export function serviceEnv(
  dbUrl: string,
  port: number,
  extra: Record<string, string> = {},
): Record<string, string> {
  const storage = mkdtempSync(join(tmpdir(), 'taste-bench-storage-'));
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'production',
    PORT: String(port),
    LOG_LEVEL: 'info',
    DATABASE_URL: dbUrl,
    REDIS_URL: BENCH_REDIS_URL,
    QUEUE_PREFIX: `bench-${process.pid}-${port}`,
    STORAGE_DIR: storage,
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    // production start rules (being added in parallel) want https and long secrets: a benchmark on
    // loopback says so explicitly
    ALLOW_HTTP_PUBLIC_URL: 'true',
    API_KEY_PEPPER: randomSecret(),
    SESSION_SECRET: randomSecret(),
    RATE_LIMIT_GENERAL_PER_MIN: '100000000',
    RATE_LIMIT_CREATE_PER_MIN: '100000000',
    RATE_LIMIT_SEARCH_PER_MIN: '100000000',
    IMAGE_FETCH_ALLOWED_HOSTS: 'localhost',
    NODE_EXTRA_CA_CERTS: join(TLS_DIR, 'ca.pem'),
    ...extra,
  };
}

async function waitUntilLive(base: string, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}; see ${logFile}`);
    try {
      const res = await fetch(`${base}/health/live`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the service did not come up in 120 s; see ${logFile}`);
}

export interface StartOptions {
  /** Node options placed before the script, e.g. `['--require', probe]`. */
  nodeArgs?: string[];
  /** Opens an IPC channel: the service's `process.send` messages arrive on `child`. */
  ipc?: boolean;
  /** The checkout whose build runs (default: this one), e.g. another commit for `bench:ab-create`. */
  root?: string;
}

/** Starts `node dist/main.js` and waits for /health/live. */
export async function startService(
  env: Record<string, string>,
  options: StartOptions = {},
): Promise<Service> {
  const logDir = mkdtempSync(join(tmpdir(), 'taste-bench-log-'));
  const logFile = join(logDir, 'service.log');
  const fd = openSync(logFile, 'a');
  const root = options.root ?? ROOT;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), join(root, 'dist', 'main.js')], {
    cwd: root,
    env,
    stdio: options.ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
  });
  const base = `http://127.0.0.1:${env.PORT}`;
  await waitUntilLive(base, child, logFile);
  return {
    base,
    port: Number(env.PORT),
    env,
    logFile,
    child,
    stop: async () => {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      });
      if (env.STORAGE_DIR) rmSync(env.STORAGE_DIR, { recursive: true, force: true });
    },
  };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /**
   * The process's peak resident memory (VmHWM in /proc/<pid>/status, sampled every 50 ms, so at most
   * 50 ms short of the end), in MB; null where /proc cannot be read.
   */
  peakRssMb: number | null;
  /** The process's user plus system CPU time in ms (its rusage, counted when it was reaped). */
  cpuMs: number;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Clock ticks in /proc/<pid>/stat: USER_HZ, 100 on Linux whatever the kernel's own tick rate. */
const TICK_MS = 10;

/** User plus system CPU time of a running process, in ms (`utime` and `stime` of /proc/<pid>/stat). */
export function processCpuMs(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** CPU time of this process's children that have ended and been reaped (`cutime`, `cstime`), in ms. */
export function reapedChildrenCpuMs(): number {
  const fields = statFields('self');
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

/** CPU time the whole machine has spent busy (user, nice, system, irq over every core), in ms. */
export function machineBusyMs(): number {
  return cpus().reduce((sum, { times: t }) => sum + t.user + t.nice + t.sys + t.irq, 0);
}

/** VmHWM of a running process in kB, or null. */
function peakRssKb(pid: number | undefined): number | null {
  try {
    const match = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Runs `node dist/cli.js ...args` and times its wall clock. */
export function runCli(env: Record<string, string>, ...args: string[]): Promise<CliRun> {
  return runCliIn(ROOT, env, ...args);
}

/** runCli() with the build of another checkout. */
function runCliIn(root: string, env: Record<string, string>, ...args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const cpu0 = reapedChildrenCpuMs();
    const child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), ...args], { cwd: root, env });
    let stdout = '';
    let stderr = '';
    let peakKb: number | null = null;
    const sampler = setInterval(() => (peakKb = peakRssKb(child.pid) ?? peakKb), 50);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (err) => {
      clearInterval(sampler);
      reject(err);
    });
    child.on('close', (code) => {
      clearInterval(sampler);
      const peakRssMb = peakKb === null ? null : Math.round(peakKb / 1024);
      // The child is reaped before 'close': its CPU is in this process's children's total now. The
      // CLI runs one at a time, so nothing else ends in between.
      resolve({
        code,
        stdout,
        stderr,
        ms: performance.now() - t0,
        peakRssMb,
        cpuMs: reapedChildrenCpuMs() - cpu0,
      });
    });
  });
}

export function cliJson<T>(env: Record<string, string>, ...args: string[]): Promise<T> {
  return cliJsonIn<T>(ROOT, env, ...args);
}

async function cliJsonIn<T>(root: string, env: Record<string, string>, ...args: string[]): Promise<T> {
  const r = await runCliIn(root, env, ...args);
  if (r.code !== 0) throw new Error(`cli ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** A new organization and API key through the CLI (of checkout `root`, default this one). */
export async function orgAndKey(env: Record<string, string>, name: string, root = ROOT): Promise<string> {
  const org = await cliJsonIn<{ id: string }>(root, env, 'org:create', '--name', name);
  const key = await cliJsonIn<{ key: string }>(root, env, 'key:create', '--org', org.id, '--name', 'bench');
  return key.key;
}

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
  ms: number;
}

export async function api<T = Record<string, unknown>>(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiResponse<T>> {
  const t0 = performance.now();
  const res = await fetch(`${base}/api/v1/org${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, ms };
}

/** Polls GET /cores/{id} until the core is ready (or failed); returns the wait in ms. */
export async function waitReady(
  base: string,
  key: string,
  coreId: string,
  pollMs = 20,
  timeoutMs = 180_000,
): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const r = await api<{ coreStatus: string; error?: string }>(base, key, 'GET', `/cores/${coreId}`);
    if (r.body.coreStatus === 'ready') return performance.now() - t0;
    if (r.body.coreStatus === 'failed') throw new Error(`core ${coreId} failed: ${r.body.error}`);
    if (performance.now() - t0 > timeoutMs) throw new Error(`core ${coreId} not ready after ${timeoutMs} ms`);
    await new Promise((r2) => setTimeout(r2, pollMs));
  }
}

/** Creates a core from JPEG buffers (base64 data URLs) and waits until it is ready. */
export async function coreFromJpegs(
  base: string,
  key: string,
  name: string,
  jpegs: Buffer[],
): Promise<string> {
  const images = jpegs.map((j) => `data:image/jpeg;base64,${j.toString('base64')}`);
  const r = await api<{ coreId: string }>(base, key, 'POST', '/cores', { name, images });
  if (r.status !== 202) throw new Error(`create ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  await waitReady(base, key, r.body.coreId, 50);
  return r.body.coreId;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export function argNumber(name: string, fallback: number): number {
  const v = Number(argValue(name));
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

/** `--env KEY=VALUE` (repeatable): extra service environment, for trying a setting. */
export function extraEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  process.argv.forEach((a, i) => {
    if (a !== '--env') return;
    const [k, ...v] = (process.argv[i + 1] ?? '').split('=');
    if (!k || v.length === 0) throw new Error('--env takes KEY=VALUE');
    out[k] = v.join('=');
  });
  return out;
}

/** `9-16` or `9,10,12`: the seeds, in order (none when not given). */
export function seedList(text: string | undefined, option: string): number[] {
  if (!text) return [];
  const range = /^(\d+)-(\d+)$/.exec(text);
  if (range) {
    const [from, to] = [Number(range[1]), Number(range[2])];
    return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
  }
  return text.split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${option}: not a seed: ${s}`);
    return n;
  });
}
