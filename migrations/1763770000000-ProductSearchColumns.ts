import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search fields move into `products` (docs/decisions/0007-catalogue-import-throughput.md): the weighted
 * tsvector and the OKLab grid cell become stored generated columns, so PostgreSQL keeps them in step with
 * every write without a second table, a trigger per batch or a foreign-key check per row. The GiST index
 * over every product's colour point is replaced by a btree on its cell and a GiST over the few distinct
 * cells (`colour_cells`), which the catalogue upsert fills in the same statement as new cells appear (a
 * statement trigger with a transition table cost about 9 µs a row). Feed ids compare in the "C" collation.
 */
export class ProductSearchColumns1763770000000 implements MigrationInterface {
  name = 'ProductSearchColumns1763770000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "product_search"`);
    await q.query(`DROP TRIGGER "trg_products_search_insert" ON "products"`);
    await q.query(`DROP TRIGGER "trg_products_search_update" ON "products"`);
    await q.query(`DROP FUNCTION products_sync_search()`);
    // Feed ids are opaque: compared byte by byte, not through the locale (about 2 µs a row at import,
    // where the upsert compares each id about 40 times in the unique index).
    await q.query(
      `ALTER TABLE "products" ALTER COLUMN "external_id" TYPE character varying(255) COLLATE "C"`,
    );
    await q.query(`ALTER TABLE "products"
      ADD COLUMN "search" tsvector NOT NULL GENERATED ALWAYS AS (${SEARCH_VECTOR}) STORED,
      ADD COLUMN "colour_cell" integer GENERATED ALWAYS AS (${COLOUR_CELL}) STORED,
      ADD COLUMN "colour_sample" smallint NOT NULL GENERATED ALWAYS AS (${COLOUR_SAMPLE}) STORED`);
    // TypeORM compares a generated column's expression with the copy it keeps in `typeorm_metadata`.
    for (const [name, value] of [
      ['search', SEARCH_VECTOR],
      ['colour_cell', COLOUR_CELL],
      ['colour_sample', COLOUR_SAMPLE],
    ]) {
      await q.query(
        `INSERT INTO "typeorm_metadata" ("type", "database", "schema", "table", "name", "value")
         VALUES ('GENERATED_COLUMN', current_database(), current_schema(), 'products', $1, $2)`,
        [name, value],
      );
    }
    await q.query(`CREATE INDEX "idx_products_search" ON "products" USING GIN ("search")`);
    await q.query(`CREATE INDEX "idx_products_colour_cell" ON "products" ("colour_cell", "colour_sample")`);
    await q.query(`CREATE TABLE "colour_cells" (
      "cell" integer NOT NULL,
      "centre" cube NOT NULL,
      CONSTRAINT "PK_colour_cells" PRIMARY KEY ("cell"))`);
    await q.query(`CREATE INDEX "idx_colour_cells_centre" ON "colour_cells" USING gist ("centre")`);
    await q.query(`CREATE FUNCTION colour_cell_centre(cell integer) RETURNS cube
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN cube(ARRAY[(cell / 4096)::float8 / ${CELLS_PER_UNIT},
        ((cell / 64) % 64 - 32)::float8 / ${CELLS_PER_UNIT}, (cell % 64 - 32)::float8 / ${CELLS_PER_UNIT}])`);
    await q.query(`INSERT INTO colour_cells (cell, centre)
      SELECT DISTINCT colour_cell, colour_cell_centre(colour_cell) FROM products WHERE colour_cell IS NOT NULL`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "colour_cells"`);
    await q.query(`DROP FUNCTION colour_cell_centre(integer)`);
    await q.query(
      `ALTER TABLE "products" DROP COLUMN "search", DROP COLUMN "colour_cell", DROP COLUMN "colour_sample"`,
    );
    await q.query(
      `ALTER TABLE "products" ALTER COLUMN "external_id" TYPE character varying(255) COLLATE "default"`,
    );
    await q.query(
      `DELETE FROM "typeorm_metadata" WHERE "type" = 'GENERATED_COLUMN' AND "table" = 'products'
       AND "name" IN ('search', 'colour_cell', 'colour_sample')`,
    );
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
    await q.query(`CREATE INDEX "idx_product_search_colour" ON "product_search"
      USING gist ((cube(ARRAY["colour_l", "colour_a", "colour_b"]::float8[]))) WHERE "colour_l" IS NOT NULL`);
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
    await q.query(`INSERT INTO product_search (product_id, gender, price, colour_l, colour_a, colour_b, search)
      SELECT id, gender, price, colour_l, colour_a, colour_b,
        setweight(to_tsvector('english'::regconfig, title || ' ' || designer), 'A') ||
        setweight(to_tsvector('english'::regconfig,
          concat_ws(' ', colour, colour_family, material, pattern, category)), 'B') ||
        setweight(to_tsvector('english'::regconfig, description), 'D')
      FROM products`);
  }
}

/** OKLab grid cells per unit: cells are 0.02 wide, about one just-noticeable difference. */
const CELLS_PER_UNIT = 50;

/**
 * Title and designer (A); colour, colour family, material, pattern and category (B); description (D).
 * Immutable expressions only (explicit `regconfig`, `coalesce` and `||`), as a generated column needs.
 */
const SEARCH_VECTOR = `setweight(to_tsvector('english'::regconfig, "title" || ' ' || "designer"), 'A') ||
  setweight(to_tsvector('english'::regconfig, coalesce("colour", '') || ' ' || coalesce("colour_family", '') || ' ' ||
    coalesce("material", '') || ' ' || coalesce("pattern", '') || ' ' || coalesce("category", '')), 'B') ||
  setweight(to_tsvector('english'::regconfig, "description"), 'D')`;

/**
 * The product's OKLab point on a grid of 0.02: L in 0..50, a and b offset by 32 (OKLab a/b of real
 * colours lie within +-0.5), packed as L*4096 + a*64 + b. NULL without a colour.
 */
const COLOUR_CELL = `(round("colour_l" * 50)::integer * 64 + round("colour_a" * 50)::integer + 32) * 64
  + round("colour_b" * 50)::integer + 32`;

/**
 * One of 64 sample groups, from a hash of the feed id: the nearest-colour search reads a cell's products
 * in group order, a sample independent of the feed's row order, through an index whose inserts stay on
 * a few thousand pages (a random uuid there cost about 8% of the import at 1M rows).
 */
const COLOUR_SAMPLE = `(hashtext("external_id") & 63)::smallint`;
