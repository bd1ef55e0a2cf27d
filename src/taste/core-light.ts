import { mapBounded } from '../common/concurrency';
import { colourDistance } from './colour-vocabulary';
import type { ImageAnalysis } from './image-analysis';
import { ANALYSIS } from './image-thresholds';
import { type PaletteColour, TasteGenerationError } from './taste.types';

/**
 * A core's photographs settle each other's light (ADRs 0066 and 0070). A scene close to the
 * open-shade line is a toss-up by its own pixels: a lit mid-grey wall and a white wall in shade put
 * the highlights at the same lightness (ADR 0063), and the wrong reading exposes a lit stone up to
 * cream or leaves a shaded one taupe. A lit scene with nothing light in it (a charcoal garment before
 * a dark slate wall) is read as open shade by a wide margin, and exposed up to slate. Such images
 * come with both readings (`otherLight`); the others, a clearly lit scene, a swatch, a studio shot,
 * with one.
 *
 * The evidence is the core's other images, in two steps:
 * 1. an image read as clearly dim is checked against the images read once (clearly lit, or no scene),
 *    whose light no correction touched: open shade is read as dim nearly always, so a clearly lit
 *    photograph of the core is lit, and when a dim image's lit reading is its colour, the dim image
 *    was lit too (ADR 0070);
 * 2. an image near the line is checked against every image outside it, the dim ones as step 1 left
 *    them (ADR 0066).
 *
 * In each, the other reading is kept when its main colour is one of the evidence's and the line's
 * reading is not as near. With no evidence, or when neither reading is borne out, the line's reading
 * stands. The result carries no `otherLight`.
 */
export function settleLight(analyses: readonly ImageAnalysis[]): ImageAnalysis[] {
  const t = ANALYSIS.light;
  const evidenceOf = (images: readonly ImageAnalysis[]): PaletteColour[] =>
    images.flatMap((a) => a.palette.filter((c) => c.share >= t.agreeMinShare));
  const light = analyses.map(lightOf);
  const readOnce = evidenceOf(analyses.filter((_, i) => light[i] === 'lit'));
  const dimSettled = analyses.map((a, i) => (light[i] === 'dim' ? settled(a, readOnce) : a));
  const evidence = evidenceOf(dimSettled.filter((_, i) => light[i] !== 'undecided'));
  return dimSettled.map((a, i) => (light[i] === 'undecided' ? settled(a, evidence) : withoutOtherLight(a)));
}

/**
 * The core's images with the lit reading (`readLit(i)`, at most `concurrency` at once) added to each
 * clearly dim one, when the core also has an image read once (clearly lit, or no scene) for
 * `settleLight` to go by; otherwise as they are. Only then is the second reading paid for: a core all
 * in open shade is read once an image.
 */
export async function withLitReadings(
  analyses: readonly ImageAnalysis[],
  readLit: (index: number) => Promise<ImageAnalysis>,
  concurrency: number,
): Promise<ImageAnalysis[]> {
  if (!analyses.some((a) => lightOf(a) === 'lit')) return [...analyses];
  return mapBounded(analyses, concurrency, (a, i) => withLitReading(a, () => readLit(i)));
}

/**
 * A clearly dim image with its lit reading (`readLit`) as `otherLight`; any other image, or one the
 * lit reading leaves nothing visible in, as it is.
 */
export async function withLitReading(
  a: ImageAnalysis,
  readLit: () => Promise<ImageAnalysis>,
): Promise<ImageAnalysis> {
  if (lightOf(a) !== 'dim' || a.otherLight !== undefined) return a;
  try {
    return { ...a, otherLight: await readLit() };
  } catch (err) {
    if (err instanceof TasteGenerationError) return a;
    throw err;
  }
}

/**
 * How the open-shade line read an image: `undecided` within `light.undecidedWithin` of it, `dim`
 * clearly under it, `lit` clearly over it or not a scene (a swatch, a studio shot: no score).
 */
export function lightOf(a: ImageAnalysis): 'lit' | 'dim' | 'undecided' {
  const score = a.dimScore;
  if (score === undefined || score >= ANALYSIS.light.undecidedWithin) return 'lit';
  return score <= -ANALYSIS.light.undecidedWithin ? 'dim' : 'undecided';
}

/** The reading `evidence` bears out: the other one when it is nearer by `light.agreeBy`, else the line's. */
function settled(a: ImageAnalysis, evidence: readonly PaletteColour[]): ImageAnalysis {
  const reading = withoutOtherLight(a);
  if (a.otherLight === undefined || evidence.length === 0) return reading;
  const line = distanceToEvidence(reading.palette[0], evidence);
  const other = distanceToEvidence(a.otherLight.palette[0], evidence);
  return other < ANALYSIS.palette.readingsApart && other + ANALYSIS.light.agreeBy < line
    ? withoutOtherLight(a.otherLight)
    : reading;
}

function withoutOtherLight(a: ImageAnalysis): ImageAnalysis {
  const { otherLight: _other, ...reading } = a;
  return reading;
}

/** The distance (`colourDistance`) from `colour` to the nearest of `evidence`. */
function distanceToEvidence(colour: PaletteColour, evidence: readonly PaletteColour[]): number {
  return Math.min(...evidence.map((e) => colourDistance(colour.oklab, e.oklab)));
}
