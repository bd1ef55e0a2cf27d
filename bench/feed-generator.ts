/**
 * A seeded, realistic Google Merchant Center feed for the benchmarks and evaluations (issues 12 and 13).
 *
 * `npm run bench:feed -- --rows 100000 --seed 1 --format csv|tsv|jsonl --out FILE` writes the feed and,
 * beside it, `FILE.truth.jsonl`: one line per row with the generator's own truth (colour family,
 * category, gender, price, the link a search result must carry). The truth is what the generator drew,
 * never derived from the code under test; `feedRows(seed, rows)` gives the same rows and truth in memory.
 *
 * What makes it realistic (and hard): marketing-prose descriptions of 200-1000 characters that mention
 * other colours, materials and garments ("pairs beautifully with black trousers"), multi-colour and
 * vendor colour names (`Navy/White`, `Heather Grey`, `Rose Quartz`, `Storm`), brand names containing
 * colour words, `product_type` hierarchies, sizes and colourways of one product sharing `item_group_id`,
 * log-normal prices per category, and a share of rows with missing optional fields. About 520 bytes a
 * row as CSV.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { seededRandom } from '../src/common/seeded-random';
import { COLOUR_FAMILIES, type ColourFamily } from './colour-families';

export type FeedGender = 'female' | 'male' | 'unisex';
export type FeedFormatName = 'csv' | 'tsv' | 'jsonl';

export const FEED_COLUMNS = [
  'id',
  'item_group_id',
  'title',
  'description',
  'link',
  'affiliate_link',
  'image_link',
  'additional_image_link',
  'brand',
  'gender',
  'price',
  'sale_price',
  'color',
  'material',
  'pattern',
  'size',
  'product_type',
  'google_product_category',
  'age_group',
  'condition',
  'availability',
] as const;

export type FeedRow = Record<(typeof FEED_COLUMNS)[number], string>;

/** What the generator knows about a row: the evaluation's ground truth. */
export interface RowTruth {
  id: string;
  /** Family of the dominant (first) colour. */
  family: string;
  /** Every family the `color` value names (multi-colour rows have two). */
  families: string[];
  /** Top-level category key: outerwear, knitwear, tops, shirts, dresses, skirts, trousers, jeans, ... */
  category: string;
  /** The garment drawn (`Cable Knit Sweater`, `Chelsea Boots`): what a shopper's garment word asks for. */
  noun: string;
  /** The material drawn, whether or not the row's `material` column or title shows it. */
  material: string;
  /** The pattern drawn (`Striped`), or '' when the row has none. */
  pattern: string;
  gender: FeedGender;
  /** The `price` column's amount (USD). */
  price: number;
  /** What a shopper pays: the `sale_price` when the row is on sale (no effective date: always), else `price`. */
  paidPrice: number;
  /** The link a search result must carry: the affiliate link when the row has one, else `link`. */
  url: string;
  /** False when the row's `availability` is `out_of_stock` (a search must never return it). */
  inStock: boolean;
}

interface Category {
  key: string;
  /** product_type path below `Apparel & Accessories`. */
  path: string;
  /** Google product category id (Merchant Center takes the id or the full path). */
  gpc: string;
  nouns: string[];
  genders: FeedGender[];
  /** Median price (USD) and log-normal spread. */
  median: number;
  sigma: number;
  sizes: string[];
  materials: string[];
  weight: number;
}

const LETTER_SIZES = ['XS', 'S', 'M', 'L', 'XL'];
const SHOE_SIZES = ['36', '37', '38', '39', '40', '41', '42', '43', '44'];
const WAIST_SIZES = ['26', '28', '30', '32', '34', '36'];
const ONE_SIZE = ['One Size'];

