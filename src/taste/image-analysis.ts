import { converter } from 'culori';
import sharp from 'sharp';
import { seededRandom } from '../common/seeded-random';
// The decompression-bomb guard ingestion applies, applied again to bytes that reach the analyst.
import { MAX_IMAGE_PIXELS } from '../storage/image-limits';
import { nameColour, Oklab, oklabToHex } from './colour-vocabulary';
import { PaletteColour, PatternKind, TasteGenerationError } from './taste.types';

/**
 * The local analyst's measurements of one image. Everything is computed from pixels: a working copy
 * of at most WORKING_SIZE px is decoded with shrink-on-load, the subject is separated from a plain
 * background where there is one, and the palette and surface are measured on the subject.
 */
export interface PaletteCharacter {
  warmth: 'warm' | 'cool' | 'neutral';
  lightness: 'light' | 'mid-tone' | 'dark';
  saturation: 'muted' | 'moderate' | 'vivid';
  contrast: 'tonal' | 'balanced' | 'high-contrast';
  variety: 'monochrome' | 'few colours' | 'multicolour';
  /** Weighted means over the subject, for the profile writer's own rules. */
  meanL: number;
  meanChroma: number;
}

export interface SurfaceAnalysis {
  pattern: PatternKind;
  /** Stripe orientation when striped. */
  direction: 'vertical' | 'horizontal' | 'diagonal' | null;
  /** Bold (few, wide) or fine (many, narrow) stripes or checks. */
  scale: 'bold' | 'fine' | null;
  texture: 'smooth' | 'fine';
  /** Honest material cues only, phrased as cues ("a knit-like fine texture"). */
  cues: string[];
  /** Measurements behind the decision (documented in detectSurface). */
  edgeDensity: number;
  dominantOrientationShare: number;
}

export interface ImageAnalysis {
  palette: PaletteColour[];
  character: PaletteCharacter;
  surface: SurfaceAnalysis;
  /** How the subject was found: a plain background around it, or centre weighting. */
  subject: 'plain-background' | 'centre-weighted' | 'whole-image';
}

export const WORKING_SIZE = 128;
const K = 5;
const KMEANS_ITERATIONS = 10;
const MIN_SHARE = 0.04;

const toOklab = converter('oklab');

interface WorkingImage {
  width: number;
  height: number;
  /** OKLab per pixel, interleaved l,a,b. */
  lab: Float32Array;
  alpha: Uint8Array;
}

