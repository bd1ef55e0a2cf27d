/**
 * Soak benchmark (`npm run bench:soak -- [--minutes 30] [--rate 20]`, after `npm run build`): runs the
 * built service as bench/service.ts starts it for every benchmark (`node dist/main.js`,
 * NODE_ENV=production, rate limits raised) against a fresh database (`SOAK_DB_NAME`, default
 * taste_soak_bench; Redis `SOAK_REDIS_URL`, default db 15) with the 2,000-product demo catalogue,
 * drives it over HTTP from this process with mixed traffic at a steady rate, samples the service
 * every 10 s and prints a table, and ends with a verdict: is memory flat?
 *
 * Each sample: RSS (/proc/<pid>/status), where it is (/proc/<pid>/smaps: V8's heap pages or native
 * memory), and from a probe preloaded into the service (bench/soak-probe.js, over IPC) the JS heap,
 * external memory, sharp's cache and the event-loop delay. `--env KEY=VALUE` (repeatable) adds to the
 * service's environment, to try a setting (e.g. `--env MALLOC_ARENA_MAX=2`).
 *
 * Traffic per request slot: 10% create a core (one small PNG data URL), 45% get a core, 20% list
 * cores (with a search query half the time), 15% product search on a ready core, 5% get a job,
 * 5% readiness. Not a test: figures depend on the machine.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import {
  argNumber,
  argValue,
  cliJson,
  extraEnv,
  freePort,
  freshDatabase,
  orgAndKey,
  percentile,
  requireBuild,
  serviceEnv,
  startService,
} from './service';

const SAMPLE_MS = 10_000;
/** Minutes of warm-up never judged, and the least judged after it (see the verdict). */
const WARM_UP_MIN = 5;
const MIN_JUDGED_MIN = 5;

function arg(name: string, fallback: number): number {
  if (argValue(`--${name}`) !== undefined && !(Number(argValue(`--${name}`)) > 0))
    throw new Error(`--${name} must be a positive number`);
  return argNumber(`--${name}`, fallback);
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/**
 * Where the resident memory is, from /proc/<pid>/smaps (Linux x86-64): `v8` is anonymous mappings
 * below 0x400000000000, where V8 places its heap pages at random addresses; `native` is the brk heap
 * and the anonymous mappings near the shared libraries (glibc malloc's main and thread arenas, its
 * mmap'd large blocks: libvips pixel buffers, Buffers, thread stacks). File-backed pages (code) are
 * neither. An estimate from the address layout, to tell a JS leak from a native one.
 */
function residentSplitMb(pid: number): { v8: number; native: number } {
  let v8 = 0;
  let native = 0;
  let kind: 'v8' | 'native' | null = null;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+)-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (m) {
      const [, start, inode, name] = m;
      if (inode !== '0' || name.startsWith('/') || (name.startsWith('[') && name !== '[heap]')) kind = null;
      else kind = name === '' && parseInt(start, 16) < 0x400000000000 ? 'v8' : 'native';
    } else if (kind && line.startsWith('Rss:')) {
      const kb = Number(line.split(/\s+/)[1]);
      if (kind === 'v8') v8 += kb;
      else native += kb;
    }
  }
  return { v8: Math.round(v8 / 1024), native: Math.round(native / 1024) };
}

interface Probe {
  eldP50: number;
  eldP99: number;
  eldMax: number;
  heapMb: number;
  heapTotalMb: number;
  externalMb: number;
  sharpCacheMb: number;
}

interface Sample extends Probe {
  minute: number;
  rssMb: number;
  v8Mb: number;
  nativeMb: number;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
}

