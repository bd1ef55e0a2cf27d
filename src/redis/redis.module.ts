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

/**
 * The shared client fails fast while Redis is unreachable (docs/decisions/0018-outage-policy.md):
 * commands wait in ioredis's offline queue only until the first connection is up (so requests at
 * start-up are not refused); after that a command sent while disconnected is refused at once, and one
 * that gets no answer gives up after REDIS_COMMAND_TIMEOUT_MS. The caller answers 503; ioredis keeps
 * reconnecting in the background, so everything recovers by itself.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;

export function createSharedRedis(url: string): Redis {
  const redis = createRedisClient(url, {
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
    lazyConnect: false,
  });
  redis.once('ready', () => {
    redis.options.enableOfflineQueue = false;
  });
  // Connection errors are reported by the callers' failures and by /health/ready.
  redis.on('error', () => undefined);
  return redis;
}

/** One shared ioredis client for health checks, rate-limit counters and dashboard sessions. */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) =>
        createSharedRedis(config.get('redis', { infer: true }).url),
    },
    RedisCloser,
  ],
  exports: [REDIS],
})
export class RedisModule {}
