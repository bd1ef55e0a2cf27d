import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The catalogue import's PostgreSQL time (docs/decisions/0029, "Features written, search vector gone"):
 * - `search`, the weighted title/attributes/description tsvector, and its GIN index go: the redesigned
 *   search (docs/decisions/0028) reads `features` and `category_key` only, and the description's
 *   `to_tsvector` and that index were most of what the import still paid for;
 * - `features` stops being generated: the catalogue writer stores `product_features(...)` computed once
 *   per distinct (title, designer, category, colour, material, pattern) of a chunk (a product's sizes
 *   share them all), the same tsvector the expression gave. A row written any other way (a test's
 *   INSERT, a manual fix) still gets it: a trigger fills `features` when an INSERT leaves it NULL, or an
 *   UPDATE changes a describing field without changing `features`. The writer always gives it, so the
 *   trigger's WHEN is false for every imported row and its function never runs for them.
 */
export class ProductFeaturesWritten1796100000000 implements MigrationInterface {
  name = 'ProductFeaturesWritten1796100000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "idx_products_search"`);
    await q.query(`ALTER TABLE "products" DROP COLUMN "search"`);
    await q.query(`ALTER TABLE "products" ALTER COLUMN "features" DROP EXPRESSION`);
    await q.query(
      `DELETE FROM "typeorm_metadata" WHERE "type" = 'GENERATED_COLUMN' AND "table" = 'products' AND "name" = 'features'`,
    );
    await q.query(`CREATE FUNCTION products_fill_features() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.features := ${FEATURES('NEW')};
  RETURN NEW;
END $$`);
    await q.query(`CREATE TRIGGER "products_features_insert" BEFORE INSERT ON "products"
      FOR EACH ROW WHEN (NEW.features IS NULL) EXECUTE FUNCTION products_fill_features()`);
    await q.query(`CREATE TRIGGER "products_features_update" BEFORE UPDATE ON "products"
      FOR EACH ROW WHEN (NEW.features IS NULL OR (${DESCRIBING('NEW')} IS DISTINCT FROM ${DESCRIBING('OLD')}
        AND NEW.features IS NOT DISTINCT FROM OLD.features))
      EXECUTE FUNCTION products_fill_features()`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "products_features_update" ON "products"`);
    await q.query(`DROP TRIGGER "products_features_insert" ON "products"`);
    await q.query(`DROP FUNCTION products_fill_features()`);
    await q.query(`DROP INDEX "idx_products_features"`);
    await q.query(`ALTER TABLE "products" DROP COLUMN "features"`);
    await q.query(
      `ALTER TABLE "products" ADD COLUMN "features" tsvector NOT NULL GENERATED ALWAYS AS (${FEATURES_EXPRESSION}) STORED`,
    );
    await q.query(
      `INSERT INTO "typeorm_metadata" ("type", "database", "schema", "table", "name", "value")
       VALUES ('GENERATED_COLUMN', current_database(), current_schema(), 'products', 'features', $1)`,
      [FEATURES_EXPRESSION],
    );
    await q.query(`CREATE INDEX "idx_products_features" ON "products" USING GIN ("features")`);
    // As migration 1795600000000 left it: a plain column holding the former generated expression.
    await q.query(`ALTER TABLE "products" ADD COLUMN "search" tsvector`);
    await q.query(`UPDATE "products" SET "search" = ${SEARCH_VECTOR}`);
    await q.query(`ALTER TABLE "products" ALTER COLUMN "search" SET NOT NULL`);
    await q.query(`CREATE INDEX "idx_products_search" ON "products" USING GIN ("search")`);
  }
}

const FIELDS = ['title', 'designer', 'category', 'colour', 'material', 'pattern'];
/** The fields product_features reads, of row `ref`. */
const DESCRIBING = (ref: string): string => `(${FIELDS.map((f) => `${ref}.${f}`).join(', ')})`;
const FEATURES = (ref: string): string => `product_features${DESCRIBING(ref)}`;
/** The generated expression of migration 1795700000000. */
const FEATURES_EXPRESSION = `product_features("title", "designer", "category", "colour", "material", "pattern")`;

/** The search vector's expression, as migration 1763770000000 created it. */
const SEARCH_VECTOR = `setweight(to_tsvector('english'::regconfig, "title" || ' ' || "designer"), 'A') ||
  setweight(to_tsvector('english'::regconfig, coalesce("colour", '') || ' ' || coalesce("colour_family", '') || ' ' ||
    coalesce("material", '') || ' ' || coalesce("pattern", '') || ' ' || coalesce("category", '')), 'B') ||
  setweight(to_tsvector('english'::regconfig, "description"), 'D')`;
