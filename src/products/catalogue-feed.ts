import type { ProductAvailability, ProductGender } from './product.entity';

/** A feed row as read from CSV/TSV (all strings) or JSON lines (any JSON values). */
export type RawFeedRow = Record<string, unknown>;

/** A validated feed row, ready for the upsert (colour features are added by the caller). */
export interface CatalogueRow {
  externalId: string;
  title: string;
  designer: string;
  description: string;
  price: number;
  currency: string;
  url: string;
  mediaUrl: string;
  mediaUrlAlt: string | null;
  gender: ProductGender;
  colour: string | null;
  material: string | null;
  pattern: string | null;
  category: string | null;
  availability: ProductAvailability | null;
}

export type FeedRowResult = { ok: true; row: CatalogueRow } | { ok: false; reason: string };

export const DEFAULT_CURRENCY = 'USD';
const MAX_PRICE = 9_999_999_999.99;

/**
 * Parses a Merchant Center price: `129.00 USD`, `USD 129.00`, `129 USD`, `1,299.00 USD` or a bare number
 * (then the currency is USD). Returns null for anything else, including negative amounts.
 */
export function parsePrice(value: unknown): { amount: number; currency: string } | null {
  if (typeof value === 'number') {
    return Number.isFinite(value) && value >= 0 && value <= MAX_PRICE
      ? { amount: Math.round(value * 100) / 100, currency: DEFAULT_CURRENCY }
      : null;
  }
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const m =
    /^(?<amount>\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)(?:\s*(?<cur>[A-Za-z]{3}))?$/.exec(text) ??
    /^(?<cur>[A-Za-z]{3})\s*(?<amount>\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)$/.exec(text);
  if (!m?.groups) return null;
  const amount = Number(m.groups.amount.replace(/,/g, ''));
  if (!Number.isFinite(amount) || amount > MAX_PRICE) return null;
  const currency = (m.groups.cur ?? DEFAULT_CURRENCY).toUpperCase();
  // An ISO 4217 code (the DTO says so): `129.00 XYZ` was stored and returned as currency XYZ.
  return CURRENCIES.has(currency) ? { amount, currency } : null;
}

/**
 * The price a shopper pays: Merchant Center's `sale_price` when it is a price in the same currency below
 * `price` and its `sale_price_effective_date` (an ISO 8601 `start/end` interval, optional) holds `now`;
 * else `price`. A sale price that cannot be used is ignored, not a rejection (as Merchant Center warns
 * and keeps the item); a window that cannot be read ignores the sale (no price the retailer may not
 * honour). Read at import: a daily feed re-import moves products into and out of their sales.
 */
export function paidPrice(
  row: RawFeedRow,
  price: { amount: number; currency: string },
  now: Date = new Date(),
): number {
  const sale = parsePrice(row.sale_price);
  if (!sale || sale.currency !== price.currency || sale.amount >= price.amount) return price.amount;
  const window = text(row, 'sale_price_effective_date');
  if (window === '') return sale.amount;
  const [start, end, ...rest] = window.split('/').map((part) => Date.parse(part.trim()));
  const open = rest.length === 0 && now.getTime() >= start && now.getTime() < end; // NaN: false
  return open ? sale.amount : price.amount;
}

/** ISO 4217 codes, as the runtime's Intl knows them. */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

const GENDERS: Record<string, ProductGender> = {
  female: 'women',
  women: 'women',
  woman: 'women',
  male: 'men',
  men: 'men',
  man: 'men',
  unisex: 'unisex',
};

/** Feed `gender` (female/male/unisex; empty means unisex) to the API's values; null when unknown. */
export function mapGender(value: unknown): ProductGender | null {
  if (value === undefined || value === null) return 'unisex';
  if (typeof value !== 'string') return null;
  const key = value.trim().toLowerCase();
  if (key === '') return 'unisex';
  return GENDERS[key] ?? null;
}

/**
 * Merchant Center's `availability` values, by their spelling with case, spaces and hyphens folded
 * (`in stock` and `In Stock` are the older specification's forms of `in_stock`).
 */
