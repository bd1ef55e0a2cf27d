/**
 * A product search as a plan of pure stages (docs/decisions/0028 and 0037): parse the query and plan the
 * candidate reads (planSearch, candidateReads), merge what the reads return (mergeCandidates), rank and
 * pick the top SEARCH_LIMIT (rankAndPick), answer (searchResponse). ProductsService only runs the reads.
 */
import type { CoreSearchProfile } from '../cores/cores.service';
import type { ProductDto, ProductSearchResponseDto } from './dto/product.dto';
import type { ProductGender } from './product.entity';
import {
  buildAndTsQuery,
  buildOrTsQuery,
  diversify,
  DiversityGroup,
  headNames,
  namesWholeCategory,
  fullQueryMatcher,
  Oklab,
  RankedProduct,
  RankingCandidate,
  RankingProfile,
  scoreCandidates,
} from './product-ranking';
import type { CandidateFilters, CandidatePlan, CandidateRow, ColourWalk } from './products.repository';
import { CATEGORIES, categoryId, queryCategory } from './search-features';
import { isDescriptiveWord, parseAvoids, parseShopperQuery, ShopperQuery } from './search-query';

/** Products per search (fixed by the contract). */
export const SEARCH_LIMIT = 10;
/** Products the colour walks take in all, shared among the target colours by their share. */
export const WALK_BUDGET = 240;
/** Products a walk takes at least, however minor its colour. */
const MIN_PER_COLOUR = 40;
/** Palette colours walked (the largest shares). */
const NEAREST_COLOURS = 3;
/** Products the text branch keeps (nearest in colour among its matches). */
const TEXT_TAKE = 120;
/** Products read when nothing near the colours passes the filters. */
export const FALLBACK_LIMIT = 300;
const MAX_PER_GROUP = 3;

export interface ProductSearchFilters {
  query?: string;
  gender?: ProductGender;
  minPrice?: number;
  maxPrice?: number;
  /** Feed ids never returned. */
  excludeIds?: string[];
}

/** What one search reads and ranks by, decided before any read. */
export interface SearchPlan {
  query: ShopperQuery;
  ranking: RankingProfile;
  /** The hard filters, in the query's category when it names one. */
  filters: CandidateFilters;
  walks: ColourWalk[];
  text: CandidatePlan['text'];
  /**
   * For a query that names one garment of a category, or a garment and more (`pink blouse`, `suede
   * loafers`, `herringbone coat`): the features read of the head under any of its names and every other
   * word, made when the walk's products hold too few that have them all (candidateReads). Else null.
   */
  narrow: CandidatePlan['text'];
}

/**
 * One candidate read: the bounded colour/text statement, or any products that pass the filters. A read
 * is made while fewer than SEARCH_LIMIT candidates are in hand, or, with `needed`, when that says so.
 */
export type CandidateRead = (
  { kind: 'plan'; plan: CandidatePlan } | { kind: 'any'; filters: CandidateFilters; limit: number }
) & { needed?: (rows: readonly CandidateRow[]) => boolean };

export type SearchCandidate = RankingCandidate & { row: CandidateRow };

/**
 * Stage 1: the query read for its colours, category and other words (search-query.ts); the walks of the
 * query's colours (else the palette's largest); the text branch for a query of other words alone.
 */
export function planSearch(profile: CoreSearchProfile, input: ProductSearchFilters): SearchPlan {
  const ranking = toRankingProfile(profile);
  const query = parseShopperQuery(input.query ?? '');
  const filters: CandidateFilters = {
    // The `gender` field, else the gender the query names (`men's shirt` included women's shirts).
    genders: gendersFor(input.gender ?? query.gender ?? undefined),
    minPrice: input.minPrice ?? null,
    maxPrice: input.maxPrice ?? null,
    excludeExternalIds: input.excludeIds && input.excludeIds.length > 0 ? input.excludeIds : null,
    categoryKey: query.category ? categoryId(query.category) : null,
  };
  const targets =
    query.colours.length > 0
      ? query.colours.map((c) => ({ oklab: c.oklab, share: 1 }))
      : [...ranking.palette].sort((x, y) => y.share - x.share).slice(0, NEAREST_COLOURS);
  const walks = colourWalks(targets);
  return {
    query,
    ranking,
    filters,
    walks,
    text: textBranch(query, filters, walks),
    narrow: narrowBranch(query, filters, walks),
  };
}

