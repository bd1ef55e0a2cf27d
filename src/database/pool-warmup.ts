import type { PoolClient } from 'pg';
import type { DataSource } from 'typeorm';
import { pgPools } from './hot-query';

/** A statement run once on each warmed connection; `name` prepares it as the request path's named query does. */
export interface WarmStatement {
  name?: string;
  text: string;
  values: unknown[];
}

/**
 * Opens `count` connections on every pool at once and runs each statement on each of them, then hands
 * them back to their pools, whose `min` keeps them open (docs/decisions/0044-warm-database-connections.md).
 * A new PostgreSQL backend costs a connection start and, on its first search, the loading of its
 * catalogue caches (about 15-25 ms and 25-30 ms here): paid now instead of by the first requests of a
 * burst. Resolves with the number of connections warmed; a failure rejects after every connection is
 * back (the caller decides whether it matters).
 */
export async function warmPools(
  db: DataSource,
  count: number,
  statements: readonly WarmStatement[],
): Promise<number> {
  let warmed = 0;
  const { primary, replicas } = pgPools(db);
  for (const pool of [...(primary ? [primary] : []), ...replicas]) {
    const opened = await Promise.allSettled(Array.from({ length: count }, () => pool.connect()));
    const clients = opened.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    // A connection whose statement failed is destroyed (release with the error), not kept.
    const ran = await Promise.allSettled(clients.map((client) => runAll(client, statements)));
    ran.forEach((r, i) => clients[i].release(r.status === 'rejected' ? asError(r.reason) : undefined));
    const failed = [...opened, ...ran].find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    warmed += clients.length;
  }
  return warmed;
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

async function runAll(client: PoolClient, statements: readonly WarmStatement[]): Promise<void> {
  for (const { name, text, values } of statements) await client.query({ name, text, values });
}
