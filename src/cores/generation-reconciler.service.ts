import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { UpkeepTask } from '../common/upkeep-task';
import { AllConfig } from '../config/configuration';
import { JobName } from '../jobs/job.types';
import { JobsService } from '../jobs/jobs.service';
import { CoreGenerationService, GENERATION_UNEXPECTED } from './core-generation.service';

/** Jobs looked at per run; the next run takes the rest. */
const BATCH = 500;

export interface ReconcileSummary {
  checked: number;
  requeued: number;
  failed: number;
}

/**
 * Nothing stays `processing` for ever (docs/decisions/0019-stuck-job-reconciler.md). A job row still
 * `processing` after the grace period whose BullMQ entry is missing (the process died between the
 * commit and the add, or Redis came back empty) is added again, with our job id as BullMQ's id so a
 * concurrent add collapses into one; one that BullMQ failed for good is marked failed with its core.
 * Runs at start and every RECONCILE_INTERVAL_MS in processes with the worker role (ROLE=all or worker), under a
 * PostgreSQL advisory lock so that one process does it at a time.
 */
@Injectable()
export class GenerationReconciler extends UpkeepTask<ReconcileSummary> {
  protected readonly logger = new Logger(GenerationReconciler.name);
  private readonly graceMs: number;

  constructor(
    private readonly jobs: JobsService,
    private readonly generation: CoreGenerationService,
    @InjectDataSource() dataSource: DataSource,
    config: ConfigService<AllConfig, true>,
  ) {
    const upkeep = config.get('upkeep', { infer: true });
    super(
      'taste:generation-reconciler',
      dataSource,
      upkeep.reconcileIntervalMs,
      config.get('app', { infer: true }).role,
    );
    this.graceMs = upkeep.reconcileGraceMs;
  }

  /** One pass (the schedule's, or a test's); null when another process holds the lock. */
  reconcile(): Promise<ReconcileSummary | null> {
    return this.runOnce();
  }

  protected async work(): Promise<ReconcileSummary> {
    const stale = await this.jobs.listProcessingBefore(new Date(Date.now() - this.graceMs), BATCH);
    const summary: ReconcileSummary = { checked: stale.length, requeued: 0, failed: 0 };
    for (const job of stale) {
      const state = await this.jobs.queueState(job.id);
      if (state === 'missing') {
        await this.jobs.enqueue(JobName.GenerateTaste, {
          orgId: job.orgId,
          coreId: job.coreId,
          jobId: job.id,
        });
        summary.requeued += 1;
      } else if (state === 'failed') {
        await this.generation.fail(job.coreId, job.id, GENERATION_UNEXPECTED);
        summary.failed += 1;
      }
    }
    if (summary.requeued + summary.failed > 0) {
      this.logger.warn(`re-enqueued ${summary.requeued} and failed ${summary.failed} stuck generation jobs`);
    }
    return summary;
  }
}
