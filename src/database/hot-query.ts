import type { Pool, QueryResultRow } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * The `pg` pools under TypeORM's postgres driver: the primary's (absent until the data source is
 * connected) and one per read replica (docs/decisions/0013-read-replicas.md).
 */
export function pgPools(db: DataSource): { primary: Pool | undefined; replicas: Pool[] } {
  const driver = db.driver as unknown as { master?: Pool; slaves?: Pool[] };
  return { primary: driver.master, replicas: driver.slaves ?? [] };
}

/**
 * A hand-written, named (prepared once per connection) query on the primary's `pg` pool under TypeORM,
 * for the few reads on every request's path (docs/decisions/0026-lean-request-path.md): no query
 * builder, no entity mapping. Same pool, same connection limit and the same errors as TypeORM's queries
 * (an unreachable database still answers 503). `name` must be unique per SQL text.
 */
export async function hotQuery<T extends QueryResultRow>(
  db: DataSource,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const pool = pgPools(db).primary;
  if (!pool) throw new Error('Connection terminated: the database is not connected.');
  return (await pool.query<T>({ name, text, values })).rows;
}

/**
 * An unnamed query on one read replica's `pg` pool (one of DATABASE_REPLICA_URLS at random, as TypeORM's
 * `slave` query runner picks), or the primary's when there are none: the replica routing of onReplica()
 * (docs/decisions/0013-read-replicas.md) without a query runner. Unnamed, so each execution is planned
 * for its parameters (a search's walks and limits differ per call).
 */
export async function replicaQuery<T extends QueryResultRow>(
  db: DataSource,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const { primary, replicas } = pgPools(db);
  const pool = replicas.length > 0 ? replicas[Math.floor(Math.random() * replicas.length)] : primary;
  if (!pool) throw new Error('Connection terminated: the database is not connected.');
  return (await pool.query<T>(text, values)).rows;
}