/**
 * Words other than colours and category words are matched against the describing fields. When the
 * query names a category, the walk already reads the products it narrows to and the ranking matches the
 * words there (with narrowBranch's read when too few of them have every word); a query of other words
 * alone (`wool`, `striped`), or of a colour and a word that names the product (`black crossbody`),
 * reads the features index, whose bitmap grows with the word's matches (docs/decisions/0028).
 */
function textBranch(
  query: ShopperQuery,
  filters: CandidateFilters,
  walks: ColourWalk[],
): CandidatePlan['text'] {
  const words = query.terms.filter((t) => queryCategory(t) === null);
  if (words.length === 0 || filters.categoryKey !== null) return null;
  // With a colour, the walk reads that colour's products; a word that names what the product is
  // (`black crossbody`, `navy duffle`) may match none of them, so it reads the index too. A material or
  // pattern word (`camel wool`) is ranked among the walk's products, as before.
  if (query.colours.length > 0 && words.every(isDescriptiveWord)) return null;
  return { tsquery: buildOrTsQuery(words, 16), near: walks[0]?.colour ?? null, take: TEXT_TAKE };
}

/**
 * A query that names one garment of a category, or a garment and more (`pink blouse`, `suede loafers`,
 * `bomber jacket`, `herringbone coat`): the walk reads the category's products nearest the colour, and
 * the few of them that are that garment with those words (a loafer in suede: about one shoe in eighty)
 * can be too few to fill ten. Then the products whose features have the head under any of its names
 * and every other word are read too, the nearest in colour first (ADR 0058). A head that names the
 * whole category (`shoes`) with no other word needs none: every product of the walk has it.
 */
function narrowBranch(
  query: ShopperQuery,
  filters: CandidateFilters,
  walks: ColourWalk[],
): CandidatePlan['text'] {
  const head = query.head;
  const words = query.terms.filter((t) => t !== head);
  if (filters.categoryKey === null || head === null) return null;
  if (words.length === 0 && namesWholeCategory(head)) return null;
  const tsquery = buildAndTsQuery([headNames(head), ...words.map((w) => [w])]);
  return tsquery === '' ? null : { tsquery, near: walks[0]?.colour ?? null, take: TEXT_TAKE };
}

/**
 * Whether fewer than SEARCH_LIMIT products among the rows have every part of the query (its words and
 * colours, as the ranking matches them), each product counted once (variantKey). Stops at the limit.
 */
function tooFewAnswer(rows: readonly CandidateRow[], query: ShopperQuery): boolean {
  const answers = fullQueryMatcher(query);
  const found = new Set<string>();
  for (const row of rows) {
    if (!answers(toCandidate(row))) continue;
    found.add(variantKey(row));
    if (found.size >= SEARCH_LIMIT) return false;
  }
  return true;
}

/**
 * Stage 2: the reads in order, each made only while fewer than SEARCH_LIMIT candidates are in hand: the
 * plan; for a narrow query (`SearchPlan.narrow`), its features read, made when fewer than SEARCH_LIMIT
 * of the products in hand have every part of the query; with too few in the query's category, the plan
 * in any category (the query still narrows); then anything that passes the filters, so the answer has
 * min(10, matches) products.
 */
export function candidateReads(plan: SearchPlan): CandidateRead[] {
  const { filters, walks, text, narrow } = plan;
  const anyCategory: CandidateFilters = { ...filters, categoryKey: null };
  return [
    { kind: 'plan', plan: { ...filters, walks, text } },
    ...(narrow
      ? [
          {
            kind: 'plan' as const,
            plan: { ...filters, walks: [], text: narrow },
            needed: (rows: readonly CandidateRow[]) => tooFewAnswer(rows, plan.query),
          },
        ]
      : []),
    ...(filters.categoryKey !== null
      ? [{ kind: 'plan' as const, plan: { ...anyCategory, walks, text } }]
      : []),
    { kind: 'any', filters: anyCategory, limit: FALLBACK_LIMIT },
  ];
}

/** Whether `read` is to be made with `rows` in hand: its own `needed`, else while fewer than SEARCH_LIMIT. */
export function readNeeded(read: CandidateRead, rows: readonly CandidateRow[]): boolean {
  return read.needed ? read.needed(rows) : rows.length < SEARCH_LIMIT;
}

