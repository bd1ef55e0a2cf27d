/**
 * Pure parts of product search: query building, scoring, diversity and match reasons.
 * See docs/decisions/0004-product-ranking.md and 0028-search-features-and-one-pass-ranking.md.
 */
import { stemmer } from 'stemmer';
import { byCodeUnits } from '../common/code-unit-order';
import { resolveColourValue, splitColourValue, vocabularyColourNames } from '../taste/colour-names';
import { colourDistance } from '../taste/colour-vocabulary';
import { primaryColourName } from './catalogue-feed';
import { queryColourSource } from './product-colour';
import {
  CategoryName,
  inQueryCategory,
  queryCategory,
  splitCompounds,
  titleWithoutBrand,
} from './search-features';
import {
  AvoidRules,
  CHECK_WORDS,
  COLOUR_MODIFIERS,
  isMaterialWord,
  NO_AVOIDS,
  PRINT_WORDS,
  ShopperQuery,
  STRIPE_WORDS,
  T_SHIRT_SPELLINGS,
} from './search-query';

export interface Oklab {
  l: number;
  a: number;
  b: number;
}

export interface PaletteColour {
  name: string;
  oklab: Oklab;
  share: number;
}

/** What the ranking needs of a core's taste profile. */
export interface RankingProfile {
  styleAttributes: string[];
  tags: string[];
  patterns: string[];
  palette: PaletteColour[];
  /** What the taste text says the wearer avoids (search-query.ts parseAvoids). */
  avoid: AvoidRules;
}

/**
 * A candidate product as read from the catalogue: the fields that describe it (never its description,
 * whose prose names other garments and colours) and its colour features.
 */
export interface RankingCandidate {
  /**
   * The product's public id (the feed's `id`): equal scores are ordered by it, not by the internal row
   * id, which is random per database (docs/decisions/0048).
   */
  id: string;
  title: string;
  designer: string;
  /** `product_type` path (or Google category) as given. */
  category: string | null;
  /** The category of search-features.ts (`category_key`), or null. */
  categoryName: CategoryName | null;
  material: string | null;
  pattern: string | null;
  colour: string | null;
  colourFamily: string | null;
  colourLab: Oklab | null;
}

export interface RankedProduct<C extends RankingCandidate = RankingCandidate> {
  candidate: C;
  score: number;
  matchReasons: string[];
}

const STOPWORDS = new Set(
  'a an and are as at be by for from has have in into is it its of on or the to with without very more most'.split(
    ' ',
  ),
);

/** Lower-case word tokens (letters and digits), stop words and one-letter tokens removed. */
export function tokenize(text: string): string[] {
  const lower = text.toLowerCase();
  // Accents removed only where there are any (NFKD is the costliest step on the ASCII a feed mostly is).
  const plain = !/[^\u0020-\u007e]/.test(lower)
    ? lower
    : lower.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  return (plain.match(/[a-z0-9]+/g) ?? []).filter((w) => w.length > 1 && !STOPWORDS.has(w));
}

/**
 * An OR query for `to_tsquery('english', ...)`: distinct tokens joined with `|` (PostgreSQL stems them).
 * Only `[a-z0-9]` tokens reach the query text, so user input can never inject tsquery syntax.
 * At most `maxTerms` terms; '' when nothing is left.
 */
export function buildOrTsQuery(texts: readonly string[], maxTerms = 48): string {
  const seen = new Set<string>();
  for (const text of texts) {
    for (const token of tokenize(text)) {
      if (seen.size >= maxTerms) break;
      seen.add(token);
    }
  }
  return [...seen].join(' | ');
}

/**
 * An AND of ORs for `to_tsquery('english', ...)`: each group's distinct tokens joined with `|`, the
 * groups with `&` (`(jumper | sweater) & cashmere`). Only `[a-z0-9]` tokens reach the query text, as in
 * buildOrTsQuery; a group with no token is left out, and '' is returned when none is left.
 */
export function buildAndTsQuery(groups: readonly (readonly string[])[]): string {
  const parts = groups
    .map((texts) => [...new Set(texts.flatMap(tokenize))])
    .filter((tokens) => tokens.length > 0)
    .map((tokens) => (tokens.length === 1 ? tokens[0] : `(${tokens.join(' | ')})`));
  return parts.join(' & ');
}

/**
 * The colour model's perceptual distance (src/taste/colour-vocabulary.ts `colourDistance`): OKLab with
 * lightness weighted down and hue and chroma weighted up between pale and near-neutral colours, so a
 * blush product is far from a silver palette colour and a grey one from taupe
 * (docs/decisions/0030-colour-model.md).
 */
export function oklabDistance(x: Oklab, y: Oklab): number {
  return colourDistance(x, y);
}

/**
 * Spread of a colour's closeness in the colour model's metric. Neighbouring families sit about 0.05-0.08
 * apart in it: at 0.06 the closeness has fallen to about 0.6, at two families' distance to under 0.1.
 */
const COLOUR_SIGMA = 0.06;

/**
 * How much a palette colour counts as a colour target: the square root of its share relative to the
 * palette's largest. The dominant colour counts fully, one of half its share 0.71, an accent of 2% of a
 * 90% palette 0.15 (docs/decisions/0051: a floor of one half let a 1.5% royal blue take three slots
 * of an ecru core's ten through its exact-match products).
 */
export function shareWeight(share: number, maxShare: number): number {
  return Math.sqrt(Math.max(0, share) / Math.max(maxShare, 1e-9));
}

