import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type Redis from 'ioredis';
import { AllConfig } from '../config/configuration';
import { createRedisClient } from '../redis/redis-url';
import { KEY_REVOKED_CHANNEL } from './api-key-cache';
import { ApiKeysService } from './api-keys.service';

/**
 * Keeps this process's API-key cache honest: a dedicated Redis connection subscribed to
 * {@link KEY_REVOKED_CHANNEL}. While subscribed the cache is on and every announced revocation evicts
 * the key; when the connection drops the cache is turned off (emptied) until the subscription is back,
 * so a revocation announced meanwhile can never be missed. HTTP app only (the CLI and the worker do not
 * authenticate keys, and keep the cache off).
 */
@Injectable()
export class ApiKeyRevocationListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ApiKeyRevocationListener.name);
  private subscriber: Redis | null = null;

  constructor(
    private readonly keys: ApiKeysService,
    private readonly config: ConfigService<AllConfig, true>,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.get('auth', { infer: true }).keyCacheMs) return;
    const sub = createRedisClient(this.config.get('redis', { infer: true }).url, {
      // Subscribed again by hand on every (re)connection, so the cache is on only once it is confirmed.
      autoResubscribe: false,
      maxRetriesPerRequest: null,
      lazyConnect: false,
    });
    this.subscriber = sub;
    sub.on('message', (channel: string, keyId: string) => {
      if (channel === KEY_REVOKED_CHANNEL) this.keys.cache.evictKey(keyId);
    });
    sub.on('ready', () => {
      sub.subscribe(KEY_REVOKED_CHANNEL).then(
        () => this.keys.cache.setLive(true),
        (err: unknown) => this.logger.warn(`could not subscribe to key revocations: ${String(err)}`),
      );
    });
    sub.on('close', () => this.keys.cache.setLive(false));
    // Connection errors are reported by /health/ready and the shared client's callers.
    sub.on('error', () => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    this.keys.cache.setLive(false);
    const sub = this.subscriber;
    this.subscriber = null;
    if (sub) await sub.quit().catch(() => sub.disconnect());
  }
}
