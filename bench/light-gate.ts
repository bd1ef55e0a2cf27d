/**
 * `npm run bench:light-gate [-- --seeds 3,4,5,6,7,8 --per-family 6 --probability 0.6 --core-seeds 11-24]`: fits and checks
 * the local analyst's open-shade decision (`isDim`, docs/decisions/0046-open-shade-gate-from-highlights-and-their-cast.md)
 * on tuning seeds of the photograph-like images of `npm run eval:taste`, never on its held-out seed.
 *
 * For each scene image (a swatch or a studio shot never takes the decision) it reads the two cues the
 * decision uses, the highlights (`highlights`) and their cast (`highlightCast`), and names the dominant
 * family twice: read as lit and read as dim (`analyseWorkingImage`). A logistic regression of "drawn
 * in open shade" on the two cues, where an image whose two readings differ counts five times (only
 * there does the decision change the answer), gives the line `highlights + k * cast < t` at the
 * chosen probability. Printed per lighting: the share named right by the engine's current rule, by
 * the fitted rule (on all seeds, and leaving each seed out in turn), by the true lighting (the best
 * any rule could do) and by reading every scene as lit.
 *
 * `--core-seeds A-B` then reads `npm run eval:search`'s single-family core photographs of those seeds
 * (three a core, all drawn lit): the share the engine's line reads as dim, and how many of those it
 * names wrong that a lit reading names right. That is all the decision can cost a search evaluation.
 */
import { FAMILY_KEYS, familiesNamedBy } from './colour-families';
import { corePhoto, evalPhoto, type Lighting, type PhotoJpeg } from './photo-images';
import { argNumber, argValue, seedList } from './service';
import {
  byLightness,
  decodeWorkingImage,
  highlightCast,
  highlights,
  type WorkingImage,
} from '../src/taste/image-decode';
import { analyseWorkingImage, isScene, type LightReading } from '../src/taste/image-analysis';
import { subjectWeights } from '../src/taste/image-subject';
import { ANALYSIS } from '../src/taste/image-thresholds';

const LIGHTS: Lighting[] = ['as-drawn', 'side-lit', 'shade'];
/** The held-out seed of `npm run eval:taste`: never fitted on. */
const HELD_OUT_SEED = 2;

interface Sample {
  seed: number;
  light: Lighting;
  high: number;
  cast: number;
  /** 1 when the family is named right read as lit / as dim. */
  lit: number;
  dim: number;
}

interface Rule {
  k: number;
  t: number;
}

const dimByRule = (s: Sample, r: Rule): boolean => s.high + r.k * s.cast < r.t;

/** 1 when the image's top palette colour names `family`; `img` is corrected in place. */
function named(img: WorkingImage, family: string, light: LightReading): number {
  const top = analyseWorkingImage(img, 0, light).palette[0];
  return top && familiesNamedBy(top.name, top.hex).families.includes(family) ? 1 : 0;
}

type Draw = (seed: number, fi: number, family: string, k: number, light: Lighting) => Promise<PhotoJpeg>;

async function collect(
  seeds: number[],
  perFamily: number,
  lights: Lighting[] = LIGHTS,
  draw: Draw = evalPhoto,
): Promise<Sample[]> {
  const out: Sample[] = [];
  for (const seed of seeds)
    for (const light of lights)
      for (const [fi, family] of FAMILY_KEYS.entries())
        for (let k = 0; k < perFamily; k += 1) {
          const p = await draw(seed, fi, family, k, light);
          const img = await decodeWorkingImage(p.jpeg, 0);
          if (!isScene(img, subjectWeights(img))) continue;
          // the cues first: each reading corrects its working copy in place
          const order = byLightness(img);
          const [high, cast] = [highlights(img, order), highlightCast(img, order)];
          const lit = named(img, family, 'lit');
          const dim = named(await decodeWorkingImage(p.jpeg, 0), family, 'dim');
          out.push({ seed, light, high, cast, lit, dim });
        }
  return out;
}