/**
 * Palette similarity in 0..1: the best palette colour's closeness to the product colour, weighted by how
 * dominant that colour is in the core (`shareWeight`).
 */
export function colourSimilarity(product: Oklab | null, palette: readonly PaletteColour[]): number {
  if (!product || palette.length === 0) return 0;
  const maxShare = Math.max(...palette.map((p) => p.share), 1e-9);
  let best = 0;
  for (const colour of palette) {
    const d = oklabDistance(product, colour.oklab);
    const closeness = Math.exp(-(d * d) / (2 * COLOUR_SIGMA * COLOUR_SIGMA));
    best = Math.max(best, closeness * shareWeight(colour.share, maxShare));
  }
  return best;
}

/**
 * A word's English stem (Porter, the `stemmer` package), so that a shopper's `stripes` meets a feed's
 * `Striped`, `check` meets `Checked` and `knitted` meets `Knit`, as PostgreSQL's English stemmer already
 * folds them for the text index; the naive plural `-s` before this missed them (ADR 0056). Both sides of
 * every comparison go through it.
 */
function stem(word: string): string {
  return stemmer(word);
}

/** True when every content word of `phrase` occurs in `words` (compared stemmed). */
export function phraseMatches(phrase: string, words: ReadonlySet<string>): boolean {
  const tokens = tokenize(phrase).map(stem);
  return tokens.length > 0 && tokens.every((t) => words.has(t));
}

/**
 * The words that describe a product: title without the brand, category, colour, material and pattern,
 * with compound garment words split (`overcoat` also gives `coat`), compared stemmed. Never the
 * description, so the cost does not grow with its length and its prose ("under a camel coat") matches
 * nothing.
 */
export function productWords(
  c: RankingCandidate,
  fieldWords: (text: string) => readonly string[] = fieldStems,
): Set<string> {
  return withColourWords(attributeWordsOf(c, fieldWords), c, fieldWords);
}

/**
 * productWords() without the colour: what the profile's attributes are matched against. The title's
 * words that repeat the colour field are left out too: feeds write the colour into the title (Google's
 * guidance asks for it), and matched there a second colour took a colour tag (`Fawn Grey, Stone` took
 * `tag: stone` on a stone core) and a colourway's shade word a style (`Soft Oat` took `style: soft`).
 * A colour tag is matched against the product's dominant colour instead (dominantColourWords, ADR 0069).
 */
function attributeWordsOf(c: RankingCandidate, fieldWords: (text: string) => readonly string[]): Set<string> {
  const words = titleBesideColour(c, fieldWords);
  for (const field of [describingPath(c.category), c.material, c.pattern])
    if (field) for (const w of fieldWords(field)) words.add(w);
  return words;
}

function withColourWords(
  words: ReadonlySet<string>,
  c: RankingCandidate,
  fieldWords: (text: string) => readonly string[],
): Set<string> {
  const all = new Set(words);
  if (c.colour) for (const w of fieldWords(c.colour)) all.add(w);
  return all;
}

/**
 * The segments of a category path that name one kind of thing: a taxonomy's group (`Boots & Sneakers`,
 * `Shirts & Blouses`, `Scarves & Shawls`) says what a product might be, not what it is, and ballet flats
 * filed there matched `sneakers` and `boots` (and said so in their reasons). The category itself still
 * counts through the stored category.
 */
export function describingPath(path: string | null): string | null {
  if (!path) return path;
  return path
    .split('>')
    .filter((segment) => !/&|,|\band\b/i.test(segment))
    .join('>');
}

/**
 * `T-Shirt`, `t shirt` and `tshirt` as one word, `tshirt`: tokenized apart, a T-shirt's `shirt` made it
 * a shirt (`shirt` found T-shirts, and `t-shirt` every polo shirt). Lower-case text in and out.
 */
function tShirtAsOneWord(text: string): string {
  return text.replace(T_SHIRT_SPELLINGS, 'tshirt');
}

/** The words of one field, compounds split (`overcoat` also gives `coat`), `T-Shirt` one word. */
function fieldTokens(text: string): string[] {
  return tokenize(tShirtAsOneWord(splitCompounds(text)));
}

/** The stemmed words of one field (fieldTokens). */
function fieldStems(text: string): string[] {
  return fieldTokens(text).map(stem);
}

/** The stemmed words of a query term, read as a product's fields are (`t-shirt` is `tshirt`). */
function termStems(term: string): string[] {
  return tokenize(tShirtAsOneWord(term.toLowerCase())).map(stem);
}

/** The stems of the words of `text` that name a garment (`Cable Knit Sweater`: knit, sweater). */
function garmentStems(text: string): string[] {
  return fieldTokens(text)
    .filter((w) => queryCategory(w) !== null)
    .map(stem);
}

/**
 * What a product is made of, as stems: its material field's words and its title's (without the brand),
 * less the words of its colour. Feeds write the colour into the title (`Raw Linen Oxford Shirt` in
 * cotton poplin, `Oat Wool Coat`), and a colour named like a fabric (`Linen`, `Denim`, `Camel`) is not
 * what the product is made of.
 */
export function productFabric(
  c: Pick<RankingCandidate, 'title' | 'designer' | 'material' | 'colour'>,
  fieldWords: (text: string) => readonly string[] = fieldStems,
): Set<string> {
  const fabric = new Set(c.material ? fieldWords(c.material) : []);
  for (const w of titleBesideColour(c, fieldWords)) fabric.add(w);
  return fabric;
}

