import { Injectable } from '@nestjs/common';
import type { OrgContext } from '../auth/org-context';
import { CoreSearchProfile, CoresService } from '../cores/cores.service';
import { ProductDto, ProductSearchDto, ProductSearchResponseDto } from './dto/product.dto';
import type { ProductGender } from './product.entity';
import {
  buildOrTsQuery,
  diversify,
  Oklab,
  RankedProduct,
  RankingCandidate,
  RankingProfile,
  scoreCandidates,
} from './product-ranking';
import { CandidateFilters, CandidateRow, ColourWalk, ProductsRepository } from './products.repository';
import { CATEGORIES, categoryId, queryCategory } from './search-features';
import { parseAvoids, parseShopperQuery } from './search-query';

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
const FALLBACK_LIMIT = 300;
const MAX_PER_GROUP = 3;

type Candidate = RankingCandidate & { row: CandidateRow };

export interface ProductSearchFilters {
  query?: string;
  gender?: ProductGender;
  minPrice?: number;
  maxPrice?: number;
  /** Feed ids never returned. */
  excludeIds?: string[];
}

@Injectable()
export class ProductsService {
  constructor(
    private readonly repo: ProductsRepository,
    private readonly cores: CoresService,
  ) {}

  /** `POST /cores/{id}/products`: 404 / 409 come from the cores module; the ranking is ours. */
  async searchForCore(
    ctx: OrgContext,
    coreId: string,
    dto: ProductSearchDto,
  ): Promise<ProductSearchResponseDto> {
    const profile = await this.cores.getSearchProfile(ctx, coreId);
    return this.searchWithProfile(profile, dto ?? {});
  }

  /**
   * One bounded candidate read, one ranking pass (docs/decisions/0028-search-features-and-one-pass-ranking.md):
   * the query is read for its colours, category and other words (search-query.ts); the candidates are
   * the products nearest the query's colours (else the palette's largest), in the query's category,
   * through the colour-cell index, plus the products whose describing fields match the other words;
   * they are scored once (colour, attributes, query, what the profile avoids) and diversified.
   */
  async searchWithProfile(
    profile: CoreSearchProfile,
    filters: ProductSearchFilters,
  ): Promise<ProductSearchResponseDto> {
    const ranking = toRankingProfile(profile);
    const query = parseShopperQuery(filters.query ?? '');
    const base: CandidateFilters = {
      genders: gendersFor(filters.gender),
      minPrice: filters.minPrice ?? null,
      maxPrice: filters.maxPrice ?? null,
      excludeExternalIds: filters.excludeIds && filters.excludeIds.length > 0 ? filters.excludeIds : null,
      categoryKey: query.category ? categoryId(query.category) : null,
    };
    const targets =
      query.colours.length > 0
        ? query.colours.map((c) => ({ oklab: c.oklab, share: 1 }))
        : [...ranking.palette].sort((x, y) => y.share - x.share).slice(0, NEAREST_COLOURS);
    const walks = colourWalks(targets);
    // Words other than colours and category words are matched against the describing fields. When the
    // query names a category or a colour, the walk already reads the products it narrows to and the
    // ranking matches the words there; only a query of other words alone (`wool`, `striped`) reads the
    // features index, whose bitmap grows with the word's matches (docs/decisions/0028).
    const words = query.terms.filter((t) => queryCategory(t) === null);
    const text =
      words.length > 0 && base.categoryKey === null && query.colours.length === 0
        ? { tsquery: buildOrTsQuery(words, 16), near: walks[0]?.colour ?? null, take: TEXT_TAKE }
        : null;

    const rows = await this.repo.findCandidates({ ...base, walks, text });
    const seen = new Set(rows.map((r) => r.id));
    const add = (more: CandidateRow[]) => {
      for (const r of more) {
        if (seen.has(r.id)) continue;
        seen.add(r.id);
        rows.push(r);
      }
    };
    // Too few in the query's category near these colours: the query still narrows, but in any category;
    // then anything that passes the filters, so the answer has min(10, matches) products.
    if (rows.length < SEARCH_LIMIT && base.categoryKey !== null)
      add(await this.repo.findCandidates({ ...base, categoryKey: null, walks, text }));
    if (rows.length < SEARCH_LIMIT)
      add(await this.repo.findAnyCandidates({ ...base, categoryKey: null }, FALLBACK_LIMIT));

    const ranked = scoreCandidates(rows.map(toCandidate), ranking, query.text === '' ? null : query);
    const picked = diversify<RankedProduct<Candidate>>(
      ranked,
      // A query usually names the category the shopper wants (`coat`, `bag`): then only designers are capped.
      query.text === ''
        ? [(r) => r.candidate.designer, (r) => r.candidate.categoryName ?? r.candidate.category]
        : [(r) => r.candidate.designer],
      SEARCH_LIMIT,
      MAX_PER_GROUP,
    );
    return {
      status: 200,
      coreName: profile.name,
      query: query.text,
      products: picked.map((r) => this.toDto(r)),
    };
  }

  private toDto({ candidate, score, matchReasons }: RankedProduct<Candidate>): ProductDto {
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

function toCandidate(row: CandidateRow): Candidate {
  return {
    id: row.id,
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
