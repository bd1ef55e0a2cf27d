import sharp from 'sharp';
import { familiesNamedBy, FAMILY_KEYS } from '../../bench/colour-families';
import { asStored, corePhoto, evalPhoto } from '../../bench/photo-images';
import { garmentPng } from '../../test/support/garments';
import { colourFeatures } from '../products/product-colour';
import {
  datasetHex,
  resolveColourName,
  resolveColourValue,
  splitColourValue,
  vocabularyColourNames,
} from './colour-names';
import { colourByName, colourDistance, nameColour, Oklab, oklabOf } from './colour-vocabulary';
import { analyseImage, ImageAnalysis } from './image-analysis';
import {
  correctDimScene,
  decodeWorkingImage,
  highlightCast,
  highlights,
  isDim,
  sideLight,
  whiteBalance,
  type WorkingImage,
} from './image-decode';
import { belowLighterMode, litPercentileOf } from './image-palette';
import { ANALYSIS } from './image-thresholds';
import { subjectWeights } from './image-subject';
import { absences, article, captionFor, writeProfile } from './profile-writer';

/** The same colour in shade: OKLab scales L, a and b together when the light falls. */
const shaded = (o: Oklab, k: number): Oklab => ({ l: o.l * k, a: o.a * k, b: o.b * k });
const swatch = (name: string) => {
  const c = colourByName(name);
  if (!c) throw new Error(name);
  return c.oklab;
};

describe('colour model: pale and near-neutral tones keep their hue family', () => {
  it('blush is not silver or grey, even in shade', () => {
    for (const k of [1, 0.93, 0.88]) expect(nameColour(shaded(swatch('blush'), k)).family).toBe('pink');
    expect(colourDistance(swatch('blush'), swatch('silver'))).toBeGreaterThan(
      colourDistance(swatch('blush'), swatch('dusty pink')) * 0.9,
    );
  });

  it('grey is not taupe, and taupe is not grey', () => {
    expect(nameColour(oklabOf('#8f8f8f')).name).toBe('grey');
    expect(nameColour(oklabOf('#857768')).name).toBe('taupe');
    expect(nameColour(shaded(swatch('taupe'), 0.92)).name).toBe('taupe');
  });

  it('powder blue is not grey or white', () => {
    for (const k of [1, 0.94]) expect(nameColour(shaded(swatch('powder blue'), k)).family).toBe('blue');
  });

  it('weights lightness down: a lighter and darker grey are nearer than grey and a faint pink', () => {
    const grey = oklabOf('#8e8e8e');
    expect(colourDistance(grey, oklabOf('#999999'))).toBeLessThan(colourDistance(grey, oklabOf('#9a8a8e')));
  });
});

