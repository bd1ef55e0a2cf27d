import type { INestApplicationContext } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { DataSource } from 'typeorm';
import type { AllConfig } from '../config/configuration';
import { CORE_READ_WARM_STATEMENTS } from '../cores/cores.repository';
import { warmPools } from '../database/pool-warmup';
import { candidateWarmStatement } from '../products/products.repository';

/**
 * Before the API listens: DATABASE_POOL_WARM connections of each pool opened and warmed with the
 * request path's reads (docs/decisions/0044-warm-database-connections.md). A failure is logged and the
 * process starts anyway: the connections then open on demand, as they would without the warm-up.
 */
export async function warmDatabase(app: INestApplicationContext, config: AllConfig): Promise<void> {
  const count = config.db.poolWarm;
  if (count === 0) return;
  const logger = app.get(Logger);
  const started = performance.now();
  try {
    const warmed = await warmPools(app.get(DataSource), count, [
      ...CORE_READ_WARM_STATEMENTS,
      candidateWarmStatement(),
    ]);
    logger.log(`database connections warmed: ${warmed} in ${Math.round(performance.now() - started)} ms`);
  } catch (err) {
    logger.warn(`database warm-up failed, connections will open on demand: ${(err as Error).message}`);
  }
}