const CATEGORIES: readonly Category[] = [
  {
    key: 'outerwear',
    path: 'Clothing > Outerwear > Coats',
    gpc: '5598',
    nouns: ['Wool Coat', 'Overcoat', 'Peacoat', 'Wrap Coat', 'Car Coat', 'Duffle Coat'],
    genders: ['female', 'male', 'unisex'],
    median: 260,
    sigma: 0.5,
    sizes: LETTER_SIZES,
    materials: ['Wool', 'Wool Blend', 'Cashmere Blend', 'Recycled Wool'],
    weight: 7,
  },
  {
    key: 'outerwear',
    path: 'Clothing > Outerwear > Jackets',
    gpc: '5598',
    nouns: ['Trench Coat', 'Bomber Jacket', 'Puffer Jacket', 'Parka', 'Field Jacket', 'Rain Jacket'],
    genders: ['female', 'male', 'unisex'],
    median: 180,
    sigma: 0.55,
    sizes: LETTER_SIZES,
    materials: ['Cotton Gabardine', 'Recycled Polyester', 'Nylon', 'Waxed Cotton'],
    weight: 6,
  },
  {
    key: 'knitwear',
    path: 'Clothing > Knitwear > Sweaters',
    gpc: '5388',
    nouns: ['Crew Neck Sweater', 'Cardigan', 'Roll Neck Jumper', 'Cable Knit Sweater', 'Knit Vest'],
    genders: ['female', 'male', 'unisex'],
    median: 95,
    sigma: 0.55,
    sizes: LETTER_SIZES,
    materials: ['Merino Wool', 'Cashmere', 'Cotton', 'Alpaca Blend', 'Lambswool'],
    weight: 10,
  },
  {
    key: 'tops',
    path: 'Clothing > Tops > T-Shirts',
    gpc: '212',
    nouns: ['Crew Neck T-Shirt', 'Tank Top', 'Long Sleeve Tee', 'Boxy Tee', 'Polo Shirt'],
    genders: ['female', 'male', 'unisex'],
    median: 32,
    sigma: 0.45,
    sizes: LETTER_SIZES,
    materials: ['Organic Cotton', 'Cotton Jersey', 'Linen Blend', 'Modal'],
    weight: 14,
  },
  {
    key: 'shirts',
    path: 'Clothing > Shirts & Blouses',
    gpc: '212',
    nouns: ['Oxford Shirt', 'Silk Blouse', 'Linen Shirt', 'Poplin Shirt', 'Overshirt'],
    genders: ['female', 'male', 'unisex'],
    median: 65,
    sigma: 0.5,
    sizes: LETTER_SIZES,
    materials: ['Cotton Poplin', 'Silk', 'Linen', 'Viscose', 'Cotton Twill'],
    weight: 10,
  },
  {
    key: 'dresses',
    path: 'Clothing > Dresses',
    gpc: '2271',
    nouns: ['Midi Dress', 'Slip Dress', 'Wrap Dress', 'Shirt Dress', 'Knit Dress'],
    genders: ['female'],
    median: 110,
    sigma: 0.55,
    sizes: LETTER_SIZES,
    materials: ['Silk', 'Viscose', 'Cotton', 'Linen', 'Satin'],
    weight: 9,
  },
  {
    key: 'skirts',
    path: 'Clothing > Skirts',
    gpc: '1581',
    nouns: ['Midi Skirt', 'Pleated Skirt', 'A-Line Skirt', 'Slip Skirt'],
    genders: ['female'],
    median: 75,
    sigma: 0.5,
    sizes: LETTER_SIZES,
    materials: ['Wool', 'Satin', 'Cotton', 'Leather'],
    weight: 5,
  },
  {
    key: 'trousers',
    path: 'Clothing > Pants > Trousers',
    gpc: '204',
    nouns: ['Wide Leg Trousers', 'Tailored Trousers', 'Chinos', 'Pleated Trousers', 'Cargo Pants'],
    genders: ['female', 'male', 'unisex'],
    median: 85,
    sigma: 0.5,
    sizes: WAIST_SIZES,
    materials: ['Wool', 'Cotton Twill', 'Linen', 'Corduroy'],
    weight: 9,
  },
  {
    key: 'jeans',
    path: 'Clothing > Pants > Jeans',
    gpc: '204',
    nouns: ['Straight Jeans', 'Slim Jeans', 'Wide Leg Jeans', 'Relaxed Jeans'],
    genders: ['female', 'male', 'unisex'],
    median: 90,
    sigma: 0.45,
    sizes: WAIST_SIZES,
    materials: ['Denim', 'Organic Cotton Denim', 'Stretch Denim'],
    weight: 6,
  },
  {
    key: 'shoes',
    path: 'Shoes > Boots & Sneakers',
    gpc: '187',
    nouns: ['Chelsea Boots', 'Leather Sneakers', 'Loafers', 'Ankle Boots', 'Ballet Flats'],
    genders: ['female', 'male', 'unisex'],
    median: 140,
    sigma: 0.5,
    sizes: SHOE_SIZES,
    materials: ['Leather', 'Suede', 'Canvas', 'Recycled Leather'],
    weight: 8,
  },
  {
    key: 'bags',
    path: 'Handbags, Wallets & Cases > Handbags',
    gpc: '3032',
    nouns: ['Tote Bag', 'Crossbody Bag', 'Shoulder Bag', 'Bucket Bag'],
    genders: ['female', 'unisex'],
    median: 160,
    sigma: 0.7,
    sizes: ONE_SIZE,
    materials: ['Leather', 'Suede', 'Canvas', 'Nylon'],
    weight: 6,
  },
  {
    key: 'accessories',
    path: 'Clothing Accessories > Scarves & Shawls',
    gpc: '177',
    nouns: ['Scarf', 'Beanie', 'Wool Scarf', 'Silk Scarf', 'Gloves'],
    genders: ['female', 'male', 'unisex'],
    median: 45,
    sigma: 0.55,
    sizes: ONE_SIZE,
    materials: ['Wool', 'Cashmere', 'Silk', 'Alpaca'],
    weight: 5,
  },
];

