import { createReadStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  COLOUR_FAMILIES,
  familiesNamedBy,
  labDistance,
  nearestFamily,
  oklab,
} from '../../bench/colour-families';
import {
  FEED_COLUMNS,
  feedRows,
  formatRow,
  type FeedFormatName,
  type GeneratedRow,
  writeFeed,
} from '../../bench/feed-generator';
import { validateFeedRow } from '../../src/products/catalogue-feed';
import { type NumberedRow, readDelimited, readJsonLines } from '../../src/products/feed-readers';

const dir = mkdtempSync(join(tmpdir(), 'bench-feed-'));

function take(seed: number, n: number): GeneratedRow[] {
  return [...feedRows(seed, n)];
}

describe('bench colour families', () => {
  it('has at least 24 families, centres at least 0.05 apart in OKLab, shades nearest their own centre', () => {
    expect(COLOUR_FAMILIES.length).toBeGreaterThanOrEqual(24);
    for (const key of [
      'blush',
      'dusty pink',
      'powder blue',
      'sage',
      'mint',
      'lilac',
      'taupe',
      'stone',
      'ecru',
    ])
      expect(COLOUR_FAMILIES.some((f) => f.key === key)).toBe(true);
    for (const a of COLOUR_FAMILIES) {
      for (const b of COLOUR_FAMILIES) {
        if (a.key < b.key) expect(labDistance(oklab(a.centre), oklab(b.centre))).toBeGreaterThanOrEqual(0.05);
      }
      for (const s of a.shades) expect(nearestFamily(s)).toBe(a.key);
    }
  });

  it('judges names by its own table, and unknown names by the nearest centre', () => {
    expect(familiesNamedBy('Blush', '#000000')).toEqual({ families: ['blush'], byHex: false });
    expect(familiesNamedBy('silver', '#eec2bf').families).toEqual([]);
    expect(familiesNamedBy('taupe', '#9d9d9f').families).toEqual(['taupe']);
    expect(familiesNamedBy('zzz', '#1d2642')).toEqual({ families: ['navy'], byHex: true });
  });
});

