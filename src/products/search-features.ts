/**
 * Per-product search features (docs/decisions/0028-search-features-and-one-pass-ranking.md): the
 * category of a product from its `product_type` path (or, without one, its title), and the words that
 * describe it (title without the brand, category path, colour, material, pattern; never the marketing
 * description), with compound garment words split so that `coat` finds `overcoat` and `peacoat`.
 *
 * The same rules run in PostgreSQL (stored generated columns `category_key` and `features`, whose SQL is
 * built here from the rules) and in TypeScript (the query side), so a query word and a product field
 * meet in one vocabulary. The migration that created the columns holds a frozen copy of the SQL; the
 * schema drift test fails if the two differ.
 */

/** Top-level categories a shopper names. Ids are stored in `products.category_key` (smallint). */
export const CATEGORIES = [
  'outerwear',
  'knitwear',
  'tops',
  'shirts',
  'dresses',
  'skirts',
  'trousers',
  'jeans',
  'shoes',
  'bags',
  'accessories',
] as const;
export type CategoryName = (typeof CATEGORIES)[number];

/** The stored id of a category (1-based, in the order of CATEGORIES). */
export function categoryId(name: CategoryName): number {
  return CATEGORIES.indexOf(name) + 1;
}

/**
 * Words naming each category, tried in this order (the first match wins): a `Shirt Dress` is a dress,
 * a `Knit Vest` knitwear, `Tops > T-Shirts` tops, `Pants > Jeans` jeans. Alternatives of a regular
 * expression that both PostgreSQL (ARE) and JavaScript read alike: lower-case letters, `?`, `-`, groups.
 */
const CATEGORY_RULES: readonly [CategoryName, string][] = [
  ['dresses', 'dress|dresses|gowns?|jumpsuits?|playsuits?'],
  ['skirts', 'skirts?'],
  ['jeans', 'jeans'],
  [
    'outerwear',
    'outerwear|coats?|overcoats?|peacoats?|raincoats?|topcoats?|greatcoats?|trenchcoats?|jackets?|parkas?|anoraks?|trench|trenches|puffers?|bombers?|gilets?|windbreakers?',
  ],
  ['knitwear', 'knitwear|knits?|sweaters?|jumpers?|cardigans?|pullovers?|sweatshirts?|hoodies?'],
  ['tops', 'tops?|t-shirts?|tshirts?|tees?|tanks?|camisoles?|polos?|bodysuits?|vests?|waistcoats?'],
  ['shirts', 'shirts?|overshirts?|blouses?'],
  ['trousers', 'trousers|pants|chinos|joggers|leggings|shorts|culottes'],
  [
    'shoes',
    'shoes?|footwear|boots?|sneakers?|trainers?|loafers?|flats|sandals?|heels|mules?|pumps|espadrilles?|brogues?',
  ],
  ['bags', 'bags?|handbags?|totes?|clutch|clutches|backpacks?|wallets?|purses?|satchels?'],
  [
    'accessories',
    'accessories|scarf|scarves|shawls?|beanies?|hats?|caps?|gloves?|mittens?|belts?|sunglasses|jewellery|jewelry',
  ],
];

/**
 * The catalogue side of the same categories: substrings of the lower-cased `product_type` path (or title),
 * tried in this order. Substrings, not word patterns: PostgreSQL's regular expressions cost 5-300 µs a
 * row at import, `strpos` well under one (paths are structured, so `top` in `laptop` is not a risk there).
 */
