/**
 * The benchmark's own colour families: the ground truth of the realistic feed (bench/feed-generator.ts)
 * and of the photograph-like images (bench/photo-images.ts), and the judge of the engine's colour names
 * (`eval:taste`).
 *
 * Deliberately independent of the code under test: nothing here is imported from src/taste or
 * src/products. Centres are typical swatches chosen by hand (pairwise at least 0.05 apart in OKLab, a
 * test checks it); `shades` are the vendor shades a feed row or a photo may draw, each close to its centre;
 * `vendorNames` are the names a retailer writes in the `color` column; `accepted` are the names a stylist
 * would accept for the family when the engine names a photo's colour (the family's own names and common
 * synonyms, never a neighbouring family's: blush is not silver, grey is not taupe).
 */
import { converter } from 'culori';

export interface ColourFamily {
  /** The family's key (lower case, as printed in the evaluation tables). */
  key: string;
  /** The family's centre as hex. */
  centre: string;
  /** Hex shades drawn for feed rows and photographs (all near the centre). */
  shades: string[];
  /** Names written in a feed's `color` column for this family. */
  vendorNames: string[];
  /** Colour names (lower case) that correctly name this family, beyond its vendor names. */
  accepted: string[];
}

export const COLOUR_FAMILIES: readonly ColourFamily[] = [
  {
    key: 'black',
    centre: '#151515',
    shades: ['#151515', '#1b1b1d', '#101012'],
    vendorNames: ['Black', 'Jet Black', 'Onyx', 'Noir', 'Washed Black', 'Raven'],
    accepted: ['black', 'jet', 'ink black'],
  },
  {
    key: 'white',
    centre: '#f6f6f3',
    shades: ['#f6f6f3', '#fafaf8', '#f2f3f1'],
    vendorNames: ['White', 'Optic White', 'Chalk', 'Snow', 'Bright White'],
    accepted: ['white', 'off-white', 'off white'],
  },
  {
    key: 'cream',
    centre: '#f1e4c6',
    shades: ['#f1e4c6', '#f3e7cc', '#eee0bf'],
    vendorNames: ['Cream', 'Vanilla', 'Ivory', 'Buttercream', 'Winter White'],
    accepted: ['cream', 'ivory', 'vanilla'],
  },
  {
    key: 'ecru',
    centre: '#d9cba3',
    shades: ['#d9cba3', '#dccfa8', '#d5c79e'],
    vendorNames: ['Ecru', 'Natural', 'Unbleached', 'Raw Linen', 'Parchment'],
    accepted: ['ecru', 'natural', 'linen', 'beige'],
  },
  {
    key: 'oatmeal',
    centre: '#c9b9a0',
    shades: ['#c9b9a0', '#ccbda5', '#c5b59b'],
    vendorNames: ['Oatmeal', 'Oat', 'Oat Melange', 'Biscuit', 'Porridge'],
    accepted: ['oatmeal', 'oat', 'beige', 'sand'],
  },
  {
    key: 'stone',
    centre: '#b5aa92',
    shades: ['#b5aa92', '#b8ad95', '#b1a68e'],
    vendorNames: ['Stone', 'Pebble', 'Putty', 'Greige', 'Cement'],
    accepted: ['stone', 'greige', 'putty'],
  },
  {
    key: 'taupe',
    centre: '#86776a',
    shades: ['#86776a', '#8a7b6e', '#827264'],
    vendorNames: ['Taupe', 'Mushroom', 'Mink', 'Truffle', 'Fawn Grey'],
    accepted: ['taupe', 'mushroom', 'mink'],
  },
  {
    key: 'heather grey',
    centre: '#9d9d9f',
    shades: ['#9d9d9f', '#a2a2a4', '#97979a'],
    vendorNames: ['Heather Grey', 'Grey Marl', 'Grey Melange', 'Ash', 'Mid Grey', 'Grey'],
    accepted: ['grey', 'gray', 'light grey', 'light gray', 'heather grey', 'grey marl', 'ash'],
  },
  {
    key: 'charcoal',
    centre: '#3d3e42',
    shades: ['#3d3e42', '#414246', '#38393d'],
    vendorNames: ['Charcoal', 'Graphite', 'Anthracite', 'Dark Grey', 'Charcoal Marl'],
    accepted: ['charcoal', 'graphite', 'anthracite', 'dark grey', 'dark gray'],
  },
  {
    key: 'slate',
    centre: '#5d6877',
    shades: ['#5d6877', '#616c7b', '#596473'],
    vendorNames: ['Slate', 'Storm', 'Steel Blue', 'Slate Grey', 'Thunder'],
    accepted: ['slate', 'storm', 'steel', 'blue-grey', 'blue grey'],
  },
  {
    key: 'navy',
    centre: '#1d2642',
    shades: ['#1d2642', '#202a48', '#1a223c'],
    vendorNames: ['Navy', 'Midnight', 'Ink', 'Dark Navy', 'Marine'],
    accepted: ['navy', 'midnight', 'midnight blue', 'dark blue', 'ink'],
  },
  {
    key: 'cobalt',
    centre: '#2050be',
    shades: ['#2050be', '#2455c4', '#1c4ab4'],
    vendorNames: ['Cobalt', 'Royal Blue', 'Klein Blue', 'Electric Blue', 'Bright Blue'],
    accepted: ['cobalt', 'royal blue', 'blue', 'electric blue'],
  },
  {
    key: 'powder blue',
    centre: '#b5cde2',
    shades: ['#b5cde2', '#bad1e5', '#b0c8dd'],
    vendorNames: ['Powder Blue', 'Baby Blue', 'Ice Blue', 'Pale Blue', 'Sky'],
    accepted: ['powder blue', 'sky blue', 'baby blue', 'light blue', 'pale blue', 'ice blue'],
  },
  {
    key: 'teal',
    centre: '#1f6e77',
    shades: ['#1f6e77', '#22737c', '#1b6870'],
    vendorNames: ['Teal', 'Petrol', 'Deep Teal', 'Peacock', 'Lagoon'],
    accepted: ['teal', 'petrol', 'peacock'],
  },
  {
    key: 'mint',
    centre: '#a6dbbf',
    shades: ['#a6dbbf', '#abdfc3', '#a0d5b9'],
    vendorNames: ['Mint', 'Seafoam', 'Mint Green', 'Pistachio Cream', 'Spearmint'],
    accepted: ['mint', 'seafoam', 'mint green'],
  },
  {
    key: 'sage',
    centre: '#92ac7f',
    shades: ['#92ac7f', '#96b083', '#8da77a'],
    vendorNames: ['Sage', 'Eucalyptus', 'Sage Green', 'Laurel', 'Dusty Green'],
    accepted: ['sage', 'eucalyptus', 'sage green'],
  },
  {
    key: 'olive',
    centre: '#6a6a30',
    shades: ['#6a6a30', '#6e6e34', '#65652c'],
    vendorNames: ['Olive', 'Khaki Green', 'Moss', 'Army Green', 'Olive Drab'],
    accepted: ['olive', 'khaki', 'moss', 'army green'],
  },
  {
    key: 'mustard',
    centre: '#cf9f2b',
    shades: ['#cf9f2b', '#d3a430', '#ca9a26'],
    vendorNames: ['Mustard', 'Ochre', 'Turmeric', 'Honey', 'Golden Yellow'],
    accepted: ['mustard', 'ochre', 'turmeric'],
  },
  {
    key: 'camel',
    centre: '#be986a',
    shades: ['#be986a', '#c39d6f', '#b99365'],
    vendorNames: ['Camel', 'Caramel', 'Tan', 'Toffee', 'Vicuna'],
    accepted: ['camel', 'caramel', 'tan', 'toffee'],
  },
  {
    key: 'brown',
    centre: '#4b2d1e',
    shades: ['#4b2d1e', '#503122', '#46291b'],
    vendorNames: ['Chocolate', 'Espresso', 'Dark Brown', 'Coffee', 'Brown'],
    accepted: ['brown', 'chocolate', 'espresso', 'dark brown', 'coffee'],
  },
  {
    key: 'rust',
    centre: '#a74b27',
    shades: ['#a74b27', '#ac502b', '#a14623'],
    vendorNames: ['Rust', 'Burnt Orange', 'Terracotta', 'Copper', 'Paprika'],
    accepted: ['rust', 'burnt orange', 'terracotta', 'copper', 'cognac'],
  },
  {
    key: 'red',
    centre: '#c62130',
    shades: ['#c62130', '#cb2535', '#c01c2b'],
    vendorNames: ['Red', 'Scarlet', 'Cherry', 'Lipstick Red', 'Tomato'],
    accepted: ['red', 'scarlet', 'cherry'],
  },
  {
    key: 'burgundy',
    centre: '#6c1b2b',
    shades: ['#6c1b2b', '#711e2f', '#671827'],
    vendorNames: ['Burgundy', 'Oxblood', 'Wine', 'Bordeaux', 'Merlot'],
    accepted: ['burgundy', 'oxblood', 'wine', 'bordeaux', 'maroon', 'merlot'],
  },
  {
    key: 'blush',
    centre: '#eec2bf',
    shades: ['#eec2bf', '#f1c6c3', '#eabdba'],
    vendorNames: ['Blush', 'Rose Quartz', 'Ballet Pink', 'Pale Pink', 'Petal'],
    accepted: ['blush', 'rose quartz', 'pale pink', 'light pink', 'ballet pink'],
  },
  {
    key: 'dusty pink',
    centre: '#c58e93',
    shades: ['#c58e93', '#c99297', '#c0898e'],
    vendorNames: ['Dusty Pink', 'Dusty Rose', 'Old Rose', 'Antique Rose', 'Mauve Pink'],
    accepted: ['dusty pink', 'dusty rose', 'old rose', 'mauve', 'rose', 'pink'],
  },
  {
    key: 'lilac',
    centre: '#c2a5d7',
    shades: ['#c2a5d7', '#c6a9db', '#bda0d2'],
    vendorNames: ['Lilac', 'Lavender', 'Wisteria', 'Pale Lilac', 'Orchid Mist'],
    accepted: ['lilac', 'lavender', 'wisteria'],
  },
];