/**
 * What a product's colour is, as stems: the first colour its colour field names, as the vendor wrote
 * it (`Heather Grey/Navy`: heather, grey). A second colour is a trim or a print's ground, not the
 * product's colour. Of a product's colour, a colour tag meets only these words (`tag: heather grey`;
 * not `tag: dark` for `Dark Navy`: a shade word is no colour tag). The vocabulary's names for the colour (`Porridge` is
 * oatmeal) are left to the colour score's name credit, which weighs a palette colour by its share: as a
 * tag, oatmeal second in an ecru core's palette put `Porridge` products above ecru ones.
 */
function dominantColourWords(
  colour: string | null,
  fieldWords: (text: string) => readonly string[],
): Set<string> {
  const first = colour ? splitColourValue(colour)[0] : undefined;
  return new Set(first ? fieldWords(first) : []);
}

/** The words of a product's title without its brand, less the words of its colour field. */
function titleBesideColour(
  c: Pick<RankingCandidate, 'title' | 'designer' | 'colour'>,
  fieldWords: (text: string) => readonly string[],
): Set<string> {
  const colour = new Set(c.colour ? fieldWords(c.colour) : []);
  return new Set(fieldWords(titleWithoutBrand(c.title, c.designer)).filter((w) => !colour.has(w)));
}

/**
 * What a product is, as the stems of its garment words: its title's (without the brand), or its
 * category path's when the title names no garment. A query's head is matched against these: a path
 * names a product's group, not the product (a `Cardigan` filed under `Knitwear > Sweaters` is no
 * sweater, a `Trench Coat` under `Outerwear > Jackets` no jacket, a `Polo Shirt` under `Tops > T-Shirts`
 * no T-shirt), and the title says which garment of the group it is.
 */
export function productKind(c: Pick<RankingCandidate, 'title' | 'designer' | 'category'>): Set<string> {
  const title = garmentStems(titleWithoutBrand(c.title, c.designer));
  if (title.length > 0) return new Set(title);
  return new Set(garmentStems(describingPath(c.category) ?? ''));
}

/** Distinct field values whose words are remembered across searches (cleared whole when full). */
const FIELD_STEMS_CACHE = 20_000;
const fieldStemsCache = new Map<string, readonly string[]>();

/**
 * fieldStems() remembered across searches: candidates share category paths, colours, materials and
 * patterns, and the same products are candidates of many searches, so each distinct value is tokenized
 * once (a pure function of the text; the cache is bounded and cleared whole when full).
 */
function cachedFieldStems(text: string): readonly string[] {
  let words = fieldStemsCache.get(text);
  if (!words) {
    if (fieldStemsCache.size >= FIELD_STEMS_CACHE) fieldStemsCache.clear();
    fieldStemsCache.set(text, (words = fieldStems(text)));
  }
  return words;
}

/** Products whose words are remembered across searches (cleared whole when full). */
const PRODUCT_WORDS_CACHE = 20_000;
type WordFields = Pick<
  RankingCandidate,
  'title' | 'designer' | 'category' | 'colour' | 'material' | 'pattern'
>;
interface ProductWordSets {
  /** Every describing word: the query's terms and the avoid rules are matched against these. */
  words: ReadonlySet<string>;
  /**
   * The same without the colour field, nor the title's words that repeat it (attributeWordsOf): the
   * profile's attributes are matched against these. The colour is scored by the colour match; a profile
   * tag that names a colour (`orange` for a 2% accent, `dark`) matched `Black/Burnt Orange` and
   * `Dark Navy` and undid the palette weighting (ADR 0056, 0069).
   */
  attributeWords: ReadonlySet<string>;
  /** Its dominant colour's words (dominantColourWords): the profile's colour tags are matched against these too. */
  dominantColour: ReadonlySet<string>;
  /** What the product is (productKind): the query's head is matched against these. */
  kind: ReadonlySet<string>;
  /** What it is made of (productFabric): a query's fabric word is matched against these. */
  fabric: ReadonlySet<string>;
}
const productWordsCache = new Map<string, { fields: WordFields } & ProductWordSets>();

/**
 * productWords() remembered across searches per product id, reused only while the fields it was built
 * from are the same (a re-imported product with a new title or colour is tokenized again).
 */
function cachedProductWords(c: RankingCandidate): ProductWordSets {
  const hit = productWordsCache.get(c.id);
  const f = hit?.fields;
  if (
    f &&
    f.title === c.title &&
    f.designer === c.designer &&
    f.category === c.category &&
    f.colour === c.colour &&
    f.material === c.material &&
    f.pattern === c.pattern
  )
    return hit;
  const attributeWords = attributeWordsOf(c, cachedFieldStems);
  const sets = {
    words: withColourWords(attributeWords, c, cachedFieldStems),
    attributeWords,
    dominantColour: dominantColourWords(c.colour, cachedFieldStems),
    kind: productKind(c),
    fabric: productFabric(c, cachedFieldStems),
  };
  if (productWordsCache.size >= PRODUCT_WORDS_CACHE) productWordsCache.clear();
  const { title, designer, category, colour, material, pattern } = c;
  productWordsCache.set(c.id, { fields: { title, designer, category, colour, material, pattern }, ...sets });
  return sets;
}

/** Distinct colour values whose words are remembered across searches (cleared whole when full). */
const COLOUR_WORDS_CACHE = 20_000;

