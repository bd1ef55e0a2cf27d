/**
 * Soak benchmark (`npm run bench:soak -- [--minutes 30] [--rate 20]`, after `npm run build`): runs the
 * built service (`node dist/main.js`, NODE_ENV=production, rate limits raised) against a fresh
 * database, drives it over HTTP from this process with mixed traffic at a steady rate, samples the
 * service's RSS (from /proc/<pid>/status) and event-loop delay (from a preloaded probe, over IPC)
 * every 10 s, prints a table, and ends with a verdict: is memory flat?
 *
 * Traffic per request slot: 10% create a core (one small PNG data URL), 45% get a core, 20% list
 * cores (with a search query half the time), 15% product search on a ready core, 5% get a job,
 * 5% readiness. Not a test: figures depend on the machine.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { freshDatabase, percentile, services, demoRows } from './support';

const ROOT = join(__dirname, '..');
const SAMPLE_MS = 10_000;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  return v;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

function cli(env: NodeJS.ProcessEnv, ...args: string[]): Record<string, string> {
  const res = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], { env, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`cli ${args[0]} failed: ${res.stderr}`);
  return JSON.parse(res.stdout) as Record<string, string>;
}

interface Sample {
  minute: number;
  rssMb: number;
  heapMb: number;
  eldP50: number;
  eldP99: number;
  eldMax: number;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
}

async function main(): Promise<void> {
  const minutes = arg('minutes', 30);
  const rate = arg('rate', 20);
  if (!existsSync(join(ROOT, 'dist', 'main.js')))
    throw new Error('dist/main.js is missing: run `npm run build` first');
  const dbName = process.env.SOAK_DB ?? 'taste_soak_bench';
  const ds = await freshDatabase(dbName);
  await services(ds).importer.importRows(demoRows(2000));
  await ds.destroy();
  const url = new URL(process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${dbName}`;

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    DATABASE_URL: url.toString(),
    REDIS_URL: process.env.SOAK_REDIS_URL ?? 'redis://127.0.0.1:6379/15',
    QUEUE_PREFIX: `soak-${process.pid}`,
    STORAGE_DIR: mkdtempSync(join(tmpdir(), 'soak-storage-')),
    PUBLIC_BASE_URL: base,
    ALLOW_HTTP_PUBLIC_URL: 'true',
    API_KEY_PEPPER: 'soak-benchmark-pepper-0123456789abcdef0123456789',
    SESSION_SECRET: 'soak-benchmark-session-0123456789abcdef0123456789',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_GENERAL_PER_MIN: '1000000',
    RATE_LIMIT_CREATE_PER_MIN: '1000000',
    RATE_LIMIT_SEARCH_PER_MIN: '1000000',
    SOAK_SAMPLE_MS: String(SAMPLE_MS),
  };
  const org = cli(env, 'org:create', '--name', 'Soak');
  const key = cli(env, 'key:create', '--org', org.id, '--name', 'soak').key;

  const service: ChildProcess = spawn(
    process.execPath,
    ['--require', join(__dirname, 'soak-probe.js'), join(ROOT, 'dist', 'main.js')],
    { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  let probe = { eldP50: 0, eldP99: 0, eldMax: 0, heapMb: 0 };
  service.on('message', (m) => (probe = m as typeof probe));
  const stop = () => service.kill('SIGTERM');
  process.on('SIGINT', () => {
    stop();
    process.exit(130);
  });
  for (let i = 0; ; i += 1) {
    if (service.exitCode !== null) throw new Error('the service exited during start-up');
    if (
      await fetch(`${base}/health/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 600) throw new Error('the service did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }

  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const images = await Promise.all(
    ['#8d5524', '#1f3b4d', '#c9a227', '#6b8f71', '#a23b72'].map(async (hex) => {
      const png = await sharp({ create: { width: 256, height: 256, channels: 3, background: hex } })
        .png()
        .toBuffer();
      return `data:image/png;base64,${png.toString('base64')}`;
    }),
  );
  const cores: string[] = [];
  const jobs: string[] = [];
  const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(Math.random() * xs.length)];

  async function one(): Promise<boolean> {
    const r = Math.random();
    const core = pick(cores);
    let res: Response;
    if (r < 0.1 || !core) {
      res = await fetch(`${base}/api/v1/org/cores`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `Soak ${cores.length}`, images: [pick(images)] }),
      });
      if (res.status === 202) {
        const body = (await res.json()) as { coreId: string; jobId: string };
        cores.push(body.coreId);
        jobs.push(body.jobId);
        if (cores.length > 500) cores.shift();
        if (jobs.length > 500) jobs.shift();
        return true;
      }
    } else if (r < 0.55) {
      res = await fetch(`${base}/api/v1/org/cores/${core}`, { headers });
    } else if (r < 0.75) {
      res = await fetch(`${base}/api/v1/org/cores?limit=20${Math.random() < 0.5 ? '&query=warm' : ''}`, {
        headers,
      });
    } else if (r < 0.9) {
      res = await fetch(`${base}/api/v1/org/cores/${core}/products`, { method: 'POST', headers, body: '{}' });
      if (res.status === 409) {
        await res.arrayBuffer();
        return true; // not ready yet: an expected answer
      }
    } else if (r < 0.95) {
      res = await fetch(`${base}/api/v1/org/jobs/${pick(jobs)}`, { headers });
    } else {
      res = await fetch(`${base}/health/ready`);
    }
    await res.arrayBuffer();
    return res.ok;
  }

  const samples: Sample[] = [];
  let latencies: number[] = [];
  let requests = 0;
  let errors = 0;
  const start = Date.now();
  const end = start + minutes * 60_000;
  console.log(
    `soak: ${minutes} min at ${rate} req/s against pid ${service.pid}; a sample every ${SAMPLE_MS / 1000} s`,
  );
  console.log('  min |  RSS MB | heap MB | ELD p50 | ELD p99 | ELD max | req | err | p50 ms | p99 ms');
  const sampler = setInterval(() => {
    latencies.sort((a, b) => a - b);
    const s: Sample = {
      minute: (Date.now() - start) / 60_000,
      rssMb: rssMb(service.pid as number),
      ...probe,
      requests,
      errors,
      p50: Math.round(percentile(latencies, 50)),
      p99: Math.round(percentile(latencies, 99)),
    };
    samples.push(s);
    latencies = [];
    requests = 0;
    errors = 0;
    const c = (v: number, w: number) => String(v).padStart(w);
    console.log(
      `${c(Math.round(s.minute * 10) / 10, 5)} | ${c(s.rssMb, 7)} | ${c(s.heapMb, 7)} | ${c(s.eldP50, 7)} | ${c(s.eldP99, 7)} | ${c(s.eldMax, 7)} | ${c(s.requests, 3)} | ${c(s.errors, 3)} | ${c(s.p50, 6)} | ${c(s.p99, 6)}`,
    );
  }, SAMPLE_MS);

  const interval = 1000 / rate;
  const inFlight = new Set<Promise<void>>();
  for (let next = Date.now(); Date.now() < end; next += interval) {
    const wait = next - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (inFlight.size >= 64) {
      errors += 1; // the service fell behind: a slot is dropped, not queued
      continue;
    }
    const t0 = performance.now();
    const p: Promise<void> = one()
      .then(
        (ok) => {
          if (!ok) errors += 1;
        },
        () => {
          errors += 1;
        },
      )
      .finally(() => {
        requests += 1;
        latencies.push(performance.now() - t0);
        inFlight.delete(p);
      });
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  clearInterval(sampler);
  stop();

  // Verdict: after a warm-up (the first third), RSS must not keep growing: the last third's median
  // within 10% (and 40 MB) of the middle third's, and the least-squares slope under 2 MB a minute.
  const steady = samples.slice(Math.floor(samples.length / 3));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const half = Math.floor(steady.length / 2);
  const middle = median(steady.slice(0, half).map((s) => s.rssMb));
  const last = median(steady.slice(half).map((s) => s.rssMb));
  const n = steady.length;
  const mx = steady.reduce((a, s) => a + s.minute, 0) / n;
  const my = steady.reduce((a, s) => a + s.rssMb, 0) / n;
  const slope =
    steady.reduce((a, s) => a + (s.minute - mx) * (s.rssMb - my), 0) /
    Math.max(
      1e-9,
      steady.reduce((a, s) => a + (s.minute - mx) ** 2, 0),
    );
  const growth = last - middle;
  const flat = n >= 4 && growth <= Math.max(40, middle * 0.1) && slope < 2;
  const totalErrors = samples.reduce((a, s) => a + s.errors, 0);
  const totalRequests = samples.reduce((a, s) => a + s.requests, 0);
  console.log(
    `\nRSS after warm-up: median ${middle} MB then ${last} MB (${growth >= 0 ? '+' : ''}${growth} MB), slope ${slope.toFixed(2)} MB/min; ` +
      `event-loop delay p99 max ${Math.max(...samples.map((s) => s.eldP99))} ms; ${totalRequests} requests, ${totalErrors} errors`,
  );
  console.log(
    n < 4
      ? 'verdict: too short to judge (run at least 2 minutes)'
      : `verdict: memory ${flat ? 'FLAT' : 'NOT FLAT'}`,
  );
  process.exitCode = flat ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
