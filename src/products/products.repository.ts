import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { replicaQuery } from '../database/hot-query';
import type { WarmStatement } from '../database/pool-warmup';
import { join, param, raw, render, sql, SqlFragment, SqlQuery } from '../database/sql';
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
/**
 * A walk takes at most 1/CELLS_PER_WALK of its products from one cell, so its candidates span at
 * least that many colour points. A realistic feed puts every product of one vendor colour name on one
 * point, hundreds of them in one cell: a walk that filled up from its nearest cell handed the ranking
 * one colour only, and the nearest point is not always the best match (docs/decisions/0047: a
 * charcoal palette read a little light took 200 `Thunder` products, a slate vendor name that the
 * colour dataset places just above charcoal, and no `Charcoal` product reached the ranking).
 */
const CELLS_PER_WALK = 2;
/** Text matches read (in index order) before the nearest in colour are kept: bounds a common word. */
const TEXT_SCAN = 1000;
/** OKLab a and b count this many times lightness in the colour walk (migration 1795700000000). */
const WALK_CHROMA_WEIGHT = 2;

/**
 * The products columns the hand-written statements use, by property (docs/decisions/0037): every select
 * list, filter and ordering below is generated from this table, so a column is spelled once.
 */
export const PRODUCT_COLUMNS = {
  id: 'id',
  externalId: 'external_id',
  title: 'title',
  designer: 'designer',
  price: 'price',
  currency: 'currency',
  url: 'url',
  mediaUrl: 'media_url',
  mediaUrlAlt: 'media_url_alt',
  gender: 'gender',
  colour: 'colour',
  material: 'material',
  pattern: 'pattern',
  category: 'category',
  availability: 'availability',
  categoryKey: 'category_key',
  colourL: 'colour_l',
  colourA: 'colour_a',
  colourB: 'colour_b',
  colourFamily: 'colour_family',
  colourCell: 'colour_cell',
  colourSample: 'colour_sample',
  features: 'features',
} as const;
type ProductColumn = keyof typeof PRODUCT_COLUMNS;

/** The columns a candidate is ranked and answered with (never the description), in select order. */
const CANDIDATE_COLUMNS = [
  'id',
  'externalId',
  'title',
  'designer',
  'price',
  'currency',
  'url',
  'mediaUrl',
  'mediaUrlAlt',
  'gender',
  'colour',
  'material',
  'pattern',
  'category',
  'categoryKey',
  'colourL',
  'colourA',
  'colourB',
  'colourFamily',
] as const satisfies readonly (keyof CandidateRow & ProductColumn)[];

/** `alias.column` of a property. */
function col(alias: string, key: ProductColumn): SqlFragment {
  return raw(`${alias}.${PRODUCT_COLUMNS[key]}`);
}

/** `alias.column AS "property"` for each column (no `AS` where the two names agree). */
function selectList(alias: string, keys: readonly ProductColumn[]): SqlFragment {
  return raw(
    keys
      .map((k) => `${alias}.${PRODUCT_COLUMNS[k]}${PRODUCT_COLUMNS[k] === k ? '' : ` AS "${k}"`}`)
      .join(', '),
  );
}

/** Every column CandidateRow has, and none other (a compile error when the two drift apart). */
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const CANDIDATE_COLUMNS_COVER_ROW: Exactly<(typeof CANDIDATE_COLUMNS)[number], keyof CandidateRow> = true;
void CANDIDATE_COLUMNS_COVER_ROW;

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
    return replicaQuery<CandidateRow>(this.db, query.text, query.values);
  }

  /**
   * Products that pass the hard filters, whatever their colour (for a catalogue whose products near the
   * palette are too few, or have no colour): the first `limit` by public id.
   */
  findAnyCandidates(filters: CandidateFilters, limit: number): Promise<CandidateRow[]> {
    const query = anyCandidatesQuery(filters, limit);
    return replicaQuery<CandidateRow>(this.db, query.text, query.values);
  }
}

/**
 * The SQL of ProductsRepository.findCandidates (exported for `bench/search-explain.ts`, which prints its
 * EXPLAIN, and the SQL snapshots); null when the plan reads nothing.
 */
export function candidateQuery(plan: CandidatePlan): SqlQuery | null {
  const filters = hardFilters(plan);
  const branches = plan.walks.map((walk) => walkBranch(walk, filters));
  if (plan.text && plan.text.tsquery !== '') branches.push(textBranch(plan.text, filters));
  if (branches.length === 0) return null;
  return render(sql`WITH picked AS MATERIALIZED (
  ${join(branches, '\n  UNION ALL ')}
)
SELECT ${selectList('s', CANDIDATE_COLUMNS)}
FROM (SELECT DISTINCT id FROM picked) p JOIN products s ON ${col('s', 'id')} = p.id`);
}

/**
 * A search's candidate statement with a colour walk, the text branch and the filters (gender, a price
 * range that excludes nothing, excluded ids), run on each warmed connection (docs/decisions/0044): it loads the
 * backend's caches for the products and colour-cell tables, their indexes, `cube` and the text search.
 */
