/**
 * `npm run bench:floors` (after `npm run build`): issue 12's two targets that slower machines miss, each
 * beside the floors of the work that no design keeping the contract can skip, all measured in one run on
 * this machine (docs/decisions/0059). It answers "can this machine meet the target at all?" before anyone
 * tunes the code for it.
 *
 *   npm run bench:floors -- [--products 100000] [--seed 1] [--rounds 20]
 *
 * Import (the realistic feed of `npm run bench`, database `taste_bench_floors`):
 * - the figure: `node dist/cli.js catalogue:import --file`, wall, CLI CPU and the machine's busy CPU;
 * - the budget: the target's wall time times the cores, the CPU the whole import may use;
 * - CLI start: `catalogue:import` of a missing file (modules, context, connections, teardown), median of 3;
 * - parsing: Papa Parse (the CLI's parser) over the feed in this process, no validation, best of 2;
 * - PostgreSQL's bare load: the imported rows with their computed search features, copied by one COPY
 *   into the emptied `products` table (its indexes and stored columns as the search needs them; no
 *   staging, merge, idempotency check or VACUUM), the backend's CPU from /proc, best of 2.
 * Create (the five 1.1 MB JPEGs of `npm run bench`):
 * - the body-reading floor: a server that only reads and parses the 7.6 MB body (as `npm run bench`);
 * - the five decodes at once (sharp, `failOn: 'error'`): the check that the bytes are a decodable
 *   image (docs/decisions/0003) cannot skip them;
 * - the five decodes and 1600 px renditions at once, with the service's JPEG settings.
 * Means add up (a create's mean is at least the body's plus the image work's), so the sum of the means is
 * printed beside the target; a p95 is above its mean.
 */
import { createReadStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Papa from 'papaparse';
import { Client } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import sharp from 'sharp';
import { writeFeed } from './feed-generator';
import { createBenchPhotos, createBody } from './photo-images';
import { bodyFloor } from './processes';
import {
  argNumber,
  freePort,
  freshDatabase,
  machineBusyMs,
  percentile,
  processCpuMs,
  requireBuild,
  runCli,
  serviceEnv,
  sql,
} from './service';

const PRODUCTS = argNumber('--products', 100_000);
const SEED = argNumber('--seed', 1);
const ROUNDS = argNumber('--rounds', 20);
const IMPORT_TARGET_ROWS_PER_S = 30_000;
const CREATE_TARGET_P95_MS = 250;
/** The columns a feed row writes (`CatalogueWriter`), plus the search features the merge computes. */
const COLUMNS = [
  'external_id',
  'title',
  'designer',
  'description',
  'price',
  'currency',
  'url',
  'media_url',
  'media_url_alt',
  'gender',
  'colour',
  'material',
  'pattern',
  'category',
  'availability',
  'colour_l',
  'colour_a',
  'colour_b',
  'colour_family',
  'features',
].join(', ');

const work = mkdtempSync(join(tmpdir(), 'taste-floors-'));
const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const ms = (x: number): string => `${x.toFixed(1)} ms`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { mean: mean(xs), p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
};
const statsText = (x: { mean: number; p50: number; p95: number }): string =>
  `mean ${ms(x.mean)}, p50 ${ms(x.p50)}, p95 ${ms(x.p95)}`;

/** CPU of this process (every thread: libvips's and libuv's too), in ms. */
function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function parseCpuMs(file: string): Promise<number> {
  const cpu0 = ownCpuMs();
  let rows = 0;
  await new Promise<void>((resolve, reject) => {
    const stream = createReadStream(file);
    stream.setEncoding('utf8');
    Papa.parse<string[]>(stream, {
      header: false,
      chunk: (r) => (rows += r.data.length),
      complete: () => resolve(),
      error: reject,
    });
  });
  if (rows < PRODUCTS) throw new Error(`parsed ${rows} rows, expected ${PRODUCTS}`);
  return ownCpuMs() - cpu0;
}

/** One COPY of `rows` (COPY text) into the emptied catalogue: the backend's CPU and the wall time. */
async function bareLoad(
  url: string,
  rows: Buffer,
): Promise<{ backendMs: number; wallMs: number; machineMs: number }> {
  await sql(url, 'TRUNCATE products CASCADE');
  await sql(url, 'CHECKPOINT');
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    // As the merge's transaction (docs/decisions/0029): no wait for the WAL flush.
    await c.query('SET synchronous_commit TO off');
    const pid = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const cpu0 = processCpuMs(pid);
    const busy0 = machineBusyMs();
    const t0 = performance.now();
    await pipeline(Readable.from([rows]), c.query(copyFrom(`COPY products (${COLUMNS}) FROM STDIN`)));
    const wallMs = performance.now() - t0;
    return { backendMs: processCpuMs(pid) - cpu0, wallMs, machineMs: machineBusyMs() - busy0 };
  } finally {
    await c.end();
  }
}

