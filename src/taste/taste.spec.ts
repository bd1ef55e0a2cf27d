import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { converter } from 'culori';
import sharp from 'sharp';
import { garmentPng } from '../../test/support/garments';
import { colourByName, colourFamily, nameColour, VOCABULARY_COLOURS } from './colour-vocabulary';
import { analyseImage, paletteCharacter } from './image-analysis';
import { LocalTasteProvider } from './local-taste.provider';
import { OpenAiTasteProvider } from './openai.provider';
import type { TasteProvider } from './taste-provider';
import { createTasteProvider, TasteService } from './taste.service';
import { PaletteColour, TasteGenerationError } from './taste.types';

const local = () => new TasteService({ get: () => ({ provider: 'local' }) } as never);
const png = (data: Buffer) => ({ data, contentType: 'image/png' });

describe('colour vocabulary', () => {
  it('has at least 40 fashion colours, each naming itself; metallics never name a measured colour', () => {
    expect(VOCABULARY_COLOURS.length).toBeGreaterThanOrEqual(40);
    for (const c of VOCABULARY_COLOURS.filter((v) => v.family !== 'metallic'))
      expect(nameColour(c.oklab).name).toBe(c.name);
    expect(colourFamily(nameColour(toOklab('#b8bcc2')).name)).toBe('neutral');
    expect(nameColour(toOklab('#c9a44c')).family).not.toBe('metallic');
  });

  it.each([
    ['#c29b6c', 'camel'],
    ['#1b2440', 'navy'],
    ['#6c1b2b', 'burgundy'],
    ['#f5f5f3', 'white'],
    ['#131313', 'black'],
    ['#9daf89', 'sage'],
    ['#a94c27', 'rust'],
  ])('names %s %s (nearest by the colour model)', (hex, name) => {
    expect(nameColour(toOklab(hex)).name).toBe(name);
  });

  it('maps feed spellings and families', () => {
    expect(colourByName('Gray')?.name).toBe('grey');
    expect(colourByName('off-white')?.name).toBe('ivory');
    expect(colourFamily('navy')).toBe('blue');
    expect(colourByName('carburettor')).toBeUndefined();
  });
});

function toOklab(hex: string) {
  const o = converter('oklab')(hex);
  return { l: o?.l ?? 0, a: o?.a ?? 0, b: o?.b ?? 0 };
}

function paletteOf(...entries: [string, number][]): PaletteColour[] {
  return entries.map(([name, share]) => {
    const c = colourByName(name);
    if (!c) throw new Error(name);
    return { name, hex: c.hex, oklab: c.oklab, share };
  });
}

describe('palette character', () => {
  it('reads a camel and cream palette as warm, tonal and light-to-mid', () => {
    const c = paletteCharacter(paletteOf(['camel', 0.6], ['cream', 0.4]));
    expect(c.warmth).toBe('warm');
    expect(c.contrast).not.toBe('high-contrast');
    expect(c.lightness).not.toBe('dark');
  });

  it('reads navy and white as cool and high-contrast', () => {
    const c = paletteCharacter(paletteOf(['navy', 0.5], ['white', 0.5]));
    expect(c.warmth).toBe('cool');
    expect(c.contrast).toBe('high-contrast');
  });

  it('reads black, white and grey as neutral; fuchsia as vivid; a single colour as monochrome', () => {
    expect(paletteCharacter(paletteOf(['black', 0.5], ['white', 0.3], ['grey', 0.2])).warmth).toBe('neutral');
    expect(paletteCharacter(paletteOf(['fuchsia', 1])).saturation).toBe('vivid');
    expect(paletteCharacter(paletteOf(['stone', 1])).saturation).toBe('muted');
    expect(paletteCharacter(paletteOf(['olive', 1])).variety).toBe('monochrome');
    expect(paletteCharacter(paletteOf(['red', 0.34], ['cobalt', 0.33], ['yellow', 0.33])).variety).toBe(
      'multicolour',
    );
  });
});

describe('image analysis on generated garments (known truth)', () => {
  it.each([
    ['a camel solid on white', { colour: '#c19a6b' }, 'camel', 'solid'],
    ['a navy solid on a busy backdrop', { colour: '#1c2541', background: 'busy' as const }, 'navy', 'solid'],
    [
      'navy and white vertical stripes',
      { colour: '#1c2541', pattern: 'striped' as const },
      'navy',
      'striped',
    ],
    ['red and white checks', { colour: '#c8202f', pattern: 'checked' as const }, 'red', 'checked'],
    ['an olive print', { colour: '#6b6b2f', pattern: 'print' as const, second: '#efe3c8' }, 'olive', 'print'],
    ['a burgundy solid on grey', { colour: '#6d1a2a', background: '#c8c8c8' }, 'burgundy', 'solid'],
  ])('%s %j: finds %s and %s', async (_label, spec, colour, pattern) => {
    const a = await analyseImage(await garmentPng(spec), 0);
    expect(a.palette.map((p) => p.name)).toContain(colour);
    expect(a.surface.pattern).toBe(pattern);
  });

  it('tells vertical from horizontal stripes', async () => {
    const v = await analyseImage(await garmentPng({ colour: '#1c2541', pattern: 'striped' }), 0);
    const h = await analyseImage(
      await garmentPng({ colour: '#1c2541', pattern: 'striped', horizontal: true }),
      0,
    );
    expect(v.surface.direction).toBe('vertical');
    expect(h.surface.direction).toBe('horizontal');
  });

  it('separates the subject from a plain background (white is not counted for a camel garment)', async () => {
    const a = await analyseImage(await garmentPng({ colour: '#c19a6b' }), 0);
    expect(a.subject).toBe('plain-background');
    expect(a.palette[0]).toEqual(expect.objectContaining({ name: 'camel' }));
    expect(a.palette[0].share).toBeGreaterThan(0.9);
  });

  it('reads a real camera photograph (a green circuit board) as green and busy', async () => {
    const data = readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'taste', 'circuit-board.jpg'));
    const a = await analyseImage(data, 0);
    expect(colourFamily(a.palette[0].name)).toBe('green');
    expect(a.surface.pattern).not.toBe('solid');
  });

  it('fails clearly, naming the image, for bytes it cannot decode', async () => {
    const err = await analyseImage(Buffer.from('not an image'), 2).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TasteGenerationError);
    expect((err as TasteGenerationError).message).toBe('image 3 could not be decoded as an image');
    expect((err as TasteGenerationError).transient).toBe(false);
  });
});

