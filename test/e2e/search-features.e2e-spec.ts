import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source';
import { CATEGORIES, FEATURES_SQL, productCategory } from '../../src/products/search-features';

/**
 * The search features PostgreSQL computes (migration 1795700000000, docs/decisions/0028): the stored
 * `category_key` agrees with the TypeScript rules, `features` holds the describing fields with compounds
 * split and never the description, and `colour_cells.walk_point` weights hue and chroma.
 */
describe('search features (SQL, real PostgreSQL)', () => {
  let ds: DataSource;
  const prefix = `sf-${process.pid}`;
  const rows: { title: string; designer: string; category: string | null; description: string }[] = [
    {
      title: 'Black Sheep Studio Camel Overcoat',
      designer: 'Black Sheep Studio',
      category: 'Apparel & Accessories > Clothing > Outerwear > Coats',
      description: 'Pairs beautifully with black trousers.',
    },
    { title: 'Kestrel Navy Peacoat', designer: 'Kestrel', category: '5598', description: 'Warm.' },
    {
      title: 'Ostara Sage Polo Shirt',
      designer: 'Ostara',
      category: 'Apparel & Accessories > Clothing > Tops > T-Shirts',
      description: 'We love it under a camel coat.',
    },
    {
      title: 'Marlow Ecru Straight Jeans',
      designer: 'Marlow',
      category: 'Apparel & Accessories > Clothing > Pants > Jeans',
      description: 'Style it with a trench coat.',
    },
    {
      title: 'Coat Club Knit Dress',
      designer: 'Coat Club',
      category: null,
      description: 'A dress, not a coat.',
    },
    {
      title: 'Quiet Form Tote Bag',
      designer: 'Quiet Form',
      category: 'Apparel & Accessories > Handbags, Wallets & Cases > Handbags',
      description: 'Carries a coat.',
    },
    {
      title: 'Northfield Wool Scarf',
      designer: 'Northfield',
      category: 'Apparel & Accessories > Clothing Accessories > Scarves & Shawls',
      description: 'Goes with any coat.',
    },
    { title: 'Studio Arlo Thing', designer: 'Studio Arlo', category: null, description: 'Coat.' },
    { title: 'Fieldhouse Stone Trenchcoat', designer: 'Fieldhouse', category: null, description: 'Rain.' },
    {
      title: 'Savile Tailored Waistcoat',
      designer: 'Savile',
      category: 'Apparel > Tailoring',
      description: 'Under a coat.',
    },
  ];

  beforeAll(async () => {
    ds = new DataSource(dataSourceOptions(process.env.DATABASE_URL ?? ''));
    await ds.initialize();
    for (const [i, r] of rows.entries()) {
      // `features` is left to the trigger that fills it for writers other than the catalogue writer.
      await ds.query(
        `INSERT INTO products (external_id, title, designer, description, price, currency, url, media_url, gender,
           category, colour, colour_l, colour_a, colour_b)
         VALUES ($1, $2, $3, $4, 50, 'USD', 'https://shop.example/p', 'https://img.example/p.jpg', 'women', $5,
           'Camel', 0.7, 0.03, 0.08)`,
        [`${prefix}-${i}`, r.title, r.designer, r.description, r.category],
      );
    }
  });
  afterAll(async () => {
    await ds.query(`DELETE FROM products WHERE external_id LIKE $1`, [`${prefix}-%`]);
    await ds.destroy();
  });

  it('stores the category the TypeScript rules give, from the path first, then the title without the brand', async () => {
    const stored: { external_id: string; category_key: number | null }[] = await ds.query(
      `SELECT external_id, category_key FROM products WHERE external_id LIKE $1 ORDER BY external_id`,
      [`${prefix}-%`],
    );
    const names = stored.map((s) => (s.category_key === null ? null : CATEGORIES[s.category_key - 1]));
    expect(names).toEqual(rows.map((r) => productCategory(r)));
    expect(names).toEqual([
      'outerwear',
      'outerwear',
      'tops',
      'jeans',
      'dresses',
      'bags',
      'accessories',
      null,
      'outerwear',
      'tops',
    ]);
  });

  it('matches coat against the coats (compounds and category path) and never against a description', async () => {
    const matched: { external_id: string }[] = await ds.query(
      `SELECT external_id FROM products WHERE external_id LIKE $1
         AND features @@ to_tsquery('english', 'coat') ORDER BY external_id`,
      [`${prefix}-%`],
    );
    // A trenchcoat is a coat (compound split); a waistcoat is not.
    expect(matched.map((m) => m.external_id)).toEqual([`${prefix}-0`, `${prefix}-1`, `${prefix}-8`]);
    // The brand (`Black Sheep Studio`, `Coat Club`) is not a describing word either.
    const brand: unknown[] = await ds.query(
      `SELECT 1 FROM products WHERE external_id LIKE $1 AND features @@ to_tsquery('english', 'sheep | club')`,
      [`${prefix}-%`],
    );
    expect(brand).toHaveLength(0);
  });

  it('fills the features of a row written without them, and refreshes them when a describing field changes', async () => {
    const features = async (): Promise<{ given: boolean; coat: boolean; knit: boolean }> =>
      (
        await ds.query(
          `SELECT features = ${FEATURES_SQL} AS given, features @@ to_tsquery('english', 'coat') AS coat,
             features @@ to_tsquery('english', 'cardigan') AS knit FROM products WHERE external_id = $1`,
          [`${prefix}-0`],
        )
      )[0];
    expect(await features()).toEqual({ given: true, coat: true, knit: false });
    await ds.query(`UPDATE products SET title = 'Ribbed Cardigan', category = NULL WHERE external_id = $1`, [
      `${prefix}-0`,
    ]);
    expect(await features()).toEqual({ given: true, coat: false, knit: true });
    // A change of a field the features do not read leaves them as they are.
    await ds.query(`UPDATE products SET description = 'A coat.' WHERE external_id = $1`, [`${prefix}-0`]);
    expect(await features()).toEqual({ given: true, coat: false, knit: true });
  });

  it('gives every colour cell a walk point with a and b doubled', async () => {
    await ds.query(
      `INSERT INTO colour_cells (cell, centre) SELECT colour_cell, colour_cell_centre(colour_cell) FROM products
         WHERE external_id = $1 ON CONFLICT (cell) DO NOTHING`,
      [`${prefix}-0`],
    );
    const [cell]: { walk: string; centre: string }[] = await ds.query(
      `SELECT c.walk_point::text AS walk, c.centre::text AS centre FROM colour_cells c
         JOIN products p ON p.colour_cell = c.cell WHERE p.external_id = $1`,
      [`${prefix}-0`],
    );
    const [l, a, b] = cell.centre.replace(/[()]/g, '').split(',').map(Number);
    const [wl, wa, wb] = cell.walk.replace(/[()]/g, '').split(',').map(Number);
    expect(wl).toBeCloseTo(l, 9);
    expect(wa).toBeCloseTo(2 * a, 9);
    expect(wb).toBeCloseTo(2 * b, 9);
  });
});
