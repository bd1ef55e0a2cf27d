import { DataSource } from 'typeorm';

/**
 * Runs `work` while holding the PostgreSQL session advisory lock named `name` on a dedicated
 * connection; returns null without running it when another process holds the lock. Several worker
 * processes can schedule the same upkeep task and only one of them does it at a time.
 */
export async function withAdvisoryLock<T>(
  dataSource: DataSource,
  name: string,
  work: () => Promise<T>,
): Promise<T | null> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    const [{ locked }] = (await runner.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [
      name,
    ])) as { locked: boolean }[];
    if (!locked) return null;
    try {
      return await work();
    } finally {
      await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [name]).catch(() => undefined);
    }
  } finally {
    await runner.release();
  }
}
