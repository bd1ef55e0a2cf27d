import { seededRandom } from '../common/seeded-random';
import { nameColour, Oklab, oklabToHex } from './colour-vocabulary';
import { sideLight, type WorkingImage } from './image-decode';
import type { SubjectWeights } from './image-subject';
import { ANALYSIS } from './image-thresholds';
import type { PaletteColour } from './taste.types';

const T = ANALYSIS.palette;

/** A cluster's lit colour (shading removed) and its share of the subject. */
export interface Cluster {
  colour: Oklab;
  share: number;
}

/**
 * Clustering features of a pixel: lightness weighted down, and chromaticity (a/L, b/L) scaled to a
 * reference lightness, so shading (which scales L, a and b together in OKLab) moves a pixel little.
 */
function features(lab: Float32Array): Float32Array {
  const n = lab.length / 3;
  const f = new Float32Array(n * 3);
  for (let i = 0; i < n; i += 1) {
    const l = lab[i * 3];
    const s = T.referenceL / Math.max(l, T.minChromaticityL);
    f[i * 3] = l * T.lightnessWeight;
    f[i * 3 + 1] = lab[i * 3 + 1] * s;
    f[i * 3 + 2] = lab[i * 3 + 2] * s;
  }
  return f;
}

const d2 = (f: Float32Array, i: number, c: Float32Array, j: number) =>
  (f[i * 3] - c[j * 3]) ** 2 + (f[i * 3 + 1] - c[j * 3 + 1]) ** 2 + (f[i * 3 + 2] - c[j * 3 + 2]) ** 2;

/** The centre nearest to pixel `i` (d2, with the pixel's features read once: the analysis's hottest loop). */
function nearest(f: Float32Array, i: number, centres: Float32Array, k: number): number {
  const x = f[i * 3];
  const y = f[i * 3 + 1];
  const z = f[i * 3 + 2];
  let best = 0;
  let bestD = Infinity;
  for (let j = 0; j < k; j += 1) {
    const d = (x - centres[j * 3]) ** 2 + (y - centres[j * 3 + 1]) ** 2 + (z - centres[j * 3 + 2]) ** 2;
    if (d < bestD) {
      bestD = d;
      best = j;
    }
  }
  return best;
}

/**
 * k-means++ seeding, deterministic (the same image always gives the same palette). Each pixel's
 * distance to its nearest centre is kept and lowered by each new centre, rather than taken again over
 * all centres in every round (the same minimum, in one pass per centre).
 */
function seedCentres(f: Float32Array, idx: number[], w: Float32Array, k: number): Float32Array {
  const rand = seededRandom(0x5eed);
  const centres = new Float32Array(k * 3);
  const pick = (scores: Float64Array): number => {
    let r = rand() * scores.reduce((s, v) => s + v, 0);
    for (let j = 0; j < scores.length; j += 1) if ((r -= scores[j]) <= 0) return idx[j];
    return idx[idx.length - 1];
  };
  let count = 0;
  const put = (i: number) => centres.set(f.subarray(i * 3, i * 3 + 3), 3 * count++);
  put(pick(Float64Array.from(idx, (i) => w[i])));
  const nearestD = new Float64Array(idx.length).fill(Infinity);
  const scores = new Float64Array(idx.length);
  while (count < k) {
    const last = count - 1;
    let anyScore = false;
    for (let p = 0; p < idx.length; p += 1) {
      const i = idx[p];
      nearestD[p] = Math.min(nearestD[p], d2(f, i, centres, last));
      scores[p] = w[i] * nearestD[p];
      if (!(scores[p] < 1e-9)) anyScore = true;
    }
    if (!anyScore) break;
    put(pick(scores));
  }
  return centres.subarray(0, count * 3);
}

/** Weighted k-means in the clustering space; returns each pixel's cluster (-1: transparent). */
export function clusterPixels(img: WorkingImage, weights: Float32Array): { assign: Int32Array; k: number } {
  const f = features(img.lab);
  const n = img.width * img.height;
  const w = new Float32Array(n);
  const idx: number[] = [];
  for (let i = 0; i < n; i += 1) {
    if (img.alpha[i] < ANALYSIS.opaqueAlpha) continue;
    w[i] = T.clusterWeightFloor + (1 - T.clusterWeightFloor) * weights[i];
    idx.push(i);
  }
  const assign = new Int32Array(n).fill(-1);
  if (idx.length === 0) return { assign, k: 0 };
  const centres = seedCentres(f, idx, w, T.clusters);
  const k = centres.length / 3;
  for (let iter = 0; iter < T.iterations; iter += 1) {
    const sums = new Float64Array(k * 4);
    for (let p = 0; p < idx.length; p += 1) {
      const i = idx[p];
      const j = nearest(f, i, centres, k);
      assign[i] = j;
      for (let c = 0; c < 3; c += 1) sums[j * 4 + c] += f[i * 3 + c] * w[i];
      sums[j * 4 + 3] += w[i];
    }
    for (let j = 0; j < k; j += 1)
      if (sums[j * 4 + 3] > 0)
        for (let c = 0; c < 3; c += 1) centres[j * 3 + c] = sums[j * 4 + c] / sums[j * 4 + 3];
  }
  return { assign, k };
}

