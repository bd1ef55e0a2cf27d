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
  const g = sobelStats(img, erode(subjectMask, img.width, img.height, 2));
  const edgeDensity = g.count > 0 ? g.strong / g.count : 0;
  const o = orientationPeaks(g.bins);
  let pattern: PatternKind;
  if (g.count === 0 || edgeDensity < T.solidBelow) pattern = 'solid';
  else if (o.p1 >= T.stripedPeak) pattern = 'striped';
  else if (o.p1 + o.p2 >= T.checkedPeaks && o.p2 >= T.checkedSecond && o.apart >= 5) pattern = 'checked';
  else pattern = 'print';
  const angle = ((o.peak + 0.5) * 180) / ORIENTATION_BINS;
  const direction =
    pattern !== 'striped'
      ? null
      : angle < 25 || angle > 155
        ? 'vertical'
        : angle > 65 && angle < 115
          ? 'horizontal'
          : 'diagonal';
  const structured = pattern === 'striped' || pattern === 'checked';
  const scale = structured ? (edgeDensity > T.fineScaleAbove ? 'fine' : 'bold') : null;
  const meanEnergy = g.count > 0 ? g.energy / g.count : 0;
  const texture = pattern === 'solid' && meanEnergy > T.fineTextureAbove ? 'fine' : 'smooth';
  const cues: string[] = [];
  if (texture === 'fine') cues.push('a fine texture');
  if (pattern === 'solid' && g.count > 0) {
    const mean = g.ls.reduce((s, l) => s + l, 0) / g.count;
    const bright = g.ls.filter((l) => l > mean + 0.2).length / g.count;
    if (bright >= T.sheenMin && bright <= T.sheenMax) cues.push('a hint of sheen');
  }
  return {
    pattern,
    direction,
    scale,
    texture,
    cues,
    edgeDensity: Math.round(edgeDensity * 1000) / 1000,
    dominantOrientationShare: Math.round(o.p1 * 1000) / 1000,
  };
}

/** A mask eroded by a square of radius r (pixels near the border or the mask's edge drop out). */
function erode(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const eroded = new Uint8Array(w * h);
  for (let y = r; y < h - r; y += 1) {
    for (let x = r; x < w - r; x += 1) {
      let all = 1;
      for (let dy = -r; dy <= r && all; dy += 1)
        for (let dx = -r; dx <= r && all; dx += 1) if (!mask[(y + dy) * w + x + dx]) all = 0;
      eroded[y * w + x] = all;
    }
  }
  return eroded;
}

interface SobelStats {
  /** Magnitude-weighted orientation histogram of strong gradients (0-180 degrees). */
  bins: Float64Array;
  count: number;
  strong: number;
  energy: number;
  /** Lightness of every pixel read. */
  ls: number[];
}

/** Sobel over OKLab lightness at the mask's pixels. */
function sobelStats(img: WorkingImage, mask: Uint8Array): SobelStats {
  const { width: w, height: h, lab } = img;
  const L = (x: number, y: number) => lab[(y * w + x) * 3];
  const out: SobelStats = {
    bins: new Float64Array(ORIENTATION_BINS),
    count: 0,
    strong: 0,
    energy: 0,
    ls: [],
  };
  for (let y = 1; y < h - 1; y += 1) {
    for (let x = 1; x < w - 1; x += 1) {
      if (!mask[y * w + x]) continue;
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
      out.count += 1;
      out.energy += mag;
      out.ls.push(L(x, y));
      if (mag > STRONG_EDGE) {
        out.strong += 1;
        const theta = (Math.atan2(gy, gx) + Math.PI) % Math.PI;
        out.bins[Math.min(ORIENTATION_BINS - 1, Math.floor((theta / Math.PI) * ORIENTATION_BINS))] += mag;
      }
    }
  }
  return out;
}

/** The strongest orientation window (+-1 bin), the strongest one at least 45 degrees from it, their gap. */
function orientationPeaks(bins: Float64Array): { peak: number; p1: number; p2: number; apart: number } {
  const n = ORIENTATION_BINS;
  const massTotal = bins.reduce((s, v) => s + v, 0) || 1;
  const windowMass = (b: number) => (bins[(b + n - 1) % n] + bins[b] + bins[(b + 1) % n]) / massTotal;
  const gap = (a: number, b: number) => Math.min(Math.abs(a - b), n - Math.abs(a - b));
  let peak = 0;
  for (let b = 1; b < n; b += 1) if (windowMass(b) > windowMass(peak)) peak = b;
  let second = -1;
  for (let b = 0; b < n; b += 1)
    if (gap(b, peak) >= 3 && (second < 0 || windowMass(b) > windowMass(second))) second = b;
  return {
    peak,
    p1: windowMass(peak),
    p2: second >= 0 ? windowMass(second) : 0,
    apart: second >= 0 ? gap(second, peak) : 0,
  };
}