/** Brands, a good share with colour words in their names (the feed's brand must not steer colour). */
const BRANDS = [
  'Black Sheep Studio',
  'Redwood & Co',
  'Navy Yard Supply',
  'White Fox Atelier',
  'Olive & Oak',
  'Camel Club',
  'Blue Harbour',
  'Grey Matter',
  'Rose & Thorn',
  'Golden Hour',
  'Green Room Label',
  'Silver Birch',
  'Northfield',
  'Maison Lune',
  'Atelier Nord',
  'Common Thread',
  'Hollis & Vane',
  'Kestrel',
  'Ostara',
  'Field Notes Clothing',
  'Studio Arlo',
  'Marlow',
  'Tessellate',
  'Quiet Form',
];

const PATTERNS = ['Solid', 'Striped', 'Checked', 'Herringbone', 'Ribbed', 'Floral'];
const RETAILERS = ['nrthfld.example', 'nord.example', 'qform.example', 'kestrel.example'];
const AVAILABILITY = ['in_stock', 'in_stock', 'in_stock', 'in_stock', 'out_of_stock', 'preorder'];

/** Garments other colours are paired with in the prose (never the row's own colour family). */
const PAIRINGS = ['trousers', 'jeans', 'loafers', 'ankle boots', 'knits', 'sneakers', 'tailoring', 'denim'];

const OPENERS = [
  'Cut from {material} with a soft hand, this {noun} is made to last.',
  'A staple reimagined: our {noun} in {material}, made in a family-run workshop.',
  'Made in limited runs, the {noun} balances clean lines with an easy fit.',
  'The {noun} you will reach for every morning, in {material} that wears in.',
  'Meet the {noun}: relaxed through the body, precise at the shoulder.',
];

const MIDDLES = [
  'Pairs beautifully with {other1} {pair1} and {other2} {pair2}.',
  'Style it with {other1} {pair1}, or over {other2} {pair2} at the weekend.',
  'Looks just as good with {other1} {pair1} as with {other2} accessories.',
  'We love it under a {other1} coat, with {other2} {pair2} to finish.',
  'Shown with {other1} {pair1}; the model is 178 cm and wears a size M.',
];