/** Decodes with shrink-on-load (JPEG/WebP decode at reduced size), auto-rotates, first frame only. */
async function decodeWorkingImage(data: Buffer, index: number): Promise<WorkingImage> {
  try {
    const image = sharp(data, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error', animated: false });
    const { data: raw, info } = await image
      .rotate()
      .resize(WORKING_SIZE, WORKING_SIZE, { fit: 'inside', withoutEnlargement: true, fastShrinkOnLoad: true })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const n = info.width * info.height;
    const lab = new Float32Array(n * 3);
    const alpha = new Uint8Array(n);
    const cache = new Map<number, Oklab>();
    for (let i = 0; i < n; i += 1) {
      const r = raw[i * 4];
      const g = raw[i * 4 + 1];
      const b = raw[i * 4 + 2];
      const key = (r << 16) | (g << 8) | b;
      let c = cache.get(key);
      if (!c) {
        const o = toOklab({ mode: 'rgb', r: r / 255, g: g / 255, b: b / 255 });
        c = { l: o.l, a: o.a, b: o.b };
        cache.set(key, c);
      }
      lab[i * 3] = c.l;
      lab[i * 3 + 1] = c.a;
      lab[i * 3 + 2] = c.b;
      alpha[i] = raw[i * 4 + 3];
    }
    return { width: info.width, height: info.height, lab, alpha };
  } catch {
    throw new TasteGenerationError(`image ${index + 1} could not be decoded as an image`, false);
  }
}

function dist(lab: Float32Array, i: number, c: Oklab): number {
  const dl = lab[i * 3] - c.l;
  const da = lab[i * 3 + 1] - c.a;
  const db = lab[i * 3 + 2] - c.b;
  return Math.sqrt(dl * dl + da * da + db * db);
}

function median(values: number[]): number {
  const s = [...values].sort((x, y) => x - y);
  return s.length === 0 ? 0 : s[Math.floor(s.length / 2)];
}

/**
 * Subject emphasis.
 * - Plain background: the background colour is the median of the border ring; when at least 70% of
 *   the ring is within ΔE_OK 0.05 of it (or transparent), the background is flood-filled from the border through
 *   similar pixels (ΔE_OK < 0.08), so parts of the garment that share the background's colour (white
 *   stripes on a white backdrop) stay subject. Subject pixels weigh 1, background 0.
 * - Busy background: a centre Gaussian (σ = 0.35 of the side) times the colour's distinctiveness:
 *   colours that are common in the border ring (≥ 3% of it, by OKLab bin) count less, so the backdrop
 *   fades even where it reaches the centre.
 * - When almost nothing differs from a plain border, the image is a swatch: every pixel counts.
 */
export function subjectWeights(img: WorkingImage): {
  weights: Float32Array;
  subject: ImageAnalysis['subject'];
} {
  const { width: w, height: h, lab, alpha } = img;
  const n = w * h;
  const ring = Math.max(2, Math.round(0.06 * Math.min(w, h)));
  const border: number[] = [];
  for (let y = 0; y < h; y += 1) {
    for (let x = 0; x < w; x += 1) {
      if (x < ring || y < ring || x >= w - ring || y >= h - ring) border.push(y * w + x);
    }
  }
  const opaqueBorder = border.filter((i) => alpha[i] >= 128);
  const bg: Oklab = {
    l: median(opaqueBorder.map((i) => lab[i * 3])),
    a: median(opaqueBorder.map((i) => lab[i * 3 + 1])),
    b: median(opaqueBorder.map((i) => lab[i * 3 + 2])),
  };
  const isBackground = (i: number) => alpha[i] < 128 || dist(lab, i, bg) < 0.08;
  // Plain means most of the ring is close to one colour (a stricter tolerance than the fill's, so a
  // textured backdrop does not pass for a plain one).
  const uniform = border.filter((i) => alpha[i] < 128 || dist(lab, i, bg) < 0.05).length / border.length;
  const weights = new Float32Array(n);

  if (uniform >= 0.7) {
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
    for (let i = 0; i < n; i += 1) mask[i] = seen[i] || alpha[i] < 128 ? 0 : 1;
    // Closing (dilate, then erode) puts back narrow background-coloured parts of the garment that
    // the fill reached through the outline (white stripes on a white backdrop).
    const closed = erode(dilate(mask, w, h, CLOSING_RADIUS), w, h, CLOSING_RADIUS);
    let total = 0;
    for (let i = 0; i < n; i += 1) {
      weights[i] = alpha[i] < 128 ? 0 : closed[i];
      total += weights[i];
    }
    if (total >= 0.03 * n) return { weights, subject: 'plain-background' };
    for (let i = 0; i < n; i += 1) weights[i] = alpha[i] < 128 ? 0 : 1;
    return { weights, subject: 'whole-image' };
  }

  const bin = (i: number) =>
    `${Math.round(lab[i * 3] / 0.06)},${Math.round(lab[i * 3 + 1] / 0.04)},${Math.round(lab[i * 3 + 2] / 0.04)}`;
  const borderFreq = new Map<string, number>();
  for (const i of border) borderFreq.set(bin(i), (borderFreq.get(bin(i)) ?? 0) + 1 / border.length);
  const sigma = 0.35;
  let total = 0;
  for (let y = 0; y < h; y += 1) {
    for (let x = 0; x < w; x += 1) {
      const dx = (x + 0.5) / w - 0.5;
      const dy = (y + 0.5) / h - 0.5;
      const i = y * w + x;
      const distinct = Math.min(1, Math.max(0, 1 - (borderFreq.get(bin(i)) ?? 0) / 0.03));
      weights[i] = alpha[i] < 128 ? 0 : Math.exp(-(dx * dx + dy * dy) / (2 * sigma * sigma)) * distinct;
      total += weights[i];
    }
  }
  if (total < 0.05 * n) {
    for (let y = 0; y < h; y += 1) {
      for (let x = 0; x < w; x += 1) {
        const dx = (x + 0.5) / w - 0.5;
        const dy = (y + 0.5) / h - 0.5;
        weights[y * w + x] = Math.exp(-(dx * dx + dy * dy) / (2 * sigma * sigma));
      }
    }
  }
  return { weights, subject: 'centre-weighted' };
}

const CLOSING_RADIUS = 5;

/** Square-window max (dilate) or min (erode) of a 0/1 mask, separably. */
function morph(mask: Uint8Array, w: number, h: number, r: number, max: boolean): Uint8Array {
  const pass = (src: Uint8Array, horizontal: boolean): Uint8Array => {
    const out = new Uint8Array(src.length);
    for (let y = 0; y < h; y += 1) {
      for (let x = 0; x < w; x += 1) {
        let v = max ? 0 : 1;
        for (let d = -r; d <= r; d += 1) {
          const xx = horizontal ? x + d : x;
          const yy = horizontal ? y : y + d;
          // Outside the image counts as background for dilation and as subject for erosion,
          // so a garment touching the frame is not eaten away.
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

function dilate(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  return morph(mask, w, h, r, true);
}

function erode(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  return morph(mask, w, h, r, false);
}

/** Weighted k-means in OKLab with k-means++ seeding; returns centroids and their weight share. */
export function weightedKMeans(
  lab: Float32Array,
  weights: Float32Array,
  k = K,
): { centroid: Oklab; share: number }[] {
  const n = weights.length;
  const idx: number[] = [];
  let total = 0;
  for (let i = 0; i < n; i += 1) {
    if (weights[i] > 0.01) {
      idx.push(i);
      total += weights[i];
    }
  }
  if (idx.length === 0 || total === 0) return [];
  const rand = seededRandom(0x5eed); // deterministic: the same image always gives the same palette
  const pick = (scores: Float64Array): number => {
    let sum = 0;
    for (const s of scores) sum += s;
    let r = rand() * sum;
    for (let j = 0; j < scores.length; j += 1) {
      r -= scores[j];
      if (r <= 0) return idx[j];
    }
    return idx[idx.length - 1];
  };
  const centroids: Oklab[] = [];
  const first = pick(Float64Array.from(idx, (i) => weights[i]));
  centroids.push({ l: lab[first * 3], a: lab[first * 3 + 1], b: lab[first * 3 + 2] });
  while (centroids.length < k) {
    const scores = Float64Array.from(idx, (i) => {
      const d = Math.min(...centroids.map((c) => dist(lab, i, c)));
      return weights[i] * d * d;
    });
    if (scores.every((s) => s < 1e-9)) break;
    const next = pick(scores);
    centroids.push({ l: lab[next * 3], a: lab[next * 3 + 1], b: lab[next * 3 + 2] });
  }
  const assign = new Int32Array(idx.length);
  for (let iter = 0; iter < KMEANS_ITERATIONS; iter += 1) {
    const sums = centroids.map(() => ({ l: 0, a: 0, b: 0, w: 0 }));
    idx.forEach((i, j) => {
      let best = 0;
      let bestD = Infinity;
      centroids.forEach((c, ci) => {
        const d = dist(lab, i, c);
        if (d < bestD) {
          bestD = d;
          best = ci;
        }
      });
      assign[j] = best;
      const s = sums[best];
      const wgt = weights[i];
      s.l += lab[i * 3] * wgt;
      s.a += lab[i * 3 + 1] * wgt;
      s.b += lab[i * 3 + 2] * wgt;
      s.w += wgt;
    });
    sums.forEach((s, ci) => {
      if (s.w > 0) centroids[ci] = { l: s.l / s.w, a: s.a / s.w, b: s.b / s.w };
    });
  }
  const shares = centroids.map(() => 0);
  idx.forEach((i, j) => (shares[assign[j]] += weights[i]));
  return centroids
    .map((centroid, ci) => ({ centroid, share: shares[ci] / total }))
    .filter((c) => c.share > 0);
}

/** Clusters named from the fashion vocabulary (CIEDE2000), same names merged, small ones dropped. */
export function namePalette(clusters: { centroid: Oklab; share: number }[]): PaletteColour[] {
  const byName = new Map<string, { l: number; a: number; b: number; share: number }>();
  for (const c of clusters) {
    const name = nameColour(c.centroid).name;
    const acc = byName.get(name) ?? { l: 0, a: 0, b: 0, share: 0 };
    acc.l += c.centroid.l * c.share;
    acc.a += c.centroid.a * c.share;
    acc.b += c.centroid.b * c.share;
    acc.share += c.share;
    byName.set(name, acc);
  }
  return [...byName.entries()]
    .map(([name, acc]) => {
      const oklab = { l: acc.l / acc.share, a: acc.a / acc.share, b: acc.b / acc.share };
      return {
        name,
        hex: oklabToHex(oklab),
        oklab: round(oklab),
        share: Math.round(acc.share * 1000) / 1000,
      };
    })
    .filter((c) => c.share >= MIN_SHARE)
    .sort((x, y) => y.share - x.share || x.name.localeCompare(y.name));
}

function round(o: Oklab): Oklab {
  const r = (v: number) => Math.round(v * 10000) / 10000;
  return { l: r(o.l), a: r(o.a), b: r(o.b) };
}

export function chroma(o: Oklab): number {
  return Math.sqrt(o.a * o.a + o.b * o.b);
}

/** Hue angle in degrees, 0 to 360 (OKLab: red ≈ 20, orange ≈ 60, yellow ≈ 100, green ≈ 140, blue ≈ 260). */
export function hue(o: Oklab): number {
  return ((Math.atan2(o.b, o.a) * 180) / Math.PI + 360) % 360;
}

/** Chromatic colours are warm from magenta-red through yellow (hue ≥ 340 or ≤ 115), cool otherwise. */
export function isWarmHue(h: number): boolean {
  return h >= 340 || h <= 115;
}

/**
 * Palette character, from the named palette:
 * - warmth: the share-weighted vote of chromatic colours (chroma ≥ 0.04); neutral when they hold
 *   under a quarter of the subject;
 * - lightness: mean L over 0.72 light, under 0.45 dark;
 * - saturation: mean chroma over 0.11 vivid, under 0.05 muted;
 * - contrast: lightness spread between colours holding ≥ 10%: over 0.4 high-contrast, under 0.15 tonal;
 * - variety: hue families among chromatic colours holding ≥ 10%: none or one is monochrome, three or
 *   more multicolour.
 */
export function paletteCharacter(palette: PaletteColour[]): PaletteCharacter {
  const total = palette.reduce((s, c) => s + c.share, 0) || 1;
  let warm = 0;
  let cool = 0;
  let meanL = 0;
  let meanChroma = 0;
  for (const c of palette) {
    const w = c.share / total;
    meanL += c.oklab.l * w;
    meanChroma += chroma(c.oklab) * w;
    if (chroma(c.oklab) >= 0.04) {
      if (isWarmHue(hue(c.oklab))) warm += w;
      else cool += w;
    }
  }
  const main = palette.filter((c) => c.share / total >= 0.1);
  const ls = main.map((c) => c.oklab.l);
  const spread = ls.length > 0 ? Math.max(...ls) - Math.min(...ls) : 0;
  const families = new Set(
    main.filter((c) => chroma(c.oklab) >= 0.04).map((c) => Math.floor(((hue(c.oklab) + 15) % 360) / 45)),
  );
  return {
    warmth: warm + cool < 0.25 ? 'neutral' : warm >= cool ? 'warm' : 'cool',
    lightness: meanL > 0.72 ? 'light' : meanL < 0.45 ? 'dark' : 'mid-tone',
    saturation: meanChroma > 0.11 ? 'vivid' : meanChroma < 0.05 ? 'muted' : 'moderate',
    contrast: spread > 0.4 ? 'high-contrast' : spread < 0.15 ? 'tonal' : 'balanced',
    variety:
      families.size <= 1 && main.length <= 2
        ? 'monochrome'
        : families.size >= 3
          ? 'multicolour'
          : 'few colours',
    meanL: Math.round(meanL * 1000) / 1000,
    meanChroma: Math.round(meanChroma * 1000) / 1000,
  };
}

const STRONG_EDGE = 0.08;
const ORIENTATION_BINS = 12; // 15° each

/**
 * Surface and pattern from a Sobel pass over OKLab lightness inside the subject (eroded, so the
 * silhouette's outline is not mistaken for pattern):
 * - edge density (share of subject pixels with a strong gradient) under 4%: solid;
 * - otherwise the orientation histogram of strong gradients (0-180°, 15° bins, magnitude-weighted):
 *   one peak (±15°) holding ≥ 55%: striped (gradient across x means vertical stripes); two peaks
 *   about 90° apart holding ≥ 60% together, the second ≥ 20%: checked; anything else: print;
 * - texture: for solids, mean gradient over 0.012 reads as a fine texture (a knit-like surface cue);
 * - sheen cue: 1-8% of a solid subject much lighter than its mean (specular highlights).
 */
export function detectSurface(img: WorkingImage, weights: Float32Array): SurfaceAnalysis {
  const { width: w, height: h, lab } = img;
  const inside = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i += 1) inside[i] = weights[i] > 0.5 ? 1 : 0;
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
  if (count === 0 || edgeDensity < 0.04) pattern = 'solid';
  else if (p1 >= 0.55) pattern = 'striped';
  else if (p1 + p2 >= 0.6 && p2 >= 0.2 && apart >= 5) pattern = 'checked';
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
  const scale = pattern === 'striped' || pattern === 'checked' ? (edgeDensity > 0.3 ? 'fine' : 'bold') : null;
  const texture = pattern === 'solid' && meanEnergy > 0.012 ? 'fine' : 'smooth';
  const cues: string[] = [];
  if (texture === 'fine') cues.push('a knit-like fine texture');
  if (pattern === 'solid' && count > 0) {
    const mean = sumL / count;
    const bright = ls.filter((l) => l > mean + 0.2).length / count;
    if (bright >= 0.01 && bright <= 0.08) cues.push('a hint of sheen');
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

/** The whole measurement of one image. `index` (0-based) names the image in errors. */
export async function analyseImage(data: Buffer, index: number): Promise<ImageAnalysis> {
  const img = await decodeWorkingImage(data, index);
  const { weights, subject } = subjectWeights(img);
  const palette = namePalette(weightedKMeans(img.lab, weights));
  if (palette.length === 0)
    throw new TasteGenerationError(`image ${index + 1} has no visible content`, false);
  return {
    palette,
    character: paletteCharacter(palette),
    surface: detectSurface(img, weights),
    subject,
  };
}