/** A colour value's words for the name credit, and the vocabulary colour its dominant colour is. */
interface ColourWords {
  words: ReadonlySet<string>;
  /** The dominant colour's vocabulary name and swatch, when the vocabulary names it (not the dataset). */
  named: { name: string; oklab: Oklab } | null;
}

const colourWordsCache = new Map<string, ColourWords>();

/**
 * The words of a product's colour value and of the vocabulary names it resolves to (`Rose Quartz` also
 * gives `blush`), and its dominant colour's vocabulary name, remembered across searches: a pure function
 * of the text, and the resolution through the colour-name dataset was a tenth of a search's ranking when
 * it ran once per search and value.
 */
function cachedColourWords(colourText: string): ColourWords {
  let entry = colourWordsCache.get(colourText);
  if (!entry) {
    if (colourWordsCache.size >= COLOUR_WORDS_CACHE) colourWordsCache.clear();
    const dominant = resolveColourValue(colourText)[0];
    entry = {
      words: new Set([colourText, ...vocabularyColourNames(colourText)].flatMap(tokenize)),
      named: dominant?.source === 'vocabulary' ? { name: dominant.name, oklab: dominant.oklab } : null,
    };
    colourWordsCache.set(colourText, entry);
  }
  return entry;
}

/** `fn` remembered for one search, per distinct key (candidates share a few colours and materials). */
function memo<T>(fn: (key: string) => T): (key: string) => T {
  const seen = new Map<string, T>();
  return (key) => {
    if (seen.has(key)) return seen.get(key) as T;
    const value = fn(key);
    seen.set(key, value);
    return value;
  };
}

/** The avoid rules' words, stemmed as productWords() holds them. */
const PRINT_STEMS = [...new Set([...PRINT_WORDS].map(stem))];
const STRIPE_STEMS = [...new Set([...STRIPE_WORDS].map(stem))];
const CHECK_STEMS = [...new Set([...CHECK_WORDS].map(stem))];

/** Profile attributes scored at most (the first ones: the writer lists the strongest first). */
const MAX_ATTRIBUTES = 32;

/** Attributes with their stemmed tokens, distinct by value, without empty ones, at most MAX_ATTRIBUTES. */
function distinctAttributes(list: readonly { kind: string; value: string }[]): ProfileAttribute[] {
  const seen = new Set<string>();
  const out: ProfileAttribute[] = [];
  for (const { kind, value } of list) {
    const key = value.toLowerCase();
    const tokens = tokenize(value).map(stem);
    if (seen.has(key) || tokens.length === 0) continue;
    seen.add(key);
    const colour = kind === 'tag' && isColourTag(key);
    out.push({ kind, key, tokens, colour });
    if (out.length >= MAX_ATTRIBUTES) break;
  }
  return out;
}

/**
 * A tag that names a colour the vocabulary knows (`stone`, `heather grey`), not a shade word (`dark`)
 * and not a fabric some colour lists also name (`linen`, `denim`: a `Raw Linen` shirt in cotton is no
 * linen shirt, productFabric).
 */
function isColourTag(tag: string): boolean {
  return !COLOUR_MODIFIERS.has(tag) && !isMaterialWord(tag) && queryColourSource(tag) === 'vocabulary';
}

/** A profile attribute as it is matched: a colour tag also meets the product's dominant colour. */
interface ProfileAttribute {
  kind: string;
  key: string;
  tokens: string[];
  colour: boolean;
}

export interface ScoreWeights {
  colour: number;
  attributes: number;
  query: number;
}

export const WEIGHTS_WITH_QUERY: ScoreWeights = { colour: 0.4, attributes: 0.15, query: 0.45 };
export const WEIGHTS_PROFILE_ONLY: ScoreWeights = { colour: 0.7, attributes: 0.3, query: 0 };

/** Closeness to one colour (0..1) from which a product's colour is named as a match. */
export const COLOUR_REASON_CLOSENESS = 0.85;
/** How far an avoided trait moves a product down (subtracted from its base score at full strength). */
export const AVOID_PENALTY = 0.4;
/**
 * OKLab chroma from which a colour starts to count as a saturated bright (and at least this much above
 * the palette's most saturated colour), and over how much more it fully does.
 */
const BRIGHT_FROM = 0.1;
const BRIGHT_MARGIN = 0.04;
const BRIGHT_SPAN = 0.06;
/** Share of the colour score given to the palette's colour names found in the product's colour field. */
const COLOUR_NAME_WEIGHT = 0.25;

/** Closeness of a product colour to one colour alone (its share ignored). */
function closenessTo(product: Oklab | null, colour: PaletteColour | { name: string; oklab: Oklab }): number {
  return colourSimilarity(product, [{ name: colour.name, oklab: colour.oklab, share: 1 }]);
}