/** Stage 3: the rows read so far and a later read's, each product once, in read order. */
export function mergeCandidates(
  rows: readonly CandidateRow[],
  more: readonly CandidateRow[],
): CandidateRow[] {
  const seen = new Set(rows.map((r) => r.id));
  return [...rows, ...more.filter((r) => !seen.has(r.id) && seen.add(r.id))];
}

/**
 * Stage 4: scored once (colour, attributes, query, what the profile avoids) and diversified to the top
 * SEARCH_LIMIT. A query usually names the category the shopper wants (`coat`, `bag`): then only
 * designers are capped.
 */
export function rankAndPick(
  rows: readonly CandidateRow[],
  plan: SearchPlan,
): RankedProduct<SearchCandidate>[] {
  const { query } = plan;
  const ranked = scoreCandidates(rows.map(toCandidate), plan.ranking, query.text === '' ? null : query);
  const groups: DiversityGroup<RankedProduct<SearchCandidate>>[] = [
    { key: (r) => variantKey(r.candidate.row), max: 1 },
    (r) => r.candidate.designer,
    ...(query.text === ''
      ? [(r: RankedProduct<SearchCandidate>) => r.candidate.categoryName ?? r.candidate.category]
      : []),
  ];
  return diversify(ranked, groups, SEARCH_LIMIT, MAX_PER_GROUP);
}

/**
 * The sizes of one product: a feed has a row per size (one `item_group_id`), alike in designer, title
 * and colour, and they tie. Ten results held four to seven products; one of each now, the others only
 * when fewer than ten products match. Another colourway is another product.
 */
export function variantKey(row: Pick<CandidateRow, 'designer' | 'title' | 'colour'>): string {
  return `${row.designer}\u0000${row.title}\u0000${row.colour ?? ''}`;
}

/** Stage 5: the response, each product with its score and match reasons. */
export function searchResponse(
  coreName: string,
  plan: SearchPlan,
  picked: readonly RankedProduct<SearchCandidate>[],
): ProductSearchResponseDto {
  return { status: 200, coreName, query: plan.query.text, products: picked.map(toProductDto) };
}

function toProductDto({ candidate, score, matchReasons }: RankedProduct<SearchCandidate>): ProductDto {
  const row = candidate.row;
  return {
    id: row.externalId,
    title: row.title,
    designer: row.designer,
    price: Number(row.price),
    currency: row.currency,
    mediaUrl: row.mediaUrl,
    mediaUrlAlt: row.mediaUrlAlt,
    url: row.url,
    score,
    matchReasons,
  };
}

/** `women` and `men` also match `unisex` products; no filter when no gender is given. */
export function gendersFor(gender: ProductGender | undefined): ProductGender[] | null {
  if (!gender) return null;
  return gender === 'unisex' ? ['unisex'] : [gender, 'unisex'];
}

export function toRankingProfile(profile: CoreSearchProfile): RankingProfile {
  return {
    styleAttributes: profile.styleAttributes,
    tags: profile.tags,
    patterns: profile.patterns,
    palette: profile.palette.map((c) => ({ name: c.name, oklab: c.oklab, share: c.share })),
    avoid: parseAvoids(profile.taste),
  };
}

/**
 * The walks of the target colours: WALK_BUDGET products shared by share (the dominant colour takes the
 * most), at least MIN_PER_COLOUR each.
 */
export function colourWalks(targets: readonly { oklab: Oklab; share: number }[]): ColourWalk[] {
  const total = targets.reduce((s, t) => s + Math.max(0, t.share), 0);
  return targets.map((t) => ({
    colour: t.oklab,
    take: Math.max(
      MIN_PER_COLOUR,
      Math.round(total > 0 ? (WALK_BUDGET * Math.max(0, t.share)) / total : WALK_BUDGET / targets.length),
    ),
  }));
}

function toCandidate(row: CandidateRow): SearchCandidate {
  return {
    id: row.externalId,
    title: row.title,
    designer: row.designer,
    category: row.category,
    categoryName: row.categoryKey ? (CATEGORIES[row.categoryKey - 1] ?? null) : null,
    material: row.material,
    pattern: row.pattern,
    colour: row.colour,
    colourFamily: row.colourFamily,
    colourLab:
      row.colourL === null || row.colourA === null || row.colourB === null
        ? null
        : { l: row.colourL, a: row.colourA, b: row.colourB },
    row,
  };
}
