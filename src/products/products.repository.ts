import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { onReplica } from '../database/replica';
import type { CatalogueRow } from './catalogue-feed';
import type { ProductGender } from './product.entity';

/** What one batch upsert did: rows new to the catalogue, rows changed, rows already as given. */
export interface UpsertCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

/** A validated feed row plus its derived colour features. */
export interface ProductUpsertRow extends CatalogueRow {
  colourL: number | null;
  colourA: number | null;
  colourB: number | null;
  colourFamily: string | null;
}

/** The hard filters every candidate query applies (`women`/`men` arrive with `unisex` already). */
export interface CandidateFilters {
  genders: ProductGender[] | null;
  minPrice: number | null;
  maxPrice: number | null;
  /** Feed ids the caller excluded (`excludeIds` of the search). */
  excludeExternalIds?: string[] | null;
  /** Products already taken by an earlier stage. */
  excludeIds?: string[];
}

export interface CandidateQuery extends CandidateFilters {
  /** `to_tsquery('english', ...)` text a candidate must match; '' means any product. */
  match: string;
  /** `to_tsquery` text the candidates are ranked by (cheap `ts_rank`). */
  rank: string;
  limit: number;
}

export interface ColourCandidateQuery extends CandidateFilters {
  /** Palette colours (OKLab) to find the nearest products of. */
  colours: { l: number; a: number; b: number }[];
  /** Nearest products taken per colour before ranking. */
  perColour: number;
  /** `to_tsquery` text the union is ranked by (cheap `ts_rank`). */
  rank: string;
  /** Optional `to_tsquery` text every candidate must also match (a common query word). */
  match?: string;
  limit: number;
}

/** A catalogue row as read for ranking: `numeric` price as PostgreSQL returns it, and the text rank. */
export type CandidateRow = Omit<ProductUpsertRow, 'price' | 'availability'> & {
  id: string;
  price: string;
  textRank: number;
};

/**
 * Grid cells walked per palette colour at most. The walk stops as soon as enough products are found, so
 * this only bounds the work when the hard filters leave few products near a colour.
 */
const NEAREST_CELLS = 256;

/**
 * Upserts and candidate reads of the global catalogue. The only place that touches its tables. Search
 * reads go to a read replica when there are any (a catalogue a moment behind the primary is fine).
 */
