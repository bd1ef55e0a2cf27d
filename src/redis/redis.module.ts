import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import Redis from 'ioredis';
import { AllConfig } from '../config/configuration';
import { createRedisClient } from './redis-url';

export const REDIS = Symbol('REDIS');

/** Closes the shared client when the application stops. */
@Injectable()
class RedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}

/** One shared ioredis client for health checks, rate-limit counters and dashboard sessions. */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) =>
        createRedisClient(config.get('redis', { infer: true }).url, {
          maxRetriesPerRequest: 2,
          lazyConnect: false,
        }),
    },
    RedisCloser,
  ],
  exports: [REDIS],
})
export class RedisModule {}
