import type { WorkingImage } from './image-decode';
import { morph } from './image-subject';
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
  const g = sobelStats(img, innerMask(subjectMask, img.width, img.height, 2));
  const edgeDensity = g.count > 0 ? g.strong / g.count : 0;
  const o = orientationPeaks(g.bins);
  const pattern = classifyPattern(g.count, edgeDensity, o);
  const structured = pattern === 'striped' || pattern === 'checked';
  const meanEnergy = g.count > 0 ? g.energy / g.count : 0;
  const texture = pattern === 'solid' && meanEnergy > T.fineTextureAbove ? 'fine' : 'smooth';
  return {
    pattern,
    direction: pattern === 'striped' ? stripeDirection(o.peak) : null,
    scale: structured ? (edgeDensity > T.fineScaleAbove ? 'fine' : 'bold') : null,
    texture,
    cues: surfaceCues(pattern, texture, g),
    edgeDensity: Math.round(edgeDensity * 1000) / 1000,
    dominantOrientationShare: Math.round(o.p1 * 1000) / 1000,
  };
}

function classifyPattern(count: number, edgeDensity: number, o: OrientationPeaks): PatternKind {
  if (count === 0 || edgeDensity < T.solidBelow) return 'solid';
  if (o.p1 >= T.stripedPeak) return 'striped';
  if (o.p1 + o.p2 >= T.checkedPeaks && o.p2 >= T.checkedSecond && o.apart >= 5) return 'checked';
  return 'print';
}

/** Stripes run across the gradient: a gradient along x (angle near 0 or 180) is vertical stripes. */
function stripeDirection(peak: number): 'vertical' | 'horizontal' | 'diagonal' {
  const angle = ((peak + 0.5) * 180) / ORIENTATION_BINS;
  if (angle < 25 || angle > 155) return 'vertical';
  return angle > 65 && angle < 115 ? 'horizontal' : 'diagonal';
}

/** What a solid's pixels show: a fine texture, a hint of sheen (a few much lighter pixels). */
function surfaceCues(pattern: PatternKind, texture: 'smooth' | 'fine', g: SobelStats): string[] {
  const cues: string[] = [];
  if (texture === 'fine') cues.push('a fine texture');
  if (pattern === 'solid' && g.count > 0) {
    const mean = g.ls.reduce((s, l) => s + l, 0) / g.count;
    const bright = g.ls.filter((l) => l > mean + 0.2).length / g.count;
    if (bright >= T.sheenMin && bright <= T.sheenMax) cues.push('a hint of sheen');
  }
  return cues;
}

/**
 * The subject mask eroded by a square of radius r (the one erosion, `morph`), with the pixels within r
 * of the frame dropped as well: near the silhouette's outline or the frame, gradients are not pattern.
 */
function innerMask(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const inner = morph(mask, w, h, r, false);
  for (let y = 0; y < h; y += 1)
    for (let x = 0; x < w; x += 1) if (x < r || y < r || x >= w - r || y >= h - r) inner[y * w + x] = 0;
  return inner;
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
interface OrientationPeaks {
  peak: number;
  p1: number;
  p2: number;
  apart: number;
}

function orientationPeaks(bins: Float64Array): OrientationPeaks {
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
