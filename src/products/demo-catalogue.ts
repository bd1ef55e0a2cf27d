/**
 * A seeded, deterministic demo catalogue: realistic fashion rows in Google Merchant Center attributes,
 * so they go through exactly the importer's validation and upsert path. Pure: images are added by
 * DemoCatalogueService.
 */
import type { RawFeedRow } from './catalogue-feed';
import { seededRandom } from '../common/seeded-random';

export interface DemoCategory {
  key: string;
  productType: string;
  nouns: string[];
  materials: string[];
  price: [number, number];
  genders: ('female' | 'male' | 'unisex')[];
  silhouette: Silhouette;
}

export type Silhouette =
  'dress' | 'sweater' | 'jacket' | 'trousers' | 'coat' | 'shoe' | 'bag' | 'scarf' | 'tshirt' | 'skirt';

const ALL: DemoCategory['genders'] = ['female', 'female', 'male', 'unisex'];

export const DEMO_CATEGORIES: DemoCategory[] = [
  {
    key: 'dresses',
    productType: 'Apparel > Dresses',
    nouns: ['wrap dress', 'slip dress', 'shirt dress', 'midi dress', 'maxi dress'],
    materials: ['silk', 'cotton', 'linen', 'viscose', 'crepe'],
    price: [80, 450],
    genders: ['female'],
    silhouette: 'dress',
  },
  {
    key: 'knitwear',
    productType: 'Apparel > Knitwear',
    nouns: ['crewneck sweater', 'cardigan', 'turtleneck', 'cable-knit jumper', 'knitted vest'],
    materials: ['wool', 'cashmere', 'merino', 'cotton', 'alpaca'],
    price: [90, 600],
    genders: ALL,
    silhouette: 'sweater',
  },
  {
    key: 'tailoring',
    productType: 'Apparel > Tailoring',
    nouns: ['blazer', 'double-breasted jacket', 'suit jacket', 'tailored waistcoat'],
    materials: ['wool', 'linen', 'tweed', 'crepe'],
    price: [200, 1200],
    genders: ALL,
    silhouette: 'jacket',
  },
  {
    key: 'denim',
    productType: 'Apparel > Denim',
    nouns: ['straight jeans', 'wide-leg jeans', 'denim jacket', 'slim jeans'],
    materials: ['denim', 'organic cotton denim', 'stretch denim'],
    price: [80, 300],
    genders: ALL,
    silhouette: 'trousers',
  },
  {
    key: 'outerwear',
    productType: 'Apparel > Outerwear',
    nouns: ['trench coat', 'overcoat', 'puffer jacket', 'parka', 'peacoat'],
    materials: ['wool', 'cotton gabardine', 'nylon', 'cashmere', 'waxed cotton'],
    price: [200, 1500],
    genders: ALL,
    silhouette: 'coat',
  },
  {
    key: 'shoes',
    productType: 'Shoes',
    nouns: ['loafers', 'ankle boots', 'sneakers', 'sandals', 'ballet flats', 'derby shoes'],
    materials: ['leather', 'suede', 'canvas', 'patent leather'],
    price: [100, 800],
    genders: ALL,
    silhouette: 'shoe',
  },
  {
    key: 'bags',
    productType: 'Bags',
    nouns: ['tote bag', 'crossbody bag', 'shoulder bag', 'clutch', 'bucket bag'],
    materials: ['leather', 'canvas', 'suede', 'raffia'],
    price: [150, 2000],
    genders: ['female', 'female', 'unisex'],
    silhouette: 'bag',
  },
  {
    key: 'accessories',
    productType: 'Accessories',
    nouns: ['scarf', 'belt', 'beanie', 'bucket hat', 'gloves'],
    materials: ['silk', 'leather', 'wool', 'cotton', 'cashmere'],
    price: [30, 300],
    genders: ALL,
    silhouette: 'scarf',
  },
  {
    key: 'tops',
    productType: 'Apparel > Tops',
    nouns: ['t-shirt', 'blouse', 'oxford shirt', 'tank top', 'polo shirt'],
    materials: ['cotton', 'silk', 'linen', 'jersey', 'poplin'],
    price: [30, 250],
    genders: ALL,
    silhouette: 'tshirt',
  },
  {
    key: 'skirts',
    productType: 'Apparel > Skirts',
    nouns: ['midi skirt', 'pleated skirt', 'mini skirt', 'pencil skirt', 'slip skirt'],
    materials: ['wool', 'silk', 'cotton', 'leather', 'satin'],
    price: [60, 400],
    genders: ['female'],
    silhouette: 'skirt',
  },
  {
    key: 'trousers',
    productType: 'Apparel > Trousers',
    nouns: ['wide-leg trousers', 'chinos', 'cargo trousers', 'pleated trousers', 'drawstring trousers'],
    materials: ['wool', 'cotton', 'linen', 'corduroy'],
    price: [70, 450],
    genders: ALL,
    silhouette: 'trousers',
  },
];

