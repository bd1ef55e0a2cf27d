import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { hotQuery } from '../database/hot-query';
import type { WarmStatement } from '../database/pool-warmup';
import type { GenerationStatus } from '../jobs/job.types';
import { CoreImageEntity } from './core-image.entity';
import { CoreEntity, StoredPaletteColour } from './core.entity';

export type NewCoreImage = Omit<CoreImageEntity, 'id' | 'coreId' | 'core' | 'createdAt' | 'caption'>;

export interface GenerationOutcome {
  taste: string;
  styleAttributes: string[];
  tags: string[];
  palette: StoredPaletteColour[];
  patterns: string[];
  captions: string[];
  searchText: string;
}

/** What `GET /cores/{id}` shows of a core: its columns and its images in position order. */
export interface CoreRead {
  id: string;
  name: string;
  status: GenerationStatus;
  taste: string | null;
  styleAttributes: string[];
  tags: string[];
  error: string | null;
  createdAt: Date;
  images: { imageURL: string; caption: string | null }[];
}

const READ_CORE_SQL = `SELECT c.id, c.name, c.status, c.taste, c.style_attributes AS "styleAttributes", c.tags,
  c.error, c.created_at AS "createdAt",
  COALESCE((SELECT json_agg(json_build_object('imageURL', i.url, 'caption', i.caption) ORDER BY i.position)
            FROM core_images i WHERE i.core_id = c.id), '[]'::json) AS images
FROM cores c WHERE c.id = $1 AND c.org_id = $2`;

/** What a product search reads of a core: its status and taste profile (no images). */
export type CoreSearchRead = Pick<
  CoreRead,
  'id' | 'name' | 'status' | 'taste' | 'styleAttributes' | 'tags'
> & {
  palette: StoredPaletteColour[];
  patterns: string[];
};

const READ_SEARCH_PROFILE_SQL = `SELECT c.id, c.name, c.status, c.taste, c.style_attributes AS "styleAttributes", c.tags,
  c.palette, c.patterns
FROM cores c WHERE c.id = $1 AND c.org_id = $2`;

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** The named reads of `GET /cores/{id}` and of every search, prepared on each warmed connection (0044). */
export const CORE_READ_WARM_STATEMENTS: readonly WarmStatement[] = [
  { name: 'cores.readForOrg', text: READ_CORE_SQL, values: [NIL_UUID, NIL_UUID] },
  { name: 'cores.readSearchProfile', text: READ_SEARCH_PROFILE_SQL, values: [NIL_UUID, NIL_UUID] },
];

/** A core whose images are new (created or replaced): processing, with no profile and no error. */
const AWAITING_PROFILE = {
  status: 'processing',
  taste: null,
  styleAttributes: [],
  tags: [],
  palette: [],
  patterns: [],
  error: null,
} satisfies Partial<CoreEntity>;