const CLOSERS = [
  'Relaxed fit, dropped shoulders and clean seams. Gentle wash at 30 degrees.',
  'Responsibly sourced fabric, every piece checked by hand before it leaves the studio.',
  'Colours may vary slightly from screen to screen. Free returns within 30 days.',
  'Lined for warmth, with deep pockets and horn-effect buttons.',
  'Limited stock: once this colourway is gone, it will not be made again.',
  'Ethically made in Portugal by a workshop we have worked with for a decade.',
  'Finished with tonal stitching and a subtle logo tab. Machine washable.',
  'Part of our permanent collection, restocked each season in new colourways.',
  'Designed to layer: wear it open over a fine knit or closed with a belt.',
  'Our fit team tested it on six body types; see the size guide for measurements.',
  'Packed without plastic and shipped carbon-neutral from our warehouse.',
  'Care: cool iron, dry flat, do not tumble dry. Store folded to keep its shape.',
  'Runs true to size.',
  'Made in Portugal.',
  'Free returns within 30 days.',
  'Machine washable.',
  'Fully lined.',
  'Unisex sizing.',
];

function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)];
}

function weighted<T extends { weight: number }>(rand: () => number, xs: readonly T[]): T {
  const total = xs.reduce((s, x) => s + x.weight, 0);
  let r = rand() * total;
  for (const x of xs) {
    r -= x.weight;
    if (r < 0) return x;
  }
  return xs[xs.length - 1];
}

/** A standard normal draw (Box-Muller). */
function normal(rand: () => number): number {
  const u = Math.max(1e-12, rand());
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_m, k: string) => values[k] ?? '');
}

/** Another family's vendor name, lower case, for the prose. */
function otherColour(rand: () => number, not: ReadonlySet<string>): string {
  let f: ColourFamily;
  do f = pick(rand, COLOUR_FAMILIES);
  while (not.has(f.key));
  return pick(rand, f.vendorNames).toLowerCase();
}

/** The marketing description: 200-1000 characters, mentioning other colours and garments. */
function description(rand: () => number, noun: string, material: string, own: ReadonlySet<string>): string {
  const values = {
    noun: noun.toLowerCase(),
    material: material.toLowerCase(),
    other1: otherColour(rand, own),
    other2: otherColour(rand, own),
    pair1: pick(rand, PAIRINGS),
    pair2: pick(rand, PAIRINGS),
  };
  const parts = [fill(pick(rand, OPENERS), values), fill(pick(rand, MIDDLES), values)];
  // Most descriptions are short; a tail is long (a log-normal-ish length up to 1000 characters).
  const target = Math.min(1000, 200 + Math.round(Math.exp(2.0 + 1.35 * Math.abs(normal(rand)))));
  let text = parts.join(' ');
  const closers = [...CLOSERS];
  // Below 200 characters: the shortest closing sentence that reaches 200 (or any, if none does);
  // then random ones while they fit the drawn length.
  while (text.length < 200) {
    const reaching = closers
      .filter((c) => text.length + 1 + c.length >= 200)
      .sort((a, b) => a.length - b.length);
    const next = reaching[0] ?? pick(rand, closers);
    closers.splice(closers.indexOf(next), 1);
    text += ' ' + next;
  }
  for (let tries = 0; tries < 8 && closers.length > 0; tries += 1) {
    const next = closers.splice(Math.floor(rand() * closers.length), 1)[0];
    if (text.length + 1 + next.length <= target) text += ' ' + next;
  }
  return text.length > 1000 ? text.slice(0, 997).replace(/\s+\S*$/, '') + '...' : text;
}

interface Colourway {
  families: ColourFamily[];
  color: string;
}

/** A colourway: mostly one vendor name, sometimes two (`Navy/White`) or a prefixed one. */
function colourway(rand: () => number): Colourway {
  const first = pick(rand, COLOUR_FAMILIES);
  const name = pick(rand, first.vendorNames);
  const r = rand();
  if (r < 0.12) {
    let second: ColourFamily;
    do second = pick(rand, COLOUR_FAMILIES);
    while (second.key === first.key);
    const sep = pick(rand, ['/', '/', ' & ', ', ']);
    return { families: [first, second], color: `${name}${sep}${pick(rand, second.vendorNames)}` };
  }
  if (r < 0.2)
    return { families: [first], color: `${pick(rand, ['Washed', 'Soft', 'Deep', 'Vintage'])} ${name}` };
  return { families: [first], color: name };
}

export interface GeneratedRow {
  row: FeedRow;
  truth: RowTruth;
}

/** Probability that an optional field is present. */
const PRESENT = {
  affiliate_link: 0.7,
  additional_image_link: 0.6,
  sale_price: 0.15,
  material: 0.85,
  pattern: 0.45,
  color: 0.97,
  age_group: 0.8,
  google_product_category: 0.9,
};