describe('TasteService (local provider)', () => {
  it('captions every image and writes a 3 to 6 sentence profile that names the dominant colours', async () => {
    const images = [
      await garmentPng({ colour: '#c19a6b' }),
      await garmentPng({ colour: '#efe3c8', background: '#c8c8c8' }),
      await garmentPng({ colour: '#c19a6b', pattern: 'striped', second: '#efe3c8' }),
    ];
    const r = await local().generate(images.map(png));
    expect(r.captions).toHaveLength(3);
    expect(r.captions[0]).toMatch(/camel \(\d+%\)/);
    expect(r.captions[2]).toMatch(/vertical stripes/);
    expect(r.taste).toMatch(/camel/);
    expect(r.taste).toMatch(/cream/);
    const sentences = r.taste.split(/(?<=\.)\s+/);
    expect(sentences.length).toBeGreaterThanOrEqual(3);
    expect(sentences.length).toBeLessThanOrEqual(6);
    expect(r.styleAttributes.length).toBeGreaterThanOrEqual(3);
    expect(r.styleAttributes.length).toBeLessThanOrEqual(8);
    expect(r.styleAttributes).toContain('earthy');
    expect(r.tags).toEqual(expect.arrayContaining(['camel', 'cream', 'solid', 'striped', 'warm']));
    expect(
      r.palette
        .map((p) => p.name)
        .slice(0, 2)
        .sort(),
    ).toEqual(['camel', 'cream']);
    expect(r.patterns).toEqual(['solid', 'striped']);
  });

  it('is deterministic and independent of image order', async () => {
    const images = [
      await garmentPng({ colour: '#1c2541', pattern: 'striped' }),
      await garmentPng({ colour: '#c8202f' }),
      await garmentPng({ colour: '#f7f7f5', background: '#1c2541' }),
    ].map(png);
    const a = await local().generate(images);
    const b = await local().generate([images[2], images[0], images[1]]);
    const c = await local().generate(images);
    expect(c).toEqual(a);
    expect({ ...b, captions: [] }).toEqual({ ...a, captions: [] });
    expect([...b.captions].sort()).toEqual([...a.captions].sort());
  });

  it('notices what is absent: a muted, print-free set avoids saturated brights', async () => {
    const r = await local().generate([
      png(await garmentPng({ colour: '#b9ae9c' })),
      png(await garmentPng({ colour: '#8b7d6f' })),
    ]);
    expect(r.taste).toMatch(/Avoids saturated brights/);
  });

  it('accepts JPEG photos of several sizes through shrink-on-load', async () => {
    const big = await sharp(await garmentPng({ colour: '#1f8a5b', size: 1600 }))
      .jpeg()
      .toBuffer();
    const r = await local().generate([{ data: big, contentType: 'image/jpeg' }]);
    expect(r.palette[0].name).toBe('emerald');
  });
});

describe('provider selection', () => {
  const openaiConfig = {
    baseUrl: 'http://127.0.0.1:9/v1',
    apiKey: '',
    model: 'm',
    textModel: 't',
    timeoutMs: 1000,
  };
  const config = (provider: 'local' | 'openai') =>
    ({ get: () => ({ provider, openai: openaiConfig }) }) as never;

  it('builds the provider named by taste.provider', () => {
    expect(createTasteProvider(config('local'))).toBeInstanceOf(LocalTasteProvider);
    expect(createTasteProvider(config('openai'))).toBeInstanceOf(OpenAiTasteProvider);
  });

  it('asks the injected provider for the text and keeps the local palette and patterns', async () => {
    const stub: TasteProvider = {
      name: 'openai',
      describeTaste: (images) =>
        Promise.resolve({ captions: images.map(() => 'c'), taste: 't', styleAttributes: ['s'], tags: ['x'] }),
    };
    const images = [png(await garmentPng({ colour: '#1c2541' }))];
    const r = await new TasteService(config('openai'), stub).generate(images);
    expect(r).toMatchObject({ captions: ['c'], taste: 't', styleAttributes: ['s'], tags: ['x'] });
    expect(r.palette[0].name).toBe('navy');
    expect(r.patterns).toEqual(['solid']);
  });
});
