/**
 * The one place where the catalogue meets the taste engine's colour model
 * (src/taste/colour-vocabulary.ts, src/taste/colour-names.ts): feed colour names to OKLab features and
 * families, in the same space as the palettes the engine measures on photographs.
 */
import * as vocabulary from '../taste/colour-vocabulary';
import { resolveColourName, resolveColourValue } from '../taste/colour-names';
import type { Oklab } from './product-ranking';

export interface ColourPoint {
  l: number;
  a: number;
  b: number;
  family: string;
  name: string;
}

/** The dominant colour's point (l, a, b, family, name), and every colour the value names. */
export interface ColourFeatures extends ColourPoint {
  /** All colours of the value in order, the dominant first (`Navy/White`: navy, white). */
  colours?: ColourPoint[];
}

export interface DemoColour {
  name: string;
  hex: string;
  oklab: Oklab;
  family: string;
}

const cache = new Map<string, ColourFeatures | null>();

/**
 * The same characters in a string of their own. V8 makes a substring of 13 or more characters a view
 * of its parent (a sliced string), which keeps the whole parent alive; concatenating and slicing does
 * not help (V8 slices the original again), a round trip through bytes does.
 */
export function detached(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/**
 * Colour features of a feed `color` value: its first colour (the dominant one of `Navy/White`),
 * resolved through the fashion vocabulary, then the color-name-list dataset, then its colour words
 * (src/taste/colour-names.ts), with every colour of a multi-colour value that resolves in `colours`.
 * Null when the first colour names no colour we know (`Petal/Black`, `resolveColourValue`).
 */
export function colourFeatures(colour: string | null): ColourFeatures | null {
  if (!colour) return null;
  // Feeds repeat a few hundred colour values across millions of rows: cache by the value as given.
  const cached = cache.get(colour);
  if (cached !== undefined) return cached;
  const resolved = resolveColourValue(colour);
  const features =
    resolved.length === 0
      ? null
      : {
          ...resolved[0].oklab,
          family: resolved[0].family,
          name: resolved[0].name,
          colours: resolved.map((c) => ({ ...c.oklab, family: c.family, name: c.name })),
        };
  // A copy of the value as the key: the value is often a slice of the feed parser's chunk string, and
  // a cached slice kept that whole chunk alive (a 100k import ended holding 52 MB of feed text).
  if (cache.size < 10_000) cache.set(detached(colour), features);
  return features;
}

/**
 * How a shopper's query word or phrase names a colour: `vocabulary` when the fashion vocabulary itself
 * knows it (`camel`, `oat`, `storm grey`), `dataset` when only the color-name-list dataset has the
 * whole name (`forest green`, `oxford blue`), null otherwise. A single word only the dataset knows is
 * no colour in a query: its 30,000 names include `Blazer`, `Oxford`, `Tank`, `Wedding` and `Classic`,
 * which a shopper types for a garment, a fabric or a style (search-query.ts).
 */
export function queryColourSource(phrase: string): 'vocabulary' | 'dataset' | null {
  const source = resolveColourName(phrase)?.source;
  return source === 'vocabulary' || source === 'dataset' ? source : null;
}

/** The family of a vocabulary colour name, or null. */
export function familyOf(name: string): string | null {
  return vocabulary.colourFamily(name) ?? null;
}

/** Every vocabulary colour (name, hex, OKLab, family), for the demo catalogue and the evaluation. */
export function vocabularyColours(): DemoColour[] {
  return vocabulary.VOCABULARY_COLOURS.map((c) => ({
    name: c.name,
    hex: c.hex,
    oklab: c.oklab,
    family: c.family,
  }));
}
