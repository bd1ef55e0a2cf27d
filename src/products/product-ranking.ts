/**
 * Pure parts of product search: query building, scoring, diversity and match reasons.
 * See docs/decisions/0004-product-ranking.md for the reasoning behind the weights.
 */
import { colourDistance } from '../taste/colour-vocabulary';

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
  /** Vocabulary colour names and families of the palette, for the text query. */
  colourTerms: string[];
}

/** A candidate product as read from the catalogue, with its text rank. */
export interface RankingCandidate {
  id: string;
  title: string;
  designer: string;
  description: string;
  category: string | null;
  material: string | null;
  pattern: string | null;
  colour: string | null;
  colourFamily: string | null;
  colourLab: Oklab | null;
  /** `ts_rank` of the candidate query. */
  textRank: number;
  /** The candidate matched the user's query. */
  queryMatch: boolean;
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
  return (
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .match(/[a-z0-9]+/g) ?? []
  ).filter((w) => w.length > 1 && !STOPWORDS.has(w));
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

/** The texts of a profile that feed the candidate query. */
export function profileQueryTexts(profile: RankingProfile): string[] {
  return [...profile.colourTerms, ...profile.patterns, ...profile.styleAttributes, ...profile.tags];
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
 * Palette similarity in 0..1: the best palette colour's closeness to the product colour, weighted by how
 * dominant that colour is in the core (the most dominant colour counts fully, a minor one at least half).
 */
export function colourSimilarity(product: Oklab | null, palette: readonly PaletteColour[]): number {
  if (!product || palette.length === 0) return 0;
  // Neighbouring families of the colour model sit about 0.05-0.08 apart in its metric: at 0.06 the
  // closeness has fallen to about 0.6, at two families' distance to under 0.1.
  const sigma = 0.06;
  const maxShare = Math.max(...palette.map((p) => p.share), 1e-9);
  let best = 0;
  for (const colour of palette) {
    const d = oklabDistance(product, colour.oklab);
    const closeness = Math.exp(-(d * d) / (2 * sigma * sigma));
    best = Math.max(best, closeness * (0.5 + 0.5 * (colour.share / maxShare)));
  }
  return best;
}

/** Naive English singular, enough to compare `coats` with `coat` or `dresses` with `dress`. */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(sses|shes|ches|xes)$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** True when every content word of `phrase` occurs in `words` (compared singular). */
export function phraseMatches(phrase: string, words: ReadonlySet<string>): boolean {
  const tokens = tokenize(phrase).map(stem);
  return tokens.length > 0 && tokens.every((t) => words.has(t));
}

function productWords(c: RankingCandidate): Set<string> {
  const text = [c.title, c.category, c.material, c.pattern, c.colour, c.colourFamily, c.description]
    .filter((v): v is string => typeof v === 'string')
    .join(' ');
  return new Set(tokenize(text).map(stem));
}

export interface ScoreWeights {
  text: number;
  colour: number;
  attributes: number;
  query: number;
}

export const WEIGHTS_WITH_QUERY: ScoreWeights = { text: 0.25, colour: 0.35, attributes: 0.2, query: 0.2 };
export const WEIGHTS_PROFILE_ONLY: ScoreWeights = { text: 0.3, colour: 0.45, attributes: 0.25, query: 0 };

/**
 * Scores candidates in 0..1 from the text rank (relative to the best candidate), palette similarity,
 * attribute overlap (style attributes, tags, patterns found in the product) and the query match;
 * with a query, products matching it come first.
 * Returns them best first with human-readable match reasons.
 */
export function scoreCandidates<C extends RankingCandidate>(
  candidates: readonly C[],
  profile: RankingProfile,
  query: string | null,
): RankedProduct<C>[] {
  const weights = query ? WEIGHTS_WITH_QUERY : WEIGHTS_PROFILE_ONLY;
  const maxRank = Math.max(0, ...candidates.map((c) => c.textRank));
  const queryWords = query ? [...new Set(tokenize(query))] : [];
  const attributes: { kind: string; value: string }[] = [
    ...profile.styleAttributes.map((value) => ({ kind: 'style', value })),
    ...profile.patterns.map((value) => ({ kind: 'pattern', value })),
    ...profile.tags.map((value) => ({ kind: 'tag', value })),
  ];
  const ranked = candidates.map((candidate) => {
    const words = productWords(candidate);
    const reasons: string[] = [];
    const colour = colourSimilarity(candidate.colourLab, profile.palette);
    if (colour >= 0.5 && candidate.colour) reasons.push(`colour: ${candidate.colour.toLowerCase()}`);
    const seen = new Set<string>();
    let attributeHits = 0;
    for (const { kind, value } of attributes) {
      const key = value.toLowerCase();
      if (seen.has(key) || !phraseMatches(value, words)) continue;
      seen.add(key);
      attributeHits += 1;
      reasons.push(`${kind}: ${key}`);
    }
    const material = candidate.material?.toLowerCase();
    if (material && attributes.some((a) => phraseMatches(material, new Set(tokenize(a.value).map(stem))))) {
      reasons.push(`material: ${material}`);
      attributeHits += 1;
    }
    const matchedQuery = queryWords.filter((w) => words.has(stem(w)));
    const queryScore = candidate.queryMatch
      ? 0.5 + 0.5 * (matchedQuery.length / Math.max(1, queryWords.length))
      : 0;
    if (candidate.queryMatch && matchedQuery.length > 0) reasons.push(`query: ${matchedQuery.join(' ')}`);
    const text = maxRank > 0 ? candidate.textRank / maxRank : 0;
    const base =
      weights.text * text +
      weights.colour * colour +
      weights.attributes * Math.min(1, attributeHits / 3) +
      weights.query * queryScore;
    // The query narrows: with a query, every product matching it scores above every product that
    // does not (upper and lower half of the scale), so scores stay in order with the list.
    const score = query ? (candidate.queryMatch ? 0.5 + 0.5 * base : 0.5 * base) : base;
    return {
      candidate,
      score: Math.round(Math.min(1, Math.max(0, score)) * 1000) / 1000,
      matchReasons: [...new Set(reasons)].slice(0, 6),
    };
  });
  return ranked.sort((x, y) => y.score - x.score || x.candidate.id.localeCompare(y.candidate.id));
}

/**
 * Greedy diversity: walks the ranked list and keeps at most `maxPerGroup` items per designer and per
 * category. When that leaves fewer than `limit` items, the skipped ones fill the rest in rank order, so
 * the result always has `min(limit, ranked.length)` items.
 */
export function diversify<T>(
  ranked: readonly T[],
  groups: readonly ((item: T) => string | null)[],
  limit = 10,
  maxPerGroup = 3,
): T[] {
  const counts = groups.map(() => new Map<string, number>());
  const picked: T[] = [];
  const skipped: T[] = [];
  for (const item of ranked) {
    if (picked.length >= limit) break;
    const keys = groups.map((g) => g(item)?.toLowerCase() ?? null);
    const full = keys.some((k, i) => k !== null && k !== '' && (counts[i].get(k) ?? 0) >= maxPerGroup);
    if (full) {
      skipped.push(item);
      continue;
    }
    keys.forEach((k, i) => {
      if (k) counts[i].set(k, (counts[i].get(k) ?? 0) + 1);
    });
    picked.push(item);
  }
  for (const item of skipped) {
    if (picked.length >= limit) break;
    picked.push(item);
  }
  return picked;
}
