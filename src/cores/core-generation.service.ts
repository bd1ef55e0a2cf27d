import { Injectable, Logger } from '@nestjs/common';
import { JobPayloads, JobName } from '../jobs/job.types';
import { JobsService } from '../jobs/jobs.service';
import { MetricsService } from '../metrics/metrics.service';
import { TasteService } from '../taste/taste.service';
import { TasteGenerationError } from '../taste/taste.types';
import { WebhooksService } from '../webhooks/webhooks.service';
import { CoreImagesService } from './core-images.service';
import { CoresRepository } from './cores.repository';
import { buildSearchText } from './synonyms';

export type GenerationPayload = JobPayloads[JobName.GenerateTaste];

/** What the processor should do after a run: nothing more, or throw so BullMQ retries later. */
export type GenerationVerdict = 'done' | 'retry';

const UNEXPECTED = 'Taste generation failed unexpectedly; replace the images to try again.';

/**
 * Runs one taste generation: reads the stored images, calls the taste engine, writes the result.
 * Idempotent and safe against races: results only land while the job is the core's current one.
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
  ) {}

  async run(payload: GenerationPayload, isLastAttempt: boolean): Promise<GenerationVerdict> {
    const { coreId, jobId } = payload;
    const core = await this.repo.findForGeneration(coreId);
    if (!core) {
      // Deleted while queued or running: end quietly (its job row went with it).
      return 'done';
    }
    if (core.currentJobId !== jobId) {
      await this.jobs.markFailed(jobId, 'Superseded by a newer generation job.');
      return 'done';
    }
    await this.jobs.markStarted(jobId);
    const started = performance.now();
    const elapsed = (): number => (performance.now() - started) / 1000;
    try {
      const images = await Promise.all(
        (core.images ?? []).map(async (img) => ({
          data: await this.images.read(img.storageKey),
          contentType: img.contentType,
        })),
      );
      const result = await this.taste.generate(images);
      this.metrics.tasteEngineRan(elapsed(), images.length);
      const committed = await this.repo.transaction(async (manager) => {
        const ok = await this.repo.applyGeneration(manager, coreId, jobId, {
          taste: result.taste,
          styleAttributes: result.styleAttributes,
          tags: result.tags,
          palette: result.palette,
          patterns: result.patterns,
          captions: result.captions,
          searchText: buildSearchText(core.name, result.tags, result.styleAttributes),
        });
        if (!ok) return null;
        await this.jobs.markReady(jobId, manager);
        // Event rows commit with the result (never an event for an uncommitted or superseded result).
        return this.webhooks.recordCoreEvent(manager, core.orgId, 'core.ready', {
          coreId,
          jobId,
          name: core.name,
          coreStatus: 'ready',
          error: null,
        });
      });
      if (committed === null) await this.jobs.markFailed(jobId, 'Superseded by a newer generation job.');
      else {
        this.metrics.generationFinished('ready', elapsed());
        await this.webhooks.enqueue(committed);
      }
      return 'done';
    } catch (err) {
      // Unknown errors (storage or database hiccups) are retried too; the last attempt records them.
      const transient = err instanceof TasteGenerationError ? err.transient : true;
      if (transient && !isLastAttempt) {
        this.logger.warn(`job ${jobId}: transient failure, will retry: ${String(err)}`);
        return 'retry';
      }
      // Tenants see the public text; provider details (status, provider message) go to the log only.
      const message = err instanceof TasteGenerationError ? err.publicMessage : UNEXPECTED;
      if (!(err instanceof TasteGenerationError)) {
        this.logger.error(`job ${jobId}: ${err instanceof Error ? err.stack : String(err)}`);
      } else if (err.publicMessage !== err.message) {
        this.logger.warn(`job ${jobId} for core ${coreId} failed: ${err.message}`);
      }
      const deliveries = await this.repo.transaction(async (manager) => {
        const current = await this.repo.applyFailure(manager, coreId, jobId, message);
        const failed = await this.jobs.markFailed(jobId, message, manager);
        if (!current || !failed) return [];
        return this.webhooks.recordCoreEvent(manager, core.orgId, 'core.failed', {
          coreId,
          jobId,
          name: core.name,
          coreStatus: 'failed',
          error: message,
        });
      });
      this.metrics.generationFinished('failed', elapsed());
      await this.webhooks.enqueue(deliveries);
      return 'done';
    }
  }
}