const CATEGORY_SUBSTRINGS: readonly [CategoryName, string[]][] = [
  ['dresses', ['dress', 'gown', 'jumpsuit', 'playsuit']],
  ['skirts', ['skirt']],
  ['jeans', ['jean']],
  // A waistcoat is a vest, not a coat (the `coat` below would file it under outerwear).
  ['tops', ['waistcoat']],
  [
    'outerwear',
    ['outerwear', 'coat', 'jacket', 'parka', 'anorak', 'trench', 'puffer', 'bomber', 'gilet', 'windbreaker'],
  ],
  ['knitwear', ['knit', 'sweater', 'jumper', 'cardigan', 'pullover', 'hoodie', 'sweatshirt']],
  ['tops', ['t-shirt', 'tshirt', 'top', ' tee', 'tank', 'camisole', 'polo', 'bodysuit', 'vest']],
  ['shirts', ['shirt', 'blouse']],
  ['trousers', ['trouser', 'pant', 'chino', 'jogger', 'legging', 'shorts', 'culotte']],
  [
    'shoes',
    [
      'shoe',
      'footwear',
      'boot',
      'sneaker',
      'trainer',
      'loafer',
      'flats',
      'sandal',
      'heels',
      'mule',
      'espadrille',
    ],
  ],
  ['bags', ['bag', 'tote', 'clutch', 'backpack', 'wallet', 'purse', 'satchel']],
  [
    'accessories',
    [
      'accessor',
      'scarf',
      'scarves',
      'shawl',
      'beanie',
      ' hat',
      'glove',
      'mitten',
      'belt',
      'sunglass',
      'jewel',
    ],
  ],
];

/** Compound garment words and what they add, so `coat` finds `overcoat` (PostgreSQL `replace`, no regex). */
const COMPOUNDS: readonly [string, string][] = [
  ['overcoat', 'overcoat coat'],
  ['peacoat', 'peacoat coat'],
  ['raincoat', 'raincoat coat'],
  ['topcoat', 'topcoat coat'],
  ['greatcoat', 'greatcoat coat'],
  ['trenchcoat', 'trenchcoat trench coat'],
  ['overshirt', 'overshirt shirt'],
  ['handbag', 'handbag bag'],
];

/** The leading `Apparel & Accessories` of Merchant paths names no category (it would read as accessories). */
const PATH_ROOT = 'apparel & accessories';

const COMPOUND_SPLITS = new Map(COMPOUNDS);
const COMPOUND_RE = new RegExp(COMPOUNDS.map(([word]) => word).join('|'), 'g');
const JS_RULES = CATEGORY_RULES.map(
  ([name, words]) => [name, new RegExp(`(^|[^a-z-])(${words})($|[^a-z-])`)] as const,
);

function categoryIn(text: string): CategoryName | null {
  for (const [name, re] of JS_RULES) if (re.test(text)) return name;
  return null;
}

function categoryBySubstring(text: string): CategoryName | null {
  for (const [name, parts] of CATEGORY_SUBSTRINGS) if (parts.some((p) => text.includes(p))) return name;
  return null;
}

/** The title without a leading brand (`Black Sheep Studio Navy Coat` by `Black Sheep Studio`). */
export function titleWithoutBrand(title: string, designer: string): string {
  return designer !== '' && title.startsWith(designer) ? title.slice(designer.length) : title;
}

/**
 * The category of a product: from its `product_type` path when that names one, else from its title
 * (without the brand). The TypeScript twin of CATEGORY_KEY_SQL (an SQL test compares them).
 */
export function productCategory(p: {
  title: string;
  designer: string;
  category: string | null;
}): CategoryName | null {
  const path = (p.category ?? '').toLowerCase().replace(PATH_ROOT, '');
  return (
    categoryBySubstring(path) ?? categoryBySubstring(titleWithoutBrand(p.title, p.designer).toLowerCase())
  );
}

/**
 * The category a shopper's query names (its first by the rule order), or null. Whole words here (a
 * query is free text: `laptop` names no top), with the same categories as the catalogue side.
 */
export function queryCategory(query: string): CategoryName | null {
  const words = query.toLowerCase().split(/\s+/);
  // `dress` before another garment says what kind it is (`dress shoes`, `dress shirt`): the rule order
  // read them as dresses. After it, the other garment is the kind (`shirt dress` is a dress).
  const kept = words.filter((w, i) => {
    if (w !== 'dress' || i + 1 >= words.length) return true;
    const next = categoryIn(words.slice(i + 1).join(' '));
    return next === null || next === 'dresses';
  });
  return categoryIn(kept.join(' '));
}

