import {
  copyWorkingImage,
  correctDimScene,
  decodeWorkingImage,
  dimScore,
  medianLightness,
  whiteBalance,
  type WorkingImage,
} from './image-decode';
import { PaletteCharacter, paletteCharacter } from './image-character';
import { namePalette, subjectClusters } from './image-palette';
import { SubjectKind, type SubjectWeights, subjectWeights } from './image-subject';
import { detectSurface, SurfaceAnalysis } from './image-surface';
import { ANALYSIS } from './image-thresholds';
import { PaletteColour, TasteGenerationError } from './taste.types';

/**
 * The local analyst's measurements of one image. Everything is computed from pixels, in four steps
 * with one thresholds object (image-thresholds.ts):
 * - decode (image-decode.ts): a working copy of at most 128 px by shrink-on-load, linear RGB and OKLab,
 *   white-balanced from its neutral regions; a dim scene (open shade; never a swatch or a garment on a
 *   studio-black backdrop) exposed and balanced from its background as a camera would;
 * - subject (image-subject.ts): the garment separated from a plain backdrop, or weighted towards the
 *   centre and away from the colours of the border ring (a wall in light and shadow, a floor);
 * - palette (image-palette.ts): clusters in a shading-invariant space, each coloured by its lit part,
 *   clusters that fill the border ring dropped, named from the fashion vocabulary;
 * - surface (image-surface.ts): solid, striped, checked or print, and honest surface cues.
 */
export type { PaletteCharacter } from './image-character';
export type { SurfaceAnalysis } from './image-surface';
export { paletteCharacter, hue, isWarmHue } from './image-character';
export { chroma } from './colour-vocabulary';

export interface ImageAnalysis {
  palette: PaletteColour[];
  character: PaletteCharacter;
  surface: SurfaceAnalysis;
  /** How the subject was found: a plain background around it, or centre weighting. */
  subject: SubjectKind;
  /** A scene's distance from the open-shade line (`dimScore`: negative was read as dim); absent for a
   * swatch or a studio shot, whose light is never corrected. */
  dimScore?: number;
  /** For a scene within `light.undecidedWithin` of that line, when asked for: the image read in the
   * other light, for the core's other images to settle (`settleLight`, ADR 0066). */
  otherLight?: ImageAnalysis;
}

export const WORKING_SIZE = ANALYSIS.workingSize;

/**
 * Exposure is a scene's property: a swatch (no backdrop) or a garment on a near-black studio backdrop
 * is its own colour; a wall behind a person or a hanger, plain or busy, is a scene (ADR 0041).
 */
export function isScene(img: WorkingImage, first: SubjectWeights): boolean {
  if (first.subject === 'centre-weighted') return true;
  return (
    first.subject === 'plain-background' &&
    medianLightness(img, first.border) >= ANALYSIS.light.studioBackdropBelow
  );
}

/**
 * The whole measurement of one image. `index` (0-based) names the image in errors. With `otherLight`,
 * a scene too close to the open-shade line to call is also read in the other light (`otherLight`), so
 * that a core's images can settle it together (ADR 0066); the rest are read once. `light` forces one
 * reading (`lit`: a clearly dim scene's lit reading, asked for by `withLitReadings`, ADR 0070).
 */
export async function analyseImage(
  data: Buffer,
  index: number,
  opts: { otherLight?: boolean; light?: LightReading } = {},
): Promise<ImageAnalysis> {
  const img = await decodeWorkingImage(data, index);
  if (opts.light !== undefined && opts.light !== 'auto') return analyseWorkingImage(img, index, opts.light);
  // the working copy is corrected in place: the other light starts from an untouched copy, not a
  // second decode
  const untouched = opts.otherLight ? copyWorkingImage(img) : undefined;
  const analysis = analyseWorkingImage(img, index);
  const score = analysis.dimScore;
  if (!untouched || score === undefined || Math.abs(score) >= ANALYSIS.light.undecidedWithin) return analysis;
  try {
    return { ...analysis, otherLight: analyseWorkingImage(untouched, index, score < 0 ? 'lit' : 'dim') };
  } catch (err) {
    // the other light can leave nothing visible: the image keeps the line's reading
    if (err instanceof TasteGenerationError) return analysis;
    throw err;
  }
}

/**
 * How a scene's light is read: `auto` decides by the open-shade line (`dimScore`); `lit` and `dim`
 * force one reading: a scene near the line read in its other light (`analyseImage`), and the benchmark
 * that fits and checks the line (bench/light-gate.ts).
 */
export type LightReading = 'auto' | 'lit' | 'dim';

/** analyseImage() of a decoded working copy (which it corrects in place). */
export function analyseWorkingImage(
  img: WorkingImage,
  index: number,
  light: LightReading = 'auto',
): ImageAnalysis {
  const first = subjectWeights(img);
  const score = isScene(img, first) ? dimScore(img) : undefined;
  const dim = score !== undefined && (light === 'auto' ? score < 0 : light === 'dim');
  if (dim) correctDimScene(img, first.weights);
  else whiteBalance(img);
  const subject = subjectWeights(img);
  const { clusters, mask } = subjectClusters(img, subject);
  const palette = namePalette(clusters);
  if (palette.length === 0)
    throw new TasteGenerationError(`image ${index + 1} has no visible content`, false);
  return {
    palette,
    character: paletteCharacter(palette),
    surface: detectSurface(img, mask),
    subject: subject.subject,
    ...(score !== undefined && Number.isFinite(score) ? { dimScore: score } : {}),
  };
}
