import sharp from 'sharp';
import { demoImageKey, drawingVersion, renderProductImage } from './demo-images';

/** Whether the rendered pixel at (x, y) is the garment's colour rather than the light backdrop. */
async function isGarment(png: Buffer, x: number, y: number): Promise<boolean> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return data[i] < 100 && data[i + 1] < 100 && data[i + 2] < 100;
}

describe('demo product drawings', () => {
  it('draws a coat as one body down to the hem (no gap between legs), with sleeves beside it', async () => {
    const coat = await renderProductImage('coat', '#1c2541', 'solid');
    // Between where trouser legs would be, low on the garment (the old drawing had a gap there).
    expect(await isGarment(coat, 192, 440)).toBe(true);
    expect(await isGarment(coat, 208, 440)).toBe(true);
    // Sleeves hang on both sides, separate from the body, and stop above the hem.
    expect(await isGarment(coat, 50, 250)).toBe(true);
    expect(await isGarment(coat, 350, 250)).toBe(true);
    expect(await isGarment(coat, 50, 420)).toBe(false);
  });

  it('still draws trousers with two legs (the check above can tell them apart)', async () => {
    const trousers = await renderProductImage('trousers', '#1c2541', 'solid');
    expect(await isGarment(trousers, 200, 420)).toBe(false);
    expect(await isGarment(trousers, 150, 420)).toBe(true);
  });

  it('stores redrawn silhouettes under new keys, other looks under their old ones', () => {
    expect(drawingVersion('coat')).not.toBe('');
    expect(demoImageKey('coat|navy|solid', drawingVersion('coat'))).not.toBe(demoImageKey('coat|navy|solid'));
    expect(demoImageKey('dress|navy|solid', drawingVersion('dress'))).toBe(demoImageKey('dress|navy|solid'));
  });
});
