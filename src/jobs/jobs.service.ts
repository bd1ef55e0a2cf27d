import { Inject, Injectable, Logger, NotFoundException, OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { EntityManager } from 'typeorm';
import { OrgContext } from '../auth/org-context';
import { withTimeout } from '../common/concurrency';
import { isUuid } from '../common/validation';
import { JobResponseDto } from './dto/job.dto';
import { JobEntity } from './job.entity';
import {
  GENERATION_ATTEMPTS,
  GENERATION_BACKOFF_MS,
  GENERATION_PRODUCER,
  GenerationStatus,
  JobName,
  JobPayloads,
  QueueName,
} from './job.types';
import { JobsRepository } from './jobs.repository';
import { MetricsService, QUEUE_STATES } from '../metrics/metrics.service';

/** How long an add may take before the request gives up (and answers 503). */
export const ENQUEUE_TIMEOUT_MS = 5000;

/** Where a job stands in BullMQ: gone (never added, or Redis lost it), failed for good, or anything else. */
export type QueueEntryState = 'missing' | 'failed' | 'present';

/** Job rows (the state clients poll) and the only way work is added to a queue. */
@Injectable()
export class JobsService implements OnApplicationShutdown {
  private readonly logger = new Logger(JobsService.name);

  constructor(
    private readonly repo: JobsRepository,
    @Inject(GENERATION_PRODUCER) private readonly generationQueue: Queue,
    metrics: MetricsService,
  ) {
    // `queue_jobs` reads the generation queue's counts when Prometheus scrapes, through the producer's
    // connection: it fails at once while Redis is away, where the registered queue's would wait.
    metrics.watchQueue(QueueName.Generation, () => generationQueue.getJobCounts(...QUEUE_STATES));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.generationQueue.close().catch(() => undefined);
  }

  /** Writes the job row (`processing`; the contract has no queued state) inside the caller's transaction. */
  createJob(orgId: string, coreId: string, manager: EntityManager): Promise<JobEntity> {
    return this.repo.insertProcessing(orgId, coreId, manager);
  }

  /**
   * Adds the job to BullMQ with our job id as BullMQ's id, so a duplicate add collapses into one.
   * Call after the transaction that wrote the row has committed. Throws at once when the queue's
   * connection is not ready, and after ENQUEUE_TIMEOUT_MS when Redis does not answer: the producer
   * connection has no offline queue, so a refused add can never run later.
   */
  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N] & { jobId: string }): Promise<void> {
    await this.queueReady();
    await withTimeout(
      this.generationQueue.add(name, payload, {
        jobId: payload.jobId,
        attempts: GENERATION_ATTEMPTS,
        backoff: { type: 'exponential', delay: GENERATION_BACKOFF_MS },
        removeOnComplete: { age: 3600, count: 1000 },
        removeOnFail: { age: 24 * 3600 },
      }),
      ENQUEUE_TIMEOUT_MS,
      'queue did not accept the job in time',
    );
  }

  /** The job's BullMQ entry, for the reconciler. Throws when Redis cannot be asked. */
  async queueState(jobId: string): Promise<QueueEntryState> {
    await this.queueReady();
    const state = await withTimeout(
      this.generationQueue.getJobState(jobId),
      ENQUEUE_TIMEOUT_MS,
      'queue timeout',
    );
    if (state === 'unknown') return 'missing';
    return state === 'failed' ? 'failed' : 'present';
  }

  /**
   * Jobs still `processing` that were created before `cutoff`, oldest first, across organizations:
   * the reconciler's view (a system task, not a tenant request).
   */
  listProcessingBefore(cutoff: Date, limit: number): Promise<JobEntity[]> {
    return this.repo.listProcessingBefore(cutoff, limit);
  }

  /** The job row's status, or null when it is gone (its core was deleted). */
  async statusOf(jobId: string): Promise<GenerationStatus | null> {
    return (await this.repo.findById(jobId))?.status ?? null;
  }

  /**
   * Resolves once the producer connection is ready (at once when it is), or throws after
   * ENQUEUE_TIMEOUT_MS. Nothing is sent before that, so a refused add never runs later.
   */
  private async queueReady(): Promise<void> {
    const client = await withTimeout(
      this.generationQueue.getBackend().client,
      ENQUEUE_TIMEOUT_MS,
      'queue is not connected',
    );
    if (client.status === 'ready') return;
    let onReady: (() => void) | undefined;
    try {
      await withTimeout(
        new Promise<void>((resolve) => {
          onReady = resolve;
          client.once('ready', onReady);
        }),
        ENQUEUE_TIMEOUT_MS,
        `queue connection is ${client.status}`,
      );
    } finally {
      if (onReady) client.off('ready', onReady);
    }
  }

  async get(ctx: OrgContext, jobId: string): Promise<JobResponseDto> {
    const job = isUuid(jobId) ? await this.repo.findByIdForOrg(ctx.orgId, jobId) : null;
    if (!job) throw new NotFoundException('Job not found.');
    return this.toDto(job);
  }

  async listForCore(ctx: OrgContext, coreId: string): Promise<JobResponseDto[]> {
    return (await this.repo.listForCore(ctx.orgId, coreId)).map((j) => this.toDto(j));
  }

  markStarted(jobId: string): Promise<void> {
    return this.repo.markStarted(jobId);
  }

  markReady(jobId: string, manager?: EntityManager): Promise<boolean> {
    return this.repo.finish(jobId, 'ready', null, manager);
  }

  markFailed(jobId: string, error: string, manager?: EntityManager): Promise<boolean> {
    this.logger.warn(`job ${jobId} failed: ${error}`);
    return this.repo.finish(jobId, 'failed', error, manager);
  }

  private toDto(job: JobEntity): JobResponseDto {
    return {
      status: 200,
      id: job.id,
      coreId: job.coreId,
      jobStatus: job.status,
      error: job.error,
      createdAt: job.createdAt.toISOString(),
      startedAt: job.startedAt?.toISOString() ?? null,
      finishedAt: job.finishedAt?.toISOString() ?? null,
    };
  }
}