/**
 * Query categories that taxonomies file under a broader one: Google's product taxonomy has one
 * `Shirts & Tops` category, and retailers' `product_type` paths often put shirts and blouses under
 * `Tops`, so such a product's stored category is `tops` while a shopper's `shirt` names `shirts`.
 */
const FILED_UNDER: Partial<Record<CategoryName, CategoryName>> = { shirts: 'tops' };

/**
 * Whether a product is in the category a query names: its stored category, or the broader one the
 * query's category is filed under when its title (without the brand) names the query's category by
 * the query's own rules (`Oxford Shirt` in `Apparel > Tops` is a shirt; `Polo Shirt` stays a top).
 */
export function inQueryCategory(
  query: CategoryName,
  product: { categoryName: CategoryName | null; title: string; designer: string },
): boolean {
  if (product.categoryName === query) return true;
  return (
    product.categoryName !== null &&
    FILED_UNDER[query] === product.categoryName &&
    categoryIn(titleWithoutBrand(product.title, product.designer).toLowerCase()) === query
  );
}

/** Text with each compound garment word followed by its head (see COMPOUNDS). */
export function splitCompounds(text: string): string {
  return text.toLowerCase().replace(COMPOUND_RE, (word) => COMPOUND_SPLITS.get(word) ?? word);
}

// ---- SQL (stored generated columns of `products`) ----

const TITLE_SQL = `CASE WHEN designer <> '' AND starts_with(title, designer) THEN substr(title, length(designer) + 1) ELSE title END`;

const CATEGORY_IN_SQL = CATEGORY_SUBSTRINGS.map(
  ([name, parts]) =>
    `    WHEN ${parts.map((p) => `strpos(t, '${p}') > 0`).join(' OR ')} THEN ${categoryId(name)}`,
).join('\n');

/**
 * `product_category_in(t)`: the category id a lower-cased text names (CATEGORY_SUBSTRINGS), and
 * `product_category_key(category, title, designer)`: the id of productCategory(), NULL when neither the
 * path nor the title names one. Immutable (PL/pgSQL evaluates the CASE once per call: about 2-10 µs a row),
 * so a generated column or a bulk UPDATE can use them.
 */
export const CATEGORY_KEY_FUNCTIONS = [
  `CREATE FUNCTION product_category_in(t text) RETURNS smallint LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE
${CATEGORY_IN_SQL}
  END;
END $$`,
  `CREATE FUNCTION product_category_key(category text, title text, designer text) RETURNS smallint
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN coalesce(product_category_in(replace(lower(coalesce(category, '')), '${PATH_ROOT}', '')),
    product_category_in(lower(${TITLE_SQL})));
END $$`,
];

const COMPOUNDS_SQL = COMPOUNDS.reduce((sql, [word, split]) => `replace(${sql}, '${word}', '${split}')`, 'x');

/**
 * `product_features(title, designer, category, colour, material, pattern)`: the words that describe the
 * product (title without the brand, category path, colour, material, pattern), compounds split, as an
 * English tsvector. The description is left out: its prose names other garments and colours ("we love
 * it under a camel coat"), and its length would set the cost.
 */
export const FEATURES_FUNCTION = `CREATE FUNCTION product_features(title text, designer text, category text, colour text,
  material text, pattern text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN to_tsvector('english'::regconfig, ${COMPOUNDS_SQL.replace(
    'x',
    `lower(${TITLE_SQL} || ' ' || replace(lower(coalesce(category, '')), '${PATH_ROOT}', '') || ' '
    || coalesce(colour, '') || ' ' || coalesce(material, '') || ' ' || coalesce(pattern, ''))`,
  )})`;

/** Expression of the stored generated column `category_key`. */
export const CATEGORY_KEY_SQL = `product_category_key("category", "title", "designer")`;
/** Expression of the stored generated column `features` (GIN index `idx_products_features`). */
export const FEATURES_SQL = `product_features("title", "designer", "category", "colour", "material", "pattern")`;