/** How strongly a product has what the profile avoids, 0..1, with the trait named. */
export function avoidance(
  c: RankingCandidate,
  words: ReadonlySet<string>,
  avoid: AvoidRules,
  paletteChroma = 0,
): { strength: number; trait: string | null } {
  let strength = 0;
  let trait: string | null = null;
  const take = (s: number, name: string) => {
    if (s > strength) [strength, trait] = [s, name];
  };
  const has = (stems: readonly string[]) => stems.some((w) => words.has(w));
  if (avoid.brights && c.colourLab) {
    // Brighter than anything the wearer chose: a mustard core whose photos read just under the writer's
    // vivid threshold still wants mustard.
    const from = Math.max(BRIGHT_FROM, paletteChroma + BRIGHT_MARGIN);
    const chroma = Math.hypot(c.colourLab.a, c.colourLab.b);
    take(Math.min(1, Math.max(0, (chroma - from) / BRIGHT_SPAN)), 'saturated brights');
  }
  if (avoid.prints && has(PRINT_STEMS)) take(1, 'busy prints');
  if (avoid.stripes && has(STRIPE_STEMS)) take(1, 'stripes');
  if (avoid.checks && has(CHECK_STEMS)) take(1, 'checks');
  for (const colour of avoid.colours)
    if (closenessTo(c.colourLab, colour) >= COLOUR_REASON_CLOSENESS) take(1, colour.name);
  return { strength, trait };
}

/**
 * What the profile avoids, less what the shopper's query asks for: the query's colours replace the
 * palette as the target, so the colour rules step back (`bright red dress` for a core that avoids
 * brights, `black jeans` for one that avoids black returned burgundy and charcoal), and a print, stripe
 * or check word in the query lifts that rule (`floral dress` for a core that avoids busy prints).
 */
export function avoidFor(avoid: AvoidRules, query: ShopperQuery): AvoidRules {
  const stems = new Set(query.terms.flatMap((t) => tokenize(t).map(stem)));
  const asks = (list: readonly string[]) => list.some((w) => stems.has(w));
  const colours = query.colours.length > 0;
  return {
    brights: avoid.brights && !colours,
    prints: avoid.prints && !asks(PRINT_STEMS),
    stripes: avoid.stripes && !asks(STRIPE_STEMS),
    checks: avoid.checks && !asks(CHECK_STEMS),
    colours: colours ? [] : avoid.colours,
  };
}

/** What a ranking pass computes once per search, not once per candidate. */
interface ScoringContext {
  withQuery: boolean;
  query: ShopperQuery | null;
  weights: ScoreWeights;
  targets: PaletteColour[];
  /** Per target colour, the weight colourSimilarity() gives it (the most dominant counts fully). */
  targetWeights: number[];
  attributes: ProfileAttribute[];
  avoid: AvoidRules;
  paletteChroma: number;
  /** The query's terms as they are matched (empty without a query). */
  queryTerms: QueryTerms;
  /** Each term's weight among the query's parts (QUERY_PART_WEIGHTS). */
  termWeights: number[];
  /** The weights of the query's parts, summed: its terms and, when it names one, its colour. */
  queryParts: number;
  namedOf: (colourText: string) => number;
  colourNameOf: (colourText: string) => string | null;
  materialHitOf: (material: string) => boolean;
}

/**
 * The name credit's words for each palette colour: its own name's, and for a colour whose name no
 * candidate's colour carries, also the vocabulary name, of those the candidates' colours are, whose
 * swatch is nearest it, when the colour would be named a match of that swatch (closeness of at least
 * COLOUR_REASON_CLOSENESS; a far accent credits nobody) (ADR 0061). The three photographs of an ecru core read beige, between the
 * catalogue's ecru and oatmeal swatches and nearer ecru; no product is called beige, so without this the
 * credit went to nobody, and one attribute match put oatmeal solids above ecru products that had none.
 */
/** The distance within which a palette colour is named a match of a swatch (COLOUR_REASON_CLOSENESS). */
const HELD_NAME_DISTANCE = COLOUR_SIGMA * Math.sqrt(-2 * Math.log(COLOUR_REASON_CLOSENESS));

function withNearestHeldNames(
  own: Set<string>[],
  targets: readonly PaletteColour[],
  candidates: readonly RankingCandidate[],
): Set<string>[] {
  const values = [...new Set(candidates.map((c) => c.colour).filter((c): c is string => !!c))].map(
    cachedColourWords,
  );
  return own.map((words, i) => {
    if (values.some((v) => [...words].some((w) => v.words.has(w)))) return words;
    let nearest: string | null = null;
    let best = HELD_NAME_DISTANCE;
    for (const { named } of values) {
      if (!named) continue;
      const d = oklabDistance(named.oklab, targets[i].oklab);
      if (d < best) [best, nearest] = [d, named.name];
    }
    return nearest ? new Set([...words, ...tokenize(nearest)]) : words;
  });
}

/**
 * The per-search part of scoreCandidates: the colour targets (a query's colours replace the palette),
 * the distinct attributes, each tokenized once (bounded, so the pass does not grow with a long profile),
 * and what depends only on a candidate's colour or material text, once per distinct value.
 */
