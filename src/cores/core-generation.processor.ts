import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Job } from 'bullmq';
import { AllConfig } from '../config/configuration';
import { JobName, JobPayloads, QueueName } from '../jobs/job.types';
import { CoreGenerationService } from './core-generation.service';

/** BullMQ worker for the generation queue. Only dispatches; the work is in CoreGenerationService. */
@Processor(QueueName.Generation)
export class CoreGenerationProcessor extends WorkerHost implements OnModuleInit {
  private readonly logger = new Logger(CoreGenerationProcessor.name);
  /** Jobs running in this process with their lock tokens, to hand them back on shutdown. */
  private readonly running = new Map<string, { job: Job; token: string | undefined }>();

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
   */
  async drain(graceMs: number): Promise<number> {
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
    await this.worker.close(left.length > 0);
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

  @OnWorkerEvent('error')
  onError(err: Error): void {
    this.logger.error(`generation worker error: ${err.message}`);
  }
}