describe('colour model: vendor colour names', () => {
  it.each([
    ['Rose Quartz', 'pink'],
    ['Oat', 'oatmeal'],
    ['Heather Grey', 'heather grey'],
    ['Storm', 'slate'],
    ['Ecru', 'ecru'],
    ['Dusty Pink', 'dusty pink'],
    ['Washed Black', 'black'],
    ['Oat Melange', 'oatmeal'],
    ['Dove Grey', 'light grey'],
    ['Bottle Green', 'forest green'],
    ['Steel Blue', 'slate'],
    ['Petrol', 'teal'],
  ])('%s resolves to %s', (vendor, expected) => {
    const r = resolveColourName(vendor);
    expect(r).not.toBeNull();
    expect(expected === 'pink' ? r?.family : r?.name).toBe(expected);
  });

  it('looks names the vocabulary does not know up in the color-name-list dataset', () => {
    const r = resolveColourName('Air Force Blue');
    expect(r?.source).toBe('dataset');
    expect(r?.family).toBe('blue');
    expect(resolveColourName('Lipstick Red')?.family).toBe('red');
    expect(resolveColourName('Carburettor')).toBeNull();
  });

  it('splits multi-colour values and keeps every colour, the dominant first', () => {
    expect(splitColourValue('Navy/White')).toEqual(['navy', 'white']);
    expect(splitColourValue('Navy & Cream, Red')).toEqual(['navy', 'cream', 'red']);
    expect(resolveColourValue('Navy/White').map((c) => c.name)).toEqual(['navy', 'white']);
    const f = colourFeatures('Navy/White');
    expect(f?.name).toBe('navy');
    expect(f?.colours?.map((c) => c.name)).toEqual(['navy', 'white']);
  });

  it('names the vocabulary colours a vendor value stands for, and only those the vocabulary knows', () => {
    expect(vocabularyColourNames('Raw Linen & Chocolate')).toEqual(['ecru', 'chocolate']);
    expect(vocabularyColourNames('Washed Ecru')).toEqual(['ecru']);
    expect(vocabularyColourNames('Putty/Navy')).toEqual(['stone', 'navy']);
    // The dataset places these near a swatch, but the vendor did not name it.
    expect(vocabularyColourNames('Air Force Blue')).toEqual([]);
    expect(vocabularyColourNames('Thunder, Unbleached')).toEqual(['ecru']);
    // The dominant colour unknown, the value names none (as colourFeatures places it nowhere).
    expect(vocabularyColourNames('Petal/Black')).toEqual([]);
    expect(vocabularyColourNames('Black/Petal')).toEqual(['black']);
  });

  it('tints a hue word towards a shade word that only the dataset knows (`Fawn Grey`)', () => {
    // Neither the vocabulary nor the dataset has `fawn grey`; the dataset has `fawn`, a light tan.
    const fawnGrey = resolveColourName('Fawn Grey');
    const grey = resolveColourName('Grey');
    const fawn = resolveColourName('Fawn');
    expect(fawn?.source).toBe('dataset');
    if (!fawnGrey || !grey || !fawn) throw new Error('all three resolve');
    expect(fawnGrey.source).toBe('words');
    // A warm grey (a third of the way from grey to fawn), no longer the neutral grey of the bare word.
    for (const k of ['l', 'a', 'b'] as const)
      expect(fawnGrey.oklab[k]).toBeCloseTo(grey.oklab[k] + (fawn.oklab[k] - grey.oklab[k]) / 3, 6);
    expect(fawnGrey.oklab.b).toBeGreaterThan(grey.oklab.b + 0.02);
    // Named as a warm neutral (a greige), not as one of the greys a grey wardrobe is made of.
    expect(['grey', 'heather grey', 'light grey', 'charcoal']).not.toContain(fawnGrey.name);
    expect(colourDistance(fawnGrey.oklab, grey.oklab)).toBeGreaterThan(0.04);
    // A shade word the vocabulary has is read from it.
    expect(resolveColourName('Steel Blue')?.name).toBe('slate');
    // An unknown qualifier leaves the hue word.
    expect(resolveColourName('Carburettor Grey')?.oklab).toEqual(grey.oklab);
  });

  it('applies lightness words to the colour they qualify', () => {
    const dark = resolveColourName('Dark Camel');
    expect(dark?.oklab.l).toBeLessThan(swatch('camel').l);
    expect(resolveColourName('Pale Sage')?.oklab.l).toBeGreaterThan(swatch('sage').l);
  });
});

type Rgb = [number, number, number];

/**
 * A PNG of a garment (white by default) on a wall (mid grey by default; `wall(x)` per column), under a
 * cast (sRGB channel gains).
 */
async function tintedScene(
  gains: Rgb,
  opts: { garment?: Rgb; wall?: (x: number) => Rgb } = {},
): Promise<Buffer> {
  const w = 120;
  const h = 160;
  const raw = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y += 1) {
    for (let x = 0; x < w; x += 1) {
      const garment = x > 30 && x < 90 && y > 30 && y < 140;
      const base = garment ? (opts.garment ?? [246, 246, 246]) : (opts.wall?.(x) ?? [150, 150, 150]);
      for (let c = 0; c < 3; c += 1) raw[(y * w + x) * 3 + c] = Math.min(255, Math.round(base[c] * gains[c]));
    }
  }
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}