async function exportRows(url: string): Promise<Buffer> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const parts: Buffer[] = [];
    const out = c.query(copyTo(`COPY (SELECT ${COLUMNS} FROM products ORDER BY external_id) TO STDOUT`));
    for await (const part of out) parts.push(part as Buffer);
    return Buffer.concat(parts);
  } finally {
    await c.end();
  }
}

async function importFloors(): Promise<Record<string, unknown>> {
  const url = await freshDatabase('taste_bench_floors');
  const env = serviceEnv(url, await freePort());
  const migrated = await runCli(env, 'migration:run');
  if (migrated.code !== 0) throw new Error(`migration:run failed: ${migrated.stderr}`);
  const file = join(work, 'feed.csv');
  await writeFeed({ rows: PRODUCTS, seed: SEED, format: 'csv', out: file, truth: false });
  const h = await open(file, 'r');
  await h.sync();
  await h.close();
  await sql(url, 'CHECKPOINT');

  const busy0 = machineBusyMs();
  const run = await runCli(env, 'catalogue:import', '--file', file);
  const machineMs = machineBusyMs() - busy0;
  if (run.code !== 0) throw new Error(`import failed: ${run.stderr}`);

  const starts = [];
  for (let i = 0; i < 3; i += 1)
    starts.push(await runCli(env, 'catalogue:import', '--file', join(work, 'none.csv')));
  const start = { wallMs: median(starts.map((r) => r.ms)), cpuMs: median(starts.map((r) => r.cpuMs)) };

  const parseMs = Math.min(await parseCpuMs(file), await parseCpuMs(file));

  const rows = await exportRows(url);
  const loads = [await bareLoad(url, rows), await bareLoad(url, rows)];
  const bare = loads.reduce((a, b) => (b.backendMs < a.backendMs ? b : a));
  rmSync(env.STORAGE_DIR, { recursive: true, force: true });

  const cores = cpus().length;
  const budgetMs = (PRODUCTS / IMPORT_TARGET_ROWS_PER_S) * 1000 * cores;
  const floorsMs = start.cpuMs + parseMs + bare.backendMs;
  console.log(`\nImport of ${PRODUCTS} realistic rows (seed ${SEED}), ${cores} cores`);
  console.log(
    `  the import (the figure):   ${Math.round(PRODUCTS / (run.ms / 1000))} rows/s, ${s(run.ms)} wall; CPU: CLI ${s(run.cpuMs)}, machine ${s(machineMs)}`,
  );
  console.log(
    `  budget at ${IMPORT_TARGET_ROWS_PER_S} rows/s:    ${s(budgetMs)} of CPU (${s(budgetMs / cores)} wall x ${cores} cores)`,
  );
  console.log(`  CLI start (median of 3):   ${s(start.cpuMs)} CPU, ${s(start.wallMs)} wall`);
  console.log(`  Papa Parse alone (best 2): ${s(parseMs)} CPU`);
  console.log(
    `  PostgreSQL bare COPY:      ${s(bare.backendMs)} backend CPU, ${s(bare.wallMs)} wall (best of ${loads.map((l) => s(l.backendMs)).join(', ')}; machine ${s(bare.machineMs)})`,
  );
  console.log(
    `  floors together:           ${s(floorsMs)} CPU, ${Math.round((100 * floorsMs) / budgetMs)}% of the budget; left for validation, colour features, COPY text, staging, merge and VACUUM: ${s(budgetMs - floorsMs)}`,
  );
  return {
    rows: PRODUCTS,
    seed: SEED,
    cores,
    import: { wallMs: run.ms, cliCpuMs: run.cpuMs, machineBusyMs: machineMs },
    budgetCpuMs: budgetMs,
    cliStart: start,
    parseCpuMs: parseMs,
    bareCopy: { best: bare, runs: loads },
    floorsCpuMs: floorsMs,
  };
}

