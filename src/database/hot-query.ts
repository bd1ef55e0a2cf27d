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