describe('colour model: light', () => {
  it('white-balances a tinted photograph from its neutral regions', async () => {
    const warm = await tintedScene([1.05, 1, 0.93]);
    const img = await decodeWorkingImage(warm, 0);
    const gains = whiteBalance(img);
    expect(gains[0]).toBeLessThan(1);
    expect(gains[2]).toBeGreaterThan(1);
    const a = await analyseImage(warm, 0);
    expect(a.palette[0].name).toBe('white');
  });

  it('leaves a scene without a cast alone', async () => {
    const img = await decodeWorkingImage(await tintedScene([1, 1, 1]), 0);
    expect(whiteBalance(img)).toEqual([1, 1, 1]);
  });

  it('exposes and balances a dim, cool scene (open shade) from its background', async () => {
    // an oatmeal garment on a striped grey wall (no plain backdrop: a scene), then the same scene
    // in open shade: sRGB 28% darker, red -6%, blue +6%
    const scene = (k: number, gains: Rgb) =>
      tintedScene([k * gains[0], k * gains[1], k * gains[2]], {
        garment: [201, 185, 160],
        wall: (x) => (Math.floor(x / 8) % 2 === 0 ? [222, 222, 220] : [140, 140, 138]),
      });
    const lit = await decodeWorkingImage(await scene(1, [1, 1, 1]), 0);
    const shade = await decodeWorkingImage(await scene(0.72, [0.94, 1, 1.06]), 0);
    expect(isDim(lit)).toBe(false);
    expect(isDim(shade)).toBe(true);
    // exposed towards a lit scene's highlights, and the cool cast taken out (the shade preset, then
    // the background's neutral pixels): the light grey wall stripe is neutral again, as when lit
    const weights = subjectWeights(shade).weights;
    const wallCast = (img: WorkingImage) => {
      const i = (20 * img.width + 2) * 3; // a light stripe of the wall, left of the garment
      return Math.log(img.rgb[i] / img.rgb[i + 2]);
    };
    expect(wallCast(shade)).toBeLessThan(-0.15);
    expect(correctDimScene(shade, weights)).toBeGreaterThan(1.5);
    expect(highlights(shade)).toBeGreaterThan(0.85);
    // within the dim white balance's deadband (3% a channel: about 0.06 of log red/blue)
    expect(Math.abs(wallCast(shade) - wallCast(lit))).toBeLessThan(0.07);
    // and the garment is named as in the lit scene
    const named = async (png: Buffer) => (await analyseImage(png, 0)).palette[0].name;
    expect(await named(await scene(0.72, [0.94, 1, 1.06]))).toBe(await named(await scene(1, [1, 1, 1])));
  });

  it('takes the sky out of a dim scene with a shade preset even when no neutral wall is in view', async () => {
    // a white garment before a saturated teal wall in open shade: the background has no neutral
    // pixels, so only the preset (daylight at 7,500 K to D65) corrects the light's colour
    const img = await decodeWorkingImage(
      await tintedScene([0.72 * 0.94, 0.72, 0.72 * 1.06], { wall: () => [40, 140, 150] }),
      0,
    );
    const centre = ((img.height >> 1) * img.width + (img.width >> 1)) * 3;
    const cast = () => Math.log(img.rgb[centre] / img.rgb[centre + 2]);
    const before = cast();
    correctDimScene(img, subjectWeights(img).weights);
    expect(img.gains).toEqual([1, 1, 1]);
    const [red, , blue] = ANALYSIS.light.shadeGains;
    expect(cast() - before).toBeCloseTo(Math.log(red / blue), 2);
  });

  it.each([
    ['a stone garment on a hanger before a peach wall', 6, 'stone', 1],
    ['a white garment worn before a peach wall', 6, 'white', 3],
    ['a powder blue garment worn before a blue-striped wall', 4, 'powder blue', 2],
  ] as const)(
    "balances %s in open shade by no more than what the preset leaves: the wall's tint is not the light (ADR 0065)",
    async (_, seed, family, k) => {
      // eval:taste's shade photographs of tuning seeds 4 and 6, as the service stores them. The wall's
      // pixels pass as nearly neutral in shade; balanced by up to the lit scene's 25% a channel, the
      // garment took the wall's tint away as its own (stone read heather grey, white powder blue, powder
      // blue light grey)
      const p = await evalPhoto(seed, FAMILY_KEYS.indexOf(family), family, k, 'shade');
      const stored = await asStored(p.jpeg);
      const img = await decodeWorkingImage(stored, 0);
      expect(isDim(img)).toBe(true);
      correctDimScene(img, subjectWeights(img).weights);
      const { deadband, maxGain } = ANALYSIS.light.dim;
      for (const g of img.gains) expect(Math.abs(g - 1)).toBeLessThanOrEqual(deadband + maxGain + 1e-9);
      expect(img.gains.some((g) => g !== 1)).toBe(true);
      expect((await analyseImage(stored, 0)).palette[0].name).toBe(family);
    },
  );

  it('weighs the highlights by their cast: cool highlights are shade up to brighter levels (ADR 0046)', async () => {
    // a white garment on a grey wall, at three exposures and two lights: the garment is the
    // scene's brightest thing
    const scene = async (k: number, gains: Rgb) =>
      decodeWorkingImage(
        await tintedScene([k * gains[0], k * gains[1], k * gains[2]], {
          wall: (x) => (Math.floor(x / 8) % 2 === 0 ? [200, 200, 198] : [140, 140, 138]),
        }),
        0,
      );
    const cool: Rgb = [0.94, 1, 1.06];
    const warm: Rgb = [1.06, 1, 0.94];
    const t = ANALYSIS.light;
    // in open shade: highlights above the neutral threshold, but cool
    const shade = await scene(0.76, cool);
    expect(highlights(shade)).toBeGreaterThan(t.dimBelow);
    expect(highlightCast(shade)).toBeLessThan(-0.2);
    expect(isDim(shade)).toBe(true);
    // the same highlights under a warm light: lit
    const lit = await scene(0.76, warm);
    expect(highlights(lit)).toBeGreaterThan(t.dimBelow);
    expect(highlightCast(lit)).toBeGreaterThan(0.2);
    expect(isDim(lit)).toBe(false);
    // neutral highlights: dim under the threshold, lit over it
    expect(isDim(await scene(0.7, [1, 1, 1]))).toBe(true);
    expect(isDim(await scene(0.82, [1, 1, 1]))).toBe(false);
    // the white garment in shade is named white once its light is corrected
    const png = await tintedScene([0.72 * 0.94, 0.72, 0.72 * 1.06], {
      wall: (x) => (Math.floor(x / 8) % 2 === 0 ? [200, 200, 198] : [140, 140, 138]),
    });
    expect((await analyseImage(png, 0)).palette[0].name).toBe('white');
  });

  it('reads the highlights cast from the lightest pixels only', async () => {
    // a warm garment lit: its highlights are a white wall stripe, neutral; the warm garment is not
    const img = await decodeWorkingImage(
      await tintedScene([1, 1, 1], {
        garment: [180, 120, 80],
        wall: (x) => (Math.floor(x / 8) % 2 === 0 ? [240, 240, 240] : [60, 60, 60]),
      }),
      0,
    );
    expect(Math.abs(highlightCast(img))).toBeLessThan(0.02);
    expect(isDim(img)).toBe(false);
  });

  it('exposes a scene on a plain wall in shade, but not a garment on a studio-black backdrop', async () => {
    const shade: Rgb = [0.72 * 0.94, 0.72, 0.72 * 1.06];
    const onWall = await tintedScene(shade, { wall: () => [200, 200, 198] });
    expect((await analyseImage(onWall, 0)).palette[0].name).toBe('white');
    // a light grey garment photographed on black is its own colour, not a dim white
    const studio = await tintedScene([1, 1, 1], { garment: [150, 150, 150], wall: () => [12, 12, 12] });
    const img = await decodeWorkingImage(studio, 0);
    expect(isDim(img)).toBe(true);
    expect((await analyseImage(studio, 0)).palette[0].name).not.toBe('white');
  });

  it('tells a strong light from one side by the wall, not a soft one or an even one (ADR 0062)', async () => {
    // a white garment on a light grey wall whose lightness runs across the picture by `side`, as a
    // window's light does (sRGB x 1 +- side)
    const lit = async (side: number) =>
      decodeWorkingImage(
        await tintedScene([1, 1, 1], {
          wall: (x) => {
            const k = 1 + side * ((2 * x) / 119 - 1);
            return [200 * k, 200 * k, 198 * k];
          },
        }),
        0,
      );
    const t = ANALYSIS.light;
    for (const side of [0, 0.12]) {
      const img = await lit(side);
      expect(sideLight(img)).toBeLessThan(t.sideLightAbove);
      expect(litPercentileOf(img)).toBe(ANALYSIS.palette.litPercentile);
    }
    const window = await lit(0.3);
    expect(sideLight(window)).toBeGreaterThan(t.sideLightAbove);
    expect(litPercentileOf(window)).toBe(ANALYSIS.palette.sideLitPercentile);
    expect(ANALYSIS.palette.sideLitPercentile).toBeLessThan(ANALYSIS.palette.litPercentile);
  });

  // Two of eval:search's core photographs (seeds 37 and 28) of an oatmeal garment in an even light, one
  // without a cast and one under a slight cool one, read as the service reads an upload (the copy it
  // stores, ADR 0063): at the 90th lightness percentile their lit part sat just under the drawn
  // lightness and named stone (ADR 0062).
  it.each([
    ['worn, before an off-white wall, no cast', 37, 2],
    ['on a hanger, before an off-white wall, a cool cast', 28, 2],
  ])('reads an evenly lit oatmeal garment %s at its lit part: oatmeal', async (_, seed, k) => {
    const p = await corePhoto(seed, FAMILY_KEYS.indexOf('oatmeal'), 'oatmeal', k);
    const top = (await analyseImage(await asStored(p.jpeg), 0)).palette[0];
    expect(top.name).toBe('oatmeal');
    expect(Math.abs(top.oklab.l - oklabOf(p.truth.shade).l)).toBeLessThan(0.01);
  });

  it("puts the vocabulary's stone at the lightness the color-name-list dataset gives stone and its synonyms (ADR 0064)", () => {
    const names = ['stone', 'putty', 'greige', 'pebble', 'cement', 'sandstone'];
    const ls = names
      .map((n) => datasetHex(n))
      .filter((hex): hex is string => hex !== undefined)
      .map((hex) => oklabOf(hex).l)
      .sort((x, y) => x - y);
    expect(ls).toHaveLength(names.length);
    const median = (ls[2] + ls[3]) / 2;
    expect(Math.abs((colourByName('stone') as { oklab: Oklab }).oklab.l - median)).toBeLessThan(0.005);
    expect((colourByName('oatmeal') as { oklab: Oklab }).oklab.l).toBeGreaterThan(median + 0.06);
  });

  it('names an oatmeal garment read at the dark end of its shades oatmeal, and a light stone stone (ADR 0064)', async () => {
    // eval:search's core photographs as stored: seed 13's first oatmeal is read at L 0.770, which named
    // stone while the vocabulary's stone sat at 0.755; seed 17's third stone is read at 0.756
    const oatmeal = await corePhoto(13, FAMILY_KEYS.indexOf('oatmeal'), 'oatmeal', 0);
    const oat = (await analyseImage(await asStored(oatmeal.jpeg), 0)).palette[0];
    expect(oat.oklab.l).toBeLessThan(0.775);
    expect(oat.name).toBe('oatmeal');
    const stone = await corePhoto(17, FAMILY_KEYS.indexOf('stone'), 'stone', 2);
    const top = (await analyseImage(await asStored(stone.jpeg), 0)).palette[0];
    expect(top.oklab.l).toBeGreaterThan(0.745);
    expect(top.name).toBe('stone');
  });

  it('reads a garment under a strong side light lower in its lightness: a stone garment stays stone', async () => {
    // eval:taste's side-lit photograph 2 of stone, tuning seed 7, as the service stores it: at the even
    // light's percentile, and at ADR 0062's 0.9 once the vocabulary's stone sits at the dataset's
    // lightness (ADR 0064), its window-lit side names it oatmeal
    const p = await evalPhoto(7, FAMILY_KEYS.indexOf('stone'), 'stone', 2, 'side-lit');
    const stored = await asStored(p.jpeg);
    expect(sideLight(await decodeWorkingImage(stored, 0))).toBeGreaterThan(ANALYSIS.light.sideLightAbove);
    expect((await analyseImage(stored, 0)).palette[0].name).toBe('stone');
  });

  it('removes shading before naming: a blush garment lit from one side is still blush', async () => {
    const w = 160;
    const raw = Buffer.alloc(w * w * 3);
    const [r, g, b] = [0xef, 0xc3, 0xc0];
    for (let y = 0; y < w; y += 1) {
      for (let x = 0; x < w; x += 1) {
        const garment = x > 40 && x < 120 && y > 30 && y < 140;
        const k = garment ? 0.72 + 0.28 * (x / w) : 1;
        const c = garment ? [r, g, b] : [250, 250, 250];
        for (let i = 0; i < 3; i += 1) raw[(y * w + x) * 3 + i] = Math.round(c[i] * k);
      }
    }
    const png = await sharp(raw, { raw: { width: w, height: w, channels: 3 } })
      .png()
      .toBuffer();
    const a = await analyseImage(png, 0);
    expect(a.palette[0].name).toBe('blush');
  });
});

