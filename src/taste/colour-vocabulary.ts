import { converter, differenceCiede2000, formatHex } from 'culori';

/**
 * The fashion colour vocabulary shared by the taste engine (naming palette clusters) and the
 * catalogue (mapping feed colour words to OKLab). Names are those a stylist or a product feed uses;
 * hex values are typical swatches. Distances are CIEDE2000, so names follow perception.
 */
export type ColourFamily =
  'neutral' | 'brown' | 'blue' | 'green' | 'red' | 'pink' | 'purple' | 'yellow' | 'orange' | 'metallic';

export interface Oklab {
  l: number;
  a: number;
  b: number;
}

export interface VocabularyColour {
  name: string;
  hex: string;
  oklab: Oklab;
  family: ColourFamily;
}

const SWATCHES: readonly [string, string, ColourFamily][] = [
  ['white', '#f7f7f5', 'neutral'],
  ['ivory', '#f3ecd8', 'neutral'],
  ['cream', '#efe3c8', 'neutral'],
  ['beige', '#d9c7a7', 'neutral'],
  ['stone', '#b9ae9c', 'neutral'],
  ['taupe', '#8b7d6f', 'neutral'],
  ['light grey', '#c8c8c8', 'neutral'],
  ['grey', '#8e8e8e', 'neutral'],
  ['charcoal', '#3c3d40', 'neutral'],
  ['black', '#141414', 'neutral'],
  ['camel', '#c19a6b', 'brown'],
  ['tan', '#b58a5a', 'brown'],
  ['cognac', '#9a4e1e', 'brown'],
  ['brown', '#6f4a2f', 'brown'],
  ['chocolate', '#4a2c1d', 'brown'],
  ['khaki', '#a89f6c', 'green'],
  ['olive', '#6b6b2f', 'green'],
  ['sage', '#9caf88', 'green'],
  ['mint', '#a8dcc0', 'green'],
  ['emerald', '#1f8a5b', 'green'],
  ['forest green', '#234d32', 'green'],
  ['teal', '#1f6f78', 'blue'],
  ['sky blue', '#8fc1e3', 'blue'],
  ['powder blue', '#b8cfe0', 'blue'],
  ['denim', '#4f6f94', 'blue'],
  ['cobalt', '#1f4fbf', 'blue'],
  ['royal blue', '#2a3fa0', 'blue'],
  ['navy', '#1c2541', 'blue'],
  ['lilac', '#c3a6d8', 'purple'],
  ['lavender', '#a99ad6', 'purple'],
  ['purple', '#6a3d9a', 'purple'],
  ['plum', '#5b2a4e', 'purple'],
  ['burgundy', '#6d1a2a', 'red'],
  ['wine', '#7b2d3b', 'red'],
  ['red', '#c8202f', 'red'],
  ['scarlet', '#ee1c1c', 'red'],
  ['coral', '#f07a63', 'orange'],
  ['blush', '#efc3c0', 'pink'],
  ['pink', '#e48aa8', 'pink'],
  ['fuchsia', '#c8237a', 'pink'],
  ['rust', '#a84b26', 'orange'],
  ['terracotta', '#c2603f', 'orange'],
  ['orange', '#e8772e', 'orange'],
  ['mustard', '#d1a12a', 'yellow'],
  ['yellow', '#f2d43d', 'yellow'],
  ['lemon', '#f5ec8f', 'yellow'],
  ['gold', '#c9a44c', 'metallic'],
  ['silver', '#b8bcc2', 'metallic'],
];

const toOklab = converter('oklab');

function oklabOf(hex: string): Oklab {
  const c = toOklab(hex);
  if (!c) throw new Error(`bad swatch ${hex}`);
  return { l: c.l, a: c.a, b: c.b };
}

export const VOCABULARY_COLOURS: readonly VocabularyColour[] = SWATCHES.map(([name, hex, family]) => ({
  name,
  hex,
  oklab: oklabOf(hex),
  family,
}));

const BY_NAME = new Map(VOCABULARY_COLOURS.map((c) => [c.name, c]));
/** Feed spellings and near-synonyms mapped to vocabulary names. */
const ALIASES: Record<string, string> = {
  gray: 'grey',
  'light gray': 'light grey',
  'off-white': 'ivory',
  'off white': 'ivory',
  ecru: 'cream',
  'dark blue': 'navy',
  'midnight blue': 'navy',
  blue: 'cobalt',
  green: 'emerald',
  maroon: 'burgundy',
  oxblood: 'burgundy',
  bordeaux: 'burgundy',
  caramel: 'camel',
  'dark brown': 'chocolate',
  'burnt orange': 'rust',
  'dusty pink': 'blush',
  'pale pink': 'blush',
  violet: 'purple',
  magenta: 'fuchsia',
  nude: 'beige',
  sand: 'beige',
  multi: 'grey',
};

export function colourByName(name: string): VocabularyColour | undefined {
  const key = name.trim().toLowerCase();
  return BY_NAME.get(key) ?? BY_NAME.get(ALIASES[key] ?? '');
}

export function colourFamily(name: string): ColourFamily | undefined {
  return colourByName(name)?.family;
}

const ciede = differenceCiede2000();

/** The perceptually nearest vocabulary colour (CIEDE2000) and its distance. */
export function nameColour(oklab: Oklab): VocabularyColour & { distance: number } {
  const probe = { mode: 'oklab' as const, ...oklab };
  let best = VOCABULARY_COLOURS[0];
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const colour of VOCABULARY_COLOURS) {
    const d = ciede(probe, { mode: 'oklab', ...colour.oklab });
    if (d < bestDistance) {
      bestDistance = d;
      best = colour;
    }
  }
  return { ...best, distance: bestDistance };
}

export function oklabToHex(oklab: Oklab): string {
  return formatHex({ mode: 'oklab', ...oklab }) ?? '#000000';
}
