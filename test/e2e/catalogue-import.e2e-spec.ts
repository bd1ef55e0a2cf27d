import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source';
import { cli, cliAsync } from '../support/cli';
import { HttpsFixture, startHttpsFixture } from '../support/https-fixture';
import { TS_REGISTER } from '../support/ts-register';

const ROOT = join(__dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'catalogue');

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
      unchanged: 0,
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
      `SELECT count(*)::int AS n FROM products s JOIN products p ON p.id = s.id
       WHERE p.external_id LIKE 'imp-csv-%' AND s.features @@ to_tsquery('english', 'camel')`,
    );
    expect(search.n).toBe(1);

    const stamps = async (): Promise<Record<string, string>> => {
      const rows: { id: string; xmin: string; price: string }[] = await ds.query(
        `SELECT external_id AS id, xmin::text AS xmin, price FROM products WHERE external_id LIKE 'imp-csv-%'`,
      );
      return Object.fromEntries(rows.map((r) => [r.id, `${r.xmin}/${r.price}`]));
    };
    const before = await stamps();

    // The same feed again: every row is already there as given, so none is rewritten.
    const second = cli('catalogue:import', '--file', join(FIXTURES, 'good-and-bad.csv'));
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual(
      expect.objectContaining({ inserted: 0, updated: 0, unchanged: 3, rejected: 5 }),
    );
    expect(await stamps()).toEqual(before);

    // One price changed: that row alone gets a new version.
    const dir = mkdtempSync(join(tmpdir(), 'feed-'));
    const changed = join(dir, 'changed.csv');
    writeFileSync(
      changed,
      readFileSync(join(FIXTURES, 'good-and-bad.csv'), 'utf8').replace('"1,099.00 USD"', '"999.00 USD"'),
    );
    const third = cli('catalogue:import', '--file', changed);
    expect(third.code).toBe(0);
    expect(JSON.parse(third.stdout)).toEqual(
      expect.objectContaining({ inserted: 0, updated: 1, unchanged: 2, rejected: 5 }),
    );
    const after = await stamps();
    expect(after['imp-csv-1']).toBe(before['imp-csv-1']);
    expect(after['imp-csv-2']).toBe(before['imp-csv-2']);
    expect(after['imp-csv-8']).not.toBe(before['imp-csv-8']);
    expect(after['imp-csv-8']).toMatch(/\/999\.00$/);
    const [count] = await ds.query(
      `SELECT count(*)::int AS n FROM products WHERE external_id LIKE 'imp-csv-%'`,
    );
    expect(count.n).toBe(3);
  }, 180000);

  it('imports TSV (with quoted attributes) and JSON lines', async () => {
    const tsv = cli('catalogue:import', '--file', join(FIXTURES, 'good-and-bad.tsv'));
    expect(tsv.code).toBe(0);
    // imp-tsv-4's quoted description holds a tab and a line break (lines 5-6), so imp-tsv-5 is line 7.
    expect(JSON.parse(tsv.stdout)).toEqual({
      inserted: 3,
      updated: 0,
      unchanged: 0,
      rejected: 2,
      rejections: [
        { line: 3, reason: 'missing image_link' },
        { line: 7, reason: 'missing image_link' },
      ],
    });
    const [quoted] = await ds.query(
      `SELECT title, description FROM products WHERE external_id = 'imp-tsv-4'`,
    );
    expect(quoted).toEqual({
      title: 'Long wool coat, 40" length',
      description: 'Double-faced wool.\tFully lined.\nDry clean only.',
    });

    const jsonl = cli('catalogue:import', '--file', join(FIXTURES, 'good-and-bad.jsonl'));
    expect(jsonl.code).toBe(0);
    expect(JSON.parse(jsonl.stdout)).toEqual({
      inserted: 2,
      updated: 0,
      unchanged: 0,
      rejected: 2,
      rejections: [
        { line: 2, reason: expect.stringContaining('bad URL in image_link') },
        { line: 3, reason: 'invalid JSON' },
      ],
    });
  }, 180000);

  // Found by trying real exports: one NUL byte failed the whole import (PostgreSQL refused the chunk's
  // transaction), leaving chunks before and after it and none of its own; Latin-1 bytes became
  // U+FFFD and two ids read the same; a header of Merchant's `g:` names rejected every row, exit 0.
  it('rejects a row with a NUL or non-UTF-8 bytes by its line, reads g: and spaced header names, and stops on a header without a required column', () => {
    const dir = mkdtempSync(join(tmpdir(), 'feed-bytes-'));
    const run = `${process.pid}-${Date.now()}`;
    const row = (id: string, title: string) =>
      Buffer.from(
        `${id},${title},Brand,10.00 USD,https://shop.example.com/${id},https://cdn.example.com/${id}.jpg\n`,
      );
    const file = join(dir, 'bytes.csv');
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('g:id,Title,g:brand,g:price,Link,Image Link\n'),
        row(`bytes-${run}-1`, 'Fine coat'),
        row(`bytes-${run}-2`, 'Null\u0000byte'),
        Buffer.from(`bytes-${run}-3,Caf`),
        Buffer.from([0xe9]), // é in Latin-1
        Buffer.from(` jumper,Brand,10.00 USD,https://shop.example.com/x,https://cdn.example.com/x.jpg\n`),
        row(`bytes-${run}-4`, 'Fine dress'),
      ]),
    );
    const res = cli('catalogue:import', '--file', file);
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const summary = JSON.parse(res.stdout) as { inserted: number; rejected: number; rejections: unknown[] };
    expect(summary).toMatchObject({ inserted: 2, rejected: 2 });
    expect(summary.rejections).toEqual([
      { line: 3, reason: 'title holds a NUL character' },
      { line: 4, reason: 'title holds bytes that are not UTF-8 (save the feed as UTF-8)' },
    ]);

    const headerless = join(dir, 'no-image.csv');
    writeFileSync(headerless, 'id,title,price,link\nx,Coat,10.00 USD,https://shop.example.com/x\n');
    const stopped = cli('catalogue:import', '--file', headerless);
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toBe('');
    expect(stopped.stderr).toContain('line 1: the header has no image_link column');
  }, 120000);

  it('fails with a clear message for a missing file or option', () => {
    const missing = cli('catalogue:import');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('--file');
    const absent = cli('catalogue:import', '--file', join(FIXTURES, 'nope.csv'));
    expect(absent.code).not.toBe(0);
    expect(absent.stdout).toBe('');
  }, 60000);
});

