/**
 * The load generator of the latency benchmarks, run in a process of its own (`node -r
 * ts-node/register/transpile-only bench/load-client.ts SPEC.json`): `clients` concurrent loops send the
 * spec's requests in turn (request i is `requests[i % length]`) over keep-alive connections until
 * `total` have been answered, after `warmup` untimed ones (sent at the same concurrency). Prints JSON: every latency in ms (sorted),
 * the status counts and the wall time.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

export interface LoadSpec {
  origin: string;
  headers: Record<string, string>;
  requests: { method: string; path: string; body?: string }[];
  clients: number;
  total: number;
  warmup: number;
}

export interface LoadResult {
  latencies: number[];
  /** Latencies by request kind (index into `requests`), sorted. */
  byRequest: number[][];
  statuses: Record<string, number>;
  wallMs: number;
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  const dispatcher = new Agent({ connections: spec.clients, keepAliveTimeout: 60_000 });
  const send = async (i: number): Promise<{ ms: number; status: number }> => {
    const r = spec.requests[i % spec.requests.length];
    const t0 = performance.now();
    const res = await request(spec.origin + r.path, {
      method: r.method as 'GET',
      headers: { ...spec.headers, ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: r.body,
      dispatcher,
    });
    await res.body.text();
    return { ms: performance.now() - t0, status: res.statusCode };
  };
  // The warm-up at the same concurrency as the timed requests.
  let warm = 0;
  await Promise.all(
    Array.from({ length: spec.clients }, async () => {
      while (warm < spec.warmup) await send(warm++);
    }),
  );
  const latencies: number[] = [];
  const byRequest: number[][] = spec.requests.map(() => []);
  const statuses: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: spec.clients }, async () => {
      while (next < spec.total) {
        const i = next++;
        const { ms, status } = await send(i);
        latencies.push(ms);
        byRequest[i % spec.requests.length].push(ms);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  const wallMs = performance.now() - started;
  await dispatcher.close();
  const sort = (xs: number[]) => xs.sort((a, b) => a - b);
  return { latencies: sort(latencies), byRequest: byRequest.map(sort), statuses, wallMs };
}

if (require.main === module) {
  const spec = JSON.parse(readFileSync(process.argv[2], 'utf8')) as LoadSpec;
  run(spec)
    .then((r) => process.stdout.write(JSON.stringify(r)))
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
