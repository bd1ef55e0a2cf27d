import type { Server } from 'node:http';
import { INestApplicationContext, Logger } from '@nestjs/common';
import { AllConfig } from '../config/configuration';
import type Redis from 'ioredis';
import { CoreGenerationProcessor } from '../cores/core-generation.processor';
import { REDIS } from '../redis/redis.module';
import { WebhookDeliveryProcessor } from '../webhooks/webhook-delivery.processor';
import { ShutdownState } from './shutdown-state';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Stops accepting connections, lets in-flight requests finish for up to `graceMs`, then cuts the rest. */
async function closeServer(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearTimeout(timer);
}

/** The queue workers of this process, if it runs them (`ROLE=all|worker`). */
function processors(
  app: INestApplicationContext,
  config: AllConfig,
): { generation: CoreGenerationProcessor; webhooks: WebhookDeliveryProcessor } | null {
  // Not app.get() in a try: Nest's application proxy exits the process on an unknown provider.
  if (config.app.role === 'api') return null;
  return {
    generation: app.get(CoreGenerationProcessor, { strict: false }),
    webhooks: app.get(WebhookDeliveryProcessor, { strict: false }),
  };
}

/**
 * The drain sequence on SIGTERM (docs/decisions/0016-shutdown-sequence.md):
 * 1. readiness turns 503 and the generation worker stops taking jobs, at once;
 * 2. after `shutdownDelayMs` (load balancers notice the readiness), the listener closes: no new
 *    connections, in-flight requests finish (keep-alive connections close after their response);
 * 3. running jobs finish within `shutdownGraceMs`, or are moved back to the queue for another worker;
 * 4. the application closes (database, Redis) and the process exits 0.
 * While Redis is unreachable the workers are closed without waiting for it: BullMQ's graceful close
 * waits for their connection to come back, so the watchdog used to end the process (exit 1) after
 * delay + grace + 15 s. Nothing a worker holds can be completed or handed back without Redis anyway;
 * its jobs are found stalled and run again once Redis is back.
 */
export async function drainAndClose(
  app: INestApplicationContext,
  config: AllConfig,
  servers: Server[],
): Promise<void> {
  const logger = new Logger('Shutdown');
  const { shutdownDelayMs, shutdownGraceMs } = config.ops;
  logger.log(
    `draining: readiness 503, listener closes in ${shutdownDelayMs} ms, grace ${shutdownGraceMs} ms`,
  );
  app.get(ShutdownState).begin();
  const redis = app.get<Redis>(REDIS, { strict: false });
  const redisReachable = (): boolean => redis.status === 'ready';
  const workers = processors(app, config);
  await Promise.all([
    workers?.generation.drain(shutdownGraceMs, redisReachable).then((handedBack) => {
      if (handedBack > 0) logger.warn(`${handedBack} running job(s) moved back to the queue`);
    }),
    servers.length > 0 &&
      sleep(shutdownDelayMs).then(() => Promise.all(servers.map((s) => closeServer(s, shutdownGraceMs)))),
  ]);
  if (workers && !redisReachable()) {
    logger.warn('redis is unreachable: the queue workers close without waiting for it');
    // Nest's own close of this worker (BullMQ's explorer) then returns this close.
    await workers.webhooks.worker.close(true);
  }
  await app.close();
}
