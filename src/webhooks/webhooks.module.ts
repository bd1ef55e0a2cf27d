import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { JobsModule } from '../jobs/jobs.module';
import { ConfigService } from '@nestjs/config';
import { AllConfig } from '../config/configuration';
import { failFastQueue, queueErrorListener } from '../jobs/queues';
import { QUEUE_COUNTS_TIMEOUT_MS } from '../metrics/metrics.service';
import { WEBHOOK_QUEUE, WEBHOOK_QUEUE_COUNTS } from './webhook.types';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Webhook endpoints and the delivery queue (the BullMQ connection comes from JobsModule). */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEndpointEntity, WebhookDeliveryEntity, WebhookAttemptEntity]),
    JobsModule,
    BullModule.registerQueue({ name: WEBHOOK_QUEUE }),
    AuditModule,
  ],
  controllers: [WebhooksController],
  providers: [
    WebhooksRepository,
    WebhooksService,
    queueErrorListener(WEBHOOK_QUEUE, 'webhook'),
    {
      provide: WEBHOOK_QUEUE_COUNTS,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) =>
        failFastQueue(WEBHOOK_QUEUE, {
          redisUrl: config.get('redis', { infer: true }).url,
          prefix: config.get('queue', { infer: true }).prefix,
          commandTimeoutMs: QUEUE_COUNTS_TIMEOUT_MS,
          label: 'webhook counts',
        }),
    },
  ],
  exports: [WebhooksService],
})
export class WebhooksModule {}

/** Imported only when the process runs the worker role (`ROLE=worker` or `all`), like generation. */
@Module({
  imports: [WebhooksModule],
  providers: [WebhookDeliveryProcessor],
})
export class WebhookDeliveryWorkerModule {}
