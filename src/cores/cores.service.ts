import { Injectable, Logger, NotFoundException, BadRequestException } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { FaultInjector } from '../common/fault-injection';
import { OrgContext } from '../auth/org-context';
import { isUuid } from '../common/validation';
import { JobResponseDto } from '../jobs/dto/job.dto';
import { JobName } from '../jobs/job.types';
import { JobErrorCode, JobsException } from '../jobs/jobs.exception';
import { JobsService } from '../jobs/jobs.service';
import { CoreImagesService } from './core-images.service';
import { CoreEntity, StoredPaletteColour } from './core.entity';
import { CoreNotReadyException } from './cores.exception';
import { CoreRead, CoresRepository } from './cores.repository';
import {
  CoreCreateDto,
  CoreCreateResponseDto,
  CoreDeleteResponseDto,
  CoreListQueryDto,
  CoreListResponseDto,
  CoreResponseDto,
  CoreUpdateDto,
  CoreUpdateResponseDto,
} from './dto/core.dto';
import { buildSearchText } from './synonyms';

/** What product search needs of a ready core. */
export interface CoreSearchProfile {
  id: string;
  name: string;
  taste: string;
  styleAttributes: string[];
  tags: string[];
  palette: StoredPaletteColour[];
  patterns: string[];
}

const ENQUEUE_FAILED = 'Taste generation could not be queued; replace the images to try again.';

@Injectable()
export class CoresService {
  private readonly logger = new Logger(CoresService.name);

  constructor(
    private readonly repo: CoresRepository,
    private readonly images: CoreImagesService,
    private readonly jobs: JobsService,
    private readonly audit: AuditService,
    private readonly faults: FaultInjector,
  ) {}

  /**
   * Ingests and stores the images, commits the core, its images and a job in one transaction, then
   * enqueues. A failure before the commit leaves no row and no object behind.
   */
  async create(ctx: OrgContext, dto: CoreCreateDto): Promise<CoreCreateResponseDto> {
    const sources = this.images.sources(dto.imageUrls, dto.images);
    const stored = await this.images.ingestAndStore(sources);
    let ids: { coreId: string; jobId: string };
    try {
      ids = await this.repo.transaction(async (manager) => {
        const core = await this.repo.insertCore(
          ctx.orgId,
          dto.name,
          buildSearchText(dto.name, [], []),
          stored,
          manager,
        );
        const job = await this.jobs.createJob(ctx.orgId, core.id, manager);
        await this.repo.setCurrentJob(core.id, job.id, manager);
        this.faults.crashAt('crash-before-core-commit');
        return { coreId: core.id, jobId: job.id };
      });
    } catch (err) {
      await this.images.purge(stored.map((s) => s.storageKey));
      throw err;
    }
    this.faults.crashAt('crash-after-core-commit');
    await this.startGeneration(ctx.orgId, ids.coreId, ids.jobId);
    return { status: 202, coreId: ids.coreId, jobId: ids.jobId, coreStatus: 'processing' };
  }

  async get(ctx: OrgContext, id: string): Promise<CoreResponseDto> {
    const core = isUuid(id) ? await this.repo.readForOrg(ctx.orgId, id) : null;
    if (!core) throw new NotFoundException('Core not found.');
    return this.toDto(core);
  }

  async list(ctx: OrgContext, q: CoreListQueryDto): Promise<CoreListResponseDto> {
    const page = q.page ?? 1;
    const limit = q.limit ?? 20;
    const [rows, total] = await this.repo.listForOrg(ctx.orgId, page, limit, q.query);
    return {
      status: 200,
      cores: rows.map((r) => this.toDto(r)),
      page,
      limit,
      total,
      totalPages: Math.ceil(total / limit),
    };
  }

  /**
   * Rename only: no job, the profile stays. 400 without a name; the locked read is the existence
   * check (a malformed id is 404 without a query).
   */
  async rename(ctx: OrgContext, id: string, name: string | undefined): Promise<CoreUpdateResponseDto> {
    if (name === undefined)
      throw new BadRequestException('Nothing to update: send name, imageUrls or images.');
    if (!isUuid(id)) throw new NotFoundException('Core not found.');
    await this.repo.transaction(async (manager) => {
      const core = await this.repo.lockByIdForOrg(ctx.orgId, id, manager);
      if (!core) throw new NotFoundException('Core not found.');
      await this.repo.rename(
        ctx.orgId,
        id,
        name,
        buildSearchText(name, core.tags, core.styleAttributes),
        manager,
      );
    });
    return this.get(ctx, id);
  }

