import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  colourByName,
  ColourFamily,
  nameColour,
  Oklab,
  oklabOf,
  VocabularyColour,
} from './colour-vocabulary';

/**
 * Vendor colour names (`Navy/White`, `Heather Grey`, `Rose Quartz`, `Washed Black`, `Pistachio Cream`)
 * to points of the engine's colour space. The fashion vocabulary decides first (it knows what a
 * retailer means by `Storm` or `Oat`); a name it does not know is looked up in the maintained
 * `color-name-list` dataset (about 30,000 named colours), then by its colour words.
 */
export interface ResolvedColour {
  /** The vocabulary colour that names the point (the nearest one for dataset colours). */
  name: string;
  oklab: Oklab;
  family: ColourFamily;
  source: 'vocabulary' | 'dataset' | 'words';
}

/** Words that describe a finish or a marketing tone, not a different colour. */
const FINISH_WORDS = new Set([
  'washed',
  'vintage',
  'soft',
  'deep',
  'rich',
  'classic',
  'true',
  'faded',
  'garment',
  'dyed',
  'marl',
  'melange',
  'mix',
  'heathered',
  'tonal',
  'pure',
  'warm',
  'cool',
]);
/** Words that change lightness: applied to the colour they qualify. */
const DARKER = new Set(['dark', 'darkest']);
const LIGHTER = new Set(['light', 'pale', 'lightest']);
/** Generic hue words a shade word may qualify (`steel blue`, `fawn grey`, `storm grey`). */
const HUE_WORDS = new Set([
  'blue',
  'green',
  'grey',
  'gray',
  'pink',
  'red',
  'brown',
  'purple',
  'yellow',
  'orange',
  'white',
  'black',
]);

let dataset: Map<string, string> | undefined;

/** The color-name-list dataset by normalised name, read once on first use. */
function colourNameDataset(): Map<string, string> {
  if (dataset) return dataset;
  const dir = dirname(require.resolve('color-name-list/package.json'));
  const entries = JSON.parse(readFileSync(join(dir, 'dist', 'colornames.json'), 'utf8')) as {
    name: string;
    hex: string;
  }[];
  dataset = new Map(entries.map((e) => [normaliseName(e.name), e.hex]));
  return dataset;
}

/** The color-name-list dataset's own hex for a name, whatever the vocabulary says (undefined: not in it). */
export function datasetHex(name: string): string | undefined {
  return colourNameDataset().get(normaliseName(name));
}

