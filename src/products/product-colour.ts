/**
 * The one place where the catalogue meets the taste engine's colour vocabulary
 * (src/taste/colour-vocabulary.ts): feed colour names to OKLab features and families.
 */
import * as vocabulary from '../taste/colour-vocabulary';
import { primaryColourName } from './catalogue-feed';
import type { Oklab } from './product-ranking';

export interface ColourFeatures {
  l: number;
  a: number;
  b: number;
  family: string;
  name: string;
}

export interface DemoColour {
  name: string;
  hex: string;
  oklab: Oklab;
  family: string;
}

const cache = new Map<string, ColourFeatures | null>();

function lookup(name: string): ColourFeatures | null {
  const found = vocabulary.colourByName(name);
  if (!found) return null;
  return { ...found.oklab, family: found.family, name: found.name };
}

/**
 * Colour features of a feed `color` value: its first colour, looked up by full name, then by its last
 * word (`dark camel` -> `camel`), then by any word. Null when the vocabulary knows none of them.
 */
export function colourFeatures(colour: string | null): ColourFeatures | null {
  if (!colour) return null;
  // Feeds repeat a few hundred colour values across millions of rows: cache by the value as given.
  const cached = cache.get(colour);
  if (cached !== undefined) return cached;
  const primary = primaryColourName(colour);
  let found: ColourFeatures | null = null;
  if (primary) {
    const words = primary.split(/[\s-]+/).filter(Boolean);
    found = lookup(primary) ?? lookup(words.join(' '));
    for (let i = words.length - 1; !found && i >= 0; i -= 1) found = lookup(words[i]);
  }
  if (cache.size < 10_000) cache.set(colour, found);
  return found;
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