function scoringContext(
  profile: RankingProfile,
  query: ShopperQuery | null,
  candidates: readonly RankingCandidate[],
): ScoringContext {
  const withQuery = query !== null && query.text !== '';
  const colourAsked = withQuery && query.colours.length > 0;
  const targets: PaletteColour[] = colourAsked
    ? query.colours.map((c) => ({ name: c.name, oklab: c.oklab, share: 1 }))
    : profile.palette;
  const attributes = distinctAttributes([
    ...profile.styleAttributes.map((value) => ({ kind: 'style', value })),
    ...profile.patterns.map((value) => ({ kind: 'pattern', value })),
    ...profile.tags.map((value) => ({ kind: 'tag', value })),
  ]);
  const attributeWords = new Set(attributes.flatMap((a) => a.tokens));
  const maxShare = Math.max(1e-9, ...targets.map((t) => t.share));
  const targetWeights = targets.map((t) => shareWeight(t.share, maxShare));
  // A shared shade word is no shared name: `Dark Grey` is not named like `dark green`.
  const ownNames = targets.map((t) => new Set(tokenize(t.name).filter((w) => !COLOUR_MODIFIERS.has(w))));
  const names = colourAsked ? ownNames : withNearestHeldNames(ownNames, targets, candidates);
  const targetNames = names.map((words, i) => ({ words, weight: targetWeights[i] }));
  const terms = withQuery ? query.terms : [];
  const termWeights = terms.map((t) =>
    t === query?.head ? QUERY_PART_WEIGHTS.head : QUERY_PART_WEIGHTS.word,
  );
  return {
    withQuery,
    query: withQuery ? query : null,
    weights: withQuery ? WEIGHTS_WITH_QUERY : WEIGHTS_PROFILE_ONLY,
    targets,
    targetWeights,
    attributes,
    avoid: withQuery ? avoidFor(profile.avoid, query) : profile.avoid,
    paletteChroma: Math.max(0, ...profile.palette.map((p) => Math.hypot(p.oklab.a, p.oklab.b))),
    queryTerms: withQuery ? queryTermsOf(query) : NO_TERMS,
    termWeights,
    queryParts: termWeights.reduce((sum, w) => sum + w, 0) + (colourAsked ? QUERY_PART_WEIGHTS.colour : 0),
    namedOf: memo((colourText) => {
      const own = cachedColourWords(colourText).words;
      return Math.max(
        0,
        ...targetNames.filter((t) => [...t.words].some((w) => own.has(w))).map((t) => t.weight),
      );
    }),
    colourNameOf: memo((colourText) => primaryColourName(colourText)),
    materialHitOf: memo((material) => tokenize(material).some((w) => attributeWords.has(stem(w)))),
  };
}

/**
 * A candidate's colour score and the targets it matches: closeness to each target once gives both the
 * palette similarity (weighted by share, as colourSimilarity() computes it) and the colours named as
 * matches (as closenessTo() does). The palette's own colour names in the product's colour field (`Blush`
 * for a blush palette; a vendor synonym the vocabulary resolves to one, `Raw Linen` for ecru, counts as
 * that name) count too: among products the colour lookup places on one point, the ones named
 * like the palette first. Names only, not families: a family word (`pink`, `grey`) spans several of a
 * wardrobe's tones.
 */
function colourMatch(c: RankingCandidate, ctx: ScoringContext): { colour: number; matched: PaletteColour[] } {
  const named = ctx.namedOf(c.colour ?? '');
  let similarity = 0;
  const matched: PaletteColour[] = [];
  if (c.colourLab) {
    for (let i = 0; i < ctx.targets.length; i += 1) {
      const d = oklabDistance(c.colourLab, ctx.targets[i].oklab);
      const closeness = Math.exp(-(d * d) / (2 * COLOUR_SIGMA * COLOUR_SIGMA));
      similarity = Math.max(similarity, closeness * ctx.targetWeights[i]);
      if (closeness >= COLOUR_REASON_CLOSENESS) matched.push(ctx.targets[i]);
    }
  }
  return { colour: (1 - COLOUR_NAME_WEIGHT) * similarity + COLOUR_NAME_WEIGHT * named, matched };
}

/** The profile attributes (and the material) found in the candidate's words, each with its reason. */
function attributeMatch(
  c: RankingCandidate,
  { attributeWords, dominantColour }: ProductWordSets,
  ctx: ScoringContext,
): string[] {
  const reasons = ctx.attributes
    .filter(({ tokens, colour }) =>
      tokens.every((t) => attributeWords.has(t) || (colour && dominantColour.has(t))),
    )
    .map(({ kind, key }) => `${kind}: ${key}`);
  const material = c.material?.toLowerCase();
  if (material && ctx.materialHitOf(material)) reasons.push(`material: ${material}`);
  return reasons;
}

/** A query's terms as the ranking matches them, computed once per query. */
interface QueryTerms {
  /** Content words other than colours (the head included), as ShopperQuery.terms. */
  terms: readonly string[];
  head: string | null;
  /** Each term's stemmed words. */
  stems: readonly string[][];
  /** Per term, the stems of the names it goes by elsewhere (HEAD_SYNONYMS; the head only), else []. */
  synonyms: readonly string[][];
  /** When the head names a whole category (GENERIC_HEADS), that category: any product in it is one. */
  headCategory: CategoryName | null;
}

const NO_TERMS: QueryTerms = { terms: [], head: null, stems: [], synonyms: [], headCategory: null };

/**
 * Head words that name a whole category, not one garment of it: a `Leather Tote` is a `bag` and a
 * `Chelsea Boot` a `shoe`, though their titles name neither, so for these any product of the category
 * meets the head. A `sweater`, a `jacket` or a `t-shirt` is one garment of its category.
 */
const GENERIC_HEADS = new Set(
  ['outerwear', 'knitwear', 'knit', 'top', 'shoe', 'footwear', 'bag', 'handbag', 'accessory'].map(stem),
);

/** Whether a head word names a whole category (GENERIC_HEADS: `shoes`, `bag`), not one garment of it. */
export function namesWholeCategory(head: string): boolean {
  const stems = termStems(head);
  return stems.length === 1 && GENERIC_HEADS.has(stems[0]);
}

