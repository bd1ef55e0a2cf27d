/**
 * What a shopper's query and a profile's dislikes mean for the search (issue 13, "Queries that mean what
 * a shopper means"; docs/decisions/0028-search-features-and-one-pass-ranking.md). Pure and unit-tested.
 *
 * - A query's colour words steer colour (`camel coat`: camel first), through the catalogue's own colour
 *   lookup (product-colour.ts), and are not matched as text (a brand may contain them).
 * - A category word (`coat`, `overcoat`, `jeans`) selects the category, by the rules the catalogue's
 *   `category_key` is computed with (search-features.ts).
 * - The other words are matched against the fields that describe a product (never its description).
 * - "Avoids saturated brights and busy prints" in the taste text ranks bright colours and prints down.
 */
import { colourFeatures, queryColourSource } from './product-colour';
import type { Oklab } from './product-ranking';
import { CategoryName, queryCategory } from './search-features';
import type { ProductGender } from './product.entity';

export interface NamedColour {
  name: string;
  oklab: Oklab;
  /**
   * The colour family a query's bare family word names (`pink`, `green`): every product of that family
   * answers it, as a shopper means (`pink` is dusty pink and blush too, not only the `pink` swatch).
   * Absent for a shade (`dusty pink`, `olive`). The avoid rules read only the colour's point.
   */
  family?: string;
}

/**
 * Query words that name a whole colour family of the vocabulary (its families but the neutrals, whose
 * family spans white to black, and the metallics).
 */
const FAMILY_WORDS = new Set(['blue', 'green', 'red', 'pink', 'purple', 'yellow', 'orange', 'brown']);

export interface ShopperQuery {
  /** The query as given, trimmed. */
  text: string;
  /** Colours the query names (`camel`, `dusty pink`), in query order. */
  colours: NamedColour[];
  /** The category the query names, or null. */
  category: CategoryName | null;
  /** Content words other than colours (category words included), lower case, distinct. */
  terms: string[];
  /**
   * The garment word that says what the shopper wants: the query's last category word (`cardigan` in
   * `knit cardigan`, `shoes` in `dress shoes`, `coat` in `trench coat`), or null. The words before it
   * describe it.
   */
  head: string | null;
  /** The gender the query names (`men's shirt`, `womens coat`), or null; not among the terms. */
  gender: ProductGender | null;
}

/** Words of a query that name whom a garment is for (`men's` reads as `men`: the `s` is dropped). */
const GENDER_WORDS: Record<string, ProductGender> = {
  men: 'men',
  mens: 'men',
  man: 'men',
  male: 'men',
  menswear: 'men',
  women: 'women',
  womens: 'women',
  woman: 'women',
  female: 'women',
  ladies: 'women',
  womenswear: 'women',
  unisex: 'unisex',
};

const STOPWORDS = new Set(
  'a an and are as at be by for from has have i in into is it its me my of on or show some the to with without very more most'.split(
    ' ',
  ),
);

/** Words that shade a colour name (`dusty pink`, `powder blue`), never a colour alone. */
export const COLOUR_MODIFIERS = new Set(
  'light dark pale deep soft dusty powder royal heather burnt bright washed vintage muted baby ice mid hot neon pastel'.split(
    ' ',
  ),
);

/**
 * Fabric words some colour lists also name (`linen`, `denim`): in a query they ask for the material.
 */
const MATERIAL_WORDS = new Set(
  'linen denim silk leather suede wool cotton cashmere velvet satin corduroy canvas nylon chambray tweed jersey merino alpaca mohair'.split(
    ' ',
  ),
);

/** The spellings of `t-shirt` in lower-case text (`t-shirt`, `t shirt`, `tshirt`); only for `replace`. */
export const T_SHIRT_SPELLINGS = /\bt(?:\s+|-)?shirt/g;

/**
 * Lower-case word tokens of a query (`t-shirt` stays one token), accents removed. A shopper's `t shirt`
 * and `tshirt` are read as `t-shirt` (the one letter was dropped, and `white t shirt` found shirts), and
 * `trenchcoat` as `trench coat` (a feed writes either; a product's `Trenchcoat` also gives both words).
 */
export function queryWords(text: string): string[] {
  return (
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(T_SHIRT_SPELLINGS, 't-shirt')
      .replace(/\btrench-?coat/g, 'trench coat')
      .match(/[a-z0-9]+(?:-[a-z0-9]+)*/g) ?? []
  ).filter((w) => w.length > 1 && !STOPWORDS.has(w));
}

/** A fabric word (`linen`, `suede`): in a query it asks for the material, never the colour. */
export function isMaterialWord(word: string): boolean {
  return MATERIAL_WORDS.has(word);
}

/** A word that describes what a garment is made of or printed with, not what it is (`wool`, `striped`). */
export function isDescriptiveWord(word: string): boolean {
  return MATERIAL_WORDS.has(word) || PRINT_WORDS.has(word) || STRIPE_WORDS.has(word) || CHECK_WORDS.has(word);
}

/** A colour on its own in a query: one the fashion vocabulary names (`queryColourSource`). */
function isColourWord(word: string): boolean {
  return !MATERIAL_WORDS.has(word) && !COLOUR_MODIFIERS.has(word) && queryColourSource(word) === 'vocabulary';
}

