import { colourDistance, colourFamily, nameColour, Oklab, oklabToHex } from './colour-vocabulary';
import { chroma, ImageAnalysis, PaletteCharacter } from './image-analysis';
import { ANALYSIS } from './image-thresholds';
import { PaletteColour, PatternKind } from './taste.types';

/** Colour names as a stylist says them in a sentence. */
const SPOKEN: Record<string, string> = { white: 'crisp white', black: 'deep black' };
const spoken = (name: string) => SPOKEN[name] ?? name;
const pct = (share: number) => `${Math.round(share * 100)}%`;

function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** "a" or "an" by the sound of the word that follows ("an orange accent", "a navy accent"). */
export function article(word: string): 'a' | 'an' {
  return /^[aeiou]/i.test(word) && !/^(eu|uni|use|one)/i.test(word) ? 'an' : 'a';
}

const NUMBER_WORDS = ['no', 'one', 'two', 'three', 'four', 'five'];
const count = (n: number) => NUMBER_WORDS[n] ?? String(n);

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function patternPhrase(a: ImageAnalysis): string {
  const s = a.surface;
  switch (s.pattern) {
    case 'striped':
      return `in ${s.scale ?? 'bold'} ${s.direction ?? ''} stripes`.replace(/\s+/g, ' ');
    case 'checked':
      return `in a ${s.scale === 'fine' ? 'fine' : 'bold'} check`;
    case 'print':
      return 'in a busy print';
    default:
      return s.texture === 'fine' ? 'as a solid with a fine surface texture' : 'as a clean solid';
  }
}

/**
 * One or two sentences per image from its measurements, e.g.
 * "Cool, high-contrast look: navy (50%) and crisp white (49%), in bold vertical stripes."
 */
export function captionFor(a: ImageAnalysis): string {
  const c = a.character;
  const mood = [
    c.warmth === 'neutral' ? 'neutral' : c.warmth,
    c.contrast === 'balanced' ? c.lightness : c.contrast,
  ];
  const main = a.palette.filter((p) => p.share >= 0.15).slice(0, 3);
  const shown = main.length > 0 ? main : a.palette.slice(0, 1);
  const accent = a.palette.find((p) => !shown.includes(p) && p.share >= 0.05 && chroma(p.oklab) >= 0.1);
  const colours = list(shown.map((p) => `${spoken(p.name)} (${pct(p.share)})`));
  let text = `${capitalise(mood.join(', '))} look: ${colours}${accent ? ` with ${article(accent.name)} ${accent.name} accent` : ''}, ${patternPhrase(a)}.`;
  // The fine texture is already in the pattern phrase; other cues (sheen) get their own sentence.
  const cues = a.surface.cues.filter((c) => c !== 'a fine texture');
  if (cues.length > 0) text += ` The surface shows ${list(cues)}.`;
  return text;
}

interface ColourTally {
  name: string;
  score: number;
  images: number;
  colour: PaletteColour;
}

/** A colour read in one or more of a core's images: its share-weighted sums and the images it is in. */
interface Reading {
  images: Set<number>;
  share: number;
  l: number;
  a: number;
  b: number;
}

/** Readings of different images closer than this are one colour (image-thresholds.ts). */
const READINGS_APART = ANALYSIS.palette.readingsApart;

const readingPoint = (r: Reading): Oklab => ({ l: r.l / r.share, a: r.a / r.share, b: r.b / r.share });
const sharesAnImage = (x: Reading, y: Reading) => [...x.images].some((k) => y.images.has(k));
const joined = (x: Reading, y: Reading): Reading => ({
  images: new Set([...x.images, ...y.images]),
  share: x.share + y.share,
  l: x.l + y.l,
  a: x.a + y.a,
  b: x.b + y.b,
});

/**
 * The images' palette colours as the core's colours: one colour read in several images is one colour,
 * whatever name each image's reading got. The two nearest readings of different images are joined,
 * again and again, while they are under READINGS_APART; each joined colour is then named at its
 * share-weighted point (ADR 0061). An oatmeal garment read as oatmeal in two photographs and as stone in
 * a third (its darkest shade under a cool cast) is one oatmeal, where a tally by name made an oatmeal
 * and a stone of similar shares. Readings are visited in an order of their own values, never the
 * images', so the result does not depend on image order.
 */