function queryTermsOf(query: ShopperQuery): QueryTerms {
  const head = query.head;
  return {
    terms: query.terms,
    head,
    stems: query.terms.map(termStems),
    synonyms: query.terms.map((t) => (t === head ? headSynonyms(t) : [])),
    headCategory: head !== null && namesWholeCategory(head) ? queryCategory(head) : null,
  };
}

/**
 * Which of the query's terms a product has. The head says what the product is: matched against what
 * the product is (productKind), under any of its names, or by its category when the head names a
 * whole one (`shoes`, `bag`). A fabric word asks for what it is made of
 * (productFabric: an ecru `Raw Linen` shirt in cotton is no linen shirt). Every other word is matched
 * against all the words that describe it.
 */
function termHits(
  q: QueryTerms,
  { words, kind, fabric }: ProductWordSets,
  category: CategoryName | null,
): boolean[] {
  return q.terms.map((t, i) =>
    t === q.head
      ? q.stems[i].every((w) => kind.has(w)) ||
        q.synonyms[i].some((w) => kind.has(w)) ||
        (q.headCategory !== null && q.headCategory === category)
      : q.stems[i].every((w) => (isMaterialWord(t) ? fabric : words).has(w)),
  );
}

/** A profile that asks nothing: the query alone decides what matches. */
const NO_PROFILE: RankingProfile = {
  styleAttributes: [],
  tags: [],
  patterns: [],
  palette: [],
  avoid: NO_AVOIDS,
};

/**
 * Whether a product has every part of the query, its words and its colours, as the ranking matches
 * them (the top band of queryTier). The search reads more candidates when too few of the walk's
 * products do (`candidateReads`, ADR 0058): a walk near `pink` holds lilac blouses too.
 */
export function fullQueryMatcher(query: ShopperQuery): (c: RankingCandidate) => boolean {
  const ctx = scoringContext(NO_PROFILE, query, []);
  return (c) => {
    const q = queryMatch(c, cachedProductWords(c), colourMatch(c, ctx).matched, ctx);
    return q.match && q.matched === ctx.queryParts;
  };
}

/**
 * How well the candidate matches the query: in its category (if it names one) and by the terms and
 * colours it has; the reason names what matched.
 */
function queryMatch(
  c: RankingCandidate,
  sets: ProductWordSets,
  matchedColours: readonly PaletteColour[],
  ctx: ScoringContext,
): { score: number; match: boolean; matched: number; reason: string | null } {
  const query = ctx.query;
  if (!query) return { score: 0, match: false, matched: 0, reason: null };
  const inCategory = query.category === null || inQueryCategory(query.category, c);
  const hits = termHits(ctx.queryTerms, sets, c.categoryName);
  const matchedTerms = ctx.queryTerms.terms.filter((_, i) => hits[i]);
  // The query's colours are the targets when it names any: a shade matches by closeness, a family word
  // (`pink`) by the product's family as well.
  const colourNames =
    query.colours.length === 0
      ? []
      : matchedColours.length > 0
        ? matchedColours.map((m) => m.name)
        : query.colours
            .filter((q) => q.family !== undefined && q.family === c.colourFamily)
            .map((q) => q.name);
  const colourMatched = colourNames.length > 0;
  const matched =
    hits.reduce((sum, hit, i) => sum + (hit ? ctx.termWeights[i] : 0), 0) +
    (colourMatched ? QUERY_PART_WEIGHTS.colour : 0);
  if (!inCategory || (matched === 0 && query.category === null))
    return { score: 0, match: false, matched: 0, reason: null };
  const named = [...colourNames, ...matchedTerms];
  return {
    score: 0.5 + 0.5 * (matched / Math.max(1, ctx.queryParts)),
    match: true,
    matched,
    reason: named.length > 0 ? `query: ${named.join(' ')}` : null,
  };
}

/**
 * Garment names that differ between British and American English and between retailers: a shopper's
 * `trousers` are a feed's `Pants`, `jumper` its `Sweater`, `trainers` its `Sneakers`. Only for the
 * query's head (what the product is), each name standing for the others.
 */
const HEAD_SYNONYMS: readonly (readonly string[])[] = [
  ['trousers', 'pants', 'slacks'],
  ['sweater', 'jumper', 'pullover'],
  ['sneakers', 'trainers'],
  ['t-shirt', 'tee'],
];

/** A name's stems as one key (`t-shirt` is `tshirt`, `jumpers` is `jumper`). */
const nameKey = (name: string): string => termStems(name).join(' ');

/** HEAD_SYNONYMS with each name's key, computed once. */
let synonymKeys: { name: string; key: string }[][] | undefined;

/** The HEAD_SYNONYMS group a head garment word belongs to (names and keys), or []. */
function synonymGroup(head: string): { name: string; key: string }[] {
  synonymKeys ??= HEAD_SYNONYMS.map((names) => names.map((name) => ({ name, key: nameKey(name) })));
  const own = nameKey(head);
  return synonymKeys.find((group) => group.some((n) => n.key === own)) ?? [];
}

/** A head garment word and its other names (HEAD_SYNONYMS), as written: `jumper`, `sweater`, `pullover`. */
export function headNames(head: string): string[] {
  const own = nameKey(head);
  return [
    head,
    ...synonymGroup(head)
      .filter((n) => n.key !== own)
      .map((n) => n.name),
  ];
}

/** The stems of the other names of a head garment word (HEAD_SYNONYMS), or []. */
function headSynonyms(head: string): string[] {
  const own = nameKey(head);
  return synonymGroup(head)
    .map((n) => n.key)
    .filter((k) => k !== own);
}

