import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DataSource } from 'typeorm';
import type { ProductUpsertRow } from './products.repository';

/** What one chunk's merge did: rows new to the catalogue, rows changed, rows already as given. */
export interface UpsertCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

/** The catalogue columns a feed row writes, in COPY order, with the row field each comes from. */
const COLUMNS: readonly (readonly [column: string, key: keyof ProductUpsertRow])[] = [
  ['external_id', 'externalId'],
  ['title', 'title'],
  ['designer', 'designer'],
  ['description', 'description'],
  ['price', 'price'],
  ['currency', 'currency'],
  ['url', 'url'],
  ['media_url', 'mediaUrl'],
  ['media_url_alt', 'mediaUrlAlt'],
  ['gender', 'gender'],
  ['colour', 'colour'],
  ['material', 'material'],
  ['pattern', 'pattern'],
  ['category', 'category'],
  ['availability', 'availability'],
  ['colour_l', 'colourL'],
  ['colour_a', 'colourA'],
  ['colour_b', 'colourB'],
  ['colour_family', 'colourFamily'],
];
const NAMES = COLUMNS.map(([c]) => c);
/** Every column but the key: a row whose values all equal the stored ones is unchanged. */
const FIELDS = NAMES.slice(1);
const tuple = (ref: string, names: readonly string[]): string =>
  `(${names.map((n) => `${ref}.${n}`).join(', ')})`;

/** One temporary staging table per chunk, dropped at its commit (typed like `products`, collation too). */
export const CREATE_STAGE = `CREATE TEMP TABLE catalogue_stage ON COMMIT DROP AS
  SELECT ${NAMES.join(', ')} FROM products WITH NO DATA`;
export const COPY_STAGE = `COPY catalogue_stage (${NAMES.join(', ')}) FROM STDIN`;

/** The fields `product_features` reads (FEATURES_SQL): a product's sizes share them all. */
const DESCRIBING = ['title', 'designer', 'category', 'colour', 'material', 'pattern'];
/** Title and designer are NOT NULL; product_features reads a NULL category, colour, material or pattern as ''. */
const describing = (ref: string): string[] =>
  DESCRIBING.map((n) => (n === 'title' || n === 'designer' ? `${ref}.${n}` : `coalesce(${ref}.${n}, '')`));

/**
 * The set-based merge of a staged chunk (docs/decisions/0029):
 * - `changed`: staged rows that are new or differ from the stored row (an unchanged row costs one index
 *   probe and is never rewritten, so a re-import of the same feed leaves it untouched);
 * - `described`: the search features (`product_features`, FEATURES_SQL) computed once per distinct
 *   describing fields, not per row, with NULL read as '' as the function does: `to_tsvector` is most of
 *   a row's cost and a product's sizes share them. The result is the tsvector the former generated
 *   column computed row by row. MATERIALIZED, or the planner pulls the subquery up and computes the
 *   features again for every row;
 * - the upsert, in key order so that concurrent merges lock rows in one order; its `WHERE` leaves a row
 *   that a concurrent import already wrote as given untouched;
 * - `cells`: colour cells new to `colour_cells`, in cell order (the search walks that list).
 */
export const MERGE = `WITH changed AS MATERIALIZED (
    SELECT st.*, ${describing('st')
      .map((e, i) => `${e} AS d${i}`)
      .join(', ')} FROM catalogue_stage st
    WHERE NOT EXISTS (SELECT 1 FROM products p WHERE p.external_id = st.external_id
      AND ${tuple('p', FIELDS)} IS NOT DISTINCT FROM ${tuple('st', FIELDS)})
  ), described AS MATERIALIZED (
    SELECT ${DESCRIBING.map((_, i) => `t.d${i}`).join(', ')},
      product_features(${DESCRIBING.map((_, i) => `t.d${i}`).join(', ')}) AS features
    FROM (SELECT DISTINCT ${DESCRIBING.map((_, i) => `d${i}`).join(', ')} FROM changed) t
  ), upserted AS (
    INSERT INTO products (${NAMES.join(', ')}, features)
    SELECT ${NAMES.map((n) => `c.${n}`).join(', ')}, f.features
    FROM changed c JOIN described f ON ${DESCRIBING.map((_, i) => `f.d${i} = c.d${i}`).join(' AND ')}
    ORDER BY c.external_id
    ON CONFLICT (external_id) DO UPDATE SET
      ${FIELDS.map((n) => `${n} = EXCLUDED.${n}`).join(', ')}, features = EXCLUDED.features, updated_at = now()
    WHERE ${tuple('products', FIELDS)} IS DISTINCT FROM ${tuple('EXCLUDED', FIELDS)}
    RETURNING (xmax = 0) AS inserted, colour_cell
  ), cells AS (
    INSERT INTO colour_cells (cell, centre)
    SELECT c.cell, colour_cell_centre(c.cell)
    FROM (SELECT DISTINCT u.colour_cell AS cell FROM upserted u WHERE u.colour_cell IS NOT NULL) c
    ORDER BY c.cell
    ON CONFLICT (cell) DO NOTHING
  )
  SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated
  FROM upserted`;

