import type { Oklab } from './colour-vocabulary';
import type { WorkingImage } from './image-decode';
import { ANALYSIS } from './image-thresholds';

export type SubjectKind = 'plain-background' | 'centre-weighted' | 'whole-image';

export interface SubjectWeights {
  /** Per pixel, 0 (backdrop) to 1 (subject). */
  weights: Float32Array;
  subject: SubjectKind;
  /** Indices of the pixels in the border ring. */
  border: number[];
}

const T = ANALYSIS.subject;

function dist(lab: Float32Array, i: number, c: Oklab): number {
  return Math.hypot(lab[i * 3] - c.l, lab[i * 3 + 1] - c.a, lab[i * 3 + 2] - c.b);
}

function median(values: number[]): number {
  const s = [...values].sort((x, y) => x - y);
  return s.length === 0 ? 0 : s[Math.floor(s.length / 2)];
}

export function borderRing(w: number, h: number): number[] {
  const ring = Math.max(2, Math.round(T.ringShare * Math.min(w, h)));
  const border: number[] = [];
  for (let y = 0; y < h; y += 1)
    for (let x = 0; x < w; x += 1)
      if (x < ring || y < ring || x >= w - ring || y >= h - ring) border.push(y * w + x);
  return border;
}

/**
 * Subject emphasis.
 * - Plain backdrop: when `plainRingShare` of the border ring is within `plainTolerance` of its median
 *   colour (or transparent), the backdrop is flood-filled from the border through similar pixels, and
 *   a closing puts back garment parts of the backdrop's colour (white stripes on white).
 * - Otherwise (a wall in a lighting gradient, a busy or striped wall, a floor): a centre Gaussian
 *   times the colour's rarity in the border ring, judged on chromaticity and log-lightness bins so
 *   the wall's shaded and shadowed parts count as the wall.
 * - When almost nothing is left, the centre prior alone (or every pixel, for a swatch).
 */
export function subjectWeights(img: WorkingImage): SubjectWeights {
  const { width: w, height: h, lab, alpha } = img;
  const border = borderRing(w, h);
  const opaqueBorder = border.filter((i) => alpha[i] >= ANALYSIS.opaqueAlpha);
  const bg: Oklab = {
    l: median(opaqueBorder.map((i) => lab[i * 3])),
    a: median(opaqueBorder.map((i) => lab[i * 3 + 1])),
    b: median(opaqueBorder.map((i) => lab[i * 3 + 2])),
  };
  const transparent = (i: number) => alpha[i] < ANALYSIS.opaqueAlpha;
  const uniform =
    border.filter((i) => transparent(i) || dist(lab, i, bg) < T.plainTolerance).length / border.length;
  if (uniform >= T.plainRingShare) {
    const plain = plainBackdropWeights(img, bg);
    if (plain) return { weights: plain, subject: 'plain-background', border };
    const weights = new Float32Array(w * h);
    for (let i = 0; i < w * h; i += 1) weights[i] = transparent(i) ? 0 : 1;
    return { weights, subject: 'whole-image', border };
  }
  return { weights: centreWeights(img, border), subject: 'centre-weighted', border };
}

/** Flood fill of a plain backdrop from the border, then a closing; null when nearly all is backdrop. */
function plainBackdropWeights(img: WorkingImage, bg: Oklab): Float32Array | null {
  const { width: w, height: h, lab, alpha } = img;
  const n = w * h;
  const isBackground = (i: number) => alpha[i] < ANALYSIS.opaqueAlpha || dist(lab, i, bg) < T.fillTolerance;
  const seen = new Uint8Array(n);
  const queue: number[] = [];
  for (let x = 0; x < w; x += 1) queue.push(x, (h - 1) * w + x);
  for (let y = 0; y < h; y += 1) queue.push(y * w, y * w + w - 1);
  while (queue.length > 0) {
    const i = queue.pop() as number;
    if (seen[i] || !isBackground(i)) continue;
    seen[i] = 1;
    const x = i % w;
    if (x > 0) queue.push(i - 1);
    if (x < w - 1) queue.push(i + 1);
    if (i >= w) queue.push(i - w);
    if (i < n - w) queue.push(i + w);
  }
  const mask = new Uint8Array(n);
  for (let i = 0; i < n; i += 1) mask[i] = seen[i] || alpha[i] < ANALYSIS.opaqueAlpha ? 0 : 1;
  const r = T.closingRadius;
  const closed = morph(morph(mask, w, h, r, true), w, h, r, false);
  const weights = new Float32Array(n);
  let total = 0;
  for (let i = 0; i < n; i += 1) {
    weights[i] = alpha[i] < ANALYSIS.opaqueAlpha ? 0 : closed[i];
    total += weights[i];
  }
  return total >= T.minSubjectShare * n ? weights : null;
}

