import { familiesNamedBy, FAMILY_KEYS } from '../../bench/colour-families';
import { asStored, corePhoto, evalPhoto, type PhotoJpeg } from '../../bench/photo-images';
import { colourByName } from './colour-vocabulary';
import { settleLight, withLitReadings } from './core-light';
import { analyseImage, type ImageAnalysis } from './image-analysis';
import { ANALYSIS } from './image-thresholds';
import { TasteService } from './taste.service';
import { type PaletteColour, TasteGenerationError } from './taste.types';

/** A palette colour by vocabulary name. */
const colour = (name: string, share: number): PaletteColour => {
  const c = colourByName(name);
  if (!c) throw new Error(name);
  return { name, hex: c.hex, oklab: c.oklab, share };
};

/** An analysis whose only difference that matters here is its palette (and, when undecided, its other reading). */
const image = (palette: PaletteColour[], otherLight?: PaletteColour[]): ImageAnalysis => ({
  palette,
  character: {} as ImageAnalysis['character'],
  surface: {} as ImageAnalysis['surface'],
  subject: 'centre-weighted',
  dimScore: otherLight ? 0.01 : 0.2,
  ...(otherLight ? { otherLight: image(otherLight) } : {}),
});

const tops = (analyses: ImageAnalysis[]) => analyses.map((a) => a.palette[0].name);

/** A scene the open-shade line reads as clearly dim, with its lit reading. */
const dimImage = (palette: PaletteColour[], lit: PaletteColour[]): ImageAnalysis => ({
  ...image(palette, lit),
  dimScore: -0.2,
});

describe("a core's images settle the light of those the open-shade line cannot call (ADR 0066)", () => {
  it("keeps an undecided image's other reading when a clear image reads that colour", () => {
    const stone = image([colour('stone', 0.8), colour('white', 0.2)]);
    // read as open shade by mistake, a lit stone garment is exposed up to cream
    const undecided = image([colour('cream', 0.8)], [colour('stone', 0.8)]);
    const settled = settleLight([stone, undecided, stone]);
    expect(tops(settled)).toEqual(['stone', 'stone', 'stone']);
    expect(settled.some((a) => a.otherLight !== undefined)).toBe(false);
  });

  it("keeps the line's reading when the clear images bear it out", () => {
    const cream = image([colour('cream', 0.9)]);
    const undecided = image([colour('cream', 0.8)], [colour('stone', 0.8)]);
    expect(tops(settleLight([cream, undecided]))).toEqual(['cream', 'cream']);
  });

  it("keeps the line's reading when neither reading is a colour of the other images", () => {
    // a taupe garment beside two lilac ones: its other reading, stone, is no nearer to be borne out
    const lilac = image([colour('lilac', 0.9)]);
    const undecided = image([colour('taupe', 0.8)], [colour('stone', 0.8)]);
    expect(tops(settleLight([lilac, lilac, undecided]))).toEqual(['lilac', 'lilac', 'taupe']);
  });

  it('goes by clear images only: undecided images do not settle each other', () => {
    const a = image([colour('cream', 0.8)], [colour('stone', 0.8)]);
    const b = image([colour('stone', 0.8)], [colour('cream', 0.8)]);
    expect(tops(settleLight([a, b]))).toEqual(['cream', 'stone']);
    expect(tops(settleLight([a]))).toEqual(['cream']);
  });

  it(`ignores a clear image's colours under ${ANALYSIS.light.agreeMinShare} of it`, () => {
    const camelWithStoneTrim = image([colour('camel', 0.95), colour('stone', 0.05)]);
    const undecided = image([colour('cream', 0.8)], [colour('stone', 0.8)]);
    expect(tops(settleLight([camelWithStoneTrim, undecided]))).toEqual(['camel', 'cream']);
    const withMoreStone = image([colour('camel', 0.8), colour('stone', 0.2)]);
    expect(tops(settleLight([withMoreStone, undecided]))).toEqual(['camel', 'stone']);
  });
});

