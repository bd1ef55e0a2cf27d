import { Injectable } from '@nestjs/common';
import type { OrgContext } from '../auth/org-context';
import { CoreSearchProfile, CoresService } from '../cores/cores.service';
import { ProductSearchDto, ProductSearchResponseDto } from './dto/product.dto';
import { CandidateRow, ProductsRepository } from './products.repository';
import {
  CandidateRead,
  candidateReads,
  mergeCandidates,
  planSearch,
  ProductSearchFilters,
  rankAndPick,
  readNeeded,
  searchResponse,
} from './search-plan';

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
   * One bounded candidate read, one ranking pass (docs/decisions/0028-search-features-and-one-pass-ranking.md),
   * as the pure stages of search-plan.ts: the query is read for its colours, category and other words;
   * the candidates are the products nearest the query's colours (else the palette's largest), in the
   * query's category, through the colour-cell index, plus the products whose describing fields match the
   * other words (with fallbacks while fewer than SEARCH_LIMIT are found); they are scored once and
   * diversified.
   */
  async searchWithProfile(
    profile: CoreSearchProfile,
    filters: ProductSearchFilters,
  ): Promise<ProductSearchResponseDto> {
    const plan = planSearch(profile, filters);
    let rows: CandidateRow[] = [];
    for (const read of candidateReads(plan)) {
      if (!readNeeded(read, rows)) continue;
      rows = mergeCandidates(rows, await this.read(read));
    }
    return searchResponse(profile.name, plan, rankAndPick(rows, plan));
  }

  private read(read: CandidateRead): Promise<CandidateRow[]> {
    return read.kind === 'plan'
      ? this.repo.findCandidates(read.plan)
      : this.repo.findAnyCandidates(read.filters, read.limit);
  }
}
