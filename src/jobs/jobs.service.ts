import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, NotFoundException, OnModuleInit } from '@nestjs/common';
import { Queue } from 'bullmq';
import { EntityManager } from 'typeorm';
import { OrgContext } from '../auth/org-context';
import { isUuid } from '../database/pg-errors';
import { JobResponseDto } from './dto/job.dto';
import { JobEntity } from './job.entity';
import { GENERATION_ATTEMPTS, GENERATION_BACKOFF_MS, JobName, JobPayloads, QueueName } from './job.types';
import { JobsRepository } from './jobs.repository';
import { MetricsService, QUEUE_STATES } from '../metrics/metrics.service';

const ENQUEUE_TIMEOUT_MS = 5000;

/** Job rows (the state clients poll) and the only way work is added to a queue. */
@Injectable()
export class JobsService implements OnModuleInit {
  private readonly logger = new Logger(JobsService.name);

  constructor(
    private readonly repo: JobsRepository,
    @InjectQueue(QueueName.Generation) private readonly generationQueue: Queue,
    private readonly metrics: MetricsService,
  ) {}

  /** `queue_jobs` reads the generation queue's counts when Prometheus scrapes. */
  onModuleInit(): void {
    this.metrics.watchQueue(QueueName.Generation, () => this.generationQueue.getJobCounts(...QUEUE_STATES));
  }

  /** Writes the job row (`processing`; the contract has no queued state) inside the caller's transaction. */
  createJob(orgId: string, coreId: string, manager: EntityManager): Promise<JobEntity> {
    return this.repo.insertProcessing(orgId, coreId, manager);
  }

  /**
   * Adds the job to BullMQ with our job id as BullMQ's id, so a duplicate add collapses into one.
   * Call after the transaction that wrote the row has committed. Throws when Redis does not answer.
   */
  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N] & { jobId: string }): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('queue did not accept the job in time')), ENQUEUE_TIMEOUT_MS);
    });
    try {
      await Promise.race([
        this.generationQueue.add(name, payload, {
          jobId: payload.jobId,
          attempts: GENERATION_ATTEMPTS,
          backoff: { type: 'exponential', delay: GENERATION_BACKOFF_MS },
          removeOnComplete: { age: 3600, count: 1000 },
          removeOnFail: { age: 24 * 3600 },
        }),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
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