/**
 * How much each part of a query counts when products are ordered by how much of it they match: what
 * the product is (the query's head garment word) and its colour twice as much as a word that describes
 * it (`knit` in `knit cardigan`, `leather` in `black leather boots`). A cardigan answers `knit cardigan`
 * before a knit vest, and a black boot that is not leather before a brown leather boot.
 */
export const QUERY_PART_WEIGHTS = { head: 2, colour: 2, word: 1 } as const;

/**
 * The query narrows: with a query, every product matching it scores above every product that does not
 * (upper and lower half of the scale), and within the upper half a product matching more of the query's
 * parts (QUERY_PART_WEIGHTS) above one matching less (`navy knit dress`: navy knit dresses, then the navy
 * dresses that are not knits, then the knit dresses that are not navy, each band ordered by `base`).
 * Scores stay in order with the list.
 */
function queryTier(q: { match: boolean; matched: number }, base: number, queryParts: number): number {
  if (!q.match) return 0.5 * base;
  // `base` fills nine tenths of its band, so rounding to 0.001 ties no two bands of a query of up to
  // 49 weighted parts (the gap is 0.05 / (parts + 1)); a longer one may tie neighbouring bands.
  return 0.5 + (0.5 * (q.matched + 0.9 * Math.min(1, base))) / (queryParts + 1);
}

/** One candidate's score in 0..1 (rounded to 0.001) and its reasons (distinct, at most six). */
function scoreCandidate<C extends RankingCandidate>(candidate: C, ctx: ScoringContext): RankedProduct<C> {
  const productWordSets = cachedProductWords(candidate);
  const { words } = productWordSets;
  const { colour, matched } = colourMatch(candidate, ctx);
  const colourName = matched.length > 0 && candidate.colour ? ctx.colourNameOf(candidate.colour) : null;
  const attributeReasons = attributeMatch(candidate, productWordSets, ctx);
  const q = queryMatch(candidate, productWordSets, matched, ctx);
  const avoided = avoidance(candidate, words, ctx.avoid, ctx.paletteChroma);
  const { weights } = ctx;
  const base = Math.max(
    0,
    weights.colour * colour +
      weights.attributes * Math.min(1, attributeReasons.length / 3) +
      weights.query * q.score -
      AVOID_PENALTY * avoided.strength,
  );
  const score = ctx.withQuery ? queryTier(q, base, ctx.queryParts) : base;
  const reasons = [...(colourName ? [`colour: ${colourName}`] : []), ...attributeReasons];
  if (q.reason) reasons.push(q.reason);
  return {
    candidate,
    score: Math.round(Math.min(1, Math.max(0, score)) * 1000) / 1000,
    matchReasons: [...new Set(reasons)].slice(0, 6),
  };
}

/**
 * Scores candidates in 0..1 in one pass from palette similarity, attribute overlap (style attributes,
 * tags, patterns found in the product's own fields) and the query, minus what the profile avoids.
 * A query's colours replace the palette as the colour target (`camel coat` wants camel); with a query,
 * products matching it (in its category, if it names one) score above every product that does not.
 * Returns them best first (equal scores by public id) with match reasons that name only what matched.
 */
export function scoreCandidates<C extends RankingCandidate>(
  candidates: readonly C[],
  profile: RankingProfile,
  query: ShopperQuery | null,
): RankedProduct<C>[] {
  const ctx = scoringContext(profile, query, candidates);
  const ranked = candidates.map((candidate) => scoreCandidate(candidate, ctx));
  return ranked.sort((x, y) => y.score - x.score || byCodeUnits(x.candidate.id, y.candidate.id));
}

/** A diversity group: its key of an item (null: in no group), with `maxPerGroup` or a cap of its own. */
export type DiversityGroup<T> =
  ((item: T) => string | null) | { key: (item: T) => string | null; max: number };

/**
 * Greedy diversity: walks the ranked list and keeps at most `maxPerGroup` items per group (designer,
 * category; a group may set its own cap). When that leaves fewer than `limit` items, the skipped ones
 * fill the rest in rank order, so the result always has `min(limit, ranked.length)` items. The caps
 * choose which items; the result keeps rank order (the contract's "best match first": a fill never
 * follows a lower score).
 */
export function diversify<T>(
  ranked: readonly T[],
  groups: readonly DiversityGroup<T>[],
  limit = 10,
  maxPerGroup = 3,
): T[] {
  const caps = groups.map((g) => (typeof g === 'function' ? { key: g, max: maxPerGroup } : g));
  const counts = caps.map(() => new Map<string, number>());
  const picked: T[] = [];
  const skipped: T[] = [];
  for (const item of ranked) {
    if (picked.length >= limit) break;
    const keys = caps.map((g) => g.key(item)?.toLowerCase() ?? null);
    const full = keys.some((k, i) => k !== null && k !== '' && (counts[i].get(k) ?? 0) >= caps[i].max);
    if (full) {
      skipped.push(item);
      continue;
    }
    keys.forEach((k, i) => {
      if (k) counts[i].set(k, (counts[i].get(k) ?? 0) + 1);
    });
    picked.push(item);
  }
  const fills = skipped.slice(0, Math.max(0, limit - picked.length));
  if (fills.length === 0) return picked;
  const chosen = new Set([...picked, ...fills]);
  return ranked.filter((item) => chosen.has(item));
}