/** A pixel's lightness and its weight. */
interface Weighted {
  v: number;
  w: number;
}

/**
 * The items below a lighter mode of their own (ADR 0067). In `palette.valleyStep` bins of weighted
 * lightness, walking up from the median's bin, a bin holding less than `valleyBelow` of the heaviest
 * bin so far is a valley when a lighter bin holds at least twice its weight and less than that
 * heaviest bin: between the cloth and something lighter its cluster took in (a wall's pixels of its
 * chromaticity). The items up to the valley bin's top are kept; all of them when there is no valley,
 * since a cloth's shading spreads its lightness without a gap. Going up from the median, the part cut
 * is always the lesser; a lighter mode heavier than the cloth's heaviest bin is more likely the cloth
 * (a white garment in one cluster with grey wall stripes) and is kept.
 */
export function belowLighterMode(items: readonly Weighted[]): readonly Weighted[] {
  if (items.length === 0) return items;
  const step = T.valleyStep;
  const bins = Math.floor(1 / step) + 1;
  const binOf = (v: number) => Math.min(bins - 1, Math.max(0, Math.floor(v / step)));
  const hist = new Array<number>(bins).fill(0);
  for (const x of items) hist[binOf(x.v)] += x.w;
  // The median's bin, from the histogram.
  const total = hist.reduce((s, h) => s + h, 0);
  let median = 0;
  let below = hist[0];
  while (below < total / 2 && median < bins - 1) below += hist[++median];
  let peak = 0;
  for (let b = median; b < bins - 1; b += 1) {
    if (hist[b] < T.valleyBelow * peak) {
      const lighter = Math.max(...hist.slice(b + 1));
      if (lighter >= 2 * hist[b] && lighter < peak) return items.filter((x) => binOf(x.v) <= b);
    }
    peak = Math.max(peak, hist[b]);
  }
  return items;
}

/** The value below which `p` of the total weight lies. */
function weightedPercentile(items: readonly Weighted[], p: number): number {
  const sorted = [...items].sort((x, y) => x.v - y.v);
  const total = sorted.reduce((s, x) => s + x.w, 0);
  let acc = 0;
  for (const x of sorted) if ((acc += x.w) >= p * total) return x.v;
  return sorted[sorted.length - 1].v;
}

/**
 * A cluster's colour with shading removed: its chromaticity (subject-weighted mean of a/L, b/L) at the
 * lightness of its lit part (the `percentile` of its pixels' lightness, `litReading`), so a cloth's
 * shaded side and folds do not darken or grey its colour. In an even light the percentile is read
 * below a lighter mode the cluster took in (`belowLighterMode`); under a light from one side, the
 * cloth's lit side is such a mode itself.
 */
function litColour(lab: Float32Array, members: number[], weights: Float32Array, light: LitReading): Oklab {
  let sw = 0;
  let ca = 0;
  let cb = 0;
  for (const i of members) {
    const wi = Math.max(weights[i], 1e-3);
    const l = Math.max(lab[i * 3], T.minChromaticityL);
    ca += (lab[i * 3 + 1] / l) * wi;
    cb += (lab[i * 3 + 2] / l) * wi;
    sw += wi;
  }
  const lightness = members.map((i) => ({ v: lab[i * 3], w: Math.max(weights[i], 1e-3) }));
  const l = weightedPercentile(light.sideLit ? lightness : belowLighterMode(lightness), light.percentile);
  const scale = Math.max(l, T.minChromaticityL);
  return { l, a: (ca / sw) * scale, b: (cb / sw) * scale };
}

/** How a scene's clusters are read: at which lightness percentile, and whether under a side light. */
interface LitReading {
  percentile: number;
  sideLit: boolean;
}

/**
 * Where a scene's clusters are read: `litPercentile` in an even light, the lower `sideLitPercentile`
 * under a strong light from one side (`sideLight`), whose lit side is brighter than the cloth (ADR 0062).
 */
function litReading(img: WorkingImage): LitReading {
  const sideLit = sideLight(img) > ANALYSIS.light.sideLightAbove;
  return { percentile: sideLit ? T.sideLitPercentile : T.litPercentile, sideLit };
}

/** The lightness percentile `litReading` reads a scene's clusters at. */
export function litPercentileOf(img: WorkingImage): number {
  return litReading(img).percentile;
}