/** Weighted logistic regression of "in shade" on (highlights, cast), as the line at `probability`. */
function fit(samples: Sample[], probability: number): Rule {
  const x = samples.map((s) => [s.high, s.cast]);
  const mean = [0, 1].map((j) => x.reduce((sum, v) => sum + v[j], 0) / x.length);
  const sd = [0, 1].map((j) => Math.sqrt(x.reduce((sum, v) => sum + (v[j] - mean[j]) ** 2, 0) / x.length));
  const z = x.map((v) => [(v[0] - mean[0]) / sd[0], (v[1] - mean[1]) / sd[1]]);
  const y = samples.map((s) => (s.light === 'shade' ? 1 : 0));
  const w = samples.map((s) => 1 + 4 * Math.abs(s.dim - s.lit));
  const wSum = w.reduce((a, b) => a + b, 0);
  const b = [0, 0, 0];
  for (let it = 0; it < 3000; it += 1) {
    const g = [0, 0, 0];
    z.forEach((v, i) => {
      const p = 1 / (1 + Math.exp(-(b[0] * v[0] + b[1] * v[1] + b[2])));
      const e = ((p - y[i]) * w[i]) / wSum;
      g[0] += e * v[0];
      g[1] += e * v[1];
      g[2] += e;
    });
    for (let j = 0; j < 3; j += 1) b[j] -= 0.5 * (g[j] + (j < 2 ? 1e-3 * b[j] : 0));
  }
  // logit = b0 (h - m0)/s0 + b1 (c - m1)/s1 + b2 > L  <=>  h + k c < t  (b0 < 0: dimmer is more shade)
  const [w0, w1] = [b[0] / sd[0], b[1] / sd[1]];
  const bias = b[2] - w0 * mean[0] - w1 * mean[1];
  const logit = Math.log(probability / (1 - probability));
  return { k: w1 / w0, t: (logit - bias) / w0 };
}

function shares(samples: Sample[], dim: (s: Sample) => boolean, lights = LIGHTS): string {
  return lights
    .map((light) => {
      const of = samples.filter((s) => s.light === light);
      const right = of.filter((s) => (dim(s) ? s.dim : s.lit)).length;
      return `${light} ${((100 * right) / of.length).toFixed(1)}%`;
    })
    .join(', ');
}

async function main(): Promise<void> {
  const seeds = (argValue('--seeds') ?? '3,4,5,6,7,8').split(',').map(Number);
  if (seeds.includes(HELD_OUT_SEED))
    throw new Error(`seed ${HELD_OUT_SEED} is eval:taste's held-out seed: fit on other seeds`);
  const perFamily = argNumber('--per-family', 6);
  const probability = Number(argValue('--probability') ?? 0.6);
  const samples = await collect(seeds, perFamily);
  const rule = fit(samples, probability);
  const current = { k: ANALYSIS.light.highlightCastWeight, t: ANALYSIS.light.dimBelow };
  // each seed's images judged by the line fitted on the other seeds
  const loso = new Map<Sample, boolean>();
  for (const seed of seeds) {
    const other = fit(
      samples.filter((s) => s.seed !== seed),
      probability,
    );
    for (const s of samples.filter((x) => x.seed === seed)) loso.set(s, dimByRule(s, other));
  }
  console.log(
    `${samples.length} scene images, seeds ${seeds.join(', ')}, ${perFamily} per family and lighting`,
  );
  console.log(
    `fitted at p = ${probability}: dim when highlights + ${rule.k.toFixed(3)} * cast < ${rule.t.toFixed(3)}`,
  );
  console.log(`engine now:  dim when highlights + ${current.k} * cast < ${current.t}`);
  console.log(`named right, engine's rule:        ${shares(samples, (s) => dimByRule(s, current))}`);
  console.log(`named right, fitted rule:          ${shares(samples, (s) => dimByRule(s, rule))}`);
  console.log(`named right, fitted leaving out:   ${shares(samples, (s) => loso.get(s) ?? false)}`);
  console.log(`named right, true lighting:        ${shares(samples, (s) => s.light === 'shade')}`);
  console.log(`named right, every scene as lit:   ${shares(samples, () => false)}`);
  const coreSeeds = seedList(argValue('--core-seeds'), '--core-seeds');
  if (coreSeeds.length > 0)
    printCorePhotos(await collect(coreSeeds, 3, ['as-drawn'], corePhotoOf), coreSeeds, current);
}

/**
 * eval:search's single-family core photographs (three a core, as drawn): every scene is lit. The
 * lighting is dropped, since `corePhoto`'s fifth argument is a white-balance cast.
 */
const corePhotoOf: Draw = (seed, fi, family, k) => corePhoto(seed, fi, family, k);

/**
 * What the open-shade decision costs `eval:search`, whose photographs are all lit: the share of its
 * core images the engine's line reads as dim, and the share named right by that line against
 * reading them as lit (which is the truth here).
 */
function printCorePhotos(samples: Sample[], seeds: number[], rule: Rule): void {
  const dim = samples.filter((s) => dimByRule(s, rule));
  const lost = dim.filter((s) => s.lit === 1 && s.dim === 0).length;
  const pct = (n: number) => `${((100 * n) / samples.length).toFixed(1)}%`;
  console.log(
    `eval:search core photos (${samples.length} lit scenes, seeds ${seeds.join(', ')}): ` +
      `read as dim ${dim.length} (${pct(dim.length)}), named wrong because of it ${lost} (${pct(lost)})`,
  );
  console.log(
    `  named right, engine's rule:      ${shares(samples, (s) => dimByRule(s, rule), ['as-drawn'])}`,
  );
  console.log(`  named right, every scene as lit: ${shares(samples, () => false, ['as-drawn'])}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