const AVAILABILITIES: Record<string, ProductAvailability> = {
  in_stock: 'in_stock',
  out_of_stock: 'out_of_stock',
  preorder: 'preorder',
  pre_order: 'preorder',
  backorder: 'backorder',
  back_order: 'backorder',
};

/**
 * Feed `availability` to its Merchant Center value: null when absent or empty (the product counts as
 * available), false when it names no value Merchant Center knows.
 */
export function mapAvailability(value: unknown): ProductAvailability | null | false {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return false;
  const key = value
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '_');
  if (key === '') return null;
  return AVAILABILITIES[key] ?? false;
}

/** An absolute http(s) URL, or null. */
export function normaliseHttpUrl(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (!url.hostname) return null;
    return url.toString();
  } catch {
    return null;
  }
}

function text(row: RawFeedRow, key: string): string {
  const value = row[key];
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return '';
}

/**
 * The first `max` UTF-16 units of a text, one fewer when the cut would split a character outside the
 * Basic Multilingual Plane (an emoji): half of it was stored as U+FFFD.
 */
function clip(value: string, max: number): string {
  if (value.length <= max) return value;
  const end = max > 0 && (value.charCodeAt(max - 1) & 0xfc00) === 0xd800 ? max - 1 : max;
  return value.slice(0, end);
}

function optional(row: RawFeedRow, key: string, max: number): string | null {
  const value = text(row, key);
  return value === '' ? null : clip(value, max);
}

/**
 * `additional_image_link` may be one URL, a comma-separated list or (JSON lines) an array. A list is
 * split only before the next URL: image CDNs put commas in paths (`/upload/w_500,h_500/a.jpg`).
 */
function firstAdditionalImage(row: RawFeedRow): string {
  const value = row.additional_image_link;
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0].trim() : '';
  const list = text(row, 'additional_image_link');
  for (let comma = list.indexOf(','); comma !== -1; comma = list.indexOf(',', comma + 1)) {
    let next = comma + 1;
    while (list.charCodeAt(next) === 32) next += 1;
    if (/^https?:\/\//i.test(list.slice(next, next + 8))) return list.slice(0, comma).trim();
  }
  return list;
}

/** The text fields a row stores, each checked for characters PostgreSQL or UTF-8 cannot take. */
const STORED_TEXT = [
  'id',
  'title',
  'brand',
  'description',
  'color',
  'material',
  'pattern',
  'product_type',
  'google_product_category',
  'availability',
] as const;

/**
 * Why a row's text cannot be stored as given, or null: a NUL character (PostgreSQL refuses it, and
 * the whole chunk's transaction with it: one such row failed the import), or U+FFFD, which is what
 * bytes that are not UTF-8 (a Latin-1 `é`) decode to (two ids then read the same).
 */
function unstorableText(row: RawFeedRow): string | null {
  for (const key of STORED_TEXT) {
    const value = row[key];
    if (typeof value !== 'string') continue;
    if (value.includes('\u0000')) return `${key} holds a NUL character`;
    if (value.includes('\uFFFD')) return `${key} holds bytes that are not UTF-8 (save the feed as UTF-8)`;
  }
  return null;
}

interface FeedRowUrls {
  /** `affiliate_link` when given, else `link`. */
  url: string;
  mediaUrl: string;
  mediaUrlAlt: string | null;
}

/** An optional URL field: null when empty, false when present but not an absolute http(s) URL. */
function optionalUrl(value: string): string | null | false {
  return value === '' ? null : (normaliseHttpUrl(value) ?? false);
}