describe('a clearly lit image settles the light of those read as clearly dim (ADR 0070)', () => {
  // a lit charcoal garment before a dark slate wall: nothing light in the scene, read as open shade
  // and exposed up to slate
  const misread = () => dimImage([colour('slate', 0.8)], [colour('charcoal', 0.8)]);

  it("keeps a dim image's lit reading when a clearly lit image reads that colour", () => {
    const charcoal = image([colour('charcoal', 0.9)]);
    const settled = settleLight([charcoal, misread(), misread()]);
    expect(tops(settled)).toEqual(['charcoal', 'charcoal', 'charcoal']);
    expect(settled.some((a) => a.otherLight !== undefined)).toBe(false);
  });

  it('keeps the dim reading without a clearly lit image: dim images do not settle each other', () => {
    expect(tops(settleLight([misread(), misread()]))).toEqual(['slate', 'slate']);
  });

  it("keeps the dim reading when it is the lit image's colour (a core in mixed light)", () => {
    // a cream garment photographed lit, and in open shade: exposed, the shaded one is cream again,
    // while its lit reading is darker
    const cream = image([colour('cream', 0.9)]);
    const shade = dimImage([colour('cream', 0.8)], [colour('stone', 0.8)]);
    expect(tops(settleLight([cream, shade]))).toEqual(['cream', 'cream']);
  });

  it('settles a dim image first: a near-line one then goes by it as settled', () => {
    const charcoal = image([colour('charcoal', 0.9)]);
    // the dim image's lit reading, charcoal and taupe, is borne out by its charcoal
    const withTaupe = dimImage(
      [colour('slate', 0.6), colour('stone', 0.4)],
      [colour('charcoal', 0.6), colour('taupe', 0.4)],
    );
    // the near-line image's other reading, taupe, only by the dim image's lit reading
    const near = image([colour('stone', 0.8)], [colour('taupe', 0.8)]);
    expect(tops(settleLight([charcoal, withTaupe, near]))).toEqual(['charcoal', 'charcoal', 'taupe']);
  });
});

describe('a clearly dim image is read lit only when its core has an image to settle it by (ADR 0070)', () => {
  const lit = image([colour('charcoal', 0.9)]);
  const dim = () => ({ ...image([colour('slate', 0.8)]), dimScore: -0.2 });
  const readLit = (asked: number[]) => async (i: number) => {
    asked.push(i);
    return image([colour('charcoal', 0.8)]);
  };

  it('reads the dim images of a core with a clearly lit image, and only those', async () => {
    const asked: number[] = [];
    const near = image([colour('slate', 0.8)], [colour('charcoal', 0.8)]);
    const read = await withLitReadings([dim(), lit, near, dim()], readLit(asked), 2);
    expect(asked.sort()).toEqual([0, 3]);
    expect(read[0].otherLight?.palette[0].name).toBe('charcoal');
    expect(tops(settleLight(read))).toEqual(['charcoal', 'charcoal', 'charcoal', 'charcoal']);
  });

  it('reads at most `concurrency` lit readings at once, as the first readings are bounded', async () => {
    let running = 0;
    let most = 0;
    const slowRead = async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running -= 1;
      return image([colour('charcoal', 0.8)]);
    };
    await withLitReadings([lit, dim(), dim(), dim(), dim()], slowRead, 2);
    expect(most).toBe(2);
  });

  it('reads nothing more in a core without a clearly lit image (a core all in open shade)', async () => {
    const asked: number[] = [];
    const read = await withLitReadings([dim(), dim()], readLit(asked), 2);
    expect(asked).toEqual([]);
    expect(read.every((a) => a.otherLight === undefined)).toBe(true);
  });

  it('keeps the dim reading when the lit one leaves nothing visible, and passes other errors on', async () => {
    const nothing = async () => {
      throw new TasteGenerationError('image 1 has no visible content', false);
    };
    const [kept] = await withLitReadings([dim(), lit], nothing, 2);
    expect(kept.otherLight).toBeUndefined();
    const broken = async () => {
      throw new Error('thread pool closed');
    };
    await expect(withLitReadings([dim(), lit], broken, 2)).rejects.toThrow('thread pool closed');
  });
});

