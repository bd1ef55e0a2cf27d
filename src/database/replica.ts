import type { DataSource, QueryRunner } from 'typeorm';

/**
 * Runs `work` on one connection to a read replica (one of DATABASE_REPLICA_URLS at random), or to the
 * primary when there are none. Only for reads that may be a little behind the primary: catalogue search,
 * the audit log. Never for a read that must see a write this process or its caller just made, and never
 * inside a transaction (docs/decisions/0013-read-replicas.md). The connection is released afterwards.
 */
export async function onReplica<T>(db: DataSource, work: (runner: QueryRunner) => Promise<T>): Promise<T> {
  const runner = db.createQueryRunner('slave');
  try {
    return await work(runner);
  } finally {
    await runner.release();
  }
}
