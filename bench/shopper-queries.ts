/**
 * Shopper queries for `npm run eval:search` and what each one asks for, judged on the feed generator's
 * truth (the garment, material and colour family it drew), never on the service's own category or
 * colour code. The judgements are a shopper's reading of the generator's vocabulary
 * (bench/feed-generator.ts): `sweater` and `jumper` are the same garment and a cardigan is neither;
 * `pants` are trousers or jeans (the feed files jeans under `Pants`); `shirt` is a button or polo shirt,
 * not a T-shirt, a blouse or a shirt dress; `grey` is heather grey, charcoal or slate; `blue` is navy,
 * cobalt or powder blue; `pink` is blush or dusty pink. A query is judged on its top ten: fewer than ten
 * results count as misses.
 */
import type { RowTruth } from './feed-generator';

export type QueryKind =
  'garment' | 'colour + garment' | 'material + garment' | 'pattern + garment' | 'gender + garment';

export interface JudgedQuery {
  query: string;
  kind: QueryKind;
  /** Whether a product answers the query, from the generator's truth. */
  relevant: (t: RowTruth) => boolean;
}

/** Products whose truth `field` is one of `values`. */
const oneOf =
  (field: 'noun' | 'category' | 'family' | 'material' | 'pattern' | 'gender') =>
  (...values: string[]) =>
  (t: RowTruth): boolean =>
    values.includes(t[field]);
const nouns = oneOf('noun');
const category = oneOf('category');
const family = oneOf('family');
const material = oneOf('material');
const pattern = oneOf('pattern');
const gender = oneOf('gender');
const both =
  (...tests: ((t: RowTruth) => boolean)[]) =>
  (t: RowTruth): boolean =>
    tests.every((f) => f(t));

const SWEATERS = nouns('Crew Neck Sweater', 'Roll Neck Jumper', 'Cable Knit Sweater');
const TEES = nouns('Crew Neck T-Shirt', 'Long Sleeve Tee', 'Boxy Tee');
const SHIRTS = nouns('Oxford Shirt', 'Linen Shirt', 'Poplin Shirt', 'Overshirt', 'Polo Shirt');
const JACKETS = nouns('Bomber Jacket', 'Puffer Jacket', 'Field Jacket', 'Rain Jacket', 'Parka');
const COATS = nouns(
  'Wool Coat',
  'Overcoat',
  'Peacoat',
  'Wrap Coat',
  'Car Coat',
  'Duffle Coat',
  'Trench Coat',
);
const BOOTS = nouns('Chelsea Boots', 'Ankle Boots');
const SNEAKERS = nouns('Leather Sneakers');
const SCARVES = nouns('Scarf', 'Wool Scarf', 'Silk Scarf');
const GREYS = family('heather grey', 'charcoal', 'slate');
const BLUES = family('navy', 'cobalt', 'powder blue');
const PINKS = family('blush', 'dusty pink');

const garment = (query: string, relevant: (t: RowTruth) => boolean): JudgedQuery => ({
  query,
  kind: 'garment',
  relevant,
});