describe('settled on photographs, as the service stores them (tuning seeds of ADR 0066)', () => {
  const read = async (p: Promise<PhotoJpeg>) =>
    analyseImage(await asStored((await p).jpeg), 0, { otherLight: true });
  /** The palette the taste engine writes for `eval:search`'s core of `family` on `seed`. */
  const enginePalette = async (seed: number, family: string) => {
    const fi = FAMILY_KEYS.indexOf(family);
    const images = await Promise.all(
      [0, 1, 2].map(async (k) => ({
        data: await asStored((await corePhoto(seed, fi, family, k)).jpeg),
        contentType: 'image/jpeg',
      })),
    );
    const engine = new TasteService({ get: () => ({ provider: 'local' }) } as never);
    try {
      return (await engine.generate(images)).palette;
    } finally {
      await engine.onApplicationShutdown();
    }
  };
  /** A core's photographs as the service reads them: near the line in both lights, then `withLitReadings`. */
  const readCore = async (photos: Promise<PhotoJpeg>[]) => {
    const bytes = await Promise.all(photos.map(async (p) => asStored((await p).jpeg)));
    const first = await Promise.all(bytes.map((b, i) => analyseImage(b, i, { otherLight: true })));
    return withLitReadings(first, (i) => analyseImage(bytes[i], i, { light: 'lit' }), 2);
  };
  const names = (a: ImageAnalysis, family: string) =>
    familiesNamedBy(a.palette[0].name, a.palette[0].hex).families.includes(family);

  it('a lit powder blue the line takes for open shade (exposed up to white) is read lit beside its core', async () => {
    const fi = FAMILY_KEYS.indexOf('powder blue');
    const core = await Promise.all([0, 1, 2].map((k) => read(corePhoto(12, fi, 'powder blue', k))));
    expect(core[2].dimScore).toBeLessThan(0);
    expect(core[2].otherLight).toBeDefined();
    expect(names(core[2], 'powder blue')).toBe(false);
    const settled = settleLight(core);
    expect(settled.every((a) => names(a, 'powder blue'))).toBe(true);
  });

  it("settles a core's light in the taste engine: the core's palette is powder blue, not white", async () => {
    const palette = await enginePalette(12, 'powder blue');
    expect(familiesNamedBy(palette[0].name, palette[0].hex).families).toContain('powder blue');
    expect(palette.map((p) => p.name)).not.toContain('white');
  });

  it('a lit charcoal before a dark wall, read as open shade (slate), is read lit beside its core (ADR 0070)', async () => {
    const fi = FAMILY_KEYS.indexOf('charcoal');
    const core = await readCore([0, 1, 2].map((k) => corePhoto(117, fi, 'charcoal', k)));
    expect(core[0].dimScore).toBeGreaterThanOrEqual(ANALYSIS.light.undecidedWithin);
    for (const dim of core.slice(1)) {
      expect(dim.dimScore).toBeLessThanOrEqual(-ANALYSIS.light.undecidedWithin);
      expect(names(dim, 'charcoal')).toBe(false);
      expect(dim.otherLight).toBeDefined();
    }
    const settled = settleLight(core);
    expect(settled.every((a) => names(a, 'charcoal'))).toBe(true);
  });

  it("settles a core's dim images in the taste engine: the core's first colour is charcoal, not slate", async () => {
    // read dim, two of the three photographs made slate the core's first colour
    const palette = await enginePalette(117, 'charcoal');
    expect(familiesNamedBy(palette[0].name, palette[0].hex).families).toContain('charcoal');
  });

  it('a stone in open shade the line takes for lit (read taupe) is read dim beside its core', async () => {
    const fi = FAMILY_KEYS.indexOf('stone');
    const shade = await read(evalPhoto(5, fi, 'stone', 0, 'shade'));
    const lit = await read(evalPhoto(5, fi, 'stone', 1, 'as-drawn'));
    expect(shade.dimScore).toBeGreaterThanOrEqual(0);
    expect(names(shade, 'stone')).toBe(false);
    const [settled] = settleLight([shade, lit, lit]);
    expect(names(settled, 'stone')).toBe(true);
  });
});