/** Lower case, accents and punctuation removed, single spaces. */
export function normaliseName(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[’'`]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** The colour names of a feed value, in order: `Navy/White` and `Navy & White` give two. */
export function splitColourValue(value: string): string[] {
  return value
    .split(/[/,&|;+]| and | with /i)
    .map(normaliseName)
    .filter((s) => s !== '');
}

const fromVocabulary = (c: VocabularyColour): ResolvedColour => ({
  name: c.name,
  oklab: c.oklab,
  family: c.family,
  source: 'vocabulary',
});

function fromPoint(oklab: Oklab, source: ResolvedColour['source']): ResolvedColour {
  const named = nameColour(oklab);
  return { name: named.name, oklab, family: named.family, source };
}

function vocabulary(phrase: string): ResolvedColour | null {
  const c = colourByName(phrase);
  return c ? fromVocabulary(c) : null;
}

function fromDataset(phrase: string): ResolvedColour | null {
  const hex = colourNameDataset().get(phrase);
  return hex ? fromPoint(oklabOf(hex), 'dataset') : null;
}

/** Lighter or darker along lightness, a lighter tint also a little less saturated. */
function shiftLightness(c: ResolvedColour, lighter: boolean): ResolvedColour {
  const o = c.oklab;
  const oklab = lighter
    ? { l: o.l + (1 - o.l) * 0.35, a: o.a * 0.75, b: o.b * 0.75 }
    : { l: o.l * 0.8, a: o.a * 0.9, b: o.b * 0.9 };
  return fromPoint(oklab, 'words');
}

/** How far a shade word only the dataset knows moves the hue word it qualifies towards itself. */
const QUALIFIER_TINT = 1 / 3;

/**
 * `fawn grey`, `mouse brown`: a shade word that only the dataset knows, qualifying a generic hue word,
 * where neither the vocabulary nor the dataset has the phrase. The hue word is the head of the name
 * and the shade word tints it: the hue word's colour a third of the way towards the shade word's
 * (docs/decisions/0047). Read as the bare hue word, `Fawn Grey` was mid grey, the colour of a
 * heather grey wardrobe; the shade word alone (`fawn`, a light tan) would lose the grey.
 */
function tintedHue(kept: readonly string[]): ResolvedColour | null {
  if (kept.length !== 2 || !HUE_WORDS.has(kept[1]) || HUE_WORDS.has(kept[0])) return null;
  const hue = vocabulary(kept[1]);
  const shade = fromDataset(kept[0]);
  if (!hue || !shade) return null;
  const towards = (k: keyof Oklab) => hue.oklab[k] + (shade.oklab[k] - hue.oklab[k]) * QUALIFIER_TINT;
  return fromPoint({ l: towards('l'), a: towards('a'), b: towards('b') }, 'words');
}

/** One colour name (no separators) to a point, or null when nothing in it names a colour. */
export function resolveColourName(name: string): ResolvedColour | null {
  const phrase = normaliseName(name);
  if (phrase === '') return null;
  const words = phrase.split(' ');
  const kept = words.filter((w) => !FINISH_WORDS.has(w));
  const stripped = kept.join(' ');
  const exact = vocabulary(phrase) ?? (stripped ? vocabulary(stripped) : null);
  if (exact) return exact;
  // `dark olive`, `pale blue`: a lightness word before a colour the vocabulary knows.
  const first = kept[0];
  if (kept.length >= 2 && (DARKER.has(first) || LIGHTER.has(first))) {
    const rest = resolveColourName(kept.slice(1).join(' '));
    if (rest) return shiftLightness(rest, LIGHTER.has(first));
  }
  // `steel blue`, `storm grey`: a shade word the vocabulary knows qualifying a generic hue word.
  if (kept.length === 2 && HUE_WORDS.has(kept[1])) {
    const shade = vocabulary(kept[0]);
    if (shade && !HUE_WORDS.has(kept[0])) return shade;
  }
  const known = fromDataset(phrase) ?? (stripped ? fromDataset(stripped) : null);
  if (known) return known;
  const tinted = tintedHue(kept);
  if (tinted) return tinted;
  // Any colour word, the last first (`lipstick red`, `forest walk green`).
  for (let i = kept.length - 1; i >= 0; i -= 1) {
    const word = vocabulary(kept[i]);
    if (word) return { ...word, source: 'words' };
  }
  return null;
}

/**
 * Every colour of a feed value, the dominant (first) one first (`Navy/White` -> navy, white); unknown
 * later parts are skipped. None when the first part names no colour we know: a `Petal/Black` dress is
 * not black, and taking the second colour for the dominant one put pink products in black cores'
 * results (ADR 0047).
 */
export function resolveColourValue(value: string): ResolvedColour[] {
  const named = splitColourValue(value).map(resolveColourName);
  return named[0] ? named.filter((c): c is ResolvedColour => c !== null) : [];
}

/**
 * The vocabulary colours a feed value names in the vocabulary's own words, vendor synonyms resolved
 * (`Raw Linen` and `Washed Ecru` -> ecru, `Putty/Navy` -> stone, navy). A colour only the dataset or
 * a colour word places is left out: its nearest swatch names a point, not what the vendor wrote.
 */
export function vocabularyColourNames(value: string): string[] {
  return resolveColourValue(value)
    .filter((c) => c.source === 'vocabulary')
    .map((c) => c.name);
}
