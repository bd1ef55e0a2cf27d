import type { WorkingImage } from './image-decode';
import { ANALYSIS } from './image-thresholds';
import type { PatternKind } from './taste.types';

export interface SurfaceAnalysis {
  pattern: PatternKind;
  /** Stripe orientation when striped. */
  direction: 'vertical' | 'horizontal' | 'diagonal' | null;
  /** Bold (few, wide) or fine (many, narrow) stripes or checks. */
  scale: 'bold' | 'fine' | null;
  texture: 'smooth' | 'fine';
  /** What the pixels show of the surface, and nothing more ("a fine surface texture", "a hint of sheen"). */
  cues: string[];
  /** Measurements behind the decision (documented in detectSurface). */
  edgeDensity: number;
  dominantOrientationShare: number;
}

const T = ANALYSIS.surface;

const STRONG_EDGE = T.strongEdge;
const ORIENTATION_BINS = T.orientationBins; // 15° each

/**
 * Surface and pattern from a Sobel pass over OKLab lightness inside the subject (eroded, so the
 * silhouette's outline is not mistaken for pattern):
 * - edge density (share of subject pixels with a strong gradient) under 4%: solid;
 * - otherwise the orientation histogram of strong gradients (0-180°, 15° bins, magnitude-weighted):
 *   one peak (±15°) holding ≥ 55%: striped (gradient across x means vertical stripes); two peaks
 *   about 90° apart holding ≥ 60% together, the second ≥ 20%: checked; anything else: print;
 * - texture: for solids, mean gradient over 0.012 reads as a fine surface texture (a cue, not a material:
 *   knit, boucle and a cloudy sky all show it);
 * - sheen cue: 1-8% of a solid subject much lighter than its mean (specular highlights).
 */
export function detectSurface(img: WorkingImage, subjectMask: Uint8Array): SurfaceAnalysis {
  const { width: w, height: h, lab } = img;
  const inside = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i += 1) inside[i] = subjectMask[i];
  const eroded = new Uint8Array(w * h);
  const r = 2;
  for (let y = r; y < h - r; y += 1) {
    for (let x = r; x < w - r; x += 1) {
      let all = 1;
      for (let dy = -r; dy <= r && all; dy += 1) {
        for (let dx = -r; dx <= r; dx += 1) {
          if (!inside[(y + dy) * w + x + dx]) {
            all = 0;
            break;
          }
        }
      }
      eroded[y * w + x] = all;
    }
  }
  const L = (x: number, y: number) => lab[(y * w + x) * 3];
  const bins = new Float64Array(ORIENTATION_BINS);
  let count = 0;
  let strong = 0;
  let energy = 0;
  let sumL = 0;
  const ls: number[] = [];
  for (let y = 1; y < h - 1; y += 1) {
    for (let x = 1; x < w - 1; x += 1) {
      if (!eroded[y * w + x]) continue;
      const gx =
        L(x + 1, y - 1) +
        2 * L(x + 1, y) +
        L(x + 1, y + 1) -
        L(x - 1, y - 1) -
        2 * L(x - 1, y) -
        L(x - 1, y + 1);
      const gy =
        L(x - 1, y + 1) +
        2 * L(x, y + 1) +
        L(x + 1, y + 1) -
        L(x - 1, y - 1) -
        2 * L(x, y - 1) -
        L(x + 1, y - 1);
      const mag = Math.sqrt(gx * gx + gy * gy) / 4;
      count += 1;
      energy += mag;
      sumL += L(x, y);
      ls.push(L(x, y));
      if (mag > STRONG_EDGE) {
        strong += 1;
        const theta = (Math.atan2(gy, gx) + Math.PI) % Math.PI;
        bins[Math.min(ORIENTATION_BINS - 1, Math.floor((theta / Math.PI) * ORIENTATION_BINS))] += mag;
      }
    }
  }
  const edgeDensity = count > 0 ? strong / count : 0;
  const meanEnergy = count > 0 ? energy / count : 0;
  const massTotal = bins.reduce((s, v) => s + v, 0) || 1;
  const windowMass = (b: number) =>
    (bins[(b + ORIENTATION_BINS - 1) % ORIENTATION_BINS] + bins[b] + bins[(b + 1) % ORIENTATION_BINS]) /
    massTotal;
  let peak = 0;
  for (let b = 1; b < ORIENTATION_BINS; b += 1) if (windowMass(b) > windowMass(peak)) peak = b;
  const p1 = windowMass(peak);
  let second = -1;
  for (let b = 0; b < ORIENTATION_BINS; b += 1) {
    const apart = Math.min(Math.abs(b - peak), ORIENTATION_BINS - Math.abs(b - peak));
    if (apart >= 3 && (second < 0 || windowMass(b) > windowMass(second))) second = b;
  }
  const p2 = second >= 0 ? windowMass(second) : 0;
  const apart =
    second >= 0 ? Math.min(Math.abs(second - peak), ORIENTATION_BINS - Math.abs(second - peak)) : 0;

  let pattern: PatternKind;
  if (count === 0 || edgeDensity < T.solidBelow) pattern = 'solid';
  else if (p1 >= T.stripedPeak) pattern = 'striped';
  else if (p1 + p2 >= T.checkedPeaks && p2 >= T.checkedSecond && apart >= 5) pattern = 'checked';
  else pattern = 'print';

  const angle = ((peak + 0.5) * 180) / ORIENTATION_BINS;
  const direction =
    pattern !== 'striped'
      ? null
      : angle < 25 || angle > 155
        ? 'vertical'
        : angle > 65 && angle < 115
          ? 'horizontal'
          : 'diagonal';
  const scale =
    pattern === 'striped' || pattern === 'checked'
      ? edgeDensity > T.fineScaleAbove
        ? 'fine'
        : 'bold'
      : null;
  const texture = pattern === 'solid' && meanEnergy > T.fineTextureAbove ? 'fine' : 'smooth';
  const cues: string[] = [];
  if (texture === 'fine') cues.push('a fine texture');
  if (pattern === 'solid' && count > 0) {
    const mean = sumL / count;
    const bright = ls.filter((l) => l > mean + 0.2).length / count;
    if (bright >= T.sheenMin && bright <= T.sheenMax) cues.push('a hint of sheen');
  }
  return {
    pattern,
    direction,
    scale,
    texture,
    cues,
    edgeDensity: Math.round(edgeDensity * 1000) / 1000,
    dominantOrientationShare: Math.round(p1 * 1000) / 1000,
  };
}
