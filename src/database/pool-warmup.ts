import type { Pool, PoolClient } from 'pg';
import type { DataSource } from 'typeorm';

/** A statement run once on each warmed connection; `name` prepares it as the request path's named query does. */
export interface WarmStatement {
  name?: string;
  text: string;
  values: unknown[];
}

/** The primary's `pg` pool under TypeORM, then each replica's (docs/decisions/0013). */
function pools(db: DataSource): Pool[] {
  const driver = db.driver as unknown as { master?: Pool; slaves?: Pool[] };
  return [...(driver.master ? [driver.master] : []), ...(driver.slaves ?? [])];
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
  for (const pool of pools(db)) {
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