describe('colour model: garment and wall', () => {
  /** The top palette colour of eval:search's core image `k` of `family` on `seed`, and the drawn lightness. */
  const topOf = async (family: string, seed: number, k: number) => {
    const p = await corePhoto(seed, FAMILY_KEYS.indexOf(family), family, k);
    return { top: (await analyseImage(p.jpeg, 0)).palette[0], drawnL: oklabOf(p.truth.shade).l };
  };

  // Two scenes of eval:search's held-out seeds (12 and 16) where a heather grey garment stood before a
  // light neutral wall that the light split into clusters: joined as the garment's lit side, the wall
  // made it light grey (ADR 0050). The reading must be the garment's own lightness.
  it.each([
    ['on a hanger before a light grey wall', 12, 0],
    ['worn, before an off-white wall', 16, 1],
  ])('reads a heather grey garment %s, not the wall', async (_, seed, k) => {
    const { top, drawnL } = await topOf('heather grey', seed, k);
    expect(Math.abs(top.oklab.l - drawnL)).toBeLessThan(0.04);
    expect(top.name).toMatch(/^(heather )?grey$/);
  });

  // Two scenes of eval:search's seeds 24 and 32 where an oatmeal garment stood before a light warm wall
  // whose shaded side had the colour of the garment's lit middle: k-means put both in one cluster, the
  // wall made it backdrop, and the garment was read from its shaded side as stone (ADR 0061).
  it.each([
    ['worn, before a striped peach wall', 24, 2],
    ['worn, before a light warm wall', 32, 0],
  ])('reads an oatmeal garment %s from its lit middle, not its shaded side', async (_, seed, k) => {
    const { top, drawnL } = await topOf('oatmeal', seed, k);
    expect(Math.abs(top.oklab.l - drawnL)).toBeLessThan(0.02);
  });
});

