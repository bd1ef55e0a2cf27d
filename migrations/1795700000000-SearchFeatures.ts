import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search features (docs/decisions/0028-search-features-and-one-pass-ranking.md):
 * - `category_key`: the product's category id from its `product_type` path, or its title without the
 *   brand (src/products/search-features.ts CATEGORIES), by the immutable function product_category_key
 *   (substring rules, about 6-10 µs a row; regular expressions cost 5-300 µs);
 * - `features`: a tsvector of the fields that describe the product (title without the brand, category
 *   path, colour, material, pattern; never the description), compound garment words split, by
 *   product_features, with a GIN index; the query's text is matched against it alone;
 * - `idx_products_colour_cell` carries (category_key, gender, price, id) as INCLUDE columns, so the walk of the
 *   nearest colours applies the category, gender and price filters in the index (an index-only scan on
 *   a vacuumed table) instead of fetching every row it passes;
 * - `colour_cells.walk_point`: the cell centre with OKLab a and b doubled, so the walk orders cells by a
 *   distance in which hue and chroma count twice as much as lightness (pale and near-neutral tones keep
 *   their hue family: blush is nearer dusty pink than silver).
 * The functions are frozen copies of search-features.ts (a unit test compares them). Both columns are
 * generated, so every writer of `products` keeps them in step; a bulk import that computes them itself
 * calls the same functions.
 */
export class SearchFeatures1795700000000 implements MigrationInterface {
  name = 'SearchFeatures1795700000000';