/** Shading-invariant colour bin: chromaticity (a/L, b/L) and log-lightness. */
function binOf(lab: Float32Array, i: number): [number, number, number] {
  const l = Math.max(lab[i * 3], 0.05);
  const scale = 1 / Math.max(l, 0.25);
  return [
    Math.round((lab[i * 3 + 1] * scale) / T.chromaticityStep),
    Math.round((lab[i * 3 + 2] * scale) / T.chromaticityStep),
    Math.round(Math.log(l) / T.logLightnessStep),
  ];
}

/** Centre Gaussian times rarity in the border ring (a bin and its lightness neighbours). */
function centreWeights(img: WorkingImage, border: number[]): Float32Array {
  const { width: w, height: h, lab, alpha } = img;
  const n = w * h;
  const freq = new Map<string, number>();
  for (const i of border) {
    const [x, y, z] = binOf(lab, i);
    // A border pixel also stands for its lighter and darker neighbours: the same wall in the light
    // gradient or in the garment's cast shadow.
    for (const dz of [-1, 0, 1]) {
      const key = `${x},${y},${z + dz}`;
      freq.set(key, (freq.get(key) ?? 0) + 1 / border.length);
    }
  }
  const s2 = 2 * T.centreSigma * T.centreSigma;
  const prior = (i: number) => {
    const dx = ((i % w) + 0.5) / w - 0.5;
    const dy = (Math.floor(i / w) + 0.5) / h - 0.5;
    return Math.exp(-(dx * dx + dy * dy) / s2);
  };
  const weights = new Float32Array(n);
  let total = 0;
  for (let i = 0; i < n; i += 1) {
    if (alpha[i] < ANALYSIS.opaqueAlpha) continue;
    const [x, y, z] = binOf(lab, i);
    const common = Math.min(1, (freq.get(`${x},${y},${z}`) ?? 0) / T.borderBinShare);
    const rarity = 1 - (1 - T.commonColourFloor) * common;
    weights[i] = prior(i) * rarity;
    total += weights[i];
  }
  if (total < T.minWeightShare * n) for (let i = 0; i < n; i += 1) weights[i] = alpha[i] < 128 ? 0 : prior(i);
  return weights;
}

/**
 * Square-window max (dilate) or min (erode) of a 0/1 mask, separably. Outside the image counts as
 * background for dilation and as subject for erosion, so a garment touching the frame is not eaten.
 */
export function morph(mask: Uint8Array, w: number, h: number, r: number, max: boolean): Uint8Array {
  const pass = (src: Uint8Array, horizontal: boolean): Uint8Array => {
    const out = new Uint8Array(src.length);
    for (let y = 0; y < h; y += 1) {
      for (let x = 0; x < w; x += 1) {
        let v = max ? 0 : 1;
        for (let d = -r; d <= r; d += 1) {
          const xx = horizontal ? x + d : x;
          const yy = horizontal ? y : y + d;
          const inside = xx >= 0 && yy >= 0 && xx < w && yy < h;
          const sample = inside ? src[yy * w + xx] : max ? 0 : 1;
          v = max ? Math.max(v, sample) : Math.min(v, sample);
        }
        out[y * w + x] = v;
      }
    }
    return out;
  };
  return pass(pass(mask, true), false);
}
