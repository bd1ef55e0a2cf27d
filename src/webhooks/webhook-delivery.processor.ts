import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Job } from 'bullmq';
import { DELIVER_WEBHOOK_JOB, DeliverWebhookPayload, WEBHOOK_QUEUE } from './webhook.types';
import { WebhooksService } from './webhooks.service';
import { RepeatedErrorLog } from '../common/repeated-error-log';

/** Deliveries are I/O bound: this many attempts run at once per worker process. */
const DELIVERY_CONCURRENCY = 8;
/** How often the worker looks for deliveries whose enqueue failed after their commit. */
const SWEEP_INTERVAL_MS = 60_000;

/** BullMQ worker for webhook deliveries. Only dispatches; the work is in WebhooksService.deliver. */
@Processor(WEBHOOK_QUEUE, { concurrency: DELIVERY_CONCURRENCY })
export class WebhookDeliveryProcessor extends WorkerHost implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDeliveryProcessor.name);
  private readonly workerErrors = new RepeatedErrorLog((line) => this.logger.error(line));
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(private readonly webhooks: WebhooksService) {
    super();
  }

  async process(job: Job<DeliverWebhookPayload>): Promise<void> {
    switch (job.name) {
      case DELIVER_WEBHOOK_JOB: {
        const attempt = job.attemptsMade + 1;
        const isLast = attempt >= (job.opts.attempts ?? 1);
        const verdict = await this.webhooks.deliver(job.data.deliveryId, attempt, isLast);
        if (verdict === 'retry') throw new Error('webhook attempt failed; retrying with backoff');
        return;
      }
      default:
        throw new Error(`no handler for job ${job.name}`);
    }
  }

  onApplicationBootstrap(): void {
    this.sweepTimer = setInterval(() => {
      this.webhooks
        .requeuePending(SWEEP_INTERVAL_MS)
        .then((n) => n > 0 && this.logger.warn(`queued ${n} webhook deliveries left without a job`))
        .catch((err: unknown) => this.logger.warn(`webhook sweep failed: ${String(err)}`));
    }, SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.sweepTimer);
  }

  /** While Redis is away the worker reports each reconnection attempt: one line per run, not each. */
  @OnWorkerEvent('error')
  onError(err: Error): void {
    this.workerErrors.report(`webhook worker error: ${err.message}`);
  }
}
