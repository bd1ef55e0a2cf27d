/**
 * `npm run bench:taste`: time of the local analyst per image (1 MP and 12 MP JPEG photos with
 * camera-like texture) and per 5-image core of 12 MP photos (p50, p95), and peak memory. Not a test.
 */
import sharp from 'sharp';
import { TasteService } from '../src/taste/taste.service';
import { garmentPng } from '../test/support/garments';

/** A garment photo at `width` x `height`: the silhouette, upscaled, with sensor-like noise, as JPEG. */
async function photo(width: number, height: number, colour: string, seed: number): Promise<Buffer> {
  const base = await sharp(await garmentPng({ colour, background: '#d9d4cc', size: 600, seed }))
    .resize(width, height, { fit: 'fill' })
    .raw()
    .toBuffer();
  let x = seed * 2654435761;
  for (let i = 0; i < base.length; i += 1) {
    x = (x * 1103515245 + 12345) >>> 0;
    base[i] = Math.max(0, Math.min(255, base[i] + ((x >>> 24) % 17) - 8));
  }
  return sharp(base, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 88 })
    .toBuffer();
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function time(label: string, runs: number, fn: () => Promise<unknown>): Promise<void> {
  await fn(); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const t0 = process.hrtime.bigint();
    await fn();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  console.log(
    `${label.padEnd(34)} p50 ${pct(ms, 50).toFixed(1).padStart(7)} ms   p95 ${pct(ms, 95).toFixed(1).padStart(7)} ms   (n=${runs})`,
  );
}

async function main(): Promise<void> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const engine = new TasteService({ get: () => ({ provider: 'local' }) } as never);
  const oneMp = await photo(1200, 850, '#c19a6b', 1);
  const colours = ['#c19a6b', '#1c2541', '#6d1a2a', '#9caf88', '#efc3c0'];
  const twelve = await Promise.all(colours.map((c, i) => photo(4240, 2830, c, i + 2)));
  console.log(
    `inputs: 1 MP JPEG ${(oneMp.length / 1024).toFixed(0)} KB; 12 MP JPEGs ~${(twelve[0].length / 1024 / 1024).toFixed(1)} MB each`,
  );
  await time('one 1 MP image', 20, () => engine.generate([{ data: oneMp, contentType: 'image/jpeg' }]));
  await time('one 12 MP image', 10, () => engine.generate([{ data: twelve[0], contentType: 'image/jpeg' }]));
  await time('core of 5 x 12 MP images', 10, () =>
    engine.generate(twelve.map((data) => ({ data, contentType: 'image/jpeg' }))),
  );
  clearInterval(sampler);
  console.log(
    `peak RSS: ${(peak / 1024 / 1024).toFixed(0)} MB (target: a 5 x 12 MP core under 1500 ms on 2 cores)`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