  /**
   * Replaces the images (and renames when `dto.name` is set). 404 before any image is fetched; the
   * new images are ingested first, swapped in with a new job in one transaction, then the old
   * objects are purged and the counts reported.
   */
  async replaceImages(ctx: OrgContext, id: string, dto: CoreUpdateDto): Promise<CoreUpdateResponseDto> {
    await this.findOr404(ctx, id);
    const stored = await this.images.ingestAndStore(this.images.sources(dto.imageUrls, dto.images));
    let swapped: { jobId: string; oldKeys: string[] };
    try {
      swapped = await this.repo.transaction(async (manager) => {
        const core = await this.repo.lockByIdForOrg(ctx.orgId, id, manager);
        if (!core) throw new NotFoundException('Core not found.');
        const name = dto.name ?? core.name;
        await this.repo.replaceImages(core, stored, name, buildSearchText(name, [], []), manager);
        const job = await this.jobs.createJob(ctx.orgId, id, manager);
        await this.repo.setCurrentJob(id, job.id, manager);
        return { jobId: job.id, oldKeys: (core.images ?? []).map((i) => i.storageKey) };
      });
    } catch (err) {
      await this.images.purge(stored.map((s) => s.storageKey));
      throw err;
    }
    const { purged, failed } = await this.images.purge(swapped.oldKeys);
    await this.audit.record(ctx, {
      action: 'core.images_replaced',
      targetType: 'core',
      targetId: id,
      metadata: { jobId: swapped.jobId, images: stored.length, imagesPurged: purged, imagesFailed: failed },
    });
    await this.startGeneration(ctx.orgId, id, swapped.jobId);
    return { ...(await this.get(ctx, id)), jobId: swapped.jobId, imagesPurged: purged, imagesFailed: failed };
  }

  /**
   * Deletes the core and its image objects in the same request, and writes the audit event with
   * the counts. The row is locked while the objects are removed, so no job or replacement races it.
   */
  async remove(ctx: OrgContext, id: string): Promise<CoreDeleteResponseDto> {
    if (!isUuid(id)) throw new NotFoundException('Core not found.');
    const result = await this.repo.transaction(async (manager) => {
      const core = await this.repo.lockByIdForOrg(ctx.orgId, id, manager);
      if (!core) throw new NotFoundException('Core not found.');
      const keys = (core.images ?? []).map((i) => i.storageKey);
      const { purged, failed } = await this.images.purge(keys);
      await this.repo.deleteCore(ctx.orgId, id, manager);
      await this.audit.record(
        ctx,
        {
          action: 'core.deleted',
          targetType: 'core',
          targetId: id,
          metadata: { coreName: core.name, images: keys.length, imagesPurged: purged, imagesFailed: failed },
        },
        manager,
      );
      return { purged, failed };
    });
    return { status: 200, id, deleted: true, imagesPurged: result.purged, imagesFailed: result.failed };
  }

  /** 404 for an unknown or foreign core; 409 unless the profile is ready. */
  async getSearchProfile(ctx: OrgContext, id: string): Promise<CoreSearchProfile> {
    const core = isUuid(id) ? await this.repo.readSearchProfile(ctx.orgId, id) : null;
    if (!core) throw new NotFoundException('Core not found.');
    if (core.status !== 'ready' || core.taste === null) {
      throw new CoreNotReadyException(id, core.status);
    }
    return {
      id: core.id,
      name: core.name,
      taste: core.taste,
      styleAttributes: core.styleAttributes,
      tags: core.tags,
      palette: core.palette,
      patterns: core.patterns,
    };
  }

  /** The core and its generation jobs, newest first (the dashboard's detail page); 404 as `get`. */
  async getWithJobs(ctx: OrgContext, id: string): Promise<{ core: CoreResponseDto; jobs: JobResponseDto[] }> {
    const core = await this.get(ctx, id);
    return { core, jobs: await this.jobs.listForCore(ctx, core.id) };
  }

  private async findOr404(ctx: OrgContext, id: string): Promise<CoreEntity> {
    const core = isUuid(id) ? await this.repo.findByIdForOrg(ctx.orgId, id) : null;
    if (!core) throw new NotFoundException('Core not found.');
    return core;
  }

  /**
   * After the commit: enqueue, or mark the job and core failed so nothing stays processing forever.
   * The 503 is final: the add cannot run later (JobsService.enqueue), and a job that was added after
   * all finds its row failed and changes nothing. If this process dies before either, the reconciler
   * enqueues the job.
   */
  private async startGeneration(orgId: string, coreId: string, jobId: string): Promise<void> {
    try {
      await this.jobs.enqueue(JobName.GenerateTaste, { orgId, coreId, jobId });
    } catch (err) {
      this.logger.error(`could not enqueue job ${jobId} for core ${coreId}: ${String(err)}`);
      await this.repo.transaction(async (manager) => {
        await this.repo.applyFailure(coreId, jobId, ENQUEUE_FAILED, manager);
        await this.jobs.markFailed(jobId, ENQUEUE_FAILED, manager);
      });
      throw new JobsException(JobErrorCode.EnqueueFailed, `${ENQUEUE_FAILED} (core ${coreId})`);
    }
  }

  private toDto(core: CoreEntity | CoreRead): CoreResponseDto {
    return {
      status: 200,
      id: core.id,
      name: core.name,
      coreStatus: core.status,
      taste: core.status === 'ready' ? core.taste : null,
      styleAttributes: core.styleAttributes,
      tags: core.tags,
      images: core.images?.map((i) => ('imageURL' in i ? i : { imageURL: i.url, caption: i.caption })) ?? [],
      error: core.status === 'failed' ? (core.error ?? 'Taste generation failed.') : null,
      createdAt: core.createdAt.toISOString(),
    };
  }
}