/**
 * A word before a colour word that names a colour with it (`forest green`, `oxford blue`), though not
 * alone: not a garment or fabric word, and the two words a name the vocabulary or the dataset has whole.
 */
function qualifiesColour(word: string, colourWord: string): boolean {
  return (
    !MATERIAL_WORDS.has(word) &&
    queryCategory(word) === null &&
    queryColourSource(`${word} ${colourWord}`) !== null
  );
}

/**
 * Colour phrases of a word list: runs of colour words and modifiers holding at least one colour word
 * (with a word that qualifies the first colour word, `forest green`), looked up whole (`dusty pink`),
 * and the indexes of the words they took.
 */
function colourPhrases(words: readonly string[]): { colours: NamedColour[]; used: Set<number> } {
  const colours: NamedColour[] = [];
  const used = new Set<number>();
  for (let i = 0; i < words.length; i += 1) {
    if (!isColourWord(words[i]) && !COLOUR_MODIFIERS.has(words[i])) continue;
    let j = i;
    while (j < words.length && (isColourWord(words[j]) || COLOUR_MODIFIERS.has(words[j]))) j += 1;
    const from = i > 0 && !used.has(i - 1) && qualifiesColour(words[i - 1], words[i]) ? i - 1 : i;
    const run = words.slice(from, j);
    if (run.some(isColourWord)) {
      // A run may hold two colours (`navy white`): each colour word with the modifiers before it.
      let start = 0;
      for (let k = 0; k < run.length; k += 1) {
        if (!isColourWord(run[k])) continue;
        const phrase = run.slice(start, k + 1).join(' ');
        const found = colourFeatures(phrase) ?? colourFeatures(run[k]);
        if (found)
          colours.push({
            name: phrase,
            oklab: { l: found.l, a: found.a, b: found.b },
            ...(FAMILY_WORDS.has(phrase) ? { family: found.family } : {}),
          });
        start = k + 1;
      }
      for (let k = from; k < j; k += 1) used.add(k);
    }
    i = j - 1;
  }
  return { colours, used };
}

/** Reads a shopper's query: its colours, category and other content words. */
export function parseShopperQuery(text: string): ShopperQuery {
  const trimmed = text.trim();
  const words = queryWords(trimmed);
  const { colours, used } = colourPhrases(words);
  const genders = new Set(words.filter((w) => GENDER_WORDS[w]).map((w) => GENDER_WORDS[w]));
  const rest = words.filter((w, i) => !used.has(i) && !GENDER_WORDS[w]);
  return {
    text: trimmed,
    colours,
    category: queryCategory(rest.join(' ')),
    terms: [...new Set(rest)],
    head: [...rest].reverse().find((w) => queryCategory(w) !== null) ?? null,
    // One gender named: a filter, as the `gender` field is. Both (`men's and women's`): none.
    gender: genders.size === 1 ? [...genders][0] : null,
  };
}

/** What a profile says it avoids, as rules a product can be checked against. */
export interface AvoidRules {
  /** Saturated, bright colours (OKLab chroma well above the muted range). */
  brights: boolean;
  /** Busy prints: florals, polka dots, animal and graphic prints. */
  prints: boolean;
  stripes: boolean;
  checks: boolean;
  /** Colours named as avoided (`Avoids black`). */
  colours: NamedColour[];
}

export const NO_AVOIDS: AvoidRules = {
  brights: false,
  prints: false,
  stripes: false,
  checks: false,
  colours: [],
};

/**
 * The avoid rules of a taste text: every sentence (or clause) that says the wearer avoids something
 * (`Avoids saturated brights and black.`, `Steers clear of busy prints`, `never wears neon`).
 */
export function parseAvoids(taste: string): AvoidRules {
  const rules: AvoidRules = { brights: false, prints: false, stripes: false, checks: false, colours: [] };
  const clauses = taste
    .toLowerCase()
    .split(/[.;!?\n]/)
    .map((s) => /\b(?:avoids?|avoiding|steers? clear of|never wears?|dislikes?)\b(.*)$/.exec(s)?.[1])
    .filter((s): s is string => s !== undefined);
  for (const clause of clauses) {
    if (/\b(brights?|saturated|neon|vivid|loud colou?rs?|garish)\b/.test(clause)) rules.brights = true;
    if (/\b(prints?|printed|busy|polka|florals?|graphics?|animal|leopard|paisley|logos?)\b/.test(clause))
      rules.prints = true;
    if (/\bstripe[sd]?\b/.test(clause)) rules.stripes = true;
    if (/\b(checks?|checked|plaids?|tartans?|ginghams?)\b/.test(clause)) rules.checks = true;
    const words = queryWords(clause).filter((w) => !/^(brights?|saturated|neon|vivid)$/.test(w));
    for (const c of colourPhrases(words).colours)
      if (!rules.colours.some((x) => x.name === c.name)) rules.colours.push(c);
  }
  return rules;
}

/** Words in a product's fields that mark a busy print. */
export const PRINT_WORDS = new Set(
  'print printed prints floral florals polka dot dots spotted leopard animal zebra snake paisley graphic camo camouflage tropical abstract'.split(
    ' ',
  ),
);
export const STRIPE_WORDS = new Set(['stripe', 'stripes', 'striped', 'pinstripe', 'breton']);
export const CHECK_WORDS = new Set([
  'check',
  'checks',
  'checked',
  'plaid',
  'tartan',
  'gingham',
  'houndstooth',
]);
