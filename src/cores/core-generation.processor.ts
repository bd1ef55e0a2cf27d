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

  constructor(
    private readonly generation: CoreGenerationService,
    private readonly config: ConfigService<AllConfig, true>,
  ) {
    super();
  }

  onModuleInit(): void {
    this.worker.concurrency = this.config.get('queue', { infer: true }).concurrency;
  }

  async process(job: Job<JobPayloads[JobName]>): Promise<void> {
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
