import { Client, type Pool } from 'pg';
import { DataSource } from 'typeorm';
import { CORE_READ_WARM_STATEMENTS } from '../../src/cores/cores.repository';
import { dataSourceOptions } from '../../src/database/data-source';
import { warmPools } from '../../src/database/pool-warmup';
import { candidateWarmStatement } from '../../src/products/products.repository';

/** docs/decisions/0044: warmed connections on the real database, kept by the pool's `min`. */
describe('warmPools (real PostgreSQL)', () => {
  let db: DataSource | undefined;
  const pool = () => (db?.driver as unknown as { master: Pool }).master;
  /** Each backend of `pids`: its last statement, as PostgreSQL reports it (asked on a connection of its own). */
  async function lastStatements(pids: number[]): Promise<string[]> {
    const observer = new Client({ connectionString: process.env.DATABASE_URL });
    await observer.connect();
    try {
      const { rows } = await observer.query<{ query: string }>(
        'SELECT query FROM pg_stat_activity WHERE pid = ANY($1::int[]) ORDER BY pid',
        [pids],
      );
      return rows.map((r) => r.query);
    } finally {
      await observer.end();
    }
  }
  async function open(min: number, idleTimeoutMillis: number): Promise<DataSource> {
    const options = dataSourceOptions(process.env.DATABASE_URL as string, [], { max: 6, min });
    db = new DataSource({
      ...options,
      extra: { ...(options.extra as object), idleTimeoutMillis },
    } as typeof options);
    return db.initialize();
  }

  afterEach(async () => {
    await db?.destroy();
    db = undefined;
  });

  it('opens `count` connections, runs every statement on each, and the pool keeps them past its idle timeout', async () => {
    await open(3, 100);
    const statements = [...CORE_READ_WARM_STATEMENTS, candidateWarmStatement()];
    expect(await warmPools(db as DataSource, 3, statements)).toBe(3);
    expect(pool().totalCount).toBe(3);

    // Each connection's backend ran the statements, the search's candidate statement last.
    const clients = (pool() as unknown as { _clients: { processID: number }[] })._clients;
    const pids = clients.map((c) => c.processID);
    expect(new Set(pids).size).toBe(3);
    const last = await lastStatements(pids);
    expect(last).toHaveLength(3);
    // (pg_stat_activity keeps the first track_activity_query_size bytes of a statement)
    for (const text of last) {
      expect(text.length).toBeGreaterThan(500);
      expect(candidateWarmStatement().text.startsWith(text)).toBe(true);
    }
    // The named reads are prepared on every warmed connection, as the request path will use them.
    const prepared = clients.map((c) =>
      Object.keys((c as unknown as { connection: { parsedStatements: object } }).connection.parsedStatements),
    );
    for (const names of prepared)
      expect(names.sort()).toEqual(['cores.readForOrg', 'cores.readSearchProfile']);

    // Well past the 100 ms idle timeout: `min` keeps the warmed connections open.
    await new Promise((r) => setTimeout(r, 400));
    expect(pool().totalCount).toBe(3);
  });

  it('without `min` the same connections close after the idle timeout (what the warm-up exists for)', async () => {
    await open(0, 100);
    expect(await warmPools(db as DataSource, 3, CORE_READ_WARM_STATEMENTS)).toBe(3);
    await new Promise((r) => setTimeout(r, 400));
    expect(pool().totalCount).toBe(0);
  });

  it('a failing statement rejects and leaves no connection behind', async () => {
    await open(3, 100);
    await expect(
      warmPools(db as DataSource, 2, [{ text: 'SELECT * FROM no_such_table', values: [] }]),
    ).rejects.toThrow(/no_such_table/);
    expect(pool().totalCount).toBe(0);
    expect(pool().idleCount).toBe(0);
  });
});