function joinReadings(analyses: ImageAnalysis[]): Reading[] {
  const readings: Reading[] = analyses
    .flatMap((an, i) =>
      an.palette.map((p) => ({
        images: new Set([i]),
        share: p.share,
        l: p.oklab.l * p.share,
        a: p.oklab.a * p.share,
        b: p.oklab.b * p.share,
      })),
    )
    .sort((x, y) => y.share - x.share || x.l - y.l || x.a - y.a || x.b - y.b);
  for (;;) {
    let best: { d: number; i: number; j: number } | null = null;
    for (let i = 0; i < readings.length; i += 1)
      for (let j = i + 1; j < readings.length; j += 1) {
        if (sharesAnImage(readings[i], readings[j])) continue;
        const d = colourDistance(readingPoint(readings[i]), readingPoint(readings[j]));
        if (d < READINGS_APART && (!best || d < best.d)) best = { d, i, j };
      }
    if (!best) return readings;
    readings[best.i] = joined(readings[best.i], readings[best.j]);
    readings.splice(best.j, 1);
  }
}

/** Recurring colours: score = summed share over images (share × frequency); ties by name. */
function tallyColours(analyses: ImageAnalysis[]): ColourTally[] {
  const by = new Map<string, Reading>();
  for (const r of joinReadings(analyses)) {
    const name = nameColour(readingPoint(r)).name;
    const t = by.get(name);
    by.set(name, t ? joined(t, r) : r);
  }
  const n = analyses.length;
  const round = (v: number) => Math.round(v * 10000) / 10000;
  return [...by.entries()]
    .map(([name, t]) => {
      const oklab = readingPoint(t);
      return {
        name,
        score: t.share,
        images: t.images.size,
        colour: {
          name,
          hex: oklabToHex(oklab),
          oklab: { l: round(oklab.l), a: round(oklab.a), b: round(oklab.b) },
          share: Math.round((t.share / n) * 1000) / 1000,
        },
      };
    })
    .sort((x, y) => y.score - x.score || x.name.localeCompare(y.name));
}

function majority<T extends string>(values: T[]): T {
  const counts = new Map<T, number>();
  values.forEach((v) => counts.set(v, (counts.get(v) ?? 0) + 1));
  return [...counts.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0][0];
}

const NEUTRALS = new Set([
  'black',
  'white',
  'ivory',
  'cream',
  'beige',
  'stone',
  'taupe',
  'light grey',
  'grey',
  'charcoal',
  'navy',
  'camel',
]);
const EARTH = new Set([
  'camel',
  'tan',
  'cognac',
  'brown',
  'chocolate',
  'khaki',
  'olive',
  'sage',
  'rust',
  'terracotta',
  'beige',
  'taupe',
  'mustard',
]);
const BLACK = new Set(['black']);
const SOFT = new Set(['blush', 'pink', 'lilac', 'lavender', 'cream', 'ivory', 'powder blue', 'mint']);

/**
 * Style words derived from the measurements (share = share of the summed palette):
 * - minimalist: at least two thirds of images solid, at most three recurring colours, not vivid;
 * - monochrome: most images monochrome;
 * - earthy: earth tones (camel, brown, olive, rust, khaki, ...) hold at least 35%;
 * - romantic: soft pastels (blush, lilac, cream, ...) hold at least 30% and the palette is not dark;
 * - classic: neutrals (black, white, navy, grey, camel, cream, ...) hold at least 60%, no prints;
 * - preppy: navy together with white, cream or red, and stripes or checks appear;
 * - graphic: stripes or checks in high contrast;
 * - bold: most images vivid or high-contrast;
 * - playful: prints or multicolour images with vivid colour;
 * - edgy: dark overall with black holding at least 30%;
 * - soft: light and muted overall;
 * - understated and versatile pad the list to three when fewer rules fire.
 */
export function styleAttributesFor(
  analyses: ImageAnalysis[],
  colours: ColourTally[],
  character: PaletteCharacter,
): string[] {
  const m = styleMeasures(analyses, colours, character);
  const out = STYLE_RULES.filter(([, rule]) => rule(m)).map(([name]) => name);
  for (const pad of ['understated', 'versatile', 'relaxed']) if (out.length < 3) out.push(pad);
  return out.slice(0, 8);
}