export const FAMILY_KEYS: readonly string[] = COLOUR_FAMILIES.map((f) => f.key);

const BY_KEY = new Map(COLOUR_FAMILIES.map((f) => [f.key, f]));

export function family(key: string): ColourFamily {
  const f = BY_KEY.get(key);
  if (!f) throw new Error(`unknown colour family ${key}`);
  return f;
}

const toOklab = converter('oklab');

export interface Lab {
  l: number;
  a: number;
  b: number;
}

export function oklab(hex: string): Lab {
  const c = toOklab(hex);
  if (!c) throw new Error(`bad colour ${hex}`);
  return { l: c.l, a: c.a, b: c.b };
}

export function labDistance(x: Lab, y: Lab): number {
  return Math.hypot(x.l - y.l, x.a - y.a, x.b - y.b);
}

const CENTRES = COLOUR_FAMILIES.map((f) => ({ key: f.key, lab: oklab(f.centre) }));

/** The family whose centre is nearest to `hex` in OKLab. */
export function nearestFamily(hex: string): string {
  const lab = oklab(hex);
  let best = CENTRES[0];
  for (const c of CENTRES) if (labDistance(lab, c.lab) < labDistance(lab, best.lab)) best = c;
  return best.key;
}

/** name (lower case) -> the families it correctly names. */
const NAME_TABLE = new Map<string, Set<string>>();
for (const f of COLOUR_FAMILIES) {
  for (const name of [...f.vendorNames.map((n) => n.toLowerCase()), ...f.accepted, f.key]) {
    const set = NAME_TABLE.get(name) ?? new Set<string>();
    set.add(f.key);
    NAME_TABLE.set(name, set);
  }
}

/**
 * How a colour name is judged: the families it names by this table, or, for a name the table does
 * not know, the family nearest to its swatch (`byHex` true, so the evaluation can show how often that
 * happened). Metallic names (silver, gold) name no fabric family and are always wrong.
 */
export function familiesNamedBy(name: string, hex: string): { families: string[]; byHex: boolean } {
  const key = name.trim().toLowerCase();
  if (key === 'silver' || key === 'gold') return { families: [], byHex: false };
  const known = NAME_TABLE.get(key);
  if (known) return { families: [...known], byHex: false };
  return { families: [nearestFamily(hex)], byHex: true };
}
