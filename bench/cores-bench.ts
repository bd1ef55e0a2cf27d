/**
 * `npm run bench:cores`: create-core latency (1 and 5 base64 images of about 1 MB) and
 * GET /cores/{id} throughput at 50 connections, beside a bare node:http server running the same SQL
 * (key lookup + core + images) in the same run. Prints p50/p95 and the ratio. Not a test.
 */
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { Pool } from 'pg';
import sharp from 'sharp';
import request from 'supertest';
import { ApiKeysService } from '../src/auth/api-keys.service';
import { hashApiKey } from '../src/auth/api-key.format';
import { createApp } from '../src/bootstrap';
import { buildConfig, validateEnv } from '../src/config/configuration';
import { freshDatabase } from './support';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** A JPEG of random noise whose file is about `bytes` long (noise does not compress). */
async function noisyJpegDataUrl(bytes: number, seed: number): Promise<string> {
  let side = 700;
  for (;;) {
    const raw = Buffer.alloc(side * side * 3);
    let x = seed * 2654435761;
    for (let i = 0; i < raw.length; i += 1) {
      x = (x * 1103515245 + 12345) >>> 0;
      raw[i] = x >>> 24;
    }
    const jpg = await sharp(raw, { raw: { width: side, height: side, channels: 3 } })
      .jpeg({ quality: 90 })
      .toBuffer();
    if (jpg.length >= bytes * 0.9) return `data:image/jpeg;base64,${jpg.toString('base64')}`;
    side = Math.ceil(side * Math.sqrt(bytes / jpg.length) * 1.02);
  }
}

async function timeCreates(server: Server, key: string, images: string[], n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const t0 = process.hrtime.bigint();
    const res = await request(server)
      .post('/api/v1/org/cores')
      .set('Authorization', `Bearer ${key}`)
      .send({ name: `bench ${i}`, images });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (res.status !== 202) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
    if (i > 0) times.push(ms); // the first request warms up
  }
  return times.sort((a, b) => a - b);
}

interface CannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
}

/** autocannon in a process of its own, so the load generator does not share the server's thread. */
function cannon(url: string, key: string): Promise<CannonResult> {
  const cli = join(__dirname, '..', 'node_modules', 'autocannon', 'autocannon.js');
  const args = [
    cli,
    '--json',
    '-c',
    String(CONNECTIONS),
    '-d',
    String(DURATION_S),
    '-H',
    `authorization=Bearer ${key}`,
    url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve(JSON.parse(out) as CannonResult);
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}

/** The same SQL as the Nest handler: the key by hash (with its organization), then the core and its images. */
function bareServer(pool: Pool, pepper: string): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const k = await pool.query(
        'SELECT k.id, k.org_id, k.revoked_at, o.name FROM api_keys k JOIN organizations o ON o.id = k.org_id WHERE k.key_hash = $1',
        [hashApiKey(key, pepper)],
      );
      if (k.rowCount === 0 || k.rows[0].revoked_at) {
        res.writeHead(401).end();
        return;
      }
      const id = (req.url ?? '').split('/').pop();
      const core = await pool.query(
        `SELECT c.*, i.url, i.caption, i.position FROM cores c LEFT JOIN core_images i ON i.core_id = c.id
         WHERE c.id = $1 AND c.org_id = $2 ORDER BY i.position`,
        [id, k.rows[0].org_id],
      );
      if (core.rowCount === 0) {
        res.writeHead(404).end();
        return;
      }
      const c = core.rows[0];
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          status: 200,
          id: c.id,
          name: c.name,
          coreStatus: c.status,
          taste: c.taste,
          styleAttributes: c.style_attributes,
          tags: c.tags,
          images: core.rows.map((r) => ({ imageURL: r.url, caption: r.caption })),
          error: c.error,
          createdAt: c.created_at,
        }),
      );
    })().catch(() => res.writeHead(500).end());
  });
}

async function main(): Promise<void> {
  const dbName = 'taste_bench_cores';
  const ds = await freshDatabase(dbName);
  await ds.destroy();
  const url = new URL(process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${dbName}`;
  const config = buildConfig(
    validateEnv({
      DATABASE_URL: url.toString(),
      DB_MIGRATIONS_RUN: 'false',
      REDIS_URL: 'redis://127.0.0.1:6379/2',
      QUEUE_PREFIX: `bench-${process.pid}`,
      ROLE: 'api', // measure the request path; generation would compete for the two cores
      STORAGE_DIR: mkdtempSync(join(tmpdir(), 'bench-storage-')),
      LOG_LEVEL: 'silent',
      RATE_LIMIT_GENERAL_PER_MIN: '100000000',
      RATE_LIMIT_CREATE_PER_MIN: '100000000',
    }),
  );
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const server = app.getHttpServer() as Server;
  const port = (server.address() as { port: number }).port;
  const keys = app.get(ApiKeysService);
  const org = await keys.createOrganization('Bench');
  const key = (await keys.createKey(await keys.cliContext(org.id), 'bench')).key;

  const one = [await noisyJpegDataUrl(1024 * 1024, 1)];
  const five = await Promise.all([1, 2, 3, 4, 5].map((s) => noisyJpegDataUrl(1024 * 1024, s)));
  console.log(
    `image size: ${(Buffer.from(one[0].split(',')[1], 'base64').length / 1024).toFixed(0)} KB each`,
  );
  const c1 = await timeCreates(server, key, one, 21);
  const c5 = await timeCreates(server, key, five, 11);
  console.log(
    `create core, 1 x 1 MB image:  p50 ${percentile(c1, 50).toFixed(1)} ms  p95 ${percentile(c1, 95).toFixed(1)} ms  (n=${c1.length})`,
  );
  console.log(
    `create core, 5 x 1 MB images: p50 ${percentile(c5, 50).toFixed(1)} ms  p95 ${percentile(c5, 95).toFixed(1)} ms  (n=${c5.length})`,
  );

  const created = await request(server)
    .post('/api/v1/org/cores')
    .set('Authorization', `Bearer ${key}`)
    .send({ name: 'read me', images: one });
  const coreId = created.body.coreId as string;

  const pool = new Pool({ connectionString: url.toString(), max: 10 });
  const bare = bareServer(pool, config.auth.pepper);
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const barePort = (bare.address() as { port: number }).port;

  await cannon(`http://127.0.0.1:${port}/api/v1/org/cores/${coreId}`, key); // warm-up
  const nest = await cannon(`http://127.0.0.1:${port}/api/v1/org/cores/${coreId}`, key);
  await cannon(`http://127.0.0.1:${barePort}/cores/${coreId}`, key);
  const raw = await cannon(`http://127.0.0.1:${barePort}/cores/${coreId}`, key);
  const row = (name: string, r: CannonResult) =>
    `${name.padEnd(10)} ${r.requests.average.toFixed(0).padStart(6)} req/s  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  non-2xx ${r.non2xx}`;
  console.log(`GET /cores/{id}, ${CONNECTIONS} connections, ${DURATION_S} s:`);
  console.log(row('Nest', nest));
  console.log(row('bare http', raw));
  console.log(`ratio Nest / bare: ${((nest.requests.average / raw.requests.average) * 100).toFixed(0)}%`);

  bare.close();
  await pool.end();
  await app.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
