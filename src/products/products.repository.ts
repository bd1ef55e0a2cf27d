import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { replicaQuery } from '../database/hot-query';
import type { CatalogueRow } from './catalogue-feed';
import type { ProductGender } from './product.entity';
import type { Oklab } from './product-ranking';

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
  /** `category_key` a product must have (the category the query names), or null for any. */
  categoryKey?: number | null;
}

/** One colour to walk the nearest products of, and how many to take. */
export interface ColourWalk {
  colour: Oklab;
  take: number;
}

/**
 * A bounded candidate set, read in one statement: for each walk, the products nearest its colour (the
 * colour-cell walk); with `text`, also up to `text.take` products whose `features` match the tsquery,
 * nearest to `text.near` among the first TEXT_SCAN matches.
 */
export interface CandidatePlan extends CandidateFilters {
  walks: ColourWalk[];
  text: { tsquery: string; near: Oklab | null; take: number } | null;
}

/** A catalogue row as read for ranking (`numeric` price as PostgreSQL returns it; no description). */
export type CandidateRow = Omit<ProductUpsertRow, 'description' | 'price' | 'availability'> & {
  id: string;
  price: string;
  categoryKey: number | null;
};

/**
 * Grid cells walked per colour at most. The walk stops as soon as enough products are found, so this
 * only bounds the work when the hard filters leave few products near a colour.
 */
const NEAREST_CELLS = 256;
/** Text matches read (in index order) before the nearest in colour are kept: bounds a common word. */
const TEXT_SCAN = 1000;
/** OKLab a and b count this many times lightness in the colour walk (migration 1795700000000). */
const WALK_CHROMA_WEIGHT = 2;

/** The columns a candidate is ranked and answered with (never the description). */
const CANDIDATE_COLUMNS = `s.id, s.external_id AS "externalId", s.title, s.designer, s.price, s.currency, s.url,
  s.media_url AS "mediaUrl", s.media_url_alt AS "mediaUrlAlt", s.gender, s.colour, s.material, s.pattern,
  s.category, s.category_key AS "categoryKey", s.colour_l AS "colourL", s.colour_a AS "colourA",
  s.colour_b AS "colourB", s.colour_family AS "colourFamily"`;

/**
 * Upserts and candidate reads of the global catalogue. The only place that touches its tables. Search
 * reads go to a read replica when there are any (a catalogue a moment behind the primary is fine).
 */
@Injectable()
export class ProductsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * The candidate set of one search in one statement (docs/decisions/0028): each walk takes the grid
   * cells nearest its colour (GiST kNN over `colour_cells.walk_point`, hue and chroma weighted) and
   * reads each cell's products through `idx_products_colour_cell`, whose INCLUDE columns carry the
   * category, gender and price filters, until it has `take`; the text branch reads at most TEXT_SCAN
   * products whose `features` match (GIN) and keeps the `take` nearest in colour. The union's rows are
   * then read by primary key. The work is bounded by the plan, whatever the catalogue size, the
   * description length or the profile.
   */
  async findCandidates(plan: CandidatePlan): Promise<CandidateRow[]> {
    const query = candidateQuery(plan);
    if (!query) return [];
    return replicaQuery<CandidateRow>(this.db, query.text, query.params);
  }

  /**
   * Products that pass the hard filters, whatever their colour (for a catalogue whose products near the
   * palette are too few, or have no colour): the first `limit` by id.
   */
  findAnyCandidates(filters: CandidateFilters, limit: number): Promise<CandidateRow[]> {
    const params: unknown[] = [];
    const param = (value: unknown): string => {
      params.push(value);
      return `$${params.length}`;
    };
    const where = hardFilters(filters, param);
    return replicaQuery<CandidateRow>(
      this.db,
      `SELECT ${CANDIDATE_COLUMNS} FROM products s WHERE TRUE${where} ORDER BY s.id LIMIT ${param(limit)}`,
      params,
    );
  }
}

/**
 * The SQL of ProductsRepository.findCandidates (exported for `bench/search-explain.ts`, which prints its
 * EXPLAIN); null when the plan reads nothing.
 */
export function candidateQuery(plan: CandidatePlan): { text: string; params: unknown[] } | null {
  const params: unknown[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const filters = hardFilters(plan, param);
  const branches = plan.walks.map((walk) => {
    const point = `colour_walk_point(cube(${param([walk.colour.l, walk.colour.a, walk.colour.b])}::float8[]))`;
    const take = param(walk.take);
    return `(SELECT x.id FROM
        (SELECT cell, walk_point <-> ${point} AS distance FROM colour_cells
         ORDER BY walk_point <-> ${point} LIMIT ${NEAREST_CELLS}) c
      CROSS JOIN LATERAL (SELECT s.id FROM products s WHERE s.colour_cell = c.cell${filters}
        ORDER BY s.colour_sample LIMIT ${take}) x
      ORDER BY c.distance LIMIT ${take})`;
  });
  if (plan.text && plan.text.tsquery !== '') {
    const match = `(SELECT s.id, s.colour_l, s.colour_a, s.colour_b FROM products s
        WHERE s.features @@ to_tsquery('english', ${param(plan.text.tsquery)})${filters} LIMIT ${TEXT_SCAN})`;
    const near = plan.text.near;
    const order = near
      ? `ORDER BY (m.colour_l - ${param(near.l)}) ^ 2 + ${WALK_CHROMA_WEIGHT ** 2} * ((m.colour_a - ${param(near.a)}) ^ 2
          + (m.colour_b - ${param(near.b)}) ^ 2) NULLS LAST, m.id`
      : 'ORDER BY m.id';
    branches.push(`(SELECT m.id FROM ${match} m ${order} LIMIT ${param(plan.text.take)})`);
  }
  if (branches.length === 0) return null;
  return {
    text: `WITH picked AS MATERIALIZED (${branches.join(' UNION ALL ')})
       SELECT ${CANDIDATE_COLUMNS} FROM (SELECT DISTINCT id FROM picked) p JOIN products s ON s.id = p.id`,
    params,
  };
}

/**
 * The hard filters of a candidate query as ` AND ...` clauses over `products s`: category, gender
 * (`women`/`men` arrive with `unisex` already), price range and products the caller excluded.
 * The first three are INCLUDE columns of the colour index.
 */
function hardFilters(q: CandidateFilters, param: (value: unknown) => string): string {
  const where: string[] = [];
  if (q.categoryKey !== null && q.categoryKey !== undefined)
    where.push(`s.category_key = ${param(q.categoryKey)}::smallint`);
  if (q.genders) where.push(`s.gender = ANY(${param(q.genders)}::varchar[])`);
  if (q.minPrice !== null) where.push(`s.price >= ${param(q.minPrice)}`);
  if (q.maxPrice !== null) where.push(`s.price <= ${param(q.maxPrice)}`);
  if (q.excludeExternalIds && q.excludeExternalIds.length > 0)
    where.push(`s.external_id <> ALL(${param(q.excludeExternalIds)}::text[])`);
  return where.map((w) => ` AND ${w}`).join('');
}
