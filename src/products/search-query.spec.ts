import { NO_AVOIDS, parseAvoids, parseShopperQuery, queryWords } from './search-query';
import {
  CategoryName,
  inQueryCategory,
  productCategory,
  queryCategory,
  splitCompounds,
  titleWithoutBrand,
} from './search-features';

describe('parseShopperQuery', () => {
  it('reads colour words as colours, not text, and the category word as a category', () => {
    const q = parseShopperQuery('Camel coat');
    expect(q.colours.map((c) => c.name)).toEqual(['camel']);
    expect(q.category).toBe('outerwear');
    expect(q.terms).toEqual(['coat']);
  });

  it('keeps a colour phrase whole and leaves fabric words to the text', () => {
    const q = parseShopperQuery('dusty pink linen shirt');
    expect(q.colours.map((c) => c.name)).toEqual(['dusty pink']);
    expect(q.terms).toEqual(['linen', 'shirt']);
    expect(q.category).toBe('shirts');
  });

  it('reads a word as a colour only when the fashion vocabulary names it, or a dataset name whole with the colour word after it', () => {
    // color-name-list names colours `Blazer`, `Oxford`, `Tank`, `Wedding`, `Classic`, `Trench`, `Boho`:
    // as colours these replaced the core's palette as the search's colour target.
    for (const text of [
      'blazer',
      'oxford shirt',
      'tank top',
      'wedding dress',
      'classic trench',
      'boho kimono',
    ])
      expect({ text, colours: parseShopperQuery(text).colours }).toEqual({ text, colours: [] });
    expect(parseShopperQuery('oxford shirt').terms).toEqual(['oxford', 'shirt']);
    const forest = parseShopperQuery('forest green coat');
    expect(forest.colours.map((c) => c.name)).toEqual(['forest green']);
    expect(forest.terms).toEqual(['coat']);
    const oxford = parseShopperQuery('oxford blue shirt');
    expect(oxford.colours.map((c) => c.name)).toEqual(['oxford blue']);
    expect(oxford.colours[0].oklab.l).toBeLessThan(parseShopperQuery('blue').colours[0].oklab.l);
    expect(parseShopperQuery('camel wool coat').colours.map((c) => c.name)).toEqual(['camel']);
    // A garment word before a colour stays the garment (`tank` names tops).
    expect(parseShopperQuery('tank black').colours.map((c) => c.name)).toEqual(['black']);
  });

  it('knows compounds and plurals of category words', () => {
    for (const word of ['coat', 'coats', 'overcoat', 'peacoat', 'trench', 'parka'])
      expect(queryCategory(word)).toBe('outerwear');
    expect(queryCategory('shirt dress')).toBe('dresses');
    expect(queryCategory('t-shirt')).toBe('tops');
    expect(queryCategory('laptop')).toBeNull();
  });

  // `dress shoes` and `dress trousers` returned dresses: the dresses rule comes first.
  it('reads `dress` before another garment as its kind, and after one as the garment', () => {
    expect(queryCategory('dress shoes')).toBe('shoes');
    expect(queryCategory('tan dress shoes')).toBe('shoes');
    expect(queryCategory('dress trousers')).toBe('trousers');
    expect(queryCategory('dress shirt')).toBe('shirts');
    expect(queryCategory('shirt dress')).toBe('dresses');
    expect(queryCategory('black dress')).toBe('dresses');
    expect(queryCategory('polo shirt')).toBe('tops');
    expect(parseShopperQuery('tan dress shoes').category).toBe('shoes');
  });

  // `white t shirt` found shirts (the `t` was dropped) and `white tshirt` trousers.
  it('reads the spellings of t-shirt as t-shirt', () => {
    for (const text of ['white t shirt', 'white tshirt', 'white T-Shirt', 'white t-shirts']) {
      const q = parseShopperQuery(text);
      expect({ text, category: q.category, colours: q.colours.map((c) => c.name) }).toEqual({
        text,
        category: 'tops',
        colours: ['white'],
      });
    }
    expect(queryWords('skirt shirt')).toEqual(['skirt', 'shirt']);
  });

  it('takes the last garment word as what the shopper wants', () => {
    expect(parseShopperQuery('navy knit cardigan').head).toBe('cardigan');
    expect(parseShopperQuery('tan dress shoes').head).toBe('shoes');
    expect(parseShopperQuery('linen shirt dress').head).toBe('dress');
    expect(parseShopperQuery('white t shirt').head).toBe('t-shirt');
    expect(parseShopperQuery('camel wool').head).toBeNull();
  });

  // `trenchcoat` named no category and matched only products spelled so; a waistcoat was outerwear.
  it('reads trenchcoat as trench coat, and a waistcoat as a top on both sides', () => {
    for (const text of ['stone trenchcoat', 'stone trench-coat', 'stone trench coat']) {
      const q = parseShopperQuery(text);
      expect({ text, category: q.category, terms: q.terms }).toEqual({
        text,
        category: 'outerwear',
        terms: ['trench', 'coat'],
      });
    }
    expect(queryCategory('waistcoat')).toBe('tops');
    expect(
      productCategory({ category: 'Apparel > Tailoring', title: 'Tailored Waistcoat', designer: '' }),
    ).toBe('tops');
    expect(productCategory({ category: null, title: 'Waistcoat Dress', designer: '' })).toBe('dresses');
    expect(productCategory({ category: null, title: 'Trenchcoat', designer: '' })).toBe('outerwear');
  });

  // `men's shirt` included women's shirts: the query's gender word was matched as text, or dropped.
  it('reads a gender the query names as a gender, not as a term', () => {
    expect(parseShopperQuery("men's shirt")).toMatchObject({
      gender: 'men',
      terms: ['shirt'],
      category: 'shirts',
    });
    expect(parseShopperQuery('womens navy coat')).toMatchObject({ gender: 'women', terms: ['coat'] });
    expect(parseShopperQuery("men's and women's scarves").gender).toBeNull();
    expect(parseShopperQuery('camel coat').gender).toBeNull();
  });

  it('is empty for an empty query and drops stop words', () => {
    expect(parseShopperQuery('  ')).toEqual({
      text: '',
      colours: [],
      category: null,
      terms: [],
      head: null,
      gender: null,
    });
    expect(queryWords('a coat for the winter')).toEqual(['coat', 'winter']);
  });
});