export const SHOPPER_QUERIES: readonly JudgedQuery[] = [
  garment('jacket', JACKETS),
  garment('sweater', SWEATERS),
  garment('jumper', SWEATERS),
  garment('cardigan', nouns('Cardigan')),
  garment('t-shirt', TEES),
  garment('tee', TEES),
  garment('shirt', SHIRTS),
  garment('blouse', nouns('Silk Blouse')),
  garment('dress', category('dresses')),
  garment('skirt', category('skirts')),
  garment('trousers', category('trousers')),
  garment('pants', category('trousers', 'jeans')),
  garment('jeans', category('jeans')),
  garment('boots', BOOTS),
  garment('sneakers', SNEAKERS),
  garment('trainers', SNEAKERS),
  garment('loafers', nouns('Loafers')),
  garment('bag', category('bags')),
  garment('handbag', category('bags')),
  garment('scarf', SCARVES),
  garment('beanie', nouns('Beanie')),
  garment('chelsea boots', nouns('Chelsea Boots')),
  garment('ankle boots', nouns('Ankle Boots')),
  garment('bomber jacket', nouns('Bomber Jacket')),
  garment('puffer jacket', nouns('Puffer Jacket')),
  garment('trench coat', nouns('Trench Coat')),
  garment('midi dress', nouns('Midi Dress')),
  garment('wide leg trousers', nouns('Wide Leg Trousers')),
  garment('crossbody bag', nouns('Crossbody Bag')),
  garment('cable knit', nouns('Cable Knit Sweater')),
  garment('roll neck', nouns('Roll Neck Jumper')),
  { query: 'red dress', kind: 'colour + garment', relevant: both(category('dresses'), family('red')) },
  { query: 'navy coat', kind: 'colour + garment', relevant: both(COATS, family('navy')) },
  { query: 'camel coat', kind: 'colour + garment', relevant: both(COATS, family('camel')) },
  { query: 'black boots', kind: 'colour + garment', relevant: both(BOOTS, family('black')) },
  {
    query: 'olive trousers',
    kind: 'colour + garment',
    relevant: both(category('trousers'), family('olive')),
  },
  { query: 'grey sweater', kind: 'colour + garment', relevant: both(SWEATERS, GREYS) },
  { query: 'white shirt', kind: 'colour + garment', relevant: both(SHIRTS, family('white')) },
  { query: 'cream cardigan', kind: 'colour + garment', relevant: both(nouns('Cardigan'), family('cream')) },
  { query: 'blue jeans', kind: 'colour + garment', relevant: both(category('jeans'), BLUES) },
  { query: 'pink blouse', kind: 'colour + garment', relevant: both(nouns('Silk Blouse'), PINKS) },
  {
    query: 'burgundy skirt',
    kind: 'colour + garment',
    relevant: both(category('skirts'), family('burgundy')),
  },
  {
    query: 'leather boots',
    kind: 'material + garment',
    relevant: both(BOOTS, material('Leather', 'Recycled Leather')),
  },
  { query: 'cashmere sweater', kind: 'material + garment', relevant: both(SWEATERS, material('Cashmere')) },
  { query: 'silk dress', kind: 'material + garment', relevant: both(category('dresses'), material('Silk')) },
  {
    query: 'linen shirt',
    kind: 'material + garment',
    // A `Linen Shirt` is one whatever material the generator drew beside it.
    relevant: (t) => SHIRTS(t) && (t.material === 'Linen' || t.noun === 'Linen Shirt'),
  },
  { query: 'suede loafers', kind: 'material + garment', relevant: both(nouns('Loafers'), material('Suede')) },
  {
    query: 'wool coat',
    kind: 'material + garment',
    // A `Wool Coat` is one whatever blend the generator drew beside it.
    relevant: (t) => COATS(t) && (t.material.includes('Wool') || t.noun === 'Wool Coat'),
  },
  {
    query: 'corduroy trousers',
    kind: 'material + garment',
    relevant: both(category('trousers'), material('Corduroy')),
  },
  {
    query: 'silk scarf',
    kind: 'material + garment',
    relevant: (t) => SCARVES(t) && (t.material === 'Silk' || t.noun === 'Silk Scarf'),
  },
  { query: 'striped shirt', kind: 'pattern + garment', relevant: both(SHIRTS, pattern('Striped')) },
  {
    query: 'floral dress',
    kind: 'pattern + garment',
    relevant: both(category('dresses'), pattern('Floral')),
  },
  { query: 'herringbone coat', kind: 'pattern + garment', relevant: both(COATS, pattern('Herringbone')) },
  { query: "men's coat", kind: 'gender + garment', relevant: both(COATS, gender('male', 'unisex')) },
  {
    query: 'womens jeans',
    kind: 'gender + garment',
    relevant: both(category('jeans'), gender('female', 'unisex')),
  },
  {
    query: 'black leather boots',
    kind: 'material + garment',
    relevant: both(BOOTS, material('Leather', 'Recycled Leather'), family('black')),
  },
  {
    query: 'navy knit dress',
    kind: 'material + garment',
    relevant: both(nouns('Knit Dress'), family('navy')),
  },
];