/** Wall time and this process's CPU of `rounds` rounds of `work` on all five images at once. */
async function imageRounds(
  images: Buffer[],
  each: (jpeg: Buffer) => Promise<unknown>,
): Promise<{ wall: ReturnType<typeof stats>; cpuMsPerRound: number }> {
  await Promise.all(images.map(each)); // warm-up: libvips's first use
  const walls: number[] = [];
  const cpu0 = ownCpuMs();
  for (let r = 0; r < ROUNDS; r += 1) {
    const t0 = performance.now();
    await Promise.all(images.map(each));
    walls.push(performance.now() - t0);
  }
  return { wall: stats(walls), cpuMsPerRound: (ownCpuMs() - cpu0) / ROUNDS };
}

async function createFloors(): Promise<Record<string, unknown>> {
  const images = (await createBenchPhotos()).map((j) => j.jpeg);
  const body = createBody('bench create', images);
  const bodyRun = await bodyFloor(body, ROUNDS, work);
  const bodyStats = stats(bodyRun.latencies);
  const options = { failOn: 'error' as const, limitInputPixels: 100_000_000 };
  const decode = await imageRounds(images, (jpeg) => sharp(jpeg, options).raw().toBuffer());
  const rendition = await imageRounds(images, (jpeg) =>
    sharp(jpeg, options)
      .rotate()
      .resize(1600, 1600, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 85, optimiseCoding: false })
      .toBuffer(),
  );
  const sum = (x: { mean: number }) => bodyStats.mean + x.mean;
  console.log(
    `\nCreate with 5 base64 JPEGs of ${(images[0].length / 1024 / 1024).toFixed(2)} MB (${body.length} bytes of JSON), ${ROUNDS} rounds each`,
  );
  console.log(`  target:                               p95 <= ${CREATE_TARGET_P95_MS} ms`);
  console.log(`  body-reading floor:                   ${statsText(bodyStats)}`);
  console.log(
    `  five decodes at once:                 ${statsText(decode.wall)}; CPU ${ms(decode.cpuMsPerRound)} a round`,
  );
  console.log(
    `  five decodes and renditions at once:  ${statsText(rendition.wall)}; CPU ${ms(rendition.cpuMsPerRound)} a round`,
  );
  console.log(
    `  body + decodes, mean:                 ${ms(sum(decode.wall))}; body + renditions, mean: ${ms(sum(rendition.wall))} (a create's mean is at least this; its p95 is above its mean)`,
  );
  return {
    imageBytes: images.map((j) => j.length),
    bodyBytes: body.length,
    rounds: ROUNDS,
    body: bodyStats,
    decode,
    rendition,
    meanFloorMs: { decode: sum(decode.wall), rendition: sum(rendition.wall) },
  };
}

async function main(): Promise<void> {
  requireBuild();
  const started = new Date();
  console.log(
    `${started.toISOString()}, ${cpus().length} x ${cpus()[0]?.model ?? '?'}, Node ${process.version}`,
  );
  try {
    const importReport = await importFloors();
    const createReport = await createFloors();
    const dir = join(__dirname, 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `floors-${started.toISOString().replace(/[:.]/g, '-')}.json`);
    const report = {
      started: started.toISOString(),
      command: `npm run bench:floors -- ${process.argv.slice(2).join(' ')}`.trim(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
      import: importReport,
      create: createReport,
    };
    writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
    console.log(`\nreport: ${file}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