describe('inQueryCategory', () => {
  const product = (categoryName: CategoryName | null, title: string) => ({
    categoryName,
    title,
    designer: 'Brand',
  });

  it('takes a shirt or blouse filed under tops as a shirt, not a polo shirt or a t-shirt', () => {
    expect(inQueryCategory('shirts', product('shirts', 'Brand Linen Shirt'))).toBe(true);
    expect(inQueryCategory('shirts', product('tops', 'Brand White Oxford Shirt'))).toBe(true);
    expect(inQueryCategory('shirts', product('tops', 'Plum poplin blouse'))).toBe(true);
    expect(inQueryCategory('shirts', product('tops', 'Striped jersey polo shirt'))).toBe(false);
    expect(inQueryCategory('shirts', product('tops', 'Silk t-shirt'))).toBe(false);
    expect(inQueryCategory('shirts', product('dresses', 'Shirt dress'))).toBe(false);
    expect(inQueryCategory('shirts', product(null, 'Oxford shirt'))).toBe(false);
  });

  it('is the stored category for every other query category', () => {
    expect(inQueryCategory('outerwear', product('outerwear', 'Wool peacoat'))).toBe(true);
    expect(inQueryCategory('outerwear', product('knitwear', 'Knit coat'))).toBe(false);
    expect(inQueryCategory('tops', product('shirts', 'Brand Linen Shirt'))).toBe(false);
  });
});

describe('search features (TypeScript side)', () => {
  it('takes the category from the product_type path first, then the title without the brand', () => {
    const p = (category: string | null, title: string, designer = 'Brand') =>
      productCategory({ category, title, designer });
    expect(p('Apparel & Accessories > Clothing > Outerwear > Coats', 'Brand Peacoat')).toBe('outerwear');
    expect(p('Apparel & Accessories > Clothing > Tops > T-Shirts', 'Brand Polo Shirt')).toBe('tops');
    expect(p('Apparel & Accessories > Clothing > Pants > Jeans', 'Brand Straight Jeans')).toBe('jeans');
    expect(p('Apparel & Accessories > Handbags, Wallets & Cases > Handbags', 'Brand Tote')).toBe('bags');
    expect(p('Apparel & Accessories > Clothing Accessories > Scarves & Shawls', 'Brand Gloves')).toBe(
      'accessories',
    );
    expect(p('5598', 'Brand Knit Dress')).toBe('dresses');
    // A brand with a category word does not make the product that category.
    expect(p(null, 'Coat Club Slim Jeans', 'Coat Club')).toBe('jeans');
    expect(p(null, 'Brand Thing')).toBeNull();
  });

  it('splits compound garment words so the head word matches', () => {
    expect(splitCompounds('Camel Overcoat')).toBe('camel overcoat coat');
    expect(splitCompounds('peacoats and handbags')).toBe('peacoat coats and handbag bags');
    expect(splitCompounds('coat')).toBe('coat');
    expect(titleWithoutBrand('Black Sheep Studio Navy Coat', 'Black Sheep Studio')).toBe(' Navy Coat');
  });
});

describe('parseAvoids', () => {
  it('reads the profile writer\'s "Avoids ..." sentence', () => {
    const a = parseAvoids('A warm, light palette. Colours are muted. Avoids saturated brights and black.');
    expect(a.brights).toBe(true);
    expect(a.prints).toBe(false);
    expect(a.colours.map((c) => c.name)).toEqual(['black']);
  });

  it('reads prints, stripes and checks, and nothing from a profile that avoids nothing', () => {
    const a = parseAvoids('Steers clear of busy prints, stripes and plaid.');
    expect(a).toMatchObject({ prints: true, stripes: true, checks: true, brights: false });
    expect(parseAvoids('A cool palette built on navy and white. Prefers clean solids.')).toEqual(NO_AVOIDS);
  });
});

describe('search feature functions', () => {
  it('are the ones the migration created (frozen copies must not drift)', async () => {
    const migration = await import('../../migrations/1796400000000-GarmentWordsSecondPass');
    const features = await import('./search-features');
    expect(migration.CATEGORY_KEY_FUNCTIONS).toEqual(features.CATEGORY_KEY_FUNCTIONS);
    expect(migration.FEATURES_FUNCTION).toBe(features.FEATURES_FUNCTION);
  });
});
