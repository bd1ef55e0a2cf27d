import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import type { ConnectionOptions } from 'bullmq';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AllConfig } from '../config/configuration';
import { redisConnectionOptions } from '../redis/redis-url';
import { JobEntity } from './job.entity';
import { QueueName } from './job.types';
import { JobsController } from './jobs.controller';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([JobEntity]),
    BullModule.forRootAsync({
      inject: [ConfigService],
      useFactory: async (config: ConfigService<AllConfig, true>) => {
        const tracing = config.get('tracing', { infer: true });
        return {
          // Workers block on Redis: they must not give up on a request (maxRetriesPerRequest: null).
          connection: {
            ...redisConnectionOptions(config.get('redis', { infer: true }).url),
            maxRetriesPerRequest: null,
          } as ConnectionOptions,
          prefix: config.get('queue', { infer: true }).prefix,
          // Queue and worker spans (add, process) when tracing is on; not even loaded otherwise.
          telemetry: tracing.enabled
            ? new (await import('bullmq-otel')).BullMQOtel({ tracerName: 'bullmq' })
            : undefined,
        };
      },
    }),
    BullModule.registerQueue({ name: QueueName.Generation }),
  ],
  controllers: [JobsController],
  providers: [JobsRepository, JobsService],
  exports: [JobsService, BullModule],
})
export class JobsModule {}
