import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Nearest-colour candidates: a GiST index on the product's OKLab point (the `cube` contrib extension),
 * so `ORDER BY point <-> palette colour LIMIT n` is an index scan at any catalogue size.
 */
export class ProductColourNearestIndex1763769900000 implements MigrationInterface {
  name = 'ProductColourNearestIndex1763769900000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS cube`);
    await q.query(`CREATE INDEX "idx_product_search_colour" ON "product_search"
      USING gist ((cube(ARRAY["colour_l", "colour_a", "colour_b"]::float8[]))) WHERE "colour_l" IS NOT NULL`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "idx_product_search_colour"`);
  }
}
