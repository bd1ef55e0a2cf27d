import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { onReplica } from '../database/replica';
import type { CatalogueRow } from './catalogue-feed';
import type { ProductGender } from './product.entity';

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
 * Candidate reads of the global catalogue (its writes are `CatalogueWriter`'s). Search reads go to a read
 * replica when there are any (a catalogue a moment behind the primary is fine).
 */
@Injectable()
export class ProductsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

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