@Injectable()
export class ProductsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * One statement for the whole batch: `INSERT ... SELECT FROM unnest(...) ON CONFLICT (external_id) DO
   * UPDATE`, and the batch's colour cells not yet in `colour_cells` added from its RETURNING rows (this
   * is the only writer of products, so the cell list stays complete). Column arrays, not one JSON
   * document: PostgreSQL parses a JSON parameter twice (`json_in`, then `json_to_recordset`), about
   * 8 µs a row against 2 µs for the arrays. External ids must be distinct within a batch. `xmax = 0`
   * tells inserted rows from updated ones. A row whose fields all equal the stored ones is left alone
   * (no new row version, tsvector or index entries): re-importing a daily feed rewrites only what
   * changed, and the rows RETURNING leaves out are the unchanged ones.
   */
  async upsertBatch(rows: readonly ProductUpsertRow[]): Promise<UpsertCounts> {
    if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
    const col = <K extends keyof ProductUpsertRow>(key: K): ProductUpsertRow[K][] => rows.map((r) => r[key]);
    // Imports are idempotent and re-runnable, so a batch need not wait for its WAL flush: a crash can
    // lose only the last batches, which the next run of the same feed writes again.
    const result: { inserted: boolean }[] = await this.db.transaction(async (m) => {
      await m.query('SET LOCAL synchronous_commit TO OFF');
      return m.query(
        `WITH upserted AS (
         INSERT INTO products (external_id, title, designer, description, price, currency, url, media_url,
           media_url_alt, gender, colour, material, pattern, category, availability,
           colour_l, colour_a, colour_b, colour_family)
         SELECT * FROM unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::text[], $5::numeric[],
           $6::varchar[], $7::varchar[], $8::varchar[], $9::varchar[], $10::varchar[], $11::varchar[],
           $12::varchar[], $13::varchar[], $14::varchar[], $15::varchar[], $16::real[], $17::real[],
           $18::real[], $19::varchar[])
         ON CONFLICT (external_id) DO UPDATE SET
           title = EXCLUDED.title, designer = EXCLUDED.designer, description = EXCLUDED.description,
           price = EXCLUDED.price, currency = EXCLUDED.currency, url = EXCLUDED.url,
           media_url = EXCLUDED.media_url, media_url_alt = EXCLUDED.media_url_alt, gender = EXCLUDED.gender,
           colour = EXCLUDED.colour, material = EXCLUDED.material, pattern = EXCLUDED.pattern,
           category = EXCLUDED.category, availability = EXCLUDED.availability,
           colour_l = EXCLUDED.colour_l, colour_a = EXCLUDED.colour_a, colour_b = EXCLUDED.colour_b,
           colour_family = EXCLUDED.colour_family, updated_at = now()
         WHERE (products.title, products.designer, products.description, products.price, products.currency,
           products.url, products.media_url, products.media_url_alt, products.gender, products.colour,
           products.material, products.pattern, products.category, products.availability, products.colour_l,
           products.colour_a, products.colour_b, products.colour_family)
           IS DISTINCT FROM (EXCLUDED.title, EXCLUDED.designer, EXCLUDED.description, EXCLUDED.price,
           EXCLUDED.currency, EXCLUDED.url, EXCLUDED.media_url, EXCLUDED.media_url_alt, EXCLUDED.gender,
           EXCLUDED.colour, EXCLUDED.material, EXCLUDED.pattern, EXCLUDED.category, EXCLUDED.availability,
           EXCLUDED.colour_l, EXCLUDED.colour_a, EXCLUDED.colour_b, EXCLUDED.colour_family)
         RETURNING (xmax = 0) AS inserted, colour_cell
       ), cells AS (
         -- In cell order, so that concurrent batches adding the same new cells lock them in one order.
         INSERT INTO colour_cells (cell, centre)
         SELECT c.cell, colour_cell_centre(c.cell)
         FROM (SELECT DISTINCT u.colour_cell AS cell FROM upserted u WHERE u.colour_cell IS NOT NULL) c
         ORDER BY c.cell
         ON CONFLICT (cell) DO NOTHING
       )
       SELECT inserted FROM upserted`,
        [
          col('externalId'),
          col('title'),
          col('designer'),
          col('description'),
          col('price'),
          col('currency'),
          col('url'),
          col('mediaUrl'),
          col('mediaUrlAlt'),
          col('gender'),
          col('colour'),
          col('material'),
          col('pattern'),
          col('category'),
          col('availability'),
          col('colourL'),
          col('colourA'),
          col('colourB'),
          col('colourFamily'),
        ],
      );
    });
    const inserted = result.filter((r) => r.inserted).length;
    return { inserted, updated: result.length - inserted, unchanged: rows.length - result.length };
  }

  /**
   * Stage one of the search: the best `limit` products by a cheap `ts_rank` (GIN index on the generated
   * tsvector) after the hard filters.
   */
  findCandidates(q: CandidateQuery): Promise<CandidateRow[]> {
    const params: unknown[] = [q.rank];
    const where = hardFilters(q, params);
    return this.rankCandidates(where.length > 0 ? where.join(' AND ') : 'TRUE', params, q.limit);
  }

  /**
   * Candidates nearest in colour: for each palette colour, the OKLab grid cells nearest to it (GiST kNN
   * over `colour_cells`) are walked in order of distance, reading each cell's products through the btree
   * on (colour_cell, colour_sample) with the hard filters applied, until `perColour` products are found;
   * then the union is ranked by the profile's text rank and cut to `limit`. Within a cell products come in
   * order of their sample group (a hash of the feed id), so when a cell holds more than `perColour` the
   * candidates are a sample that does not depend on the feed's row order.
   */
  findNearestColourCandidates(q: ColourCandidateQuery): Promise<CandidateRow[]> {
    if (q.colours.length === 0) return Promise.resolve([]);
    const params: unknown[] = [q.rank, q.perColour];
    const where = ['s.colour_cell = c.cell', ...hardFilters(q, params)].join(' AND ');
    const nearest = q.colours.map((colour) => {
      params.push([colour.l, colour.a, colour.b]);
      const point = `cube($${params.length}::float8[])`;
      return `(SELECT x.id FROM
           (SELECT cell, centre <-> ${point} AS distance FROM colour_cells
            ORDER BY centre <-> ${point} LIMIT ${NEAREST_CELLS}) c
         CROSS JOIN LATERAL (SELECT s.id FROM products s WHERE ${where} ORDER BY s.colour_sample LIMIT $2) x
         ORDER BY c.distance LIMIT $2)`;
    });
    return this.rankCandidates(`s.id IN (${nearest.join(' UNION ')})`, params, q.limit);
  }

  /**
   * Ranks the products matching `where` (SQL over `products s`) by `ts_rank` on the tsquery text in `$1`
   * ('' ranks all alike) and keeps the best `limit`.
   */
  private async rankCandidates(where: string, params: unknown[], limit: number): Promise<CandidateRow[]> {
    params.push(limit);
    const rankExpr = params[0] === '' ? '0::real' : `ts_rank(s.search, to_tsquery('english', $1))`;
    const rows: (Omit<CandidateRow, 'textRank'> & { textRank: string | number })[] = await onReplica(
      this.db,
      (r) =>
        r.query(
          `SELECT s.id, s.external_id AS "externalId", s.title, s.designer, s.description, s.price, s.currency,
         s.url, s.media_url AS "mediaUrl", s.media_url_alt AS "mediaUrlAlt", s.gender, s.colour, s.material,
         s.pattern, s.category, s.colour_l AS "colourL", s.colour_a AS "colourA", s.colour_b AS "colourB",
         s.colour_family AS "colourFamily", ${rankExpr} AS "textRank"
       FROM products s
       WHERE ${where} AND $1::text IS NOT NULL
       ORDER BY "textRank" DESC, s.id
       LIMIT $${params.length}`,
          params,
        ),
    );
    return rows.map((r) => ({ ...r, textRank: Number(r.textRank) }));
  }

  /**
   * How many products match `tsquery`, counting no further than `upTo` (a GIN bitmap scan that stops
   * reading rows at the bound): tells a rare query word from a common one.
   */
  async countMatchesUpTo(tsquery: string, upTo: number): Promise<number> {
    const [row]: { n: string }[] = await onReplica(this.db, (r) =>
      r.query(
        `SELECT count(*) AS n FROM (SELECT 1 FROM products s WHERE s.search @@ to_tsquery('english', $1) LIMIT $2) m`,
        [tsquery, upTo],
      ),
    );
    return Number(row.n);
  }
}

/**
 * The hard filters of a candidate query as SQL clauses over `products s`, appending their values
 * to `params`: the text match, gender (`women`/`men` arrive with `unisex` already), price range,
 * products the caller excluded and products already taken.
 */
function hardFilters(q: CandidateFilters & { match?: string }, params: unknown[]): string[] {
  const where: string[] = [];
  const add = (value: unknown, clause: (ref: string) => string): void => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (q.match) add(q.match, (r) => `s.search @@ to_tsquery('english', ${r})`);
  if (q.genders) add(q.genders, (r) => `s.gender = ANY(${r}::varchar[])`);
  if (q.minPrice !== null) add(q.minPrice, (r) => `s.price >= ${r}`);
  if (q.maxPrice !== null) add(q.maxPrice, (r) => `s.price <= ${r}`);
  if (q.excludeExternalIds && q.excludeExternalIds.length > 0)
    add(q.excludeExternalIds, (r) => `s.external_id <> ALL(${r}::text[])`);
  if (q.excludeIds && q.excludeIds.length > 0) add(q.excludeIds, (r) => `s.id <> ALL(${r}::uuid[])`);
  return where;
}
