import 'reflect-metadata';
import { join } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';

/** Connections per pool (the primary's and each replica's): at most `max`; `min` are never closed for idleness. */
export interface PoolSize {
  max: number;
  min: number;
}

/**
 * Entities and migrations are found by glob so that every module's entity is registered once.
 * With `replicaUrls`, TypeORM's replication pools: every query goes to the primary (`defaultMode:
 * 'master'`, so a read never misses this process's own write) except those a repository sends to a
 * replica on purpose through `onReplica` (src/database/replica.ts; docs/decisions/0013-read-replicas.md).
 */
export function dataSourceOptions(
  url: string,
  replicaUrls: readonly string[] = [],
  pool: PoolSize = { max: 10, min: 0 },
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    ...(replicaUrls.length > 0
      ? {
          replication: {
            master: { url },
            slaves: replicaUrls.map((replica) => ({ url: replica })),
            defaultMode: 'master' as const,
          },
        }
      : {}),
    entities: [join(__dirname, '..', '**', '*.entity.{ts,js}')],
    migrations: [join(__dirname, '..', '..', 'migrations', '*-*.{ts,js}')],
    migrationsTableName: 'typeorm_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    // A new connection gives up after 5 s, so an outage answers 503 instead of hanging (0018). Idle
    // connections close after pg-pool's 10 s, except the first `min` of each pool (0044).
    extra: { max: pool.max, min: pool.min, connectionTimeoutMillis: 5000 },
  };
}

/** Used by the TypeORM CLI (`npm run migration:run`, `migration:generate`). */
export default new DataSource(
  dataSourceOptions(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/taste'),
);
