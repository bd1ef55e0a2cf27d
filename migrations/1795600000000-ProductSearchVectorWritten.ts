import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The weighted search vector of `products` stops being a generated column (docs/decisions/0029): the
 * catalogue writer stores the same tsvector, computed per import chunk with each distinct description's
 * `to_tsvector` done once (a product's variants share a description, and that call is most of a row's
 * import cost). Stored values and the GIN index stay as they are; only the expression goes.
 */
export class ProductSearchVectorWritten1795600000000 implements MigrationInterface {
  name = 'ProductSearchVectorWritten1795600000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "products" ALTER COLUMN "search" DROP EXPRESSION`);
    await q.query(
      `DELETE FROM "typeorm_metadata" WHERE "type" = 'GENERATED_COLUMN' AND "table" = 'products' AND "name" = 'search'`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "idx_products_search"`);
    await q.query(`ALTER TABLE "products" DROP COLUMN "search"`);
    await q.query(
      `ALTER TABLE "products" ADD COLUMN "search" tsvector NOT NULL GENERATED ALWAYS AS (${SEARCH_VECTOR}) STORED`,
    );
    await q.query(
      `INSERT INTO "typeorm_metadata" ("type", "database", "schema", "table", "name", "value")
       VALUES ('GENERATED_COLUMN', current_database(), current_schema(), 'products', 'search', $1)`,
      [SEARCH_VECTOR],
    );
    await q.query(`CREATE INDEX "idx_products_search" ON "products" USING GIN ("search")`);
  }
}

/** The generated column's expression, as migration 1763770000000 created it. */
const SEARCH_VECTOR = `setweight(to_tsvector('english'::regconfig, "title" || ' ' || "designer"), 'A') ||
  setweight(to_tsvector('english'::regconfig, coalesce("colour", '') || ' ' || coalesce("colour_family", '') || ' ' ||
    coalesce("material", '') || ' ' || coalesce("pattern", '') || ' ' || coalesce("category", '')), 'B') ||
  setweight(to_tsvector('english'::regconfig, "description"), 'D')`;
