import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startTestApp, TestApp } from '../support/app';
import Redis from 'ioredis';
import { cliAsync } from '../support/cli';
import { sample } from '../support/metrics';

const HEADER = 'id,title,brand,price,link,image_link,gender,color';

/**
 * A Redis database of this file's own: the import counters are global, and other test files run CLI
 * imports at the same time (their rows made the growth checked here flaky).
 */
function ownRedisUrl(): string {
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/1');
  url.pathname = `/${(Number(url.pathname.slice(1) || '0') + 8) % 16}`;
  return url.toString();
}

describe('catalogue import metrics on GET /metrics (e2e, spawned CLI)', () => {
  let t: TestApp;
  let redisUrl: string;
  beforeAll(async () => {
    redisUrl = ownRedisUrl();
    const redis = new Redis(redisUrl);
    await redis.flushdb();
    await redis.quit();
    t = await startTestApp({ REDIS_URL: redisUrl });
  });
  afterAll(() => t.close());
  const importFeed = (file: string) => cliAsync({ REDIS_URL: redisUrl }, 'catalogue:import', '--file', file);

  const counts = async (): Promise<Record<string, number>> => {
    const text = (await request(t.app.getHttpServer()).get('/metrics').expect(200)).text;
    expect(text).toContain('# TYPE catalogue_import_rows_total counter');
    expect(text).toContain('# TYPE catalogue_imports_total counter');
    const out: Record<string, number> = { imports: sample(text, 'catalogue_imports_total') ?? NaN };
    for (const outcome of ['inserted', 'updated', 'unchanged', 'rejected'])
      out[outcome] = sample(text, 'catalogue_import_rows_total', { outcome }) ?? NaN;
    return out;
  };

  /** How much each counter grew from `from` to `to`. */
  const growth = (from: Record<string, number>, to: Record<string, number>): Record<string, number> =>
    Object.fromEntries(Object.keys(to).map((k) => [k, to[k] - from[k]]));

  it('counts the rows and rejections of imports run in the CLI process', async () => {
    const before = await counts();
    const id = randomUUID().slice(0, 8);
    const file = join(mkdtempSync(join(tmpdir(), 'taste-import-metrics-')), 'feed.csv');
    writeFileSync(
      file,
      [
        HEADER,
        `imp-met-${id}-1,Wool coat,Maison Lune,129.00 USD,https://shop.example.com/m/1,https://cdn.example.com/m/1.jpg,female,Camel`,
        `imp-met-${id}-2,Striped tee,Studio Ostra,35 USD,https://shop.example.com/m/2,https://cdn.example.com/m/2.jpg,male,Navy`,
        `imp-met-${id}-3,No price,Brand,,https://shop.example.com/m/3,https://cdn.example.com/m/3.jpg,female,Black`,
        '',
      ].join('\n'),
    );

    const first = await importFeed(file);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ inserted: 2, updated: 0, unchanged: 0, rejected: 1 });
    const afterFirst = await counts();
    expect(growth(before, afterFirst)).toEqual({
      imports: 1,
      inserted: 2,
      updated: 0,
      unchanged: 0,
      rejected: 1,
    });

    // The same feed again: its good rows are unchanged; the counters only grow.
    const second = await importFeed(file);
    expect(second.code).toBe(0);
    const afterSecond = await counts();
    const { updated: _updated, ...again } = growth(afterFirst, afterSecond);
    expect(again).toEqual({ imports: 1, inserted: 0, unchanged: 2, rejected: 1 });
  });
});
