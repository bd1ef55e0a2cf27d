import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The global product catalogue and its narrow search projection (docs/decisions/0004-product-ranking.md).
 * `product_search` is maintained by two statement-level triggers with transition tables, so a batch upsert
 * of 1000 products refreshes the projection in one set-based statement instead of 1000 row triggers.
 */
export class CreateProducts1763769700000 implements MigrationInterface {
  name = 'CreateProducts1763769700000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "products" (
      "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "external_id" character varying(255) NOT NULL,
      "title" character varying(500) NOT NULL,
      "designer" character varying(255) NOT NULL,
      "description" text NOT NULL,
      "price" numeric(12,2) NOT NULL,
      "currency" character varying(3) NOT NULL,
      "url" character varying(2048) NOT NULL,
      "media_url" character varying(2048) NOT NULL,
      "media_url_alt" character varying(2048),
      "gender" character varying(8) NOT NULL,
      "colour" character varying(100),
      "material" character varying(200),
      "pattern" character varying(100),
      "category" character varying(500),
      "availability" character varying(32),
      "colour_l" real,
      "colour_a" real,
      "colour_b" real,
      "colour_family" character varying(32),
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_products" PRIMARY KEY ("id"))`);
    await q.query(`CREATE UNIQUE INDEX "uq_products_external_id" ON "products" ("external_id")`);
    await q.query(`CREATE TABLE "product_search" (
      "product_id" uuid NOT NULL,
      "gender" character varying(8) NOT NULL,
      "price" numeric(12,2) NOT NULL,
      "colour_l" real,
      "colour_a" real,
      "colour_b" real,
      "search" tsvector NOT NULL,
      CONSTRAINT "PK_product_search" PRIMARY KEY ("product_id"),
      CONSTRAINT "FK_product_search_product" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE)`);
    await q.query(`CREATE INDEX "idx_product_search_search" ON "product_search" USING GIN ("search")`);
    await q.query(`CREATE FUNCTION products_sync_search() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO product_search (product_id, gender, price, colour_l, colour_a, colour_b, search)
        SELECT n.id, n.gender, n.price, n.colour_l, n.colour_a, n.colour_b,
          setweight(to_tsvector('english'::regconfig, n.title || ' ' || n.designer), 'A') ||
          setweight(to_tsvector('english'::regconfig,
            concat_ws(' ', n.colour, n.colour_family, n.material, n.pattern, n.category)), 'B') ||
          setweight(to_tsvector('english'::regconfig, n.description), 'D')
        FROM new_rows n
        ON CONFLICT (product_id) DO UPDATE SET
          gender = EXCLUDED.gender, price = EXCLUDED.price, colour_l = EXCLUDED.colour_l,
          colour_a = EXCLUDED.colour_a, colour_b = EXCLUDED.colour_b, search = EXCLUDED.search;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER "trg_products_search_insert" AFTER INSERT ON "products"
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION products_sync_search()`);
    await q.query(`CREATE TRIGGER "trg_products_search_update" AFTER UPDATE ON "products"
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION products_sync_search()`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "product_search"`);
    await q.query(`DROP TABLE "products"`);
    await q.query(`DROP FUNCTION products_sync_search()`);
  }
}
