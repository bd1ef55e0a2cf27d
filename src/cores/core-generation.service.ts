import { Injectable, Logger } from '@nestjs/common';
import { FaultInjector } from '../common/fault-injection';
import { JobPayloads, JobName } from '../jobs/job.types';
import { JobsService } from '../jobs/jobs.service';
import { MetricsService } from '../metrics/metrics.service';
import { TasteService } from '../taste/taste.service';
import { TasteGenerationError, TasteResult } from '../taste/taste.types';
import { WebhooksService } from '../webhooks/webhooks.service';
import { CoreImagesService } from './core-images.service';
import { CoresRepository } from './cores.repository';
import { buildSearchText } from './synonyms';

export type GenerationPayload = JobPayloads[JobName.GenerateTaste];

/** What the processor should do after a run: nothing more, or throw so BullMQ retries later. */
export type GenerationVerdict = 'done' | 'retry';

export const GENERATION_UNEXPECTED = 'Taste generation failed unexpectedly; replace the images to try again.';
const SUPERSEDED = 'Superseded by a newer generation job.';

/**
 * Runs one taste generation: reads the stored images, calls the taste engine, writes the result.
 * Idempotent and safe against races: results only land while the job is the core's current one and
 * both are still `processing` (a job whose enqueue was answered 503 stays failed even if it runs).
 */
@Injectable()
export class CoreGenerationService {
  private readonly logger = new Logger(CoreGenerationService.name);

  constructor(
    private readonly repo: CoresRepository,
    private readonly images: CoreImagesService,
    private readonly jobs: JobsService,
    private readonly taste: TasteService,
    private readonly webhooks: WebhooksService,
    private readonly metrics: MetricsService,
    private readonly faults: FaultInjector,
  ) {}

  async run(payload: GenerationPayload, isLastAttempt: boolean): Promise<GenerationVerdict> {
    const { coreId, jobId } = payload;
    const started = performance.now();
    const elapsed = (): number => (performance.now() - started) / 1000;
    try {
      if (await this.generate(coreId, jobId, elapsed)) this.metrics.generationFinished('ready', elapsed());
      return 'done';
    } catch (err) {
      // Unknown errors (storage or database hiccups, the core lookup included) are retried too; the
      // last attempt records them. If recording fails as well (the database is still down), the
      // error propagates: BullMQ fails the job, and the `failed` handler or the reconciler marks it.
      const transient = err instanceof TasteGenerationError ? err.transient : true;
      if (transient && !isLastAttempt) {
        this.logger.warn(`job ${jobId}: transient failure, will retry: ${String(err)}`);
        return 'retry';
      }
      // Tenants see the public text; provider details (status, provider message) go to the log only.
      const message = err instanceof TasteGenerationError ? err.publicMessage : GENERATION_UNEXPECTED;
      if (!(err instanceof TasteGenerationError)) {
        this.logger.error(`job ${jobId}: ${err instanceof Error ? err.stack : String(err)}`);
      } else if (err.publicMessage !== err.message) {
        this.logger.warn(`job ${jobId} for core ${coreId} failed: ${err.message}`);
      }
      await this.fail(coreId, jobId, message);
      this.metrics.generationFinished('failed', elapsed());
      return 'done';
    }
  }

  /**
   * Marks the job and (while it is the current job) its core failed, in one transaction, with the
   * `core.failed` event rows; the events are queued after the commit.
   */
  async fail(coreId: string, jobId: string, message: string): Promise<void> {
    const deliveries = await this.repo.transaction(async (manager) => {
      const current = await this.repo.applyFailure(coreId, jobId, message, manager);
      const failed = await this.jobs.markFailed(jobId, message, manager);
      const core = current && failed ? await this.repo.eventFields(coreId, manager) : null;
      if (!core) return [];
      return this.webhooks.recordCoreEvent(
        core.orgId,
        'core.failed',
        {
          coreId,
          jobId,
          name: core.name,
          coreStatus: 'failed',
          error: message,
        },
        manager,
      );
    });
    await this.webhooks.enqueue(deliveries);
  }

  /** True when this run's result landed (the core is ready). */
  private async generate(coreId: string, jobId: string, elapsed: () => number): Promise<boolean> {
    const core = await this.repo.findForGeneration(coreId);
    if (!core) return false; // deleted while queued or running: its job row went with it
    if (core.currentJobId !== jobId) {
      await this.jobs.markFailed(jobId, SUPERSEDED);
      return false;
    }
    if ((await this.jobs.statusOf(jobId)) !== 'processing') return false; // already final (e.g. 503 on enqueue)
    // The stored images are read while the start is recorded; both settle before anything is thrown,
    // so a failure path never races the start's update.
    const [read, started] = await Promise.allSettled([
      Promise.all(
        (core.images ?? []).map(async (img) => ({
          data: await this.images.read(img.storageKey),
          contentType: img.contentType,
        })),
      ),
      this.jobs.markStarted(jobId),
    ]);
    if (started.status === 'rejected') throw started.reason;
    if (read.status === 'rejected') throw read.reason;
    const images = read.value;
    const result = await this.taste.generate(images);
    this.metrics.tasteEngineRan(elapsed(), images.length);
    await this.faults.pauseAt('slow-generation', 3000);
    const committed = await this.commitResult(coreId, jobId, result);
    if (committed === null) {
      await this.jobs.markFailed(jobId, SUPERSEDED);
      return false;
    }
    await this.webhooks.enqueue(committed);
    return true;
  }

  /**
   * Writes a run's result, marks its job ready and records the `core.ready` event rows, in one
   * transaction; null when the core is gone or the job is no longer its current one.
   */
  private commitResult(coreId: string, jobId: string, result: TasteResult): Promise<string[] | null> {
    return this.repo.transaction(async (manager) => {
      // The name as it is now, not as the job started: a rename during generation must reach the search
      // text and the event (a vision model takes 10-40 s).
      const current = await this.repo.eventFields(coreId, manager, true);
      if (!current) return null;
      const ok = await this.repo.applyGeneration(
        coreId,
        jobId,
        {
          taste: result.taste,
          styleAttributes: result.styleAttributes,
          tags: result.tags,
          palette: result.palette,
          patterns: result.patterns,
          captions: result.captions,
          searchText: buildSearchText(current.name, result.tags, result.styleAttributes),
        },
        manager,
      );
      if (!ok) return null;
      await this.jobs.markReady(jobId, manager);
      // Event rows commit with the result (never an event for an uncommitted or superseded result).
      return this.webhooks.recordCoreEvent(
        current.orgId,
        'core.ready',
        {
          coreId,
          jobId,
          name: current.name,
          coreStatus: 'ready',
          error: null,
        },
        manager,
      );
    });
  }
}
