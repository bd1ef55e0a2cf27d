import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { CatalogueRow } from './catalogue-feed';
import type { ProductGender } from './product.entity';

/** A validated feed row plus its derived colour features. */
export interface ProductUpsertRow extends CatalogueRow {
  colourL: number | null;
  colourA: number | null;
  colourB: number | null;
  colourFamily: string | null;
}

export interface CandidateQuery {
  /** `to_tsquery('english', ...)` text a candidate must match; '' means any product. */
  match: string;
  /** `to_tsquery` text the candidates are ranked by (cheap `ts_rank`). */
  rank: string;
  genders: ProductGender[] | null;
  minPrice: number | null;
  maxPrice: number | null;
  limit: number;
  excludeIds?: string[];
}

export interface ColourCandidateQuery {
  /** Palette colours (OKLab) to find the nearest products of. */
  colours: { l: number; a: number; b: number }[];
  /** Nearest products taken per colour before ranking. */
  perColour: number;
  /** `to_tsquery` text the union is ranked by (cheap `ts_rank`). */
  rank: string;
  /** Optional `to_tsquery` text every candidate must also match (a common query word). */
  match?: string;
  genders: ProductGender[] | null;
  minPrice: number | null;
  maxPrice: number | null;
  limit: number;
  excludeIds?: string[];
}

export interface CandidateRow {
  id: string;
  externalId: string;
  title: string;
  designer: string;
  description: string;
  price: string;
  currency: string;
  url: string;
  mediaUrl: string;
  mediaUrlAlt: string | null;
  gender: ProductGender;
  colour: string | null;
  material: string | null;
  pattern: string | null;
  category: string | null;
  colourL: number | null;
  colourA: number | null;
  colourB: number | null;
  colourFamily: string | null;
  textRank: number;
}

