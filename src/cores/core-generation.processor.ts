import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Job, WaitingError } from 'bullmq';
import { armedFaults } from '../config/armed-faults';
import { AllConfig } from '../config/configuration';
import {
  GENERATION_MAX_STALLED_COUNT,
  generationStallTimes,
  JobName,
  JobPayloads,
  QueueName,
} from '../jobs/job.types';
import { CoreGenerationService, GENERATION_UNEXPECTED } from './core-generation.service';
import { RepeatedErrorLog } from '../common/repeated-error-log';

/** BullMQ worker for the generation queue. Only dispatches; the work is in CoreGenerationService. */
@Processor(QueueName.Generation, {
  ...generationStallTimes(armedFaults()),
  maxStalledCount: GENERATION_MAX_STALLED_COUNT,
})
export class CoreGenerationProcessor extends WorkerHost implements OnModuleInit {
  private readonly logger = new Logger(CoreGenerationProcessor.name);
  private readonly workerErrors = new RepeatedErrorLog((line) => this.logger.error(line));
  /** Jobs running in this process with their lock tokens, to hand them back on shutdown. */
  private readonly running = new Map<string, { job: Job; token: string | undefined }>();
  /** Set when shutdown begins: from then on a job that still reaches this worker goes straight back. */
  private draining = false;

  constructor(
    private readonly generation: CoreGenerationService,
    private readonly config: ConfigService<AllConfig, true>,
  ) {
    super();
  }

  onModuleInit(): void {
    this.worker.concurrency = this.config.get('queue', { infer: true }).concurrency;
  }

  async process(job: Job<JobPayloads[JobName]>, token?: string): Promise<void> {
    if (this.draining) {
      // BullMQ's pause does not cancel a blocking wait for the next job that began before it: a job
      // queued during the drain can still arrive here. It is handed back untouched (issue 16).
      await job.moveToWait(token);
      throw new WaitingError();
    }
    const key = job.id ?? '';
    this.running.set(key, { job, token });
    try {
      await this.dispatch(job);
    } finally {
      this.running.delete(key);
    }
  }

  /**
   * Shutdown: takes no new job at once, lets running jobs finish for up to `graceMs`, then moves
   * the ones still running back to the queue (another worker picks them up; generation is
   * idempotent) and closes the worker without waiting for them. Returns how many were handed back.
   * While Redis is unreachable (`redisReachable()` false at the close) the worker is closed without
   * waiting too: BullMQ's graceful close waits for its connection to come back, for ever.
   */
  async drain(graceMs: number, redisReachable: () => boolean = () => true): Promise<number> {
    this.draining = true;
    await this.worker.pause(true);
    const deadline = Date.now() + graceMs;
    while (this.running.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const left = [...this.running.values()];
    await Promise.all(
      left.map(({ job, token }) =>
        job.moveToWait(token).catch((err: unknown) => {
          this.logger.error(`could not hand back job ${job.id}: ${String(err)}`);
        }),
      ),
    );
    await this.worker.close(left.length > 0 || !redisReachable());
    return left.length;
  }

  private async dispatch(job: Job<JobPayloads[JobName]>): Promise<void> {
    const name = job.name as JobName;
    switch (name) {
      case JobName.GenerateTaste: {
        const isLast = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        const verdict = await this.generation.run(job.data, isLast);
        if (verdict === 'retry') throw new Error('transient failure; retrying with backoff');
        return;
      }
      default: {
        const unhandled: never = name;
        throw new Error(`no handler for job ${String(unhandled)}`);
      }
    }
  }

  /**
   * A job BullMQ gave up on (attempts spent, or stalled more than GENERATION_MAX_STALLED_COUNT times)
   * leaves its row and core failed. Retried failures are left alone. When the database cannot be
   * reached now, the reconciler finds the job failed in BullMQ and marks it later.
   */
  @OnWorkerEvent('failed')
  async onFailed(job: Job<JobPayloads[JobName.GenerateTaste]> | undefined, err: Error): Promise<void> {
    if (!job?.data?.jobId) return;
    const final = job.attemptsMade >= (job.opts.attempts ?? 1) || /stalled/i.test(err.message);
    if (!final) return;
    try {
      await this.generation.fail(job.data.coreId, job.data.jobId, GENERATION_UNEXPECTED);
    } catch (e) {
      this.logger.error(`job ${job.data.jobId}: could not record the final failure: ${String(e)}`);
    }
  }

  /** While Redis is away the worker reports each reconnection attempt: one line per run, not each. */
  @OnWorkerEvent('error')
  onError(err: Error): void {
    this.workerErrors.report(`generation worker error: ${err.message}`);
  }
}