/** Named like the taste engine's pattern kinds (`solid`, `striped`, `checked`, `print`). */
export const DEMO_PATTERNS = ['solid', 'striped', 'checked', 'floral print', 'polka dot print'] as const;
export type DemoPattern = (typeof DEMO_PATTERNS)[number];
/** Solid is the most common pattern, as in real catalogues. */
const PATTERN_WEIGHTS: Record<DemoPattern, number> = {
  solid: 0.6,
  striped: 0.12,
  checked: 0.1,
  'floral print': 0.1,
  'polka dot print': 0.08,
};

export const DEMO_STYLES = [
  'minimalist',
  'classic',
  'romantic',
  'bohemian',
  'edgy',
  'sporty',
  'preppy',
  'elegant',
  'relaxed',
  'tailored',
  'vintage',
  'modern',
  'feminine',
  'utilitarian',
  'casual',
  'streetwear',
  'timeless',
  'playful',
];

/** Fictional designers. */
export const DEMO_DESIGNERS = [
  'Maison Lune',
  'Atelier Nordvik',
  'Halden & Rowe',
  'Studio Ostra',
  'Verano Collective',
  'Cassia Moreau',
  'Lindqvist',
  'Orla Finch',
  'Brume Paris',
  'Tessaro',
  'Kestrel Row',
  'Ines Varga',
  'Quill & Loom',
  'Solenne',
  'Marlowe Field',
  'Aurelio Conti',
  'Fenwick Hale',
  'Saelo',
  'Ondine Studio',
  'Harrow Lane',
  'Petra Voss',
  'Calder & Wren',
  'Nuvola',
  'Ember Hollis',
  'Odile Marchand',
  'Tamsin Reed',
  'Vireo',
  'Kaito Mori',
  'Rosalind Grey',
  'Alder Works',
  'Sable Coast',
  'Juniper Vale',
];

export interface DemoColourInput {
  name: string;
}

export interface DemoProduct {
  row: RawFeedRow;
  /** The image look: category, colour and pattern (bounded set, shared by many products). */
  look: { category: DemoCategory; colour: string; pattern: DemoPattern };
}

function pick<T>(rnd: () => number, items: readonly T[]): T {
  return items[Math.floor(rnd() * items.length) % items.length];
}

function pickPattern(rnd: () => number): DemoPattern {
  let x = rnd();
  for (const p of DEMO_PATTERNS) {
    x -= PATTERN_WEIGHTS[p];
    if (x <= 0) return p;
  }
  return 'solid';
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function demoId(index: number): string {
  return `demo-${String(index).padStart(6, '0')}`;
}

/**
 * The `index`-th demo product (1-based): each product is seeded by its index, so product 17 is the
 * same whatever the count, and a larger `--count` extends the catalogue without changing the start.
 */
export function demoProduct(
  index: number,
  colours: readonly DemoColourInput[],
  idPrefix = 'demo',
): DemoProduct {
  const rnd = seededRandom(index * 2654435761);
  const category = pick(rnd, DEMO_CATEGORIES);
  const noun = pick(rnd, category.nouns);
  const material = pick(rnd, category.materials);
  const colour = pick(rnd, colours).name;
  const pattern = pickPattern(rnd);
  const designer = pick(rnd, DEMO_DESIGNERS);
  const gender = pick(rnd, category.genders);
  const styles = [pick(rnd, DEMO_STYLES), pick(rnd, DEMO_STYLES)].filter((s, i, a) => a.indexOf(s) === i);
  const [lo, hi] = category.price;
  const price = Math.round((lo + (hi - lo) * rnd() ** 1.6) / 5) * 5 - 0.01;
  const patternWord = pattern === 'solid' ? '' : `${pattern} `;
  const title = capitalise(`${colour} ${patternWord}${material} ${noun}`);
  const id = idPrefix === 'demo' ? demoId(index) : `${idPrefix}-${String(index).padStart(7, '0')}`;
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const description =
    `A ${styles.join(', ')} ${noun} by ${designer} in ${colour} ${material}` +
    `${pattern === 'solid' ? '' : ` with a ${pattern} pattern`}. ${capitalise(styles[0])} ${category.key} for every day.`;
  return {
    look: { category, colour, pattern },
    row: {
      id,
      title,
      description,
      brand: designer,
      price: `${price.toFixed(2)} USD`,
      link: `https://shop.example.com/products/${id}/${slug}`,
      affiliate_link: rnd() < 0.5 ? `https://go.example.net/aff?p=${id}` : '',
      image_link: '',
      additional_image_link: '',
      gender,
      color: colour,
      material,
      pattern,
      product_type: category.productType,
      availability: rnd() < 0.9 ? 'in_stock' : 'out_of_stock',
    },
  };
}

export function lookKey(look: DemoProduct['look']): string {
  return `${look.category.silhouette}|${look.colour}|${look.pattern}`;
}
