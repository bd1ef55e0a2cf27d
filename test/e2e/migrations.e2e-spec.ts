import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source';

/** Schema drift: after all migrations, the entities must not need a single further change. */
describe('migrations (e2e)', () => {
  it('leave no difference between the entities and the migrated schema', async () => {
    const ds = new DataSource(dataSourceOptions(process.env.DATABASE_URL ?? ''));
    await ds.initialize();
    try {
      const pending = await ds.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
      expect(await ds.showMigrations()).toBe(false);
    } finally {
      await ds.destroy();
    }
  });
});