/** The only place that touches the cores tables. Every read takes the organization id. */
@Injectable()
export class CoresRepository {
  constructor(
    @InjectRepository(CoreEntity) private readonly cores: Repository<CoreEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insertCore(
    orgId: string,
    name: string,
    searchText: string,
    images: NewCoreImage[],
    manager: EntityManager,
  ): Promise<CoreEntity> {
    const core = await manager.getRepository(CoreEntity).save(
      manager.getRepository(CoreEntity).create({
        orgId,
        name,
        ...AWAITING_PROFILE,
        currentJobId: null,
        searchText,
      }),
    );
    await this.insertImages(core.id, images, manager);
    return core;
  }

  async insertImages(coreId: string, images: NewCoreImage[], manager: EntityManager): Promise<void> {
    const repo = manager.getRepository(CoreImageEntity);
    await repo.insert(images.map((img) => repo.create({ ...img, coreId, caption: null })));
  }

  async setCurrentJob(coreId: string, jobId: string, manager: EntityManager): Promise<void> {
    await manager.getRepository(CoreEntity).update({ id: coreId }, { currentJobId: jobId });
  }

  /** The core with its images in one query (findOne with a relation adds a DISTINCT pre-query). */
  findByIdForOrg(orgId: string, id: string, manager?: EntityManager): Promise<CoreEntity | null> {
    const repo = manager ? manager.getRepository(CoreEntity) : this.cores;
    return repo
      .createQueryBuilder('c')
      .leftJoinAndSelect('c.images', 'i')
      .where('c.id = :id AND c.org_id = :orgId', { id, orgId })
      .orderBy('i.position', 'ASC')
      .getOne();
  }

  /**
   * The read of `GET /cores/{id}`, on every poll: one hand-written prepared statement (the images
   * aggregated in it), no query builder or entity mapping (docs/decisions/0026-lean-request-path.md).
   */
  async readForOrg(orgId: string, id: string): Promise<CoreRead | null> {
    const [row] = await hotQuery<CoreRead>(this.dataSource, 'cores.readForOrg', READ_CORE_SQL, [id, orgId]);
    return row ?? null;
  }

  /**
   * The read of every product search: one prepared statement on the pool, no query builder, entity
   * mapping or images (docs/decisions/0028, "Where a search's time went").
   */
  async readSearchProfile(orgId: string, id: string): Promise<CoreSearchRead | null> {
    const [row] = await hotQuery<CoreSearchRead>(
      this.dataSource,
      'cores.readSearchProfile',
      READ_SEARCH_PROFILE_SQL,
      [id, orgId],
    );
    return row ?? null;
  }

  /** Locks the row for the rest of the transaction (delete and replace serialise on it). */
  async lockByIdForOrg(orgId: string, id: string, manager: EntityManager): Promise<CoreEntity | null> {
    const core = await manager
      .getRepository(CoreEntity)
      .createQueryBuilder('c')
      .setLock('pessimistic_write')
      .where('c.id = :id AND c.org_id = :orgId', { id, orgId })
      .getOne();
    if (!core) return null;
    core.images = await manager
      .getRepository(CoreImageEntity)
      .find({ where: { coreId: id }, order: { position: 'ASC' } });
    return core;
  }

  /** Newest first; `query` is matched through the synonym-expanded search text. */
  async listForOrg(
    orgId: string,
    page: number,
    limit: number,
    query?: string,
  ): Promise<[CoreEntity[], number]> {
    const qb = this.cores
      .createQueryBuilder('c')
      .where('c.org_id = :orgId', { orgId })
      .orderBy('c.created_at', 'DESC')
      .addOrderBy('c.id', 'DESC')
      .skip((page - 1) * limit)
      .take(limit);
    if (query && query.trim() !== '') {
      qb.andWhere(
        `to_tsvector('english'::regconfig, c.search_text) @@ websearch_to_tsquery('english', :query)`,
        {
          query,
        },
      );
    }
    const [rows, total] = await qb.getManyAndCount();
    if (rows.length === 0) return [rows, total];
    const images = await this.dataSource.getRepository(CoreImageEntity).find({
      where: rows.map((r) => ({ coreId: r.id })),
      order: { position: 'ASC' },
    });
    for (const row of rows) row.images = images.filter((i) => i.coreId === row.id);
    return [rows, total];
  }

  async rename(
    orgId: string,
    id: string,
    name: string,
    searchText: string,
    manager: EntityManager,
  ): Promise<void> {
    await manager.getRepository(CoreEntity).update({ id, orgId }, { name, searchText });
  }

  /** Image replacement (and optional rename): new images, back to processing with the profile cleared. */
  async replaceImages(
    core: CoreEntity,
    images: NewCoreImage[],
    name: string,
    searchText: string,
    manager: EntityManager,
  ): Promise<void> {
    await manager.getRepository(CoreImageEntity).delete({ coreId: core.id });
    await this.insertImages(core.id, images, manager);
    await manager.getRepository(CoreEntity).update(
      { id: core.id, orgId: core.orgId },
      {
        name,
        ...AWAITING_PROFILE,
        searchText,
      },
    );
  }

  async deleteCore(orgId: string, id: string, manager: EntityManager): Promise<void> {
    await manager.getRepository(CoreEntity).delete({ id, orgId });
  }

  /**
   * Writes a finished generation, but only while `jobId` is still the core's current job: a late
   * result of a superseded job (or of a deleted core) changes nothing. Returns whether it applied.
   */
  async applyGeneration(
    coreId: string,
    jobId: string,
    out: GenerationOutcome,
    manager: EntityManager,
  ): Promise<boolean> {
    const res = await manager
      .createQueryBuilder()
      .update(CoreEntity)
      .set({
        status: 'ready',
        taste: out.taste,
        styleAttributes: out.styleAttributes,
        tags: out.tags,
        palette: out.palette,
        patterns: out.patterns,
        error: null,
        searchText: out.searchText,
      })
      .where("id = :coreId AND current_job_id = :jobId AND status = 'processing'", { coreId, jobId })
      .execute();
    if ((res.affected ?? 0) === 0) return false;
    const images = await manager
      .getRepository(CoreImageEntity)
      .find({ where: { coreId }, order: { position: 'ASC' } });
    for (const [i, image] of images.entries()) {
      await manager
        .getRepository(CoreImageEntity)
        .update({ id: image.id }, { caption: out.captions[i] ?? null });
    }
    return true;
  }

  async applyFailure(coreId: string, jobId: string, error: string, manager: EntityManager): Promise<boolean> {
    const res = await manager
      .createQueryBuilder()
      .update(CoreEntity)
      .set({ status: 'failed', taste: null, error })
      .where('id = :coreId AND current_job_id = :jobId', { coreId, jobId })
      .execute();
    return (res.affected ?? 0) > 0;
  }

  /**
   * The organization and name of a core, read in `manager`'s transaction (for event payloads). With
   * `lock`, the row stays locked until the transaction ends: a generation's result is written under the
   * name the core has then (a rename, which locks the row too, waits or has committed).
   */
  eventFields(
    coreId: string,
    manager: EntityManager,
    lock = false,
  ): Promise<{ orgId: string; name: string } | null> {
    return manager.getRepository(CoreEntity).findOne({
      where: { id: coreId },
      select: { orgId: true, name: true },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /** Of these storage keys, the ones a core image row references (the orphan sweeper's check). */
  async referencedStorageKeys(keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.dataSource
      .getRepository(CoreImageEntity)
      .createQueryBuilder('i')
      .select('i.storage_key', 'key')
      .where('i.storage_key = ANY(:keys)', { keys })
      .getRawMany<{ key: string }>();
    return new Set(rows.map((r) => r.key));
  }

  findForGeneration(coreId: string): Promise<CoreEntity | null> {
    return this.cores
      .createQueryBuilder('c')
      .leftJoinAndSelect('c.images', 'i')
      .where('c.id = :coreId', { coreId })
      .orderBy('i.position', 'ASC')
      .getOne();
  }
}
