import { converter } from 'culori';
import sharp from 'sharp';
// The decompression-bomb guard ingestion applies, applied again to bytes that reach the analyst.
import { MAX_IMAGE_PIXELS } from '../common/image-bounds';
import { ANALYSIS } from './image-thresholds';
import { TasteGenerationError } from './taste.types';

/** The analyst's working copy: linear RGB and OKLab per pixel (interleaved), alpha. */
export interface WorkingImage {
  width: number;
  height: number;
  /** Linear-light RGB per pixel, interleaved r,g,b in 0..1. */
  rgb: Float32Array;
  /** OKLab per pixel, interleaved l,a,b. */
  lab: Float32Array;
  alpha: Uint8Array;
  /** Per-channel gains the white balance applied (1, 1, 1 when it found no neutral region). */
  gains: [number, number, number];
}

const toOklab = converter('oklab');
const toLinear = converter('lrgb');

/** Decodes with shrink-on-load (JPEG/WebP decode at reduced size), auto-rotates, first frame only. */
export async function decodeWorkingImage(data: Buffer, index: number): Promise<WorkingImage> {
  let raw: Buffer;
  let width: number;
  let height: number;
  try {
    const image = sharp(data, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error', animated: false });
    const size = ANALYSIS.workingSize;
    const out = await image
      .rotate()
      .resize(size, size, { fit: 'inside', withoutEnlargement: true, fastShrinkOnLoad: true })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    raw = out.data;
    width = out.info.width;
    height = out.info.height;
  } catch {
    throw new TasteGenerationError(`image ${index + 1} could not be decoded as an image`, false);
  }
  const n = width * height;
  const rgb = new Float32Array(n * 3);
  const alpha = new Uint8Array(n);
  const linear = new Float32Array(256);
  for (let v = 0; v < 256; v += 1) linear[v] = toLinear({ mode: 'rgb', r: v / 255, g: 0, b: 0 }).r;
  for (let i = 0; i < n; i += 1) {
    rgb[i * 3] = linear[raw[i * 4]];
    rgb[i * 3 + 1] = linear[raw[i * 4 + 1]];
    rgb[i * 3 + 2] = linear[raw[i * 4 + 2]];
    alpha[i] = raw[i * 4 + 3];
  }
  const img = {
    width,
    height,
    rgb,
    lab: new Float32Array(n * 3),
    alpha,
    gains: [1, 1, 1] as [number, number, number],
  };
  fillOklab(img);
  return img;
}

/** A copy of a working image that corrections of the original leave alone. */
export function copyWorkingImage(img: WorkingImage): WorkingImage {
  return {
    width: img.width,
    height: img.height,
    rgb: img.rgb.slice(),
    lab: img.lab.slice(),
    alpha: img.alpha.slice(),
    gains: [...img.gains],
  };
}

/** Recomputes OKLab from the linear RGB (after a white balance). */
export function fillOklab(img: WorkingImage): void {
  const n = img.width * img.height;
  for (let i = 0; i < n; i += 1) {
    const o = toOklab({ mode: 'lrgb', r: img.rgb[i * 3], g: img.rgb[i * 3 + 1], b: img.rgb[i * 3 + 2] });
    img.lab[i * 3] = o.l;
    img.lab[i * 3 + 1] = o.a;
    img.lab[i * 3 + 2] = o.b;
  }
}

/** How a white balance picks its neutral pixels and how much of a cast it leaves alone. */
export interface BalanceOptions {
  /** OKLab chroma under which a pixel counts as nearly neutral. */
  neutralChroma: number;
  /** Per-channel cast (linear gain - 1) left alone... */
  deadband: number;
  /** ...and the largest correction applied beyond it. */
  maxGain: number;
  /** When given, only pixels of at most `maxWeight` here (the background) are read. */
  background?: { weights: Float32Array; maxWeight: number };
}

const LIT_SCENE: BalanceOptions = {
  neutralChroma: ANALYSIS.light.neutralChroma,
  deadband: ANALYSIS.light.deadband,
  maxGain: ANALYSIS.light.maxGain,
};

/** Linear RGB scaled per channel (clipped at 1 when `clip`), OKLab recomputed. */
function applyGains(img: WorkingImage, gains: readonly number[], clip: boolean): void {
  const n = img.width * img.height * 3;
  for (let i = 0; i < n; i += 1) {
    const v = img.rgb[i] * gains[i % 3];
    img.rgb[i] = clip ? Math.min(1, v) : v;
  }
  fillOklab(img);
}

/** Sum of linear RGB over the nearly neutral, well exposed pixels `opts` reads, and their count. */
function neutralSum(
  img: WorkingImage,
  opts: BalanceOptions,
): { sum: number[]; count: number; opaque: number } {
  const t = ANALYSIS.light;
  const n = img.width * img.height;
  const sum = [0, 0, 0];
  let count = 0;
  let opaque = 0;
  for (let i = 0; i < n; i += 1) {
    if (img.alpha[i] < ANALYSIS.opaqueAlpha) continue;
    opaque += 1;
    if (opts.background && opts.background.weights[i] > opts.background.maxWeight) continue;
    const l = img.lab[i * 3];
    if (l < t.neutralMinL || l > t.neutralMaxL) continue;
    if (Math.hypot(img.lab[i * 3 + 1], img.lab[i * 3 + 2]) >= opts.neutralChroma) continue;
    for (let c = 0; c < 3; c += 1) sum[c] += img.rgb[i * 3 + c];
    count += 1;
  }
  return { sum, count, opaque };
}

/**
 * White balance from neutral regions (von Kries, in linear RGB): the pixels that are nearly neutral
 * and neither clipped nor deep in shadow are taken to be grey under the scene's light; their mean
 * gives per-channel gains, applied to every pixel. Only a clear cast is corrected (beyond a deadband
 * that tinted walls and warm whites stay inside); nothing changes when neutral regions cover too
 * little of the picture. Returns the gains applied.
 */
export function whiteBalance(img: WorkingImage, opts: BalanceOptions = LIT_SCENE): [number, number, number] {
  const t = ANALYSIS.light;
  const { sum, count, opaque } = neutralSum(img, opts);
  if (count === 0 || count < t.neutralMinShare * opaque) return [1, 1, 1];
  const grey = (sum[0] + sum[1] + sum[2]) / 3;
  // A mild tint is as likely the surfaces' own colour (a warm white wall) as the light's: only the
  // part of the cast beyond the deadband is corrected, at most `maxGain`.
  const gain = (s: number) => {
    const g = grey / s - 1;
    const excess = Math.max(0, Math.abs(g) - opts.deadband);
    return 1 + Math.sign(g) * Math.min(opts.maxGain, excess);
  };
  const gains: [number, number, number] = [gain(sum[0]), gain(sum[1]), gain(sum[2])];
  if (gains.every((g) => g === 1)) return gains;
  applyGains(img, gains, false);
  img.gains = gains;
  return gains;
}

/** The opaque pixels' indices, darkest first (OKLab lightness): what `highlights` and `highlightCast` read. */
export function byLightness(img: WorkingImage): number[] {
  const n = img.width * img.height;
  const order: number[] = [];
  for (let i = 0; i < n; i += 1) if (img.alpha[i] >= ANALYSIS.opaqueAlpha) order.push(i);
  return order.sort((x, y) => img.lab[x * 3] - img.lab[y * 3]);
}

/** The `exposurePercentile` of the opaque pixels' lightness (0 for a transparent image). */
export function highlights(img: WorkingImage, order = byLightness(img)): number {
  if (order.length === 0) return 0;
  const at = Math.min(order.length - 1, Math.floor(ANALYSIS.light.exposurePercentile * order.length));
  return img.lab[order[at] * 3];
}

/**
 * The cast of the scene's highlights: log of mean linear red over mean linear blue across the lightest
 * `light.highlightShare` of the opaque pixels (0 when there are none). Negative is cool (skylight, open
 * shade), positive warm (tungsten, a warm wall, a warm garment that is the brightest thing).
 */
export function highlightCast(img: WorkingImage, order = byLightness(img)): number {
  let red = 0;
  let blue = 0;
  for (const i of order.slice(Math.floor((1 - ANALYSIS.light.highlightShare) * order.length))) {
    red += img.rgb[i * 3];
    blue += img.rgb[i * 3 + 2];
  }
  return red > 0 && blue > 0 ? Math.log(red / blue) : 0;
}

/**
 * True for a dim scene (open shade, an under-exposed room): its highlights, raised by their cast, sit
 * under `light.dimBelow` (ADR 0046). A lit scene whose brightest thing is a mid-tone wall and a scene
 * in shade whose brightest thing is a white garment have the same highlights; in shade those
 * highlights take the sky's cool cast, so a cool scene counts as dim up to brighter highlights than a
 * warm one.
 */
export function isDim(img: WorkingImage): boolean {
  return dimScore(img) < 0;
}

/**
 * How far a scene's highlights, raised by their cast, sit above the open-shade line: negative is dim
 * (`isDim`), and near 0 the two readings are a toss-up (ADR 0066). Infinity for a black image.
 */
export function dimScore(img: WorkingImage): number {
  const t = ANALYSIS.light;
  const order = byLightness(img);
  const high = highlights(img, order);
  if (high <= 0) return Infinity;
  return high + t.highlightCastWeight * highlightCast(img, order) - t.dimBelow;
}

/**
 * The strength of a light from one side, as the wall shows it: |log| of the ratio of the median
 * lightness of the picture's top-left and top-right corners (`light.sideCorner*`; 0 when a corner is
 * transparent or black). A window light brightens the wall on its side and leaves the far side dim;
 * a room's even light, or a soft side light, keeps the two corners close (ADR 0062).
 */
export function sideLight(img: WorkingImage): number {
  const t = ANALYSIS.light;
  const band = Math.max(1, Math.round(img.width * t.sideCornerWidth));
  const y0 = Math.floor(img.height * t.sideCornerTop);
  const y1 = Math.max(y0 + 1, Math.round(img.height * t.sideCornerBottom));
  const corner = (x0: number): number => {
    const indices: number[] = [];
    for (let y = y0; y < y1; y += 1) for (let x = x0; x < x0 + band; x += 1) indices.push(y * img.width + x);
    return medianLightness(img, indices);
  };
  const left = corner(0);
  const right = corner(img.width - band);
  return left > 0 && right > 0 ? Math.abs(Math.log(left / right)) : 0;
}

/** Median lightness of the opaque pixels at `indices` (0 when none). */
export function medianLightness(img: WorkingImage, indices: readonly number[]): number {
  const ls = indices.filter((i) => img.alpha[i] >= ANALYSIS.opaqueAlpha).map((i) => img.lab[i * 3]);
  ls.sort((x, y) => x - y);
  return ls.length === 0 ? 0 : ls[Math.floor(ls.length / 2)];
}

/**
 * A dim scene's light corrected, as a camera's shade preset, auto-exposure and white balance would:
 * linear RGB scaled by `shadeGains` (skylight back towards daylight, ADR 0046), then so the highlights
 * reach `exposureTarget` (by at most `maxExposureGain`), then balanced from the background's neutral
 * pixels (`light.dim`: never the garment's own, a narrower deadband, since shade light is not the
 * reference light, and a smaller largest correction, since the preset has taken the sky out and a
 * tinted wall passes as neutral in shade: ADR 0065). Returns the exposure gain.
 */
export function correctDimScene(img: WorkingImage, subjectWeights: Float32Array): number {
  const t = ANALYSIS.light;
  applyGains(img, t.shadeGains, false);
  const high = highlights(img);
  // OKLab lightness is about the cube root of linear light.
  const gain = Math.min(t.maxExposureGain, (t.exposureTarget / high) ** 3);
  applyGains(img, [gain, gain, gain], true);
  whiteBalance(img, {
    neutralChroma: t.dim.neutralChroma,
    deadband: t.dim.deadband,
    maxGain: t.dim.maxGain,
    background: { weights: subjectWeights, maxWeight: t.dim.backgroundMaxWeight },
  });
  return gain;
}