/** Upserts and candidate reads of the global catalogue. The only place that touches its tables. */
@Injectable()
export class ProductsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * One `INSERT ... SELECT FROM unnest(...) ON CONFLICT (external_id) DO UPDATE` for the whole batch.
   * External ids must be distinct within a batch. `xmax = 0` tells inserted rows from updated ones.
   */
  async upsertBatch(rows: readonly ProductUpsertRow[]): Promise<{ inserted: number; updated: number }> {
    if (rows.length === 0) return { inserted: 0, updated: 0 };
    const col = <K extends keyof ProductUpsertRow>(key: K): ProductUpsertRow[K][] => rows.map((r) => r[key]);
    // Imports are idempotent and re-runnable, so a batch need not wait for its WAL flush: a crash can
    // lose only the last batches, which the next run of the same feed writes again.
    const result: { inserted: boolean }[] = await this.db.transaction(async (m) => {
      await m.query('SET LOCAL synchronous_commit TO OFF');
      return m.query(
        `INSERT INTO products (external_id, title, designer, description, price, currency, url, media_url,
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
       RETURNING (xmax = 0) AS inserted`,
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
    return { inserted, updated: result.length - inserted };
  }

  /**
   * Stage one of the search: the best `limit` products by a cheap `ts_rank` over the narrow
   * `product_search` projection (GIN index on its tsvector), after the hard filters; then the catalogue
   * columns of just those rows by primary key.
   */
  findCandidates(q: CandidateQuery): Promise<CandidateRow[]> {
    const params: unknown[] = [q.rank];
    const where = hardFilters(q, params);
    return this.rankCandidates(
      `product_search s WHERE ${where.length > 0 ? where.join(' AND ') : 'TRUE'}`,
      params,
      q.limit,
    );
  }

  /**
   * Candidates nearest in colour: for each palette colour, the `perColour` products whose OKLab point
   * is closest (a GiST kNN index scan, with the hard filters applied during the scan), then the union
   * ranked by the profile's text rank and cut to `limit`.
   */
  findNearestColourCandidates(q: ColourCandidateQuery): Promise<CandidateRow[]> {
    if (q.colours.length === 0) return Promise.resolve([]);
    const params: unknown[] = [q.rank, q.perColour];
    const where = ['s.colour_l IS NOT NULL', ...hardFilters(q, params)].join(' AND ');
    const nearest = q.colours.map((c) => {
      params.push([c.l, c.a, c.b]);
      return `(SELECT s.product_id FROM product_search s WHERE ${where}
         ORDER BY cube(ARRAY[s.colour_l, s.colour_a, s.colour_b]::float8[]) <-> cube($${params.length}::float8[])
         LIMIT $2)`;
    });
    return this.rankCandidates(
      `(${nearest.join(' UNION ')}) n JOIN product_search s ON s.product_id = n.product_id WHERE TRUE`,
      params,
      q.limit,
    );
  }

  /**
   * Ranks the projection rows of `source` (SQL that selects `product_search s` with a WHERE clause) by
   * `ts_rank` on the tsquery text in `$1` ('' ranks all alike), keeps `limit`, and reads their catalogue
   * columns by primary key.
   */
  private async rankCandidates(source: string, params: unknown[], limit: number): Promise<CandidateRow[]> {
    params.push(limit);
    const rankExpr = params[0] === '' ? '0::real' : `ts_rank(s.search, to_tsquery('english', $1))`;
    const rows: (Omit<CandidateRow, 'textRank'> & { textRank: string | number })[] = await this.db.query(
      `SELECT p.id, p.external_id AS "externalId", p.title, p.designer, p.description, p.price, p.currency,
         p.url, p.media_url AS "mediaUrl", p.media_url_alt AS "mediaUrlAlt", p.gender, p.colour, p.material,
         p.pattern, p.category, p.colour_l AS "colourL", p.colour_a AS "colourA", p.colour_b AS "colourB",
         p.colour_family AS "colourFamily", c.rank AS "textRank"
       FROM (
         SELECT s.product_id, ${rankExpr} AS rank
         FROM ${source} AND $1::text IS NOT NULL
         ORDER BY rank DESC, s.product_id
         LIMIT $${params.length}
       ) c
       JOIN products p ON p.id = c.product_id
       ORDER BY c.rank DESC, p.id`,
      params,
    );
    return rows.map((r) => ({ ...r, textRank: Number(r.textRank) }));
  }

  /**
   * How many products match `tsquery`, counting no further than `upTo` (a GIN bitmap scan that stops
   * reading rows at the bound): tells a rare query word from a common one.
   */
  async countMatchesUpTo(tsquery: string, upTo: number): Promise<number> {
    const [row]: { n: string }[] = await this.db.query(
      `SELECT count(*) AS n FROM (SELECT 1 FROM product_search s WHERE s.search @@ to_tsquery('english', $1) LIMIT $2) m`,
      [tsquery, upTo],
    );
    return Number(row.n);
  }

  async countByExternalIds(ids: readonly string[]): Promise<number> {
    const [row]: { n: string }[] = await this.db.query(
      `SELECT count(*) AS n FROM products WHERE external_id = ANY($1::varchar[])`,
      [ids],
    );
    return Number(row.n);
  }
}

/**
 * The hard filters of a candidate query as SQL clauses over `product_search s`, appending their values
 * to `params`: the text match, gender (`women`/`men` arrive with `unisex` already), price range and
 * products already taken.
 */
function hardFilters(
  q: Pick<CandidateQuery, 'genders' | 'minPrice' | 'maxPrice' | 'excludeIds'> & { match?: string },
  params: unknown[],
): string[] {
  const where: string[] = [];
  const add = (value: unknown, clause: (ref: string) => string): void => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (q.match) add(q.match, (r) => `s.search @@ to_tsquery('english', ${r})`);
  if (q.genders) add(q.genders, (r) => `s.gender = ANY(${r}::varchar[])`);
  if (q.minPrice !== null) add(q.minPrice, (r) => `s.price >= ${r}`);
  if (q.maxPrice !== null) add(q.maxPrice, (r) => `s.price <= ${r}`);
  if (q.excludeIds && q.excludeIds.length > 0) add(q.excludeIds, (r) => `s.product_id <> ALL(${r}::uuid[])`);
  return where;
}