/**
 * The feed's rows, in order, with their truth. A product (an `item_group_id`) has one or two colourways
 * in one to five sizes; every row is one variant. Deterministic for a seed.
 */
export function* feedRows(seed: number, rows: number): Generator<GeneratedRow> {
  const rand = seededRandom(seed * 7919 + 17);
  let emitted = 0;
  let group = 0;
  while (emitted < rows) {
    group += 1;
    const cat = weighted(rand, CATEGORIES);
    const gender = pick(rand, cat.genders);
    const brand = pick(rand, BRANDS);
    const noun = pick(rand, cat.nouns);
    const material = pick(rand, cat.materials);
    const hasMaterial = rand() < PRESENT.material;
    const pattern = rand() < PRESENT.pattern ? pick(rand, PATTERNS) : '';
    const price = Math.max(5, Math.round(cat.median * Math.exp(cat.sigma * normal(rand)) * 100) / 100);
    const onSale = rand() < PRESENT.sale_price;
    const salePrice = Math.round(price * 70) / 100;
    const groupId = `G${seed}${group.toString(36).toUpperCase().padStart(5, '0')}`;
    const retailer = pick(rand, RETAILERS);
    const hasAffiliate = rand() < PRESENT.affiliate_link;
    const hasGpc = rand() < PRESENT.google_product_category;
    const ageGroup = rand() < PRESENT.age_group ? 'adult' : '';
    const ways = [colourway(rand)];
    if (rand() < 0.25) {
      const second = colourway(rand);
      if (second.families[0].key !== ways[0].families[0].key) ways.push(second);
    }
    const sizeCount = cat.sizes.length === 1 ? 1 : 1 + Math.floor(rand() * Math.min(5, cat.sizes.length));
    const start = Math.floor(rand() * (cat.sizes.length - sizeCount + 1));
    const sizes = cat.sizes.slice(start, start + sizeCount);
    for (const [wayIndex, way] of ways.entries()) {
      const own = new Set(way.families.map((f) => f.key));
      const hasColour = rand() < PRESENT.color;
      const withMaterial =
        hasMaterial && rand() < 0.5 && !noun.toLowerCase().includes(material.split(' ')[0].toLowerCase());
      const title = `${brand} ${way.color} ${withMaterial ? material + ' ' : ''}${noun}`;
      const desc = description(rand, noun, material, own);
      for (const size of sizes) {
        if (emitted >= rows) return;
        emitted += 1;
        const id = `${groupId}-${wayIndex}${slug(size)}`;
        const link = `https://${retailer}/p/${id}`;
        const affiliate = hasAffiliate ? `https://aff.example/c?s=${id}` : '';
        const image = `https://img.${retailer}/${groupId}-${wayIndex}.jpg`;
        const row: FeedRow = {
          id,
          item_group_id: groupId,
          title,
          description: desc,
          link,
          affiliate_link: affiliate,
          image_link: image,
          additional_image_link:
            rand() < PRESENT.additional_image_link ? image.replace(/\.jpg$/, '-b.jpg') : '',
          brand,
          gender,
          price: `${price.toFixed(2)} USD`,
          sale_price: onSale ? `${salePrice.toFixed(2)} USD` : '',
          color: hasColour ? way.color : '',
          material: hasMaterial ? material : '',
          pattern,
          size,
          product_type: `Apparel & Accessories > ${cat.path}`,
          google_product_category: hasGpc ? cat.gpc : '',
          age_group: ageGroup,
          condition: 'new',
          availability: pick(rand, AVAILABILITY),
        };
        yield {
          row,
          truth: {
            id,
            family: way.families[0].key,
            families: way.families.map((f) => f.key),
            category: cat.key,
            noun,
            material,
            pattern,
            gender,
            price,
            paidPrice: onSale ? salePrice : price,
            url: affiliate || link,
            inStock: row.availability !== 'out_of_stock',
          },
        };
      }
    }
  }
}

/**
 * A value as a spreadsheet exports it, CSV or tab-delimited: in double quotes, with its quote marks
 * doubled, when it holds a quote mark, the delimiter or a line break (Merchant Center's quoted
 * attributes, docs/decisions/0060); as it is otherwise.
 */