export function candidateWarmStatement(): WarmStatement {
  const grey = { l: 0.6, a: 0, b: 0 };
  const query = candidateQuery({
    walks: [{ colour: grey, take: 1 }],
    text: { tsquery: 'coat', near: grey, take: 1 },
    genders: ['women', 'unisex'],
    minPrice: 0,
    maxPrice: 1_000_000,
    categoryKey: null,
    excludeExternalIds: ['-'],
  }) as SqlQuery;
  return { text: query.text, values: query.values };
}

/** The SQL of ProductsRepository.findAnyCandidates: by public id, the same rows in every database. */
export function anyCandidatesQuery(filters: CandidateFilters, limit: number): SqlQuery {
  return render(sql`SELECT ${selectList('s', CANDIDATE_COLUMNS)}
FROM products s WHERE TRUE${hardFilters(filters)} ORDER BY ${col('s', 'externalId')} LIMIT ${limit}`);
}

/**
 * One colour walk: the NEAREST_CELLS grid cells nearest the colour (GiST kNN), up to `take /
 * CELLS_PER_WALK` of each cell's products that pass the filters through the colour-cell index, the first
 * `take` in cell order.
 */
function walkBranch(walk: ColourWalk, filters: SqlFragment): SqlFragment {
  const { l, a, b } = walk.colour;
  const point = param([l, a, b]);
  const distance = sql`walk_point <-> colour_walk_point(cube(${point}::float8[]))`;
  const take = param(walk.take);
  const perCell = param(Math.ceil(walk.take / CELLS_PER_WALK));
  return sql`(SELECT x.id FROM
    (SELECT cell, ${distance} AS distance FROM colour_cells
     ORDER BY ${distance} LIMIT ${raw(String(NEAREST_CELLS))}) c
    CROSS JOIN LATERAL (SELECT ${col('s', 'id')} FROM products s WHERE ${col('s', 'colourCell')} = c.cell${filters}
      ORDER BY ${col('s', 'colourSample')} LIMIT ${perCell}) x
    ORDER BY c.distance LIMIT ${take})`;
}

/**
 * The text branch: the first TEXT_SCAN products whose features match, the `take` nearest `near` (equal
 * distances by public id, as the ranking orders equal scores).
 */
function textBranch(text: NonNullable<CandidatePlan['text']>, filters: SqlFragment): SqlFragment {
  const colour = (alias: string) => [col(alias, 'colourL'), col(alias, 'colourA'), col(alias, 'colourB')];
  const [ml, ma, mb] = colour('m');
  const match = sql`(SELECT ${col('s', 'id')}, ${col('s', 'externalId')}, ${join(colour('s'), ', ')} FROM products s
      WHERE ${col('s', 'features')} @@ to_tsquery('english', ${text.tsquery})${filters} LIMIT ${raw(String(TEXT_SCAN))})`;
  const near = text.near;
  const weight = raw(String(WALK_CHROMA_WEIGHT ** 2));
  const order = near
    ? sql`ORDER BY (${ml} - ${near.l}) ^ 2 + ${weight} * ((${ma} - ${near.a}) ^ 2
      + (${mb} - ${near.b}) ^ 2) NULLS LAST, ${col('m', 'externalId')}`
    : sql`ORDER BY ${col('m', 'externalId')}`;
  return sql`(SELECT m.id FROM ${match} m ${order} LIMIT ${text.take})`;
}

/**
 * The partial index's predicate (migration 1796200000000): a product the feed marks out of stock is
 * never a candidate. Every candidate query repeats it word for word, which is what lets the planner
 * use `idx_products_colour_cell` (it proves a query implies the predicate by matching the clause).
 */
export const IN_STOCK = `${PRODUCT_COLUMNS.availability} IS DISTINCT FROM 'out_of_stock'`;

/**
 * The hard filters of a candidate query as ` AND ...` clauses over `products s`: in stock (the colour
 * index holds no other product), category, gender (`women`/`men` arrive with `unisex` already), price
 * range and products the caller excluded. Category, gender and price are INCLUDE columns of the
 * colour index. Each value is bound once, however many branches repeat the filters.
 */
function hardFilters(q: CandidateFilters): SqlFragment {
  const where: SqlFragment[] = [raw(`s.${IN_STOCK}`)];
  if (q.categoryKey !== null && q.categoryKey !== undefined)
    where.push(sql`${col('s', 'categoryKey')} = ${param(q.categoryKey)}::smallint`);
  if (q.genders) where.push(sql`${col('s', 'gender')} = ANY(${param(q.genders)}::varchar[])`);
  if (q.minPrice !== null) where.push(sql`${col('s', 'price')} >= ${param(q.minPrice)}`);
  if (q.maxPrice !== null) where.push(sql`${col('s', 'price')} <= ${param(q.maxPrice)}`);
  if (q.excludeExternalIds && q.excludeExternalIds.length > 0)
    where.push(sql`${col('s', 'externalId')} <> ALL(${param(q.excludeExternalIds)}::text[])`);
  return join(
    where.map((w) => sql` AND ${w}`),
    '',
  );
}