describe('colour model: a lighter mode in a cluster is not its lit part (ADR 0067)', () => {
  /** Items of weighted lightness: `n` pixels of weight `w` spread evenly over [from, to). */
  const spread = (from: number, to: number, n: number, w = 1) =>
    Array.from({ length: n }, (_, i) => ({ v: from + ((to - from) * (i + 0.5)) / n, w }));
  const lightest = (items: readonly { v: number }[]) => Math.max(...items.map((x) => x.v));

  it('keeps what lies below a valley, when a lighter mode of less weight stands apart', () => {
    // a cloth over 0.60-0.70, a few edge pixels, and a wall's blobs over 0.75-0.85
    const items = [...spread(0.6, 0.7, 400), ...spread(0.7, 0.75, 10), ...spread(0.75, 0.85, 150)];
    const kept = belowLighterMode(items);
    expect(kept).toHaveLength(410);
    expect(lightest(kept)).toBeLessThan(0.75);
  });

  it("keeps all of a cloth's shading, which spreads without a gap", () => {
    const items = [...spread(0.35, 0.55, 200), ...spread(0.55, 0.72, 300)];
    expect(belowLighterMode(items)).toHaveLength(500);
  });

  it('keeps a lighter mode holding most of the weight (the cloth, read from the median up), or a tail', () => {
    const heavierAbove = [...spread(0.5, 0.6, 200), ...spread(0.6, 0.65, 5), ...spread(0.75, 0.85, 300)];
    expect(belowLighterMode(heavierAbove)).toHaveLength(505);
    const tail = [...spread(0.6, 0.7, 400), ...spread(0.7, 0.75, 20), ...spread(0.75, 0.8, 15)];
    expect(belowLighterMode(tail)).toHaveLength(435);
  });

  it("keeps a lighter mode heavier than the cloth's heaviest bin: a white garment before a grey wall", () => {
    // one cluster of a neutral scene: dark and light wall stripes, and the white garment lightest of all
    const items = [...spread(0.6, 0.65, 300), ...spread(0.8, 0.85, 250), ...spread(0.95, 1, 280)];
    expect(belowLighterMode(items)).toHaveLength(830);
  });

  it('weighs pixels by their subject weight: a heavy wall is a mode, a weighted-down one is not', () => {
    const cloth = spread(0.6, 0.7, 300);
    const edge = spread(0.7, 0.75, 10);
    expect(belowLighterMode([...cloth, ...edge, ...spread(0.75, 0.85, 200, 1)])).toHaveLength(310);
    expect(belowLighterMode([...cloth, ...edge, ...spread(0.75, 0.85, 200, 0.01)])).toHaveLength(510);
  });

  // eval:search's core photographs of tuning seeds, as the service stores them: each cloth's cluster
  // took in pixels of a lighter wall, blob or garment of its chromaticity, and its lit percentile
  // landed on them (read light grey, cream or oatmeal; taupe as stone).
  it.each([
    ['a heather grey before a light busy wall (read light grey at L 0.80)', 15, 'heather grey', 1],
    ['a stone before a light warm wall (read cream at L 0.89)', 20, 'stone', 0],
    ['a stone worn with a cream garment (read oatmeal at L 0.83)', 4, 'stone', 2],
    ['a taupe on a hanger before pink stripes (read stone at L 0.67)', 6, 'taupe', 0],
  ])('reads %s at its own lightness', async (_, seed, family, k) => {
    const p = await corePhoto(seed, FAMILY_KEYS.indexOf(family), family, k);
    const top = (await analyseImage(await asStored(p.jpeg), 0)).palette[0];
    expect(Math.abs(top.oklab.l - oklabOf(p.truth.shade).l)).toBeLessThan(0.02);
    expect(familiesNamedBy(top.name, top.hex).families).toContain(family);
  });

  it("leaves a side-lit cloth's lit side alone: it is a mode of its own, not a wall", async () => {
    // eval:taste's side-lit photograph 0 of white, tuning seed 7: cut below its lit side, it read light grey
    const p = await evalPhoto(7, FAMILY_KEYS.indexOf('white'), 'white', 0, 'side-lit');
    const stored = await asStored(p.jpeg);
    expect(sideLight(await decodeWorkingImage(stored, 0))).toBeGreaterThan(ANALYSIS.light.sideLightAbove);
    const top = (await analyseImage(stored, 0)).palette[0];
    expect(familiesNamedBy(top.name, top.hex).families).toContain('white');
  });
});

