import { familiesNamedBy, FAMILY_KEYS } from '../../bench/colour-families';
import { asStored, corePhoto, evalPhoto, type PhotoJpeg } from '../../bench/photo-images';
import { colourByName } from './colour-vocabulary';
import { settleLight } from './core-light';
import { analyseImage, type ImageAnalysis } from './image-analysis';
import { ANALYSIS } from './image-thresholds';
import { TasteService } from './taste.service';
import type { PaletteColour } from './taste.types';

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

describe('settled on photographs, as the service stores them (tuning seeds of ADR 0066)', () => {
  const read = async (p: Promise<PhotoJpeg>) =>
    analyseImage(await asStored((await p).jpeg), 0, { otherLight: true });
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
    const fi = FAMILY_KEYS.indexOf('powder blue');
    const images = await Promise.all(
      [0, 1, 2].map(async (k) => ({
        data: await asStored((await corePhoto(12, fi, 'powder blue', k)).jpeg),
        contentType: 'image/jpeg',
      })),
    );
    const engine = new TasteService({ get: () => ({ provider: 'local' }) } as never);
    try {
      const { palette } = await engine.generate(images);
      expect(familiesNamedBy(palette[0].name, palette[0].hex).families).toContain('powder blue');
      expect(palette.map((p) => p.name)).not.toContain('white');
    } finally {
      await engine.onApplicationShutdown();
    }
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