  public async up(q: QueryRunner): Promise<void> {
    for (const fn of CATEGORY_KEY_FUNCTIONS) await q.query(fn);
    await q.query(FEATURES_FUNCTION);
    await q.query(`ALTER TABLE "products"
      ADD COLUMN "category_key" smallint GENERATED ALWAYS AS (${CATEGORY_KEY}) STORED,
      ADD COLUMN "features" tsvector NOT NULL GENERATED ALWAYS AS (${FEATURES}) STORED`);
    for (const [name, value] of [
      ['category_key', CATEGORY_KEY],
      ['features', FEATURES],
    ]) {
      await q.query(
        `INSERT INTO "typeorm_metadata" ("type", "database", "schema", "table", "name", "value")
         VALUES ('GENERATED_COLUMN', current_database(), current_schema(), 'products', $1, $2)`,
        [name, value],
      );
    }
    await q.query(`CREATE INDEX "idx_products_features" ON "products" USING GIN ("features")`);
    await q.query(`DROP INDEX "idx_products_colour_cell"`);
    await q.query(`CREATE INDEX "idx_products_colour_cell" ON "products" ("colour_cell", "colour_sample")
      INCLUDE ("category_key", "gender", "price", "id")`);
    await q.query(`CREATE FUNCTION colour_walk_point(centre cube) RETURNS cube
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN cube(ARRAY[cube_ll_coord(centre, 1), ${WALK_CHROMA_WEIGHT} * cube_ll_coord(centre, 2),
        ${WALK_CHROMA_WEIGHT} * cube_ll_coord(centre, 3)])`);
    await q.query(`ALTER TABLE "colour_cells"
      ADD COLUMN "walk_point" cube NOT NULL GENERATED ALWAYS AS (colour_walk_point("centre")) STORED`);
    await q.query(
      `INSERT INTO "typeorm_metadata" ("type", "database", "schema", "table", "name", "value")
       VALUES ('GENERATED_COLUMN', current_database(), current_schema(), 'colour_cells', 'walk_point', $1)`,
      [WALK_POINT],
    );
    await q.query(`CREATE INDEX "idx_colour_cells_walk" ON "colour_cells" USING gist ("walk_point")`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "idx_colour_cells_walk"`);
    await q.query(`ALTER TABLE "colour_cells" DROP COLUMN "walk_point"`);
    await q.query(`DROP FUNCTION colour_walk_point(cube)`);
    await q.query(`DROP INDEX "idx_products_colour_cell"`);
    await q.query(`CREATE INDEX "idx_products_colour_cell" ON "products" ("colour_cell", "colour_sample")`);
    await q.query(`DROP INDEX "idx_products_features"`);
    await q.query(`ALTER TABLE "products" DROP COLUMN "category_key", DROP COLUMN "features"`);
    await q.query(
      `DELETE FROM "typeorm_metadata" WHERE "type" = 'GENERATED_COLUMN' AND (("table" = 'products'
       AND "name" IN ('category_key', 'features')) OR ("table" = 'colour_cells' AND "name" = 'walk_point'))`,
    );
    await q.query(`DROP FUNCTION product_features(text, text, text, text, text, text)`);
    await q.query(`DROP FUNCTION product_category_key(text, text, text)`);
    await q.query(`DROP FUNCTION product_category_in(text)`);
  }
}

/** OKLab a and b count this many times lightness in the order of the colour walk. */
const WALK_CHROMA_WEIGHT = 2;

const CATEGORY_KEY = `product_category_key("category", "title", "designer")`;
const FEATURES = `product_features("title", "designer", "category", "colour", "material", "pattern")`;
const WALK_POINT = `colour_walk_point("centre")`;

/** Frozen copies of search-features.ts CATEGORY_KEY_FUNCTIONS. */
export const CATEGORY_KEY_FUNCTIONS = [
  `CREATE FUNCTION product_category_in(t text) RETURNS smallint LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE
    WHEN strpos(t, 'dress') > 0 OR strpos(t, 'gown') > 0 OR strpos(t, 'jumpsuit') > 0 OR strpos(t, 'playsuit') > 0 THEN 5
    WHEN strpos(t, 'skirt') > 0 THEN 6
    WHEN strpos(t, 'jean') > 0 THEN 8
    WHEN strpos(t, 'outerwear') > 0 OR strpos(t, 'coat') > 0 OR strpos(t, 'jacket') > 0 OR strpos(t, 'parka') > 0 OR strpos(t, 'anorak') > 0 OR strpos(t, 'trench') > 0 OR strpos(t, 'puffer') > 0 OR strpos(t, 'bomber') > 0 OR strpos(t, 'gilet') > 0 OR strpos(t, 'windbreaker') > 0 THEN 1
    WHEN strpos(t, 'knit') > 0 OR strpos(t, 'sweater') > 0 OR strpos(t, 'jumper') > 0 OR strpos(t, 'cardigan') > 0 OR strpos(t, 'pullover') > 0 OR strpos(t, 'hoodie') > 0 OR strpos(t, 'sweatshirt') > 0 THEN 2
    WHEN strpos(t, 't-shirt') > 0 OR strpos(t, 'tshirt') > 0 OR strpos(t, 'top') > 0 OR strpos(t, ' tee') > 0 OR strpos(t, 'tank') > 0 OR strpos(t, 'camisole') > 0 OR strpos(t, 'polo') > 0 OR strpos(t, 'bodysuit') > 0 OR strpos(t, 'vest') > 0 THEN 3
    WHEN strpos(t, 'shirt') > 0 OR strpos(t, 'blouse') > 0 THEN 4
    WHEN strpos(t, 'trouser') > 0 OR strpos(t, 'pant') > 0 OR strpos(t, 'chino') > 0 OR strpos(t, 'jogger') > 0 OR strpos(t, 'legging') > 0 OR strpos(t, 'shorts') > 0 OR strpos(t, 'culotte') > 0 THEN 7
    WHEN strpos(t, 'shoe') > 0 OR strpos(t, 'footwear') > 0 OR strpos(t, 'boot') > 0 OR strpos(t, 'sneaker') > 0 OR strpos(t, 'trainer') > 0 OR strpos(t, 'loafer') > 0 OR strpos(t, 'flats') > 0 OR strpos(t, 'sandal') > 0 OR strpos(t, 'heels') > 0 OR strpos(t, 'mule') > 0 OR strpos(t, 'espadrille') > 0 THEN 9
    WHEN strpos(t, 'bag') > 0 OR strpos(t, 'tote') > 0 OR strpos(t, 'clutch') > 0 OR strpos(t, 'backpack') > 0 OR strpos(t, 'wallet') > 0 OR strpos(t, 'purse') > 0 OR strpos(t, 'satchel') > 0 THEN 10
    WHEN strpos(t, 'accessor') > 0 OR strpos(t, 'scarf') > 0 OR strpos(t, 'scarves') > 0 OR strpos(t, 'shawl') > 0 OR strpos(t, 'beanie') > 0 OR strpos(t, ' hat') > 0 OR strpos(t, 'glove') > 0 OR strpos(t, 'mitten') > 0 OR strpos(t, 'belt') > 0 OR strpos(t, 'sunglass') > 0 OR strpos(t, 'jewel') > 0 THEN 11
  END;
END $$`,
  `CREATE FUNCTION product_category_key(category text, title text, designer text) RETURNS smallint
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN coalesce(product_category_in(replace(lower(coalesce(category, '')), 'apparel & accessories', '')),
    product_category_in(lower(CASE WHEN designer <> '' AND starts_with(title, designer) THEN substr(title, length(designer) + 1) ELSE title END)));
END $$`,
];

/** Frozen copy of search-features.ts FEATURES_FUNCTION. */
export const FEATURES_FUNCTION = `CREATE FUNCTION product_features(title text, designer text, category text, colour text,
  material text, pattern text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN to_tsvector('english'::regconfig, replace(replace(replace(replace(replace(replace(replace(lower(CASE WHEN designer <> '' AND starts_with(title, designer) THEN substr(title, length(designer) + 1) ELSE title END || ' ' || replace(lower(coalesce(category, '')), 'apparel & accessories', '') || ' '
    || coalesce(colour, '') || ' ' || coalesce(material, '') || ' ' || coalesce(pattern, '')), 'overcoat', 'overcoat coat'), 'peacoat', 'peacoat coat'), 'raincoat', 'raincoat coat'), 'topcoat', 'topcoat coat'), 'greatcoat', 'greatcoat coat'), 'overshirt', 'overshirt shirt'), 'handbag', 'handbag bag'))`;