/** What the style rules read: the set's character, colour shares and pattern counts. */
interface StyleMeasures {
  character: PaletteCharacter;
  /** Share of the summed palette held by the names in `set`. */
  shareOf(set: Set<string>): number;
  /** The colour holds at least 5% of the summed palette. */
  has(name: string): boolean;
  /** More than half of the images satisfy `pred`. */
  mostly(pred: (a: ImageAnalysis) => boolean): boolean;
  solidShare: number;
  structured: boolean;
  prints: boolean;
  recurring: number;
}

function styleMeasures(
  analyses: ImageAnalysis[],
  colours: ColourTally[],
  character: PaletteCharacter,
): StyleMeasures {
  const total = colours.reduce((s, c) => s + c.score, 0) || 1;
  const patterns = analyses.map((a) => a.surface.pattern);
  return {
    character,
    shareOf: (set) => colours.filter((c) => set.has(c.name)).reduce((s, c) => s + c.score, 0) / total,
    has: (name) => colours.some((c) => c.name === name && c.score / total >= 0.05),
    mostly: (pred) => analyses.filter(pred).length * 2 > analyses.length,
    solidShare: patterns.filter((p) => p === 'solid').length / patterns.length,
    structured: patterns.some((p) => p === 'striped' || p === 'checked'),
    prints: patterns.includes('print'),
    recurring: colours.filter((c) => c.score / total >= 0.1).length,
  };
}

/** The style words of `styleAttributesFor`, in order, each with its rule (documented there). */
const STYLE_RULES: [string, (m: StyleMeasures) => boolean][] = [
  ['minimalist', (m) => m.solidShare >= 2 / 3 && m.recurring <= 3 && m.character.saturation !== 'vivid'],
  ['monochrome', (m) => m.mostly((a) => a.character.variety === 'monochrome')],
  ['earthy', (m) => m.shareOf(EARTH) >= 0.35],
  ['romantic', (m) => m.shareOf(SOFT) >= 0.3 && m.character.lightness !== 'dark'],
  ['classic', (m) => m.shareOf(NEUTRALS) >= 0.6 && !m.prints],
  ['preppy', (m) => m.has('navy') && (m.has('white') || m.has('cream') || m.has('red')) && m.structured],
  ['graphic', (m) => m.structured && m.mostly((a) => a.character.contrast === 'high-contrast')],
  [
    'bold',
    (m) => m.mostly((a) => a.character.saturation === 'vivid' || a.character.contrast === 'high-contrast'),
  ],
  [
    'playful',
    (m) =>
      (m.prints || m.mostly((a) => a.character.variety === 'multicolour')) &&
      m.character.saturation !== 'muted',
  ],
  ['edgy', (m) => m.character.lightness === 'dark' && m.shareOf(BLACK) >= 0.3],
  ['soft', (m) => m.character.lightness === 'light' && m.character.saturation === 'muted'],
];

/** Character of the whole set: the majority of the images' characters (ties broken by name). */
export function overallCharacter(analyses: ImageAnalysis[]): PaletteCharacter {
  const cs = analyses.map((a) => a.character);
  return {
    warmth: majority(cs.map((c) => c.warmth)),
    lightness: majority(cs.map((c) => c.lightness)),
    saturation: majority(cs.map((c) => c.saturation)),
    contrast: majority(cs.map((c) => c.contrast)),
    variety: majority(cs.map((c) => c.variety)),
    meanL: cs.reduce((s, c) => s + c.meanL, 0) / cs.length,
    meanChroma: cs.reduce((s, c) => s + c.meanChroma, 0) / cs.length,
  };
}

export interface ProfileSummary {
  taste: string;
  styleAttributes: string[];
  tags: string[];
  palette: PaletteColour[];
  patterns: PatternKind[];
}

const SATURATION_WORDS: Record<PaletteCharacter['saturation'], string> = {
  vivid: 'vivid',
  muted: 'muted',
  moderate: 'moderately saturated',
};
const CONTRAST_WORDS: Record<PaletteCharacter['contrast'], string> = {
  'high-contrast': 'high-contrast pairings',
  tonal: 'tonal, low-contrast combinations',
  balanced: 'balanced contrast',
};

const PATTERN_PREFERENCE: Record<PatternKind, string> = {
  solid: 'clean solids',
  striped: 'stripes',
  checked: 'checks',
  print: 'busy prints',
};

