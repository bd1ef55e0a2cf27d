import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { UpkeepTask } from '../common/upkeep-task';
import { AllConfig } from '../config/configuration';
import { ImageStore } from '../storage';
import { CoreImagesService } from './core-images.service';
import { CoresRepository } from './cores.repository';

/** Core images live under this prefix (`newImageKey`); demo catalogue images (`demo/`) are not swept. */
const CORE_IMAGE_PREFIX = 'img/';
/** Keys checked against the database per query. */
const BATCH = 500;

export interface SweepSummary {
  checked: number;
  removed: number;
  temporaries: number;
}

/**
 * Removes image objects no core image row references (docs/decisions/0020-orphan-sweeper.md): written
 * by a request whose transaction then failed, or by a process that died between the object writes
 * and the commit, plus the fs driver's `.tmp` files. Only objects older than SWEEP_GRACE_MS are
 * looked at, so an upload whose transaction is still running is never taken. Runs at start and every
 * SWEEP_INTERVAL_MS in processes with the worker role (ROLE=all or worker), one process at a time (advisory lock).
 */
@Injectable()
export class OrphanSweeper extends UpkeepTask<SweepSummary> {
  protected readonly logger = new Logger(OrphanSweeper.name);
  private readonly graceMs: number;

  constructor(
    private readonly store: ImageStore,
    private readonly images: CoreImagesService,
    private readonly repo: CoresRepository,
    @InjectDataSource() dataSource: DataSource,
    config: ConfigService<AllConfig, true>,
  ) {
    const upkeep = config.get('upkeep', { infer: true });
    super(
      'taste:orphan-sweeper',
      dataSource,
      upkeep.sweepIntervalMs,
      config.get('app', { infer: true }).role,
    );
    this.graceMs = upkeep.sweepGraceMs;
  }

  /** One pass (the schedule's, or a test's); null when another process holds the lock. */
  sweep(): Promise<SweepSummary | null> {
    return this.runOnce();
  }

  protected async work(): Promise<SweepSummary> {
    const before = new Date(Date.now() - this.graceMs);
    const summary: SweepSummary = { checked: 0, removed: 0, temporaries: 0 };
    summary.temporaries = await this.store.removeStaleTemporaries(before);
    let batch = new Set<string>();
    const flush = async (): Promise<void> => {
      const keys = [...batch];
      batch = new Set();
      const referenced = await this.repo.referencedStorageKeys(keys);
      const orphans = keys.filter((k) => !referenced.has(k));
      summary.checked += keys.length;
      summary.removed += (await this.images.purge(orphans)).purged;
    };
    for await (const key of this.store.listKeys(CORE_IMAGE_PREFIX, before)) {
      batch.add(key);
      if (batch.size >= BATCH) await flush();
    }
    if (batch.size > 0) await flush();
    if (summary.removed + summary.temporaries > 0) {
      this.logger.warn(
        `removed ${summary.removed} orphan image objects and ${summary.temporaries} temporary files`,
      );
    }
    return summary;
  }
}