describe('catalogue import through the service (e2e)', () => {
  let ds: DataSource;
  beforeAll(async () => {
    ds = new DataSource(dataSourceOptions(process.env.DATABASE_URL ?? ''));
    await ds.initialize();
  });
  afterAll(() => ds.destroy());

  it('keeps the last row of a repeated id, whichever batches carry it', async () => {
    const { CatalogueImportService } = await import('../../src/products/catalogue-import.service');
    const { CatalogueWriter } = await import('../../src/products/catalogue-writer');
    const importer = new CatalogueImportService(new CatalogueWriter(ds));
    const row = (id: string, price: string) => ({
      id,
      title: `Last wins ${id}`,
      brand: 'Test',
      price: `${price} USD`,
      link: `https://shop.example.com/${id}`,
      image_link: `https://cdn.example.com/${id}.jpg`,
      gender: 'unisex',
    });
    const ids = Array.from({ length: 9 }, (_, i) => `lastwins-${process.pid}-${i}`);
    async function* feed() {
      let line = 1;
      // Three rounds over the same ids, in batches of two with up to three batches in flight.
      for (const price of ['10.00', '20.00', '30.00'])
        for (const id of ids) yield { line: ++line, row: row(id, price) };
    }
    const summary = await importer.importRows(feed(), { batchSize: 2 });
    expect(summary).toEqual(expect.objectContaining({ inserted: 9, updated: 18, unchanged: 0, rejected: 0 }));
    const prices: { price: string }[] = await ds.query(
      `SELECT price FROM products WHERE external_id = ANY($1)`,
      [ids],
    );
    expect(prices.map((p) => p.price)).toEqual(Array(9).fill('30.00'));
  });

  it('samples a crowded colour cell independently of the feed order', async () => {
    const { CatalogueImportService } = await import('../../src/products/catalogue-import.service');
    const { ProductsRepository } = await import('../../src/products/products.repository');
    const { vocabularyColours } = await import('../../src/products/product-colour');
    const repo = new ProductsRepository(ds);
    const prefix = `sample-${process.pid}`;
    // A feed sorted by category: 400 teal bags, then 400 teal coats.
    async function* feed() {
      for (let i = 0; i < 800; i += 1) {
        const category = i < 400 ? 'Bags' : 'Outerwear';
        yield {
          line: i + 2,
          row: {
            id: `${prefix}-${String(i).padStart(4, '0')}`,
            title: `Sample ${category}`,
            brand: 'Sampler',
            price: '40.00 USD',
            link: `https://shop.example.com/${prefix}-${i}`,
            image_link: `https://cdn.example.com/${prefix}-${i}.jpg`,
            color: 'Teal',
            product_type: category,
          },
        };
      }
    }
    const { CatalogueWriter } = await import('../../src/products/catalogue-writer');
    await new CatalogueImportService(new CatalogueWriter(ds)).importRows(feed());
    const teal = vocabularyColours().find((c) => c.name === 'teal');
    const rows = await repo.findCandidates({
      walks: [{ colour: teal!.oklab, take: 300 }],
      text: null,
      genders: null,
      minPrice: null,
      maxPrice: null,
    });
    const ours = rows.filter((r) => r.externalId.startsWith(prefix));
    // Read in feed order, the 150 a cell gives (half the walk) would all be bags; read by sample
    // group, both halves are there.
    // (Other suites' teal products may share the cell.)
    expect(ours.length).toBeGreaterThan(100);
    expect(ours.length).toBeLessThanOrEqual(150);
    expect(ours.filter((r) => r.category === 'Bags').length).toBeGreaterThan(40);
    expect(ours.filter((r) => r.category === 'Outerwear').length).toBeGreaterThan(40);
  });

  it('takes at most half of a colour walk from one cell: the nearest point does not crowd out the next', async () => {
    const { CatalogueImportService } = await import('../../src/products/catalogue-import.service');
    const { CatalogueWriter } = await import('../../src/products/catalogue-writer');
    const { ProductsRepository } = await import('../../src/products/products.repository');
    const { colourFeatures } = await import('../../src/products/product-colour');
    const prefix = `spread-${process.pid}`;
    // 300 products named `Thunder` (the colour dataset's dark grey, just lighter than charcoal) and 30
    // named `Charcoal`, at a price no other test uses, so the walk reads ours only.
    async function* feed() {
      for (let i = 0; i < 330; i += 1) {
        yield {
          line: i + 2,
          row: {
            id: `${prefix}-${String(i).padStart(4, '0')}`,
            title: 'Spread Jumper',
            brand: 'Spreader',
            price: '7777.00 USD',
            link: `https://shop.example.com/${prefix}-${i}`,
            image_link: `https://cdn.example.com/${prefix}-${i}.jpg`,
            color: i < 300 ? 'Thunder' : 'Charcoal',
            product_type: 'Knitwear',
          },
        };
      }
    }
    await new CatalogueImportService(new CatalogueWriter(ds)).importRows(feed());
    const cells: { colour: string; cell: string }[] = await ds.query(
      `SELECT DISTINCT colour, colour_cell::text AS cell FROM products WHERE external_id LIKE $1`,
      [`${prefix}-%`],
    );
    expect(new Set(cells.map((c) => c.cell)).size).toBe(2);
    // A charcoal palette read a little light: a third of the way from Thunder's point to Charcoal's.
    const thunder = colourFeatures('Thunder');
    const charcoal = colourFeatures('Charcoal');
    if (!thunder || !charcoal) throw new Error('both names resolve');
    const between = (k: 'l' | 'a' | 'b') => thunder[k] + (charcoal[k] - thunder[k]) / 3;
    const rows = await new ProductsRepository(ds).findCandidates({
      walks: [{ colour: { l: between('l'), a: between('a'), b: between('b') }, take: 100 }],
      text: null,
      genders: null,
      minPrice: 7777,
      maxPrice: 7777,
    });
    // Before, the nearest cell alone filled the walk: 100 Thunder products and no Charcoal one.
    expect(rows.filter((r) => r.colour === 'Thunder')).toHaveLength(50);
    expect(rows.filter((r) => r.colour === 'Charcoal')).toHaveLength(30);
  });

  it('are stored with each product, and every product colour cell is listed near its colour', async () => {
    const { CatalogueImportService } = await import('../../src/products/catalogue-import.service');
    const { CatalogueWriter } = await import('../../src/products/catalogue-writer');
    const { vocabularyColours } = await import('../../src/products/product-colour');
    const importer = new CatalogueImportService(new CatalogueWriter(ds));
    const colours = vocabularyColours();
    const prefix = `cells-${process.pid}`;
    async function* feed() {
      // Every vocabulary colour twice, in batches of four with three in flight: the first round adds
      // new cells, the second finds them listed.
      for (let i = 0; i < colours.length * 2; i += 1) {
        const colour = colours[(i * 7) % colours.length].name;
        yield {
          line: i + 2,
          row: {
            id: `${prefix}-${i}`,
            title: `Cell test ${colour} jumper`,
            brand: 'Cellar',
            description: 'A merino jumper.',
            price: '40.00 USD',
            link: `https://shop.example.com/${prefix}-${i}`,
            image_link: `https://cdn.example.com/${prefix}-${i}.jpg`,
            color: colour,
            material: 'merino',
          },
        };
      }
    }
    const summary = await importer.importRows(feed(), { batchSize: 4 });
    expect(summary).toEqual(expect.objectContaining({ inserted: colours.length * 2, rejected: 0 }));

    const rows: { cell: number | null; listed: boolean; distance: number | null; matches: boolean }[] =
      await ds.query(
        `SELECT p.colour_cell AS cell, c.cell IS NOT NULL AS listed,
           c.centre <-> cube(ARRAY[p.colour_l, p.colour_a, p.colour_b]::float8[]) AS distance,
           p.features @@ to_tsquery('english', 'merino & jumper') AS matches
         FROM products p LEFT JOIN colour_cells c ON c.cell = p.colour_cell
         WHERE p.external_id LIKE $1`,
        [`${prefix}-%`],
      );
    expect(rows).toHaveLength(colours.length * 2);
    for (const row of rows) {
      expect(row.cell).not.toBeNull();
      expect(row.listed).toBe(true);
      // The cell centre is within half a cell diagonal (0.02 * sqrt(3) / 2) of the product's colour.
      expect(row.distance).toBeLessThanOrEqual(0.0174);
      expect(row.matches).toBe(true);
    }
  });

  it('stores the search features the former generated column computed, for new, repeated and changed text', async () => {
    const { CatalogueImportService } = await import('../../src/products/catalogue-import.service');
    const { CatalogueWriter } = await import('../../src/products/catalogue-writer');
    const { FEATURES_SQL } = await import('../../src/products/search-features');
    const importer = new CatalogueImportService(new CatalogueWriter(ds));
    const prefix = `vector-${process.pid}`;
    // Sizes share title, brand and description (computed once); colourways differ in colour only;
    // some rows lack optional fields; one description has a backslash, a tab and a line break.
    const row = (i: number, colour: string | undefined, description: string) => ({
      id: `${prefix}-${i}`,
      title: `Vector coat ${Math.floor(i / 6)}`,
      brand: i % 4 === 0 ? 'Black Sheep & Co' : 'Dune',
      description,
      price: '99.00 USD',
      link: `https://shop.example.com/${prefix}-${i}`,
      image_link: `https://cdn.example.com/${prefix}-${i}.jpg`,
      ...(colour ? { color: colour } : {}),
      ...(i % 5 === 0 ? {} : { material: 'wool', pattern: 'herringbone', product_type: 'Apparel > Coats' }),
    });
    const descriptions = [
      'Pairs beautifully with black trousers. Free returns within 30 days.',
      'A C:\\path\\to\tnowhere coat;\nwith "quotes" and an ümlaut.',
      '',
    ];
    async function* feed(colourOf: (i: number) => string | undefined) {
      for (let i = 0; i < 60; i += 1)
        yield { line: i + 2, row: row(i, colourOf(i), descriptions[Math.floor(i / 6) % 3]) };
    }
    const first = await importer.importRows(
      feed((i) => (i % 7 === 0 ? undefined : i % 2 ? 'Navy/White' : 'Camel')),
      { batchSize: 25 },
    );
    expect(first).toEqual(expect.objectContaining({ inserted: 60, updated: 0, unchanged: 0, rejected: 0 }));
    const second = await importer.importRows(
      feed((i) => (i % 7 === 0 ? undefined : i % 3 ? 'Navy/White' : 'Heather Grey')),
      { batchSize: 25 },
    );
    expect(second.inserted).toBe(0);
    expect(second.updated).toBeGreaterThan(0);
    expect(second.unchanged).toBeGreaterThan(0);
    const [check] = await ds.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE features = ${FEATURES_SQL})::int AS same,
         count(*) FILTER (WHERE features @@ to_tsquery('english', 'heather & grey'))::int AS grey
       FROM products WHERE external_id LIKE $1`,
      [`${prefix}-%`],
    );
    expect(check.n).toBe(60);
    expect(check.same).toBe(60);
    expect(check.grey).toBeGreaterThan(0);
    const [text] = await ds.query(`SELECT description FROM products WHERE external_id = $1`, [`${prefix}-6`]);
    expect(text.description).toBe(descriptions[1].trim());
  });
});

describe('catalogue:import interrupted (e2e, spawned process)', () => {
  let ds: DataSource;
  beforeAll(async () => {
    ds = new DataSource(dataSourceOptions(process.env.DATABASE_URL ?? ''));
    await ds.initialize();
  });
  afterAll(() => ds.destroy());

  it('a killed import leaves whole chunks, searchable, and no staging table; running it again completes it', async () => {
    const { FEATURES_SQL } = await import('../../src/products/search-features');
    const prefix = `killed-${process.pid}`;
    const total = 40_000;
    const dir = mkdtempSync(join(tmpdir(), 'feed-'));
    const file = join(dir, 'feed.csv');
    const lines = ['id,title,brand,description,price,link,image_link,color,material'];
    for (let i = 0; i < total; i += 1) {
      const group = Math.floor(i / 4);
      lines.push(
        `${prefix}-${String(i).padStart(6, '0')},Killed coat ${group},Resume,"A wool coat, number ${group}, pairs with grey.",` +
          `${50 + (i % 50)}.00 USD,https://shop.example.com/${prefix}-${i},https://cdn.example.com/${i}.jpg,` +
          `${['Camel', 'Navy', 'Sage', 'Navy'][group % 4]},wool`,
      );
    }
    writeFileSync(file, lines.join('\n') + '\n');
    const ours = async (): Promise<number> =>
      (
        await ds.query(`SELECT count(*)::int AS n FROM products WHERE external_id LIKE $1`, [`${prefix}-%`])
      )[0].n as number;

    const child = spawn(
      process.execPath,
      ['-r', TS_REGISTER, join(ROOT, 'src', 'cli.ts'), 'catalogue:import', '--file', file],
      { cwd: ROOT, env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') }, stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Killed as soon as its first chunk is in the catalogue.
    const deadline = Date.now() + 120_000;
    while ((await ours()) === 0 && child.exitCode === null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await exited;
    // The staging table was temporary: it went with the killed import's sessions.
    const stagingGone = Date.now() + 30_000;
    let staging = 1;
    while (staging > 0 && Date.now() < stagingGone) {
      [{ n: staging }] = await ds.query(
        `SELECT count(*)::int AS n FROM pg_class WHERE relname = 'catalogue_stage'`,
      );
      if (staging > 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(staging).toBe(0);

    // A chunk whose COMMIT was already sent may still land: wait until the count holds still.
    let committed = await ours();
    for (let before = -1; before !== committed;) {
      before = committed;
      await new Promise((r) => setTimeout(r, 500));
      committed = await ours();
    }
    expect(committed).toBeGreaterThan(0);
    // Whole chunks only (5,000 rows each), each row with its search features and its colour cell listed.
    expect(committed % 5000 === 0 || committed === total).toBe(true);
    const [state] = await ds.query(
      `SELECT count(*) FILTER (WHERE p.features = ${FEATURES_SQL})::int AS searchable,
         count(*) FILTER (WHERE c.cell IS NOT NULL)::int AS listed
       FROM products p LEFT JOIN colour_cells c ON c.cell = p.colour_cell WHERE p.external_id LIKE $1`,
      [`${prefix}-%`],
    );
    expect(state).toEqual({ searchable: committed, listed: committed });
    const again = cli('catalogue:import', '--file', file);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(
      expect.objectContaining({ inserted: total - committed, updated: 0, unchanged: committed, rejected: 0 }),
    );
    expect(await ours()).toBe(total);
  }, 300000);
});

describe('catalogue:import --analyse-images (e2e, spawned process)', () => {
  let ds: DataSource;
  let fixture: HttpsFixture;
  beforeAll(async () => {
    ds = new DataSource(dataSourceOptions(process.env.DATABASE_URL ?? ''));
    await ds.initialize();
    fixture = await startHttpsFixture();
  });
  afterAll(async () => {
    await ds.destroy();
    await fixture.close();
  });

  it('takes colours from the images through the SSRF-safe fetcher, keeping the feed colour on failure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'feed-'));
    const file = join(dir, 'feed.csv');
    const header = 'id,title,brand,price,link,image_link,gender,color';
    const line = (id: string, image: string) =>
      `${id},Analysed ${id},Test,50.00 USD,https://shop.example.com/${id},${image},unisex,Navy`;
    writeFileSync(
      file,
      [
        header,
        line('img-red', `${fixture.origin}/red.png`),
        line('img-html', `${fixture.origin}/text.html`),
        line('img-loopback', `https://127.0.0.1:${fixture.port}/red.png`),
      ].join('\n') + '\n',
    );
    const hitsBefore = fixture.hits.length;
    const res = await cliAsync(
      { IMAGE_FETCH_ALLOWED_HOSTS: 'localhost' },
      'catalogue:import',
      '--file',
      file,
      '--analyse-images',
    );
    expect(res.code).toBe(0);
    const summary = JSON.parse(res.stdout);
    expect(summary).toEqual(
      expect.objectContaining({ inserted: 3, rejected: 0, imagesAnalysed: 1, imagesFailed: 2 }),
    );
    expect(summary.imageFailures.map((f: { id: string }) => f.id).sort()).toEqual([
      'img-html',
      'img-loopback',
    ]);
    // The loopback URL was refused before any request reached the server.
    expect(fixture.hits.slice(hitsBefore).sort()).toEqual(['/red.png', '/text.html']);
    const rows: { external_id: string; colour_family: string; colour: string }[] = await ds.query(
      `SELECT external_id, colour_family, colour FROM products WHERE external_id IN ('img-red', 'img-html') ORDER BY external_id`,
    );
    expect(rows).toEqual([
      { external_id: 'img-html', colour_family: 'blue', colour: 'Navy' },
      { external_id: 'img-red', colour_family: 'red', colour: 'Navy' },
    ]);
  });
});
