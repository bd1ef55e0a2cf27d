/**
 * Import throughput and search latency (`npm run bench:search -- --products 100000`).
 *
 * A fresh database (`taste_bench`, or BENCH_DB_NAME) with the migrations; N generated rows written to a
 * CSV feed and imported through the real importer (parse, validate, batch upsert, generated search
 * fields and their indexes); then service-level search latency at 1 and 8 concurrent clients after a warm-up pass.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { demoRows, freshDatabase, percentile, profileFrom, services } from './support';
import type { ProductSearchFilters } from '../src/products/products.service';

const COLUMNS = [
  'id',
  'title',
  'description',
  'brand',
  'price',
  'link',
  'affiliate_link',
  'image_link',
  'additional_image_link',
  'gender',
  'color',
  'material',
  'pattern',
  'product_type',
  'availability',
];

function csvCell(value: unknown): string {
  const text = value === undefined || value === null ? '' : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : Number.NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

async function main(): Promise<void> {
  const count = arg('--products', 100_000);
  const iterations = arg('--iterations', 200);
  const ds = await freshDatabase(process.env.BENCH_DB_NAME ?? 'taste_bench', 10);
  const dir = await mkdtemp(join(tmpdir(), 'taste-bench-'));
  try {
    const { importer, products } = services(ds);
    const file = join(dir, 'feed.csv');
    const out = createWriteStream(file);
    out.write(COLUMNS.join(',') + '\n');
    for await (const item of demoRows(count, 'bench')) {
      if ('error' in item) continue;
      if (!out.write(COLUMNS.map((c) => csvCell(item.row[c])).join(',') + '\n')) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    // Start from a quiet machine: the feed's own writeback (370 MB at 1M rows) and the dirty pages of
    // creating the database are not the import's work.
    const handle = await open(file, 'r');
    await handle.sync();
    await handle.close();
    await ds.query('CHECKPOINT');

    const t0 = performance.now();
    const summary = await importer.importFile(file);
    const importMs = performance.now() - t0;
    console.log(
      `import: ${count} rows in ${(importMs / 1000).toFixed(2)} s = ${Math.round(count / (importMs / 1000))} rows/s ` +
        `(inserted ${summary.inserted}, updated ${summary.updated}, unchanged ${summary.unchanged}, rejected ${summary.rejected})`,
    );
    // The same feed again (a daily refresh with nothing changed): every row is found unchanged.
    const t1 = performance.now();
    const again = await importer.importFile(file);
    const againMs = performance.now() - t1;
    console.log(
      `re-import of the same feed: ${Math.round(count / (againMs / 1000))} rows/s ` +
        `(updated ${again.updated}, unchanged ${again.unchanged})`,
    );
    await ds.query('VACUUM ANALYZE products');
    await ds.query('VACUUM ANALYZE colour_cells');

    const profiles = [
      profileFrom(
        'camel',
        [
          ['camel', 0.6],
          ['cream', 0.4],
        ],
        { styleAttributes: ['minimalist', 'classic'], tags: ['wool', 'coat'] },
      ),
      profileFrom(
        'navy',
        [
          ['navy', 0.7],
          ['white', 0.3],
        ],
        { styleAttributes: ['preppy'], patterns: ['striped'] },
      ),
      profileFrom(
        'green',
        [
          ['olive', 0.5],
          ['sage', 0.3],
          ['khaki', 0.2],
        ],
        { styleAttributes: ['utilitarian', 'relaxed'] },
      ),
      profileFrom(
        'red',
        [
          ['burgundy', 0.6],
          ['wine', 0.4],
        ],
        { styleAttributes: ['romantic', 'elegant'], tags: ['silk'] },
      ),
      profileFrom(
        'black',
        [
          ['black', 0.7],
          ['charcoal', 0.3],
        ],
        { styleAttributes: ['minimalist', 'edgy', 'tailored'] },
      ),
    ];
    const filters: ProductSearchFilters[] = [
      {},
      { query: 'wool coat' },
      { gender: 'women', maxPrice: 400 },
      { query: 'leather bag', minPrice: 100 },
      { gender: 'men' },
      { query: 'carburettor' },
    ];
    const call = (i: number): Promise<unknown> =>
      products.searchWithProfile(
        profiles[i % profiles.length],
        filters[Math.floor(i / profiles.length) % filters.length],
      );

    for (let i = 0; i < profiles.length * filters.length * 2; i += 1) await call(i); // warm-up pass

    for (const clients of [1, 8]) {
      const times: number[] = [];
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (next < iterations) {
            const i = next++;
            const t = performance.now();
            await call(i);
            times.push(performance.now() - t);
          }
        }),
      );
      const wall = (performance.now() - started) / 1000;
      times.sort((a, b) => a - b);
      console.log(
        `search, ${clients} client(s), ${iterations} requests at ${count} products: ` +
          `p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, ` +
          `p99 ${percentile(times, 99).toFixed(1)} ms, ${(iterations / wall).toFixed(0)} searches/s`,
      );
    }
  } finally {
    await ds.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
