import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search never returns a product its feed marks out of stock (docs/decisions/0055):
 * - `availability` is stored as Merchant Center's value (`in_stock`, `out_of_stock`, `preorder`,
 *   `backorder`); the older specification's spellings already stored (`in stock`, `Out of Stock`) are
 *   folded the way the import now folds them, so a re-import of the same feed finds its rows unchanged.
 *   A value that names none of the four is left as it is (the search treats it as available);
 * - `idx_products_colour_cell` becomes partial: it holds no out-of-stock product, so the colour walk
 *   neither reads nor skips them, and stays an index-only scan (the query repeats the predicate, which
 *   PostgreSQL then needs no column for).
 */
export class SearchSkipsOutOfStock1796200000000 implements MigrationInterface {
  name = 'SearchSkipsOutOfStock1796200000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE "products" p SET "availability" = f.value
      FROM (SELECT id, CASE lower(regexp_replace(btrim("availability"), '[\\s_-]+', '_', 'g'))
              WHEN 'in_stock' THEN 'in_stock' WHEN 'out_of_stock' THEN 'out_of_stock'
              WHEN 'preorder' THEN 'preorder' WHEN 'pre_order' THEN 'preorder'
              WHEN 'backorder' THEN 'backorder' WHEN 'back_order' THEN 'backorder'
              WHEN '' THEN NULL ELSE "availability" END AS value
            FROM "products" WHERE "availability" IS NOT NULL) f
      WHERE p.id = f.id AND p."availability" IS DISTINCT FROM f.value`);
    await q.query(`DROP INDEX "idx_products_colour_cell"`);
    await q.query(`CREATE INDEX "idx_products_colour_cell" ON "products" ("colour_cell", "colour_sample")
      INCLUDE ("category_key", "gender", "price", "id") WHERE "availability" IS DISTINCT FROM 'out_of_stock'`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "idx_products_colour_cell"`);
    await q.query(`CREATE INDEX "idx_products_colour_cell" ON "products" ("colour_cell", "colour_sample")
      INCLUDE ("category_key", "gender", "price", "id")`);
  }
}