/**
 * The merge transaction's settings (docs/decisions/0029, 0032):
 * - imports are idempotent and re-runnable, so a chunk need not wait for its WAL flush: a crash can lose
 *   only the last chunks, which the next run of the same feed writes again;
 * - the merge hashes and sorts a chunk's rows in memory, not in temporary files;
 * - no merge join: the staging table has no statistics and its declared widths (three 2048-character
 *   URLs) make the planner guess about 350 rows for 5,000, so it sorted the wide `changed` rows and the
 *   `described` rows on six text columns to merge-join them (a fifth of the statement). A hash join on
 *   the same keys costs a hash of each; only the upsert's sort by key is left.
 */
const MERGE_SETTINGS = `SET LOCAL synchronous_commit TO OFF; SET LOCAL work_mem = '64MB';
  SET LOCAL enable_mergejoin TO OFF;`;

/**
 * The columns the search's plans rest on (`products.repository.ts`: the colour walk's index-only scan
 * over `idx_products_colour_cell`, its availability, category, gender and price filters, the text branch's
 * `features @@`, the reads by id) and the merge's anti-join (`external_id`). ANALYZE of these alone
 * costs about a third of the whole table's (the others are long text: titles, descriptions and URLs,
 * whose statistics no query uses); autovacuum's analyze covers every column later.
 */
const SEARCH_STATISTICS = [
  'id',
  'external_id',
  'availability',
  'gender',
  'price',
  'colour_cell',
  'colour_sample',
  'category_key',
  'features',
];

/** A field in COPY's text format: `\N` for null; backslash, tab, line feed and carriage return escaped. */
function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'string' ? value : String(value);
  return /[\\\t\n\r]/.test(text)
    ? text.replace(/[\\\t\n\r]/g, (c) =>
        c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
      )
    : text;
}

/**
 * Rows as COPY text, one line each. Joined, not concatenated: `+=` builds a tree of about 40 string
 * pieces a row that lives until the text is written.
 */
export function copyText(rows: readonly ProductUpsertRow[]): string {
  const lines = new Array<string>(rows.length + 1);
  const fields = new Array<string>(COLUMNS.length);
  rows.forEach((row, r) => {
    for (let i = 0; i < COLUMNS.length; i += 1) fields[i] = copyField(row[COLUMNS[i][1]]);
    lines[r] = fields.join('\t');
  });
  lines[rows.length] = '';
  return lines.join('\n');
}

/**
 * The catalogue's write path (the only writer of `products` and `colour_cells`): each chunk of feed rows
 * is copied into a temporary staging table and merged into the catalogue by one set-based statement, in
 * one transaction. A search sees a chunk whole or not at all, with its search features, colour cell and
 * cell listing in place; an interrupted import leaves whole chunks and no staging table behind (it is
 * temporary: dropped at commit, and with the session when a process dies), and running the feed again
 * completes it. External ids must be distinct within a chunk.
 */
@Injectable()
export class CatalogueWriter {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async writeChunk(rows: readonly ProductUpsertRow[]): Promise<UpsertCounts> {
    if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
    // Only the text and the count from here on: the rows need not live while the chunk is merged.
    const count = rows.length;
    const text = copyText(rows);
    const runner = this.db.createQueryRunner('master');
    const client = (await runner.connect()) as PoolClient;
    try {
      await client.query('BEGIN');
      try {
        await client.query(`${MERGE_SETTINGS} ${CREATE_STAGE}`);
        await pipeline(Readable.from([text]), client.query(copyFrom(COPY_STAGE)));
        const { rows: result } = await client.query<{ inserted: number; updated: number }>(MERGE);
        await client.query('COMMIT');
        const { inserted, updated } = result[0];
        return { inserted, updated, unchanged: count - inserted - updated };
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    } finally {
      await runner.release();
    }
  }

  /**
   * After a catalogue write: VACUUM sets the visibility map, so the colour walk's index-only scan reads
   * no heap page (docs/decisions/0028), and empties the features index's pending list; cheap after a
   * load (about 70 ms for 100k new rows: it reads the new pages once). ANALYZE refreshes the
   * statistics the search's plans rest on, for those columns only: ANALYZE of the whole table was most of
   * this step's time (docs/decisions/0032). Runs outside any transaction.
   */
  async prepareForSearch(): Promise<void> {
    await this.db.query(`VACUUM (ANALYZE) products (${SEARCH_STATISTICS.join(', ')}), colour_cells`);
  }
}
