import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source';

const ROOT = join(__dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'catalogue');

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const res = spawnSync(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', join(ROOT, 'src', 'cli.ts'), ...args],
    {
      cwd: ROOT,
      env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
      encoding: 'utf8',
      timeout: 120000,
    },
  );
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe('catalogue:import (e2e, spawned process)', () => {
  let ds: DataSource;
  beforeAll(async () => {
    ds = new DataSource(dataSourceOptions(process.env.DATABASE_URL ?? ''));
    await ds.initialize();
  });
  afterAll(() => ds.destroy());

  it('imports a CSV feed, rejects bad rows with line and reason, and is idempotent', async () => {
    const first = cli('catalogue:import', '--file', join(FIXTURES, 'good-and-bad.csv'));
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.stdout);
    expect(summary).toEqual({
      inserted: 3,
      updated: 0,
      rejected: 5,
      rejections: [
        { line: 4, reason: 'missing price' },
        { line: 5, reason: expect.stringContaining('bad price') },
        { line: 6, reason: expect.stringContaining('bad URL in link') },
        { line: 7, reason: expect.stringContaining('unknown gender') },
        { line: 8, reason: 'missing id' },
      ],
    });

    const rows: Record<string, unknown>[] = await ds.query(
      `SELECT external_id, title, designer, price, currency, url, media_url, media_url_alt, gender, colour,
         colour_family, category, colour_l FROM products WHERE external_id LIKE 'imp-csv-%' ORDER BY external_id`,
    );
    expect(rows.map((r) => r.external_id)).toEqual(['imp-csv-1', 'imp-csv-2', 'imp-csv-8']);
    expect(rows[0]).toEqual(
      expect.objectContaining({
        title: 'Camel wool coat, long',
        designer: 'Maison Lune',
        price: '129.00',
        currency: 'USD',
        url: 'https://go.example.net/a?p=1',
        media_url: 'https://cdn.example.com/p/1.jpg',
        media_url_alt: 'https://cdn.example.com/p/1-alt.jpg',
        gender: 'women',
        colour_family: 'brown',
      }),
    );
    expect(typeof rows[0].colour_l).toBe('number');
    expect(rows[1]).toEqual(
      expect.objectContaining({
        url: 'https://shop.example.com/p/2',
        media_url_alt: null,
        gender: 'men',
        category: 'Apparel & Accessories > Clothing > Shirts & Tops',
        colour_family: 'blue',
      }),
    );
    expect(rows[2]).toEqual(expect.objectContaining({ price: '1099.00', gender: 'unisex' }));
    const [search] = await ds.query(
      `SELECT count(*)::int AS n FROM product_search s JOIN products p ON p.id = s.product_id
       WHERE p.external_id LIKE 'imp-csv-%' AND s.search @@ to_tsquery('english', 'camel')`,
    );
    expect(search.n).toBe(1);

    const second = cli('catalogue:import', '--file', join(FIXTURES, 'good-and-bad.csv'));
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual(
      expect.objectContaining({ inserted: 0, updated: 3, rejected: 5 }),
    );
    const [count] = await ds.query(
      `SELECT count(*)::int AS n FROM products WHERE external_id LIKE 'imp-csv-%'`,
    );
    expect(count.n).toBe(3);
  }, 180000);

  it('imports TSV and JSON lines', () => {
    const tsv = cli('catalogue:import', '--file', join(FIXTURES, 'good-and-bad.tsv'));
    expect(tsv.code).toBe(0);
    expect(JSON.parse(tsv.stdout)).toEqual({
      inserted: 2,
      updated: 0,
      rejected: 1,
      rejections: [{ line: 3, reason: 'missing image_link' }],
    });

    const jsonl = cli('catalogue:import', '--file', join(FIXTURES, 'good-and-bad.jsonl'));
    expect(jsonl.code).toBe(0);
    expect(JSON.parse(jsonl.stdout)).toEqual({
      inserted: 2,
      updated: 0,
      rejected: 2,
      rejections: [
        { line: 2, reason: expect.stringContaining('bad URL in image_link') },
        { line: 3, reason: 'invalid JSON' },
      ],
    });
  }, 180000);

  it('fails with a clear message for a missing file or option', () => {
    const missing = cli('catalogue:import');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('--file');
    const absent = cli('catalogue:import', '--file', join(FIXTURES, 'nope.csv'));
    expect(absent.code).not.toBe(0);
    expect(absent.stdout).toBe('');
  }, 60000);
});