function delimitedCell(value: string, delimiter: ',' | '\t'): string {
  return /["\n\r]/.test(value) || value.includes(delimiter) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** One line of the feed in `format` (with its line break). */
export function formatRow(row: FeedRow, format: FeedFormatName): string {
  if (format === 'jsonl') {
    const present = Object.fromEntries(Object.entries(row).filter(([, v]) => v !== ''));
    return JSON.stringify(present) + '\n';
  }
  const delimiter = format === 'tsv' ? '\t' : ',';
  return FEED_COLUMNS.map((c) => delimitedCell(row[c], delimiter)).join(delimiter) + '\n';
}

export function headerLine(format: FeedFormatName): string {
  if (format === 'jsonl') return '';
  return FEED_COLUMNS.join(format === 'tsv' ? '\t' : ',') + '\n';
}

async function write(out: WriteStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

async function finish(out: WriteStream): Promise<void> {
  out.end();
  await once(out, 'finish');
}

export interface WriteFeedOptions {
  rows: number;
  seed: number;
  format: FeedFormatName;
  out: string;
  /** Also write `<out>.truth.jsonl` (default true). */
  truth?: boolean;
}

/** Streams the feed (and its truth) to disk; memory stays flat at any row count. */
export async function writeFeed(
  opts: WriteFeedOptions,
): Promise<{ rows: number; bytes: number; truthFile?: string }> {
  const out = createWriteStream(opts.out);
  const truthFile = opts.truth === false ? undefined : `${opts.out}.truth.jsonl`;
  const truthOut = truthFile ? createWriteStream(truthFile) : undefined;
  let bytes = 0;
  const header = headerLine(opts.format);
  bytes += Buffer.byteLength(header);
  await write(out, header);
  let rows = 0;
  let batch = '';
  let truthBatch = '';
  for (const { row, truth } of feedRows(opts.seed, opts.rows)) {
    batch += formatRow(row, opts.format);
    if (truthOut) truthBatch += JSON.stringify(truth) + '\n';
    rows += 1;
    if (batch.length > 256 * 1024) {
      bytes += Buffer.byteLength(batch);
      await write(out, batch);
      batch = '';
      if (truthOut) {
        await write(truthOut, truthBatch);
        truthBatch = '';
      }
    }
  }
  bytes += Buffer.byteLength(batch);
  await write(out, batch);
  await finish(out);
  if (truthOut) {
    await write(truthOut, truthBatch);
    await finish(truthOut);
  }
  return { rows, bytes, truthFile };
}

/** The truth of every row of the feed for `seed`, by id (regenerated: nothing is read from the service). */
export function truthById(seed: number, rows: number): Map<string, RowTruth> {
  const map = new Map<string, RowTruth>();
  for (const { truth } of feedRows(seed, rows)) map.set(truth.id, truth);
  return map;
}

function argValue(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

async function main(argv: string[]): Promise<void> {
  const rows = Number(argValue(argv, '--rows') ?? 100_000);
  const seed = Number(argValue(argv, '--seed') ?? 1);
  const format = (argValue(argv, '--format') ?? 'csv') as FeedFormatName;
  const out = argValue(argv, '--out') ?? `feed-${rows}-seed${seed}.${format}`;
  if (!Number.isInteger(rows) || rows < 1) throw new Error('--rows must be a positive integer');
  if (!Number.isInteger(seed)) throw new Error('--seed must be an integer');
  if (!['csv', 'tsv', 'jsonl'].includes(format)) throw new Error('--format must be csv, tsv or jsonl');
  const t0 = performance.now();
  const res = await writeFeed({ rows, seed, format, out, truth: !argv.includes('--no-truth') });
  const s = (performance.now() - t0) / 1000;
  console.log(
    `wrote ${res.rows} rows (${(res.bytes / 1024 / 1024).toFixed(1)} MB, ${Math.round(res.bytes / res.rows)} bytes a row) ` +
      `to ${out} in ${s.toFixed(1)} s${res.truthFile ? `; truth in ${res.truthFile}` : ''}`,
  );
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
