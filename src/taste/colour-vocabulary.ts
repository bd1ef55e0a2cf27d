import { converter, formatHex } from 'culori';

/**
 * The fashion colour vocabulary shared by the taste engine (naming palette clusters) and the
 * catalogue (mapping feed colour words to OKLab, src/products/product-colour.ts). Names are those a
 * stylist or a retailer uses; hex values are typical swatches; `synonyms` are the retail names a feed
 * writes for the same colour (`Oat`, `Putty`, `Storm`, `Petrol`). Names the vocabulary does not know
 * are resolved through the `color-name-list` dataset (src/taste/colour-names.ts).
 *
 * Colours are compared with `colourDistance`: OKLab with lightness down-weighted (light and shade
 * move lightness far more than hue) and chroma differences boosted for pale and near-neutral tones, so
 * they keep their hue family (blush is not silver, grey is not taupe, powder blue is not grey).
 * docs/decisions/0030-colour-model.md explains the weights.
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

type Swatch = readonly [name: string, hex: string, family: ColourFamily, synonyms?: readonly string[]];

const SWATCHES: readonly Swatch[] = [
  ['white', '#f7f7f5', 'neutral', ['optic white', 'bright white', 'pure white', 'chalk', 'snow']],
  ['ivory', '#f3ecd8', 'neutral', ['off-white', 'off white', 'eggshell', 'bone']],
  ['cream', '#efe3c8', 'neutral', ['vanilla', 'buttercream', 'winter white', 'butter']],
  ['ecru', '#ddd1b0', 'neutral', ['natural', 'unbleached', 'raw linen', 'linen', 'parchment', 'undyed']],
  ['beige', '#d9c7a7', 'neutral', ['nude', 'sand']],
  ['oatmeal', '#cbbda3', 'neutral', ['oat', 'oats', 'biscuit', 'porridge']],
  // stone at the lightness the color-name-list dataset gives stone and its synonyms (median OKLab L
  // 0.729: Stone 0.721, Greige 0.736, Cement 0.712), with the hand-picked swatch's hue (ADR 0064)
  ['stone', '#b1a695', 'neutral', ['putty', 'greige', 'pebble', 'cement', 'sandstone']],
  ['taupe', '#8b7d6f', 'neutral', ['mushroom', 'mink', 'truffle', 'mole']],
  ['light grey', '#c8c8c8', 'neutral', ['light gray', 'pale grey', 'pale gray', 'dove grey', 'dove']],
  ['heather grey', '#a0a0a0', 'neutral', ['heather gray', 'grey marl', 'grey melange', 'ash', 'ash grey']],
  ['grey', '#8e8e8e', 'neutral', ['gray', 'mid grey', 'mid gray', 'medium grey']],
  ['charcoal', '#3c3d40', 'neutral', ['graphite', 'anthracite', 'dark grey', 'dark gray', 'gunmetal']],
  ['black', '#141414', 'neutral', ['jet black', 'jet', 'onyx', 'noir', 'ink black']],
  ['camel', '#c19a6b', 'brown', ['caramel', 'toffee', 'vicuna']],
  ['tan', '#b58a5a', 'brown'],
  ['cognac', '#9a4e1e', 'brown'],
  ['brown', '#6f4a2f', 'brown', ['coffee', 'mocha']],
  ['chocolate', '#4a2c1d', 'brown', ['dark brown', 'espresso']],
  ['khaki', '#a89f6c', 'green'],
  ['olive', '#6b6b2f', 'green', ['olive green', 'army green', 'khaki green', 'olive drab', 'moss']],
  ['sage', '#9caf88', 'green', ['sage green', 'eucalyptus', 'dusty green']],
  ['mint', '#a8dcc0', 'green', ['mint green', 'seafoam']],
  ['emerald', '#1f8a5b', 'green', ['green']],
  ['forest green', '#234d32', 'green', ['bottle green', 'dark green', 'hunter green']],
  ['teal', '#1f6f78', 'blue', ['petrol', 'deep teal', 'peacock', 'teal blue']],
  ['sky blue', '#8fc1e3', 'blue', ['sky']],
  ['powder blue', '#b8cfe0', 'blue', ['baby blue', 'ice blue', 'pale blue', 'light blue']],
  ['slate', '#60697a', 'blue', ['slate grey', 'slate gray', 'slate blue', 'storm', 'storm grey', 'steel']],
  ['denim', '#4f6f94', 'blue', ['mid blue', 'indigo']],
  ['cobalt', '#1f4fbf', 'blue', ['klein blue', 'electric blue', 'bright blue', 'blue']],
  ['royal blue', '#2a3fa0', 'blue'],
  ['navy', '#1c2541', 'blue', ['navy blue', 'dark navy', 'midnight', 'midnight blue', 'dark blue', 'ink']],
  ['lilac', '#c3a6d8', 'purple', ['wisteria', 'pale lilac']],
  ['lavender', '#a99ad6', 'purple'],
  ['purple', '#6a3d9a', 'purple', ['violet']],
  ['plum', '#5b2a4e', 'purple', ['aubergine']],
  ['burgundy', '#6d1a2a', 'red', ['maroon', 'oxblood', 'bordeaux', 'merlot']],
  ['wine', '#7b2d3b', 'red'],
  ['red', '#c8202f', 'red', ['cherry', 'cherry red', 'lipstick red']],
  ['scarlet', '#ee1c1c', 'red'],
  ['coral', '#f07a63', 'orange'],
  ['blush', '#efc3c0', 'pink', ['blush pink', 'pale pink', 'light pink', 'ballet pink', 'powder pink']],
  ['dusty pink', '#cc969b', 'pink', ['dusty rose', 'old rose', 'antique rose', 'rose', 'mauve pink']],
  ['pink', '#e48aa8', 'pink'],
  ['fuchsia', '#c8237a', 'pink', ['magenta', 'hot pink']],
  ['rust', '#a84b26', 'orange', ['burnt orange', 'copper']],
  ['terracotta', '#c2603f', 'orange'],
  ['orange', '#e8772e', 'orange'],
  ['mustard', '#d1a12a', 'yellow', ['ochre']],
  ['yellow', '#f2d43d', 'yellow'],
  ['lemon', '#f5ec8f', 'yellow'],
  ['gold', '#c9a44c', 'metallic'],
  ['silver', '#b8bcc2', 'metallic'],
];

const toOklab = converter('oklab');

/** OKLab of a hex colour (throws on a malformed one). */
export function oklabOf(hex: string): Oklab {
  const c = toOklab(hex);
  if (!c) throw new Error(`bad colour ${hex}`);
  return { l: c.l, a: c.a, b: c.b };
}

