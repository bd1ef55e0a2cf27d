import { Injectable } from '@nestjs/common';
import type { OrgContext } from '../auth/org-context';
import { CoreSearchProfile, CoresService } from '../cores/cores.service';
import { ProductDto, ProductSearchDto, ProductSearchResponseDto } from './dto/product.dto';
import { familyOf } from './product-colour';
import type { ProductGender } from './product.entity';
import {
  buildOrTsQuery,
  diversify,
  profileQueryTexts,
  RankedProduct,
  RankingCandidate,
  RankingProfile,
  scoreCandidates,
} from './product-ranking';
import { CandidateRow, ProductsRepository } from './products.repository';

/** Products per search (fixed by the contract). */
export const SEARCH_LIMIT = 10;
/** Size of the bounded candidate set that is re-ranked in the application. */
export const CANDIDATE_LIMIT = 300;
/** Palette colours searched by nearest neighbour, and products taken per colour. */
const NEAREST_COLOURS = 3;
const NEAREST_PER_COLOUR = 300;
/** A query word matching at least this many products counts as common (see searchWithProfile). */
const COMMON_QUERY_MATCHES = 2000;
/** Fewer candidates than this and the next, wider stage-one query adds more. */
const MIN_CANDIDATES = SEARCH_LIMIT * 3;
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
   * Two stages (docs/decisions/0004-product-ranking.md): a bounded candidate set by a cheap text rank from
   * the GIN-indexed catalogue, then a re-rank by text rank, palette similarity, attribute overlap and
   * the query, with at most 3 products of one designer or one category.
   */
  async searchWithProfile(
    profile: CoreSearchProfile,
    filters: ProductSearchFilters,
  ): Promise<ProductSearchResponseDto> {
    const ranking = toRankingProfile(profile);
    const profileQuery = buildOrTsQuery(profileQueryTexts(ranking));
    const userQuery = filters.query?.trim() ?? '';
    const userTsQuery = buildOrTsQuery([userQuery], 16);
    const base = {
      genders: gendersFor(filters.gender),
      minPrice: filters.minPrice ?? null,
      maxPrice: filters.maxPrice ?? null,
      excludeExternalIds: filters.excludeIds && filters.excludeIds.length > 0 ? filters.excludeIds : null,
    };

    // Stage one matches on the most selective terms and ranks by all of them: the palette's colour names
    // match a few per cent of the catalogue, while style words, tags and patterns (`solid`, `classic`)
    // would match most of it and make the cheap rank scan everything.
    const colourQuery = buildOrTsQuery(ranking.palette.map((c) => c.name));
    const candidates: Candidate[] = [];
    const add = async (match: string, rank: string, queryMatch: boolean): Promise<void> => {
      const rows = await this.repo.findCandidates({
        ...base,
        match,
        rank,
        limit: CANDIDATE_LIMIT,
        excludeIds: candidates.map((c) => c.id),
      });
      candidates.push(...rows.map((row) => toCandidate(row, queryMatch)));
    };
    const nearestColours = [...ranking.palette]
      .sort((x, y) => y.share - x.share)
      .slice(0, NEAREST_COLOURS)
      .map((c) => c.oklab);
    if (userTsQuery !== '') {
      const queryRank = profileQuery === '' ? userTsQuery : `${userTsQuery} | ${profileQuery}`;
      // A rare query word: rank all its matches. A common one (`wool`, `coat` match a tenth of a large
      // catalogue): take its matches nearest to the palette through the colour index instead.
      const common =
        nearestColours.length > 0 &&
        (await this.repo.countMatchesUpTo(userTsQuery, COMMON_QUERY_MATCHES)) >= COMMON_QUERY_MATCHES;
      if (common) {
        const rows = await this.repo.findNearestColourCandidates({
          ...base,
          match: userTsQuery,
          colours: nearestColours,
          perColour: NEAREST_PER_COLOUR,
          rank: queryRank,
          limit: CANDIDATE_LIMIT,
        });
        candidates.push(...rows.map((row) => toCandidate(row, true)));
      } else {
        await add(userTsQuery, queryRank, true);
      }
    }
    // No (or few) products match the query: the profile alone fills the list, so a query for something
    // that is not clothing still returns clothing. Widen from colour names to every profile term.
    if (candidates.length < MIN_CANDIDATES && nearestColours.length > 0) {
      // Nearest colours through the colour-cell index: bounded work at any catalogue size, ranked by the
      // profile terms within that set.
      const rows = await this.repo.findNearestColourCandidates({
        ...base,
        colours: nearestColours,
        perColour: NEAREST_PER_COLOUR,
        rank: profileQuery,
        limit: CANDIDATE_LIMIT,
        excludeIds: candidates.map((c) => c.id),
      });
      candidates.push(...rows.map((row) => toCandidate(row, false)));
    }
    if (candidates.length < MIN_CANDIDATES && colourQuery !== '') await add(colourQuery, profileQuery, false);
    if (candidates.length < MIN_CANDIDATES) await add(profileQuery, profileQuery, false);

    const ranked = scoreCandidates(candidates, ranking, userQuery === '' ? null : userQuery);
    const picked = diversify<RankedProduct<Candidate>>(
      ranked,
      // A query usually names the category the shopper wants (`coat`, `bag`): then only designers are capped.
      userQuery === ''
        ? [(r) => r.candidate.designer, (r) => r.candidate.category]
        : [(r) => r.candidate.designer],
      SEARCH_LIMIT,
      MAX_PER_GROUP,
    );
    return {
      status: 200,
      coreName: profile.name,
      query: userQuery,
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
  const colourTerms = new Set<string>();
  for (const colour of profile.palette) {
    colourTerms.add(colour.name.toLowerCase());
    // A family widens the text match to related shades; `neutral` and `metallic` span black to white, so
    // they would match a third of the catalogue and are left to the palette similarity instead.
    const family = familyOf(colour.name);
    if (family && family !== 'neutral' && family !== 'metallic') colourTerms.add(family.toLowerCase());
  }
  return {
    styleAttributes: profile.styleAttributes,
    tags: profile.tags,
    patterns: profile.patterns,
    palette: profile.palette.map((c) => ({ name: c.name, oklab: c.oklab, share: c.share })),
    colourTerms: [...colourTerms],
  };
}

function toCandidate(row: CandidateRow, queryMatch: boolean): Candidate {
  return {
    id: row.id,
    title: row.title,
    designer: row.designer,
    description: row.description,
    category: row.category,
    material: row.material,
    pattern: row.pattern,
    colour: row.colour,
    colourFamily: row.colourFamily,
    colourLab:
      row.colourL === null || row.colourA === null || row.colourB === null
        ? null
        : { l: row.colourL, a: row.colourA, b: row.colourB },
    textRank: row.textRank,
    queryMatch,
    row,
  };
}
