import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source';
import { CATEGORIES } from '../../src/products/search-features';
import { ownDatabase } from '../support/services';

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

  it('1796400000000 refiles stored waistcoats under tops and splits stored trenchcoats, and its down undoes both', async () => {
    const db = await ownDatabase('garments');
    const ds = new DataSource(dataSourceOptions(db.url));
    await ds.initialize();
    try {
      for (const [id, title] of [
        ['w', 'Savile Tailored Waistcoat'],
        ['t', 'Fieldhouse Stone Trenchcoat'],
        ['c', 'Fieldhouse Camel Overcoat'],
      ]) {
        await ds.query(
          `INSERT INTO products (external_id, title, designer, description, price, currency, url, media_url,
             gender, category) VALUES ($1, $2, '', '', 50, 'USD', 'https://shop.example/p',
             'https://img.example/p.jpg', 'women', 'Apparel > Tailoring')`,
          [id, title],
        );
      }
      const state = async () =>
        (
          (await ds.query(
            `SELECT external_id AS id, category_key AS key, features @@ to_tsquery('english', 'trench & coat') AS trench
             FROM products ORDER BY external_id`,
          )) as { id: string; key: number; trench: boolean }[]
        ).map((r) => `${r.id}: ${CATEGORIES[r.key - 1]}${r.trench ? ', trench coat' : ''}`);
      expect(await state()).toEqual(['c: outerwear', 't: outerwear, trench coat', 'w: tops']);

      await ds.undoLastMigration({ transaction: 'each' });
      expect(await state()).toEqual(['c: outerwear', 't: outerwear', 'w: outerwear']);

      await ds.runMigrations({ transaction: 'each' });
      expect(await state()).toEqual(['c: outerwear', 't: outerwear, trench coat', 'w: tops']);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });
});