/** Median lightness and mean chromaticity (a/L, b/L) of a cluster's pixels. */
function tone(lab: Float32Array, members: number[]): { l: number; ca: number; cb: number } {
  const ls = members.map((i) => lab[i * 3]).sort((x, y) => x - y);
  let ca = 0;
  let cb = 0;
  for (const i of members) {
    const l = Math.max(lab[i * 3], T.minChromaticityL);
    ca += lab[i * 3 + 1] / l;
    cb += lab[i * 3 + 2] / l;
  }
  return { l: ls[ls.length >> 1], ca: ca / members.length, cb: cb / members.length };
}

/** A group's mean subject weight a pixel (`full`: its pixels' weights before the border test). */
const meanWeight = (g: { m: number[]; full: number }): number => g.full / g.m.length;

/**
 * False when the lighter of two clusters is less the subject than the darker: its mean subject weight
 * is under `sameSubjectRatio` of the darker one's. A near-neutral garment and a light wall, split by
 * the light into several clusters that each hold too little of the border to count as backdrop, have
 * one chromaticity and lightness within `sameLightnessRatio`; only the wall's lower subject weight
 * tells them apart, and joined, the wall would be the cloth's lit part. A darker cluster of lower weight may join: a cloth's shaded side
 * shares its bins with shadows on the wall, and it does not move the lit colour (ADR 0050).
 */
function sameSubject(x: { weight: number; l: number }, y: { weight: number; l: number }): boolean {
  const [lighter, darker] = x.l >= y.l ? [x, y] : [y, x];
  return lighter.weight >= T.sameSubjectRatio * darker.weight;
}

/**
 * Joins clusters that are one cloth in light and shade: the same chromaticity (within
 * `sameChromaticity`), lightness within `sameLightnessRatio` of each other, and the lighter one about
 * as much the subject as the darker (`sameSubject`). Backdrop clusters are never joined to the subject's.
 */
function joinShades(
  lab: Float32Array,
  groups: { m: number[]; w: number; backdrop: boolean; full: number }[],
): typeof groups {
  const out = [...groups].sort((x, y) => y.w - x.w);
  // Each group's tone, computed once and again only when the group grows.
  const tones = out.map((g) => tone(lab, g.m));
  for (let i = 0; i < out.length; i += 1) {
    for (let j = i + 1; j < out.length; j += 1) {
      if (out[i].backdrop || out[j].backdrop) continue;
      const x = tones[i];
      const y = tones[j];
      const ratio = Math.max(x.l, y.l) / Math.max(1e-3, Math.min(x.l, y.l));
      const refL = Math.min(x.l, y.l, T.referenceL);
      const apart = Math.hypot(x.ca - y.ca, x.cb - y.cb) * refL;
      if (ratio > T.sameLightnessRatio || apart > T.sameChromaticity) continue;
      if (!sameSubject({ weight: meanWeight(out[i]), l: x.l }, { weight: meanWeight(out[j]), l: y.l }))
        continue;
      out[i] = {
        m: [...out[i].m, ...out[j].m],
        w: out[i].w + out[j].w,
        backdrop: false,
        full: out[i].full + out[j].full,
      };
      out.splice(j, 1);
      tones.splice(j, 1);
      tones[i] = tone(lab, out[i].m);
      j = i;
    }
  }
  return out;
}

/**
 * The pixels joined to the border ring through pixels of their own cluster (4-connected): the part of
 * each cluster that reaches the frame. A wall's cluster reaches it; the same colour enclosed by the
 * subject (a pale garment's lit middle, in the colour of the wall's shaded side) does not.
 */
function framed(assign: Int32Array, width: number, border: readonly number[]): Uint8Array {
  const reached = new Uint8Array(assign.length);
  const stack: number[] = [];
  for (const i of border)
    if (assign[i] >= 0 && !reached[i]) {
      reached[i] = 1;
      stack.push(i);
    }
  while (stack.length > 0) {
    const i = stack.pop() as number;
    const x = i % width;
    const around = [x > 0 ? i - 1 : -1, x < width - 1 ? i + 1 : -1, i - width, i + width];
    for (const j of around)
      if (j >= 0 && j < assign.length && !reached[j] && assign[j] === assign[i]) {
        reached[j] = 1;
        stack.push(j);
      }
  }
  return reached;
}

/** A pixel group: its pixels and their summed subject weight. */
interface Part {
  m: number[];
  full: number;
}

/**
 * A backdrop cluster's pieces that do not reach the frame, when they are the subject: weighted at
 * least `enclosedSubjectRatio` times as much as the cluster's framed part. The wall's colour is weighted
 * down where the border ring holds it; the garment's lit middle in that colour is weighted as the
 * garment, while a busy wall's blobs between the garment's edges stay weighted as the wall. Null when
 * the cluster stays whole.
 */
