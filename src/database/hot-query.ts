import type { Pool, QueryResultRow } from 'pg';
import type { DataSource } from 'typeorm';

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
  const pool = (db.driver as unknown as { master?: Pool }).master;
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
  const driver = db.driver as unknown as { master?: Pool; slaves?: Pool[] };
  const slaves = driver.slaves ?? [];
  const pool = slaves.length > 0 ? slaves[Math.floor(Math.random() * slaves.length)] : driver.master;
  if (!pool) throw new Error('Connection terminated: the database is not connected.');
  return (await pool.query<T>(text, values)).rows;
}