async function main(): Promise<void> {
  const minutes = arg('minutes', 30);
  const rate = arg('rate', 20);
  requireBuild();
  const dbUrl = await freshDatabase(process.env.SOAK_DB_NAME ?? 'taste_soak_bench');
  const port = await freePort();
  const env = serviceEnv(dbUrl, port, {
    REDIS_URL: process.env.SOAK_REDIS_URL ?? 'redis://127.0.0.1:6379/15',
    QUEUE_PREFIX: `soak-${process.pid}`,
    LOG_LEVEL: 'warn',
    SOAK_SAMPLE_MS: String(SAMPLE_MS),
    ...extraEnv(),
  });
  const svc = await startService(env, {
    nodeArgs: ['--require', join(__dirname, 'soak-probe.js')],
    ipc: true,
  });
  const service = svc.child;
  const base = svc.base;
  let probe: Probe = {
    eldP50: 0,
    eldP99: 0,
    eldMax: 0,
    heapMb: 0,
    heapTotalMb: 0,
    externalMb: 0,
    sharpCacheMb: 0,
  };
  service.on('message', (m) => (probe = m as Probe));
  process.on('SIGINT', () => {
    void svc.stop().finally(() => process.exit(130));
  });
  await cliJson(env, 'catalogue:demo', '--count', '2000');
  const key = await orgAndKey(env, 'Soak');
  for (let i = 0; ; i += 1) {
    if (
      await fetch(`${base}/health/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 600) throw new Error(`the service did not become ready; see ${svc.logFile}`);
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
  console.log(
    '  min |  RSS MB | V8 MB | native MB | heap MB (used/total) |  ext MB | sharp MB | ELD p50 | ELD p99 | ELD max | req | err | p50 ms | p99 ms',
  );
  const sampler = setInterval(() => {
    latencies.sort((a, b) => a - b);
    const split = residentSplitMb(service.pid as number);
    const s: Sample = {
      minute: (Date.now() - start) / 60_000,
      rssMb: rssMb(service.pid as number),
      v8Mb: split.v8,
      nativeMb: split.native,
      ...probe,
      requests,
      errors,
      p50: latencies.length ? Math.round(percentile(latencies, 50)) : 0,
      p99: latencies.length ? Math.round(percentile(latencies, 99)) : 0,
    };
    samples.push(s);
    latencies = [];
    requests = 0;
    errors = 0;
    const c = (v: number | string, w: number) => String(v).padStart(w);
    console.log(
      `${c(Math.round(s.minute * 10) / 10, 5)} | ${c(s.rssMb, 7)} | ${c(s.v8Mb, 5)} | ${c(s.nativeMb, 9)} | ${c(`${s.heapMb}/${s.heapTotalMb}`, 20)} | ${c(s.externalMb, 7)} | ${c(s.sharpCacheMb, 8)} | ${c(s.eldP50, 7)} | ${c(s.eldP99, 7)} | ${c(s.eldMax, 7)} | ${c(s.requests, 3)} | ${c(s.errors, 3)} | ${c(s.p50, 6)} | ${c(s.p99, 6)}`,
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
  await svc.stop();

  // Verdict: after a warm-up (the first third, at least WARM_UP_MIN minutes), RSS must not keep
  // growing: the second half's median within 10% (and 40 MB) of the first half's, and the
  // least-squares slope under 2 MB a minute. Runs with less than MIN_JUDGED_MIN minutes after the
  // warm-up are not judged: V8's old generation takes about 3 minutes at 20 req/s to grow to its
  // working size, and a 3-minute run judged on its last two minutes read that as a leak (ADR 0031).
  const warmUp = Math.max(minutes / 3, WARM_UP_MIN);
  const steady = samples.filter((s) => s.minute >= warmUp);
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
  const judged = minutes - warmUp >= MIN_JUDGED_MIN && n >= 4;
  const flat = judged && growth <= Math.max(40, middle * 0.1) && slope < 2;
  const totalErrors = samples.reduce((a, s) => a + s.errors, 0);
  const totalRequests = samples.reduce((a, s) => a + s.requests, 0);
  const totals = `event-loop delay p99 max ${Math.max(...samples.map((s) => s.eldP99))} ms; ${totalRequests} requests, ${totalErrors} errors`;
  if (judged) {
    const split = (pick: (s: Sample) => number) =>
      `${median(steady.slice(0, half).map(pick))} then ${median(steady.slice(half).map(pick))} MB`;
    console.log(
      `\nRSS after the ${Math.round(warmUp * 10) / 10}-minute warm-up: median ${middle} MB then ${last} MB (${growth >= 0 ? '+' : ''}${growth} MB), slope ${slope.toFixed(2)} MB/min; ${totals}`,
    );
    console.log(
      `resident split after the warm-up (medians): V8 heap pages ${split((s) => s.v8Mb)}, native ${split((s) => s.nativeMb)}; ` +
        `JS heap used ${split((s) => s.heapMb)}`,
    );
  } else {
    const first = samples[0]?.rssMb ?? 0;
    const end = samples[samples.length - 1]?.rssMb ?? 0;
    console.log(`\nRSS ${first} MB at the first sample, ${end} MB at the last; ${totals}`);
  }
  console.log(
    judged
      ? `verdict: memory ${flat ? 'FLAT' : 'NOT FLAT'}`
      : `verdict: too short to judge (warm-up ${WARM_UP_MIN} min, then at least ${MIN_JUDGED_MIN} min)`,
  );
  process.exitCode = flat ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
