import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import type { ConnectionOptions, Telemetry } from 'bullmq';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AllConfig } from '../config/configuration';
import { redisConnectionOptions } from '../redis/redis-url';
import { JobEntity } from './job.entity';
import { GENERATION_PRODUCER, QueueName } from './job.types';
import { JobsController } from './jobs.controller';
import { JobsRepository } from './jobs.repository';
import { ENQUEUE_TIMEOUT_MS, JobsService } from './jobs.service';
import { failFastQueue, queueErrorListener, reconnectDelay } from './queues';

/** Queue and worker spans (add, process) when tracing is on; bullmq-otel is not even loaded otherwise. */
async function queueTelemetry(config: ConfigService<AllConfig, true>): Promise<Telemetry | undefined> {
  if (!config.get('tracing', { infer: true }).enabled) return undefined;
  return new (await import('bullmq-otel')).BullMQOtel({ tracerName: 'bullmq' });
}

@Module({
  imports: [
    TypeOrmModule.forFeature([JobEntity]),
    BullModule.forRootAsync({
      inject: [ConfigService],
      useFactory: async (config: ConfigService<AllConfig, true>) => {
        return {
          // Workers block on Redis: they must not give up on a request (maxRetriesPerRequest: null).
          connection: {
            ...redisConnectionOptions(config.get('redis', { infer: true }).url),
            maxRetriesPerRequest: null,
            retryStrategy: reconnectDelay,
          } as ConnectionOptions,
          prefix: config.get('queue', { infer: true }).prefix,
          telemetry: await queueTelemetry(config),
        };
      },
    }),
    BullModule.registerQueue({ name: QueueName.Generation }),
  ],
  controllers: [JobsController],
  providers: [
    JobsRepository,
    JobsService,
    {
      // Adds go through their own connection without an offline queue: while Redis is unreachable an
      // add fails at once instead of waiting in ioredis's queue and running after the client was told
      // 503 (docs/decisions/0019-stuck-job-reconciler.md). A job that reached Redis anyway finds its
      // row failed and changes nothing (CoreGenerationService).
      provide: GENERATION_PRODUCER,
      inject: [ConfigService],
      useFactory: async (config: ConfigService<AllConfig, true>) =>
        failFastQueue(QueueName.Generation, {
          redisUrl: config.get('redis', { infer: true }).url,
          prefix: config.get('queue', { infer: true }).prefix,
          commandTimeoutMs: ENQUEUE_TIMEOUT_MS,
          telemetry: await queueTelemetry(config),
          label: 'generation producer',
        }),
    },
    queueErrorListener(QueueName.Generation, 'generation'),
  ],
  exports: [JobsService, BullModule],
})
export class JobsModule {}
