import { MigrationInterface, QueryRunner } from 'typeorm';
import {
  CATEGORY_KEY_FUNCTIONS as CATEGORY_KEY_FUNCTIONS_BEFORE,
  FEATURES_FUNCTION as FEATURES_FUNCTION_BEFORE,
} from './1795700000000-SearchFeatures';

/**
 * Garment words, second pass (docs/decisions/0056, addendum of the evening of 2026-11-27):
 * - `product_category_in` files a waistcoat under tops (a vest), before the `coat` substring filed it
 *   under outerwear: the demo catalogue's `Tailored Waistcoat`s answered `coat`;
 * - `product_features` splits `trenchcoat` into `trenchcoat trench coat`, as it splits `overcoat`, so a
 *   `Trenchcoat` is found by `trench coat`, `coat` and `trench`.
 * The rows either change are written again: their stored `category_key` (a generated column, computed
 * again by any UPDATE of the row) and their `features` (written by the catalogue writer).
 */
export class GarmentWordsSecondPass1796400000000 implements MigrationInterface {
  name = 'GarmentWordsSecondPass1796400000000';

  public async up(q: QueryRunner): Promise<void> {
    await replaceFunctions(q, CATEGORY_KEY_FUNCTIONS[0], FEATURES_FUNCTION);
    await rewriteRows(q);
  }

  public async down(q: QueryRunner): Promise<void> {
    await replaceFunctions(q, CATEGORY_KEY_FUNCTIONS_BEFORE[0], FEATURES_FUNCTION_BEFORE);
    await rewriteRows(q);
  }
}

async function replaceFunctions(q: QueryRunner, categoryIn: string, features: string): Promise<void> {
  for (const sql of [categoryIn, features])
    await q.query(sql.replace(/^CREATE FUNCTION/, 'CREATE OR REPLACE FUNCTION'));
}

/** The rows whose category or features the two words can change, computed again. */
async function rewriteRows(q: QueryRunner): Promise<void> {
  await q.query(`UPDATE "products" SET "title" = "title"
    WHERE strpos(lower("title"), 'waistcoat') > 0 OR strpos(lower(coalesce("category", '')), 'waistcoat') > 0`);
  await q.query(`UPDATE "products"
    SET "features" = product_features("title", "designer", "category", "colour", "material", "pattern")
    WHERE strpos(lower("title" || ' ' || coalesce("category", '') || ' ' || coalesce("colour", '') || ' '
      || coalesce("material", '') || ' ' || coalesce("pattern", '')), 'trenchcoat') > 0`);
}

/**
 * Frozen copies of search-features.ts CATEGORY_KEY_FUNCTIONS (a migration never changes with the code:
 * the drift test compares these with it). `product_category_key` is 1795700000000's, unchanged.
 */
export const CATEGORY_KEY_FUNCTIONS = [
  `CREATE FUNCTION product_category_in(t text) RETURNS smallint LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE
    WHEN strpos(t, 'dress') > 0 OR strpos(t, 'gown') > 0 OR strpos(t, 'jumpsuit') > 0 OR strpos(t, 'playsuit') > 0 THEN 5
    WHEN strpos(t, 'skirt') > 0 THEN 6
    WHEN strpos(t, 'jean') > 0 THEN 8
    WHEN strpos(t, 'waistcoat') > 0 THEN 3
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
  CATEGORY_KEY_FUNCTIONS_BEFORE[1],
];

/** Frozen copy of search-features.ts FEATURES_FUNCTION. */
export const FEATURES_FUNCTION = `CREATE FUNCTION product_features(title text, designer text, category text, colour text,
  material text, pattern text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN to_tsvector('english'::regconfig, replace(replace(replace(replace(replace(replace(replace(replace(lower(CASE WHEN designer <> '' AND starts_with(title, designer) THEN substr(title, length(designer) + 1) ELSE title END || ' ' || replace(lower(coalesce(category, '')), 'apparel & accessories', '') || ' '
    || coalesce(colour, '') || ' ' || coalesce(material, '') || ' ' || coalesce(pattern, '')), 'overcoat', 'overcoat coat'), 'peacoat', 'peacoat coat'), 'raincoat', 'raincoat coat'), 'topcoat', 'topcoat coat'), 'greatcoat', 'greatcoat coat'), 'trenchcoat', 'trenchcoat trench coat'), 'overshirt', 'overshirt shirt'), 'handbag', 'handbag bag'))`;