describe("colour model: a core's images read together", () => {
  /** An analysis of one image with the given palette readings (name from the vocabulary). */
  const reading = async (...colours: [l: number, a: number, b: number, share: number][]) => {
    const base = await analyseImage(await garmentPng({ colour: '#cbbda3' }), 0);
    return {
      ...base,
      palette: colours.map(([l, a, b, share]) => ({
        name: nameColour({ l, a, b }).name,
        hex: '#000000',
        oklab: { l, a, b },
        share,
      })),
    };
  };

  it('joins one colour read in several photographs, whatever each reading was named (ADR 0061)', async () => {
    // One oatmeal garment: two readings name oatmeal, the third (its darker shade, a cooler cast) stone.
    const images = [
      await reading([0.795, 0.008, 0.037, 0.9]),
      await reading([0.765, 0.004, 0.029, 0.9]),
      await reading([0.79, 0.009, 0.036, 0.9]),
    ];
    expect(images.map((a) => a.palette[0].name)).toEqual(['oatmeal', 'stone', 'oatmeal']);
    const { palette, taste } = writeProfile(images);
    expect(palette.map((p) => p.name)).toEqual(['oatmeal']);
    expect(palette[0].share).toBeCloseTo(0.9, 3);
    expect(palette[0].oklab.l).toBeCloseTo((0.795 + 0.765 + 0.79) / 3, 3);
    expect(taste).toContain('Oatmeal appears in every image');
  });

  it("keeps one image's colours apart, and colours of different images that are not alike", async () => {
    const camelAndTan = await reading([0.711, 0.025, 0.074, 0.5], [0.664, 0.03, 0.077, 0.4]);
    const navy = await reading([0.27, -0.001, -0.054, 0.9]);
    const white = await reading([0.97, 0, 0.003, 0.9]);
    const names = writeProfile([camelAndTan, navy, white]).palette.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['camel', 'tan', 'navy', 'white']));
  });

  it('does not depend on the order of the images', async () => {
    const images = [
      await reading([0.795, 0.008, 0.037, 0.6], [0.27, -0.001, -0.054, 0.3]),
      await reading([0.776, 0.004, 0.029, 0.9]),
      await reading([0.79, 0.009, 0.036, 0.5], [0.3, 0, -0.05, 0.4]),
    ];
    const first = writeProfile(images);
    for (const order of [
      [2, 1, 0],
      [1, 0, 2],
      [2, 0, 1],
    ])
      expect(writeProfile(order.map((i) => images[i]))).toEqual(first);
  });
});

