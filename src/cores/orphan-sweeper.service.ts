import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PeriodicTask } from '../common/periodic-task';
import { AllConfig } from '../config/configuration';
import { withAdvisoryLock } from '../database/advisory-lock';
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
export class OrphanSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OrphanSweeper.name);
  private readonly graceMs: number;
  private readonly task: PeriodicTask;
  private readonly role: string;

  constructor(
    private readonly store: ImageStore,
    private readonly images: CoreImagesService,
    private readonly repo: CoresRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
    config: ConfigService<AllConfig, true>,
  ) {
    this.role = config.get('app', { infer: true }).role;
    const upkeep = config.get('upkeep', { infer: true });
    this.graceMs = upkeep.sweepGraceMs;
    this.task = new PeriodicTask('sweep', upkeep.sweepIntervalMs, () => this.sweep(), this.logger);
  }

  onApplicationBootstrap(): void {
    if (this.role !== 'api') this.task.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /** One pass; null when another process holds the lock. */
  sweep(): Promise<SweepSummary | null> {
    return withAdvisoryLock(this.dataSource, 'taste:orphan-sweeper', async () => {
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
    });
  }
}