function enclosedSubject(
  members: readonly number[],
  atFrame: Uint8Array,
  weights: Float32Array,
): { framed: Part; inside: Part } | null {
  const framedPart: Part = { m: [], full: 0 };
  const inside: Part = { m: [], full: 0 };
  for (const i of members) {
    const part = atFrame[i] ? framedPart : inside;
    part.m.push(i);
    part.full += weights[i];
  }
  if (inside.m.length === 0 || framedPart.m.length === 0) return null;
  return meanWeight(inside) >= T.enclosedSubjectRatio * meanWeight(framedPart)
    ? { framed: framedPart, inside }
    : null;
}

/**
 * Clusters of the subject: each cluster's share is its subject weight, reduced when the cluster
 * fills much of the border ring (a wall, a floor, legs reaching the frame: backdrop, not garment);
 * one cloth's lit and shaded clusters joined; each coloured by its lit part.
 *
 * A backdrop cluster's pieces that do not reach the frame stay the subject's (ADR 0061): k-means
 * groups by colour, not by place, so a pale garment's lit middle can share a cluster with the
 * shaded side of a wall of its own hue, and dropped with the wall, the garment was read from its
 * shaded side alone (oatmeal as stone).
 */
export function subjectClusters(
  img: WorkingImage,
  subject: SubjectWeights,
): { clusters: Cluster[]; mask: Uint8Array } {
  const { assign, k } = clusterPixels(img, subject.weights);
  const members: number[][] = Array.from({ length: k }, () => []);
  const weight = new Float64Array(k);
  const onBorder = new Float64Array(k);
  for (let i = 0; i < assign.length; i += 1) {
    if (assign[i] < 0) continue;
    members[assign[i]].push(i);
    weight[assign[i]] += subject.weights[i];
  }
  for (const i of subject.border) if (assign[i] >= 0) onBorder[assign[i]] += 1 / subject.border.length;
  const lessBackdrop = subject.subject === 'centre-weighted';
  const factors = members.map((_, j) => {
    const over = (onBorder[j] - T.backdropBorderShare) / (T.backdropBorderFull - T.backdropBorderShare);
    return lessBackdrop ? 1 - Math.min(1, Math.max(0, over)) : 1;
  });
  const atFrame = factors.some((f) => f < 1) ? framed(assign, img.width, subject.border) : null;
  let groups = members.flatMap((m, j) => {
    const whole = { m, w: weight[j] * factors[j], backdrop: factors[j] < 0.5, full: weight[j] };
    if (!atFrame || factors[j] >= 1) return [whole];
    const enclosed = enclosedSubject(m, atFrame, subject.weights);
    if (!enclosed) return [whole];
    return [
      { ...enclosed.framed, w: enclosed.framed.full * factors[j], backdrop: factors[j] < 0.5 },
      { ...enclosed.inside, w: enclosed.inside.full, backdrop: false },
    ];
  });
  // Everything looks like backdrop (a garment the colour of the wall): fall back to subject weights.
  if (groups.reduce((s, g) => s + g.w, 0) <= 1e-6) groups = groups.map((g) => ({ ...g, w: g.full }));
  const joined = joinShades(
    img.lab,
    groups.filter((g) => g.w > 0 && g.m.length > 0),
  );
  const sum = joined.reduce((s, g) => s + g.w, 0) || 1;
  // The surface is read on the subject's clusters only (not on the wall between the sleeves).
  const mask = new Uint8Array(assign.length);
  for (const g of joined)
    if (!g.backdrop) for (const i of g.m) mask[i] = subject.weights[i] >= T.surfaceMinWeight ? 1 : 0;
  const light = litReading(img);
  return {
    clusters: joined.map((g) => ({
      colour: litColour(img.lab, g.m, subject.weights, light),
      share: g.w / sum,
    })),
    mask,
  };
}

/** Clusters named from the fashion vocabulary, same names merged (share-weighted), small ones dropped. */
export function namePalette(clusters: Cluster[]): PaletteColour[] {
  const byName = new Map<string, { l: number; a: number; b: number; share: number }>();
  for (const c of clusters) {
    const name = nameColour(c.colour).name;
    const acc = byName.get(name) ?? { l: 0, a: 0, b: 0, share: 0 };
    acc.l += c.colour.l * c.share;
    acc.a += c.colour.a * c.share;
    acc.b += c.colour.b * c.share;
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
    .filter((c) => c.share >= T.minShare)
    .sort((x, y) => y.share - x.share || x.name.localeCompare(y.name));
}

function round(o: Oklab): Oklab {
  const r = (v: number) => Math.round(v * 10000) / 10000;
  return { l: r(o.l), a: r(o.a), b: r(o.b) };
}
