import sharp from 'sharp';
import { COLOUR_FAMILIES, labDistance, nearestFamily, oklab } from '../../bench/colour-families';
import { photoJpeg, photoJpegOfSize, renderPhoto } from '../../bench/photo-images';

function hex(c: number[]): string {
  return '#' + c.map((x) => Math.round(x).toString(16).padStart(2, '0')).join('');
}

/** The per-channel median of the truth's probe box (inside the lit middle of the dominant garment). */
function probeMedian(p: ReturnType<typeof renderPhoto>): string {
  const { u0, v0, u1, v1 } = p.truth.probe;
  const ch: number[][] = [[], [], []];
  for (let y = Math.ceil(v0 * p.height); y < v1 * p.height; y += 1)
    for (let x = Math.ceil(u0 * p.width); x < u1 * p.width; x += 1)
      for (let c = 0; c < 3; c += 1) ch[c].push(p.data[(y * p.width + x) * 3 + c]);
  return hex(ch.map((a) => a.sort((x, y) => x - y)[a.length >> 1]));
}

describe('photo-like images', () => {
  it('are deterministic for a spec and differ between seeds', async () => {
    const a = await photoJpeg({ family: 'sage', seed: 5, width: 150, height: 200 });
    const b = await photoJpeg({ family: 'sage', seed: 5, width: 150, height: 200 });
    const c = await photoJpeg({ family: 'sage', seed: 6, width: 150, height: 200 });
    expect(a.jpeg.equals(b.jpeg)).toBe(true);
    expect(a.jpeg.equals(c.jpeg)).toBe(false);
    expect(a.truth).toEqual(b.truth);
  });

  it('are JPEGs of the asked size, and of about the asked number of bytes', async () => {
    const p = await photoJpeg(
      { family: 'navy', seed: 1, width: 120, height: 160 },
      { outWidth: 640, outHeight: 480 },
    );
    const meta = await sharp(p.jpeg).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 640, 480]);
    const sized = await photoJpegOfSize({ family: 'rust', seed: 2 }, 300 * 1024);
    expect(sized.jpeg.length).toBeGreaterThan(270 * 1024);
    expect(sized.jpeg.length).toBeLessThan(330 * 1024);
  });

  it('draw the dominant garment in its family: the probe is near the drawn shade, in lit and shaded scenes', () => {
    let nearestRight = 0;
    let total = 0;
    for (const [i, f] of COLOUR_FAMILIES.entries()) {
      for (const seed of [i + 1, i + 100]) {
        const p = renderPhoto({ family: f.key, seed, width: 180, height: 240 });
        expect(p.truth.family).toBe(f.key);
        expect(f.shades).toContain(p.truth.shade);
        expect(p.truth.otherFamilies).not.toContain(f.key);
        expect(p.truth.garmentShare).toBeGreaterThan(0.15);
        expect(p.truth.garmentShare).toBeLessThan(0.5);
        const median = probeMedian(p);
        expect(labDistance(oklab(median), oklab(p.truth.shade))).toBeLessThan(0.06);
        total += 1;
        if (nearestFamily(median) === f.key) nearestRight += 1;
      }
    }
    // Light and shade move some pale tones towards a neighbour (the hard cases of the evaluation),
    // but most garments still read as their family pixel for pixel.
    expect(nearestRight / total).toBeGreaterThan(0.8);
  });

  it('light the same scene three ways: as drawn, a strong side light, open shade', () => {
    const spec = { family: 'blush', seed: 11, width: 90, height: 120 };
    const drawn = renderPhoto(spec);
    const side = renderPhoto({ ...spec, light: 'side-lit' });
    const shade = renderPhoto({ ...spec, light: 'shade' });
    expect(renderPhoto({ ...spec, light: 'as-drawn' }).data.equals(drawn.data)).toBe(true);
    const { light: _a, gains: _b, ...scene } = drawn.truth;
    for (const other of [side, shade]) {
      const { light: _c, gains: _d, ...same } = other.truth;
      expect(same).toEqual(scene);
      expect(other.data.equals(drawn.data)).toBe(false);
    }
    const mean = (b: Buffer) => b.reduce((s, v) => s + v, 0) / b.length;
    expect(mean(shade.data)).toBeLessThan(mean(drawn.data) * 0.8);
    expect(shade.truth.gains[2]).toBeGreaterThan(drawn.truth.gains[2]);
  });

  it('keep the scene when only the cast is given: the same garment, wall and others, another light colour', () => {
    for (const seed of [3, 17, 29]) {
      const spec = { family: 'oatmeal', seed, width: 60, height: 80 };
      const drawn = renderPhoto(spec);
      const neutral = renderPhoto({ ...spec, cast: 0 });
      const { gains: drawnGains, ...scene } = drawn.truth;
      const { gains, ...same } = neutral.truth;
      expect(same).toEqual(scene);
      expect(gains).toEqual([1, 1, 1]);
      expect(drawnGains).not.toEqual([1, 1, 1]);
      expect(neutral.data.equals(drawn.data)).toBe(false);
    }
  });

  it('vary the scene: people and hangers, plain, striped and busy walls, warm and cool casts, other garments', () => {
    const scenes = Array.from(
      { length: 40 },
      (_, i) => renderPhoto({ family: 'camel', seed: i + 1, width: 60, height: 80 }).truth,
    );
    expect(new Set(scenes.map((s) => s.subject))).toEqual(new Set(['person', 'hanger']));
    expect(new Set(scenes.map((s) => s.backdrop))).toEqual(new Set(['plain', 'stripes', 'busy']));
    expect(scenes.some((s) => s.gains[0] > 1.02)).toBe(true);
    expect(scenes.some((s) => s.gains[2] > 1.02)).toBe(true);
    expect(scenes.some((s) => s.otherFamilies.length > 0)).toBe(true);
    expect(scenes.some((s) => s.otherFamilies.length === 0)).toBe(true);
  });
});