/** The row's links and images, each an absolute http(s) URL, and the length of the longest. */
function feedRowUrls(
  row: RawFeedRow,
): { ok: true; urls: FeedRowUrls; longest: number } | { ok: false; reason: string } {
  const bad = (field: string) => ({
    ok: false as const,
    reason: `bad URL in ${field} (must be http or https)`,
  });
  const link = normaliseHttpUrl(text(row, 'link'));
  if (!link) return bad('link');
  const affiliate = optionalUrl(text(row, 'affiliate_link'));
  if (affiliate === false) return bad('affiliate_link');
  const mediaUrl = normaliseHttpUrl(text(row, 'image_link'));
  if (!mediaUrl) return bad('image_link');
  const mediaUrlAlt = optionalUrl(firstAdditionalImage(row));
  if (mediaUrlAlt === false) return bad('additional_image_link');
  const longest = Math.max(...[link, affiliate, mediaUrl, mediaUrlAlt].map((u) => u?.length ?? 0));
  return { ok: true, urls: { url: affiliate ?? link, mediaUrl, mediaUrlAlt }, longest };
}

/** The Merchant Center attributes every row needs. */
export const REQUIRED_COLUMNS = ['id', 'title', 'price', 'link', 'image_link'] as const;

/** Validates one feed row against the Google Merchant Center attributes the catalogue uses. */
export function validateFeedRow(row: RawFeedRow): FeedRowResult {
  const missing = REQUIRED_COLUMNS.filter((key) => text(row, key) === '');
  if (missing.length > 0) return { ok: false, reason: `missing ${missing.join(', ')}` };
  const unstorable = unstorableText(row);
  if (unstorable) return { ok: false, reason: unstorable };
  const externalId = text(row, 'id');
  // Characters, as PostgreSQL's varchar(255) counts them (an emoji is two UTF-16 units).
  if (externalId.length > 255 && [...externalId].length > 255) {
    return { ok: false, reason: 'id longer than 255 characters' };
  }
  const price = parsePrice(row.price);
  if (!price) return { ok: false, reason: `bad price ${JSON.stringify(text(row, 'price').slice(0, 40))}` };
  const urls = feedRowUrls(row);
  if (!urls.ok) return urls;
  const gender = mapGender(row.gender);
  if (!gender) {
    return {
      ok: false,
      reason: `unknown gender ${JSON.stringify(text(row, 'gender').slice(0, 40))} (female, male or unisex)`,
    };
  }
  if (urls.longest > 2048) return { ok: false, reason: 'URL longer than 2048 characters' };
  const availability = mapAvailability(row.availability);
  if (availability === false) {
    return {
      ok: false,
      reason: `unknown availability ${JSON.stringify(text(row, 'availability').slice(0, 40))} (in_stock, out_of_stock, preorder or backorder)`,
    };
  }
  return {
    ok: true,
    row: {
      externalId,
      title: clip(text(row, 'title'), 500),
      designer: clip(text(row, 'brand'), 255),
      description: clip(text(row, 'description'), 5000),
      price: paidPrice(row, price),
      currency: price.currency,
      ...urls.urls,
      gender,
      colour: optional(row, 'color', 100),
      material: optional(row, 'material', 200),
      pattern: optional(row, 'pattern', 100),
      category: optional(row, 'product_type', 500) ?? optional(row, 'google_product_category', 500),
      availability,
    },
  };
}

/** The first colour named in a feed `color` value (`Navy/White`, `black, red`, `camel & cream`). */
export function primaryColourName(colour: string | null): string | null {
  if (!colour) return null;
  const first =
    colour
      .split(/[/,&|;+]| and /i)[0]
      ?.trim()
      .toLowerCase() ?? '';
  return first === '' ? null : first;
}

export type FeedFormat = 'csv' | 'tsv' | 'jsonl';

/** Format from the extension; `.txt` and unknown extensions are sniffed from the first line. */
export function formatFromName(file: string): FeedFormat | null {
  const lower = file.toLowerCase();
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  if (lower.endsWith('.tsv') || lower.endsWith('.tab')) return 'tsv';
  if (lower.endsWith('.csv')) return 'csv';
  return null;
}

/** Sniffs the format from the first line of the file. */
export function sniffFormat(firstLine: string): FeedFormat {
  const line = firstLine.replace(/^\uFEFF/, '').trim();
  if (line.startsWith('{')) return 'jsonl';
  const tabs = line.split('\t').length - 1;
  const commas = line.split(',').length - 1;
  return tabs > 0 && tabs >= commas ? 'tsv' : 'csv';
}
