import { BadRequestException, Injectable } from '@nestjs/common';
import { OrgContext } from '../auth/org-context';
import { CoresService } from '../cores/cores.service';
import {
  CoreDeleteResponseDto,
  CoreListResponseDto,
  CoreResponseDto,
  CoreUpdateResponseDto,
} from '../cores/dto/core.dto';
import { JobResponseDto } from '../jobs/dto/job.dto';
import { ProductSearchResponseDto } from '../products/dto/product.dto';
import { ProductGender } from '../products/product.entity';
import { ProductsService } from '../products/products.service';
import { RateLimitService } from '../throttling/rate-limit.service';

const CORES_PAGE_SIZE = 24;

export interface ProductSearchForm {
  query?: string;
  gender?: string;
  minPrice?: string;
  maxPrice?: string;
}

/**
 * The dashboard's cores pages go through the same services as the REST API (so deletions are
 * audited with the signed-in user as actor); product searches draw from the organization's
 * search budget like REST and MCP do.
 */
@Injectable()
export class DashboardCoresService {
  constructor(
    private readonly cores: CoresService,
    private readonly products: ProductsService,
    private readonly rateLimits: RateLimitService,
  ) {}

  list(ctx: OrgContext, q: { query?: string; page?: string }): Promise<CoreListResponseDto> {
    const page = Math.max(1, Number(q.page ?? '1') || 1);
    return this.cores.list(ctx, { page, limit: CORES_PAGE_SIZE, query: q.query });
  }

  detail(ctx: OrgContext, id: string): Promise<{ core: CoreResponseDto; jobs: JobResponseDto[] }> {
    return this.cores.getWithJobs(ctx, id);
  }

  get(ctx: OrgContext, id: string): Promise<CoreResponseDto> {
    return this.cores.get(ctx, id);
  }

  rename(ctx: OrgContext, id: string, name: string): Promise<CoreUpdateResponseDto> {
    return this.cores.rename(ctx, id, name);
  }

  async replaceImages(
    ctx: OrgContext,
    id: string,
    input: { imageUrls?: string[]; images?: string[] },
  ): Promise<CoreUpdateResponseDto> {
    const imageUrls = input.imageUrls?.length ? input.imageUrls : undefined;
    const images = input.images?.length ? input.images : undefined;
    if (!imageUrls && !images) throw new BadRequestException('Choose image files or enter image URLs.');
    // A replacement does the work of a create: 404 first, then one unit of the creation budget.
    await this.cores.get(ctx, id);
    await this.rateLimits.consumeOrThrow('create', ctx.orgId);
    return this.cores.replaceImages(ctx, id, { imageUrls, images });
  }

  remove(ctx: OrgContext, id: string): Promise<CoreDeleteResponseDto> {
    return this.cores.remove(ctx, id);
  }

  async search(ctx: OrgContext, id: string, form: ProductSearchForm): Promise<ProductSearchResponseDto> {
    const minPrice = form.minPrice !== undefined ? Number(form.minPrice) : undefined;
    const maxPrice = form.maxPrice !== undefined ? Number(form.maxPrice) : undefined;
    if (minPrice !== undefined && maxPrice !== undefined && minPrice > maxPrice) {
      throw new BadRequestException('minPrice must not exceed maxPrice');
    }
    // 404 / 409 before the budget is charged (the playground spends only searches that run); the
    // profile is then searched as loaded.
    const profile = await this.cores.getSearchProfile(ctx, id);
    await this.rateLimits.consumeOrThrow('search', ctx.orgId);
    return this.products.searchWithProfile(profile, {
      query: form.query,
      gender: form.gender as ProductGender | undefined,
      minPrice,
      maxPrice,
    });
  }
}