describe('profile wording', () => {
  it('uses the right article', () => {
    expect(article('orange')).toBe('an');
    expect(article('emerald')).toBe('an');
    expect(article('navy')).toBe('a');
  });

  const analysis = async (colour: string, extra: object = {}): Promise<ImageAnalysis> =>
    analyseImage(await garmentPng({ colour, ...extra }), 0);

  it('names an accent with its article', async () => {
    const a = await analysis('#f7f7f5');
    const withAccent: ImageAnalysis = {
      ...a,
      palette: [
        { ...a.palette[0], share: 0.9 },
        { name: 'orange', hex: '#e8772e', oklab: oklabOf('#e8772e'), share: 0.08 },
      ],
    };
    expect(captionFor(withAccent)).toContain('with an orange accent');
  });

  it('never says a colour recurs when it comes from one image', async () => {
    const p = writeProfile([await analysis('#1f8a5b'), await analysis('#e8772e')]);
    expect(p.taste).not.toMatch(/recurs in (1|one) of/);
    expect(p.taste).toMatch(/only one of the two images/);
  });

  it('claims to avoid busy prints only when every image is a plain solid', async () => {
    expect(absences([await analysis('#b9ae9c'), await analysis('#8b7d6f')])).toContain('busy prints');
    const busy = [
      await analysis('#b9ae9c'),
      await analysis('#1c2541', { pattern: 'checked', background: 'busy' }),
    ];
    expect(absences(busy)).not.toContain('busy prints');
    expect(writeProfile(busy).taste).not.toMatch(/Avoids[^.]*busy prints/);
  });

  it('makes no material claims from texture', async () => {
    const p = writeProfile([await analysis('#9caf88'), await analysis('#c19a6b')]);
    expect(p.taste).not.toMatch(/knit|lustrous|soft or/);
  });
});