describe('feed generator', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const a = take(1, 300);
    expect(take(1, 300)).toEqual(a);
    const b = take(2, 300);
    expect(b.map((r) => r.row.title)).not.toEqual(a.map((r) => r.row.title));
    expect(a).toHaveLength(300);
  });

  it('fills every Merchant Center column, ids are unique, values fit their columns', () => {
    const rows = take(3, 5000);
    const ids = new Set(rows.map((r) => r.row.id));
    expect(ids.size).toBe(rows.length);
    for (const { row } of rows) {
      expect(Object.keys(row).sort()).toEqual([...FEED_COLUMNS].sort());
      expect(['female', 'male', 'unisex']).toContain(row.gender);
      expect(row.price).toMatch(/^\d+\.\d{2} USD$/);
      expect(row.product_type).toMatch(/^Apparel & Accessories > .+ > .+/);
      expect(row.description.length).toBeGreaterThanOrEqual(200);
      expect(row.description.length).toBeLessThanOrEqual(1000);
    }
  });

  it('averages about 520 bytes a CSV row and has long descriptions in its tail', () => {
    const rows = take(4, 5000);
    const bytes = rows.reduce((s, r) => s + Buffer.byteLength(formatRow(r.row, 'csv')), 0) / rows.length;
    expect(bytes).toBeGreaterThan(450);
    expect(bytes).toBeLessThan(620);
    expect(rows.filter((r) => r.row.description.length > 400).length).toBeGreaterThan(25);
  });

  it('leaves optional fields empty in a share of rows, never the required ones', () => {
    const rows = take(5, 5000);
    const share = (col: keyof GeneratedRow['row']) =>
      rows.filter((r) => r.row[col] === '').length / rows.length;
    expect(share('affiliate_link')).toBeGreaterThan(0.2);
    expect(share('affiliate_link')).toBeLessThan(0.4);
    expect(share('sale_price')).toBeGreaterThan(0.7);
    expect(share('material')).toBeGreaterThan(0.05);
    expect(share('color')).toBeGreaterThan(0.01);
    expect(share('color')).toBeLessThan(0.06);
    for (const col of ['id', 'title', 'price', 'link', 'image_link', 'description'] as const)
      expect(share(col)).toBe(0);
  });

  it('groups sizes and colourways of one product under item_group_id', () => {
    const rows = take(6, 5000);
    const groups = new Map<string, GeneratedRow[]>();
    for (const r of rows) groups.set(r.row.item_group_id, [...(groups.get(r.row.item_group_id) ?? []), r]);
    const multi = [...groups.values()].filter((g) => g.length > 1);
    expect(multi.length / groups.size).toBeGreaterThan(0.4);
    let colourways = 0;
    for (const g of multi) {
      expect(new Set(g.map((r) => r.row.brand)).size).toBe(1);
      expect(new Set(g.map((r) => r.row.price)).size).toBe(1);
      expect(new Set(g.map((r) => r.truth.category)).size).toBe(1);
      expect(new Set(g.map((r) => r.row.gender)).size).toBe(1);
      const keys = g.map((r) => `${r.row.image_link}|${r.row.size}`); // one image per colourway
      expect(new Set(keys).size).toBe(g.length);
      if (new Set(g.map((r) => r.truth.family)).size > 1) colourways += 1;
    }
    expect(colourways).toBeGreaterThan(20);
  });

  it('records a truth with every family, multi-colour values, colour-word brands and other colours in the prose', () => {
    const rows = take(7, 10000);
    expect(new Set(rows.map((r) => r.truth.family)).size).toBe(COLOUR_FAMILIES.length);
    expect(rows.some((r) => /^[A-Z][a-z ]+\/[A-Z]/.test(r.row.color) && r.truth.families.length === 2)).toBe(
      true,
    );
    expect(rows.some((r) => r.row.brand === 'Black Sheep Studio' && r.truth.family !== 'black')).toBe(true);
    // A row's prose names colours of other families (the generator never names its own there).
    const withOther = rows.filter((r) => {
      const own = new Set(r.truth.families);
      return COLOUR_FAMILIES.some(
        (f) =>
          !own.has(f.key) && f.vendorNames.some((n) => r.row.description.includes(` ${n.toLowerCase()} `)),
      );
    });
    expect(withOther.length / rows.length).toBeGreaterThan(0.9);
    // Prices spread log-normally: the 95th percentile is several times the 5th.
    const prices = rows.map((r) => r.truth.price).sort((a, b) => a - b);
    expect(
      prices[Math.floor(prices.length * 0.95)] / prices[Math.floor(prices.length * 0.05)],
    ).toBeGreaterThan(5);
  });

  it('quotes a value with a quote mark, a tab or a line break as a spreadsheet does, CSV and TSV alike', async () => {
    const row = { ...take(8, 1)[0].row, description: 'Says "hi",\tthen\nmore' };
    for (const [format, delimiter] of [
      ['csv', ','],
      ['tsv', '\t'],
    ] as const) {
      const out = join(dir, `quoted.${format}`);
      writeFileSync(out, FEED_COLUMNS.join(delimiter) + '\n' + formatRow(row, format));
      const read: NumberedRow[] = [];
      for await (const item of readDelimited(createReadStream(out), delimiter)) read.push(item);
      expect(read).toEqual([{ line: 2, row }]);
    }
  });

  for (const format of ['csv', 'tsv', 'jsonl'] as FeedFormatName[]) {
    it(`writes ${format} that the project's own import parser reads back row for row`, async () => {
      const out = join(dir, `feed.${format}`);
      const res = await writeFeed({ rows: 400, seed: 8, format, out });
      expect(res.rows).toBe(400);
      const stream = createReadStream(out);
      const reader: AsyncIterable<NumberedRow> =
        format === 'jsonl' ? readJsonLines(stream) : readDelimited(stream, format === 'tsv' ? '\t' : ',');
      const truth = readFileSync(`${out}.truth.jsonl`, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as GeneratedRow['truth']);
      const expected = take(8, 400);
      let n = 0;
      for await (const item of reader) {
        if (!('row' in item)) throw new Error(`line ${item.line}: ${item.error}`);
        const v = validateFeedRow(item.row);
        if (!v.ok) throw new Error(`line ${item.line}: ${v.reason}`);
        const t = truth[n];
        expect(v.row.externalId).toBe(t.id);
        expect(v.row.price).toBe(t.paidPrice); // the sale price on a sale (ADR 0057)
        expect(v.row.url).toBe(t.url);
        expect(v.row.gender).toBe({ female: 'women', male: 'men', unisex: 'unisex' }[t.gender]);
        expect(v.row.title).toBe(expected[n].row.title);
        expect(v.row.description).toBe(expected[n].row.description);
        n += 1;
      }
      expect(n).toBe(400);
    });
  }
});