/** Pattern preference: "Prefers" for one kind, "Leans to" only for a real majority, else "Mixes". */
function patternSentence(byPattern: [PatternKind, number][], n: number): string {
  const [[first, firstCount], second] = byPattern;
  const names = byPattern.map(([p]) => PATTERN_PREFERENCE[p]);
  if (byPattern.length === 1) return `Prefers ${names[0]}${n > 1 ? ' throughout' : ''}.`;
  if (second && second[1] === firstCount) return `Mixes ${list(names)}.`;
  return `Leans to ${PATTERN_PREFERENCE[first]} (${count(firstCount)} of the ${count(n)} images), mixed with ${list(names.slice(1))}.`;
}

/** How the strongest colour recurs, in words that match the count ("recurs" needs two images). */
function anchorSentence(anchor: ColourTally, n: number): string {
  const name = capitalise(anchor.name);
  if (anchor.images === n) return `${name} appears in every image and anchors the look.`;
  if (anchor.images >= 2) return `${name} recurs in ${count(anchor.images)} of the ${count(n)} images.`;
  return `${name} leads, though it comes from only one of the ${count(n)} images.`;
}

/**
 * What the set really leaves out, claimed only when every image supports it:
 * - saturated brights: no colour of chroma >= 0.12 holds 5% of any image;
 * - black: no colour darker than L 0.3 holds 5% of any image;
 * - busy prints: every image is a solid with few edges (so never for a busy picture).
 */
export function absences(analyses: ImageAnalysis[]): string[] {
  const out: string[] = [];
  const holds = (pred: (p: PaletteColour) => boolean) =>
    analyses.some((a) => a.palette.some((p) => p.share >= 0.05 && pred(p)));
  if (!holds((p) => chroma(p.oklab) >= 0.12)) out.push('saturated brights');
  if (!holds((p) => p.oklab.l < 0.3)) out.push('black');
  if (analyses.every((a) => a.surface.pattern === 'solid' && a.surface.edgeDensity < 0.02))
    out.push('busy prints');
  return out;
}

/**
 * Condenses all images into 3 to 6 sentences for a stylist or a language model: recurring colours,
 * the dominant palette character, pattern preferences, what is absent, and surface cues, each only
 * as far as the measurements support it.
 * Symmetric in the images (sums, counts, majorities, sorted ties), so order does not matter.
 */
export function writeProfile(analyses: ImageAnalysis[]): ProfileSummary {
  const colours = tallyColours(analyses);
  const character = overallCharacter(analyses);
  const n = analyses.length;
  const top = colours.slice(0, 4);
  const sentences: string[] = [];

  const tone = `${character.warmth === 'neutral' ? 'neutral' : character.warmth}, ${character.lightness}`;
  sentences.push(`A ${tone} palette built on ${list(top.slice(0, 3).map((c) => c.name))}.`);
  const anchor = top[0];
  if (n > 1) sentences.push(anchorSentence(anchor, n));
  sentences.push(
    `Colours are ${SATURATION_WORDS[character.saturation]}, with ${CONTRAST_WORDS[character.contrast]}.`,
  );

  const patternCounts = new Map<PatternKind, number>();
  analyses.forEach((a) =>
    patternCounts.set(a.surface.pattern, (patternCounts.get(a.surface.pattern) ?? 0) + 1),
  );
  const byPattern = [...patternCounts.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]));
  sentences.push(patternSentence(byPattern, n));

  const absent = absences(analyses);
  if (absent.length > 0) sentences.push(`Avoids ${list(absent.slice(0, 2))}.`);

  const cues = [...new Set(analyses.flatMap((a) => a.surface.cues))].sort();
  if (cues.length > 0) sentences.push(`Surfaces show ${list(cues)}.`);

  const styleAttributes = styleAttributesFor(analyses, colours, character);
  const patterns = [...patternCounts.keys()].sort();
  const families = [
    ...new Set(top.map((c) => colourFamily(c.name)).filter((f): f is NonNullable<typeof f> => !!f)),
  ];
  const tags = [
    ...colours.slice(0, 6).map((c) => c.name),
    ...patterns,
    character.warmth,
    character.lightness,
    character.saturation,
    character.contrast,
    character.variety,
    ...families,
  ];
  return {
    taste: sentences.slice(0, 6).join(' '),
    styleAttributes,
    tags: [...new Set(tags)],
    palette: colours.slice(0, 8).map((c) => c.colour),
    patterns,
  };
}
