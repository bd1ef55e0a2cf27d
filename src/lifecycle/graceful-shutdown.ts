import type { Server } from 'node:http';
import { INestApplicationContext, Logger } from '@nestjs/common';
import { AllConfig } from '../config/configuration';
import { CoreGenerationProcessor } from '../cores/core-generation.processor';
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

/** The generation worker of this process, if it runs one (`ROLE=all|worker`). */
function generationProcessor(
  app: INestApplicationContext,
  config: AllConfig,
): CoreGenerationProcessor | null {
  // Not app.get() in a try: Nest's application proxy exits the process on an unknown provider.
  return config.app.role === 'api' ? null : app.get(CoreGenerationProcessor, { strict: false });
}

/**
 * The drain sequence on SIGTERM (docs/decisions/0016-shutdown-sequence.md):
 * 1. readiness turns 503 and the generation worker stops taking jobs, at once;
 * 2. after `shutdownDelayMs` (load balancers notice the readiness), the listener closes: no new
 *    connections, in-flight requests finish (keep-alive connections close after their response);
 * 3. running jobs finish within `shutdownGraceMs`, or are moved back to the queue for another worker;
 * 4. the application closes (database, Redis) and the process exits 0.
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
  const processor = generationProcessor(app, config);
  await Promise.all([
    processor?.drain(shutdownGraceMs).then((handedBack) => {
      if (handedBack > 0) logger.warn(`${handedBack} running job(s) moved back to the queue`);
    }),
    servers.length > 0 &&
      sleep(shutdownDelayMs).then(() => Promise.all(servers.map((s) => closeServer(s, shutdownGraceMs)))),
  ]);
  await app.close();
}