export const VOCABULARY_COLOURS: readonly VocabularyColour[] = SWATCHES.map(([name, hex, family]) => ({
  name,
  hex,
  oklab: oklabOf(hex),
  family,
}));

/** Colours a photograph's cluster may be named: metallics have no flat colour and never name fabric. */
const NAMEABLE_COLOURS = VOCABULARY_COLOURS.filter((c) => c.family !== 'metallic');

const BY_NAME = new Map(VOCABULARY_COLOURS.map((c) => [c.name, c]));
/** Retail names and spellings, lower case, mapped to vocabulary names. */
const SYNONYMS = new Map<string, string>(
  SWATCHES.flatMap(([name, , , synonyms]) => (synonyms ?? []).map((s): [string, string] => [s, name])),
);

/** The vocabulary colour a name or synonym stands for (case-insensitive), or undefined. */
export function colourByName(name: string): VocabularyColour | undefined {
  const key = name.trim().toLowerCase();
  return BY_NAME.get(key) ?? BY_NAME.get(SYNONYMS.get(key) ?? '');
}

export function colourFamily(name: string): ColourFamily | undefined {
  return colourByName(name)?.family;
}

export function chroma(o: Oklab): number {
  return Math.sqrt(o.a * o.a + o.b * o.b);
}

/** Weights of `colourDistance` (docs/decisions/0030-colour-model.md). */
export const COLOUR_METRIC = {
  /** Lightness counts this much of a chroma-plane difference: light and shade move it most. */
  lightnessWeight: 0.75,
  /** Chroma-plane differences between near-neutral colours are boosted up to 1 + this... */
  neutralBoost: 1.4,
  /** ...fading out as the pair's mean chroma reaches this. */
  neutralChroma: 0.1,
} as const;

/**
 * Perceptual distance for naming and matching: OKLab with lightness weighted down and, between pale
 * or near-neutral colours, hue and chroma weighted up (a chroma gap of 0.03 separates blush from
 * silver as clearly as 0.07 separates two vivid colours).
 */
export function colourDistance(x: Oklab, y: Oklab): number {
  const m = COLOUR_METRIC;
  const meanChroma = (chroma(x) + chroma(y)) / 2;
  const boost = 1 + m.neutralBoost * Math.max(0, 1 - meanChroma / m.neutralChroma);
  const dl = (x.l - y.l) * m.lightnessWeight;
  const da = (x.a - y.a) * boost;
  const db = (x.b - y.b) * boost;
  return Math.sqrt(dl * dl + da * da + db * db);
}

/** The nearest vocabulary colour by `colourDistance` (metallics excluded) and its distance. */
export function nameColour(oklab: Oklab): VocabularyColour & { distance: number } {
  let best = NAMEABLE_COLOURS[0];
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const colour of NAMEABLE_COLOURS) {
    const d = colourDistance(oklab, colour.oklab);
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
