import sharp from 'sharp';
import { seededRandom } from '../../src/common/seeded-random';

/**
 * Generated "garment" images with a known truth, for the taste engine's tests and evaluation:
 * a garment-like silhouette (a T-shape: body and sleeves) in one colour or a pattern, on a plain or a
 * busy background.
 */
export type GarmentPattern = 'solid' | 'striped' | 'checked' | 'print';

export interface GarmentSpec {
  colour: string; // hex
  second?: string; // hex of the pattern's other colour
  pattern?: GarmentPattern;
  stripeWidth?: number;
  background?: string | 'busy';
  size?: number;
  /** Vertical (default) or horizontal stripes. */
  horizontal?: boolean;
  seed?: number;
}

function hexToRgb(hex: string): [number, number, number] {
  const n = parseInt(hex.replace('#', ''), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** True inside a T-shirt-like silhouette centred in a unit square. */
function inGarment(u: number, v: number): boolean {
  const body = u > 0.3 && u < 0.7 && v > 0.22 && v < 0.88;
  const sleeves = u > 0.14 && u < 0.86 && v > 0.22 && v < 0.42;
  return body || sleeves;
}

export async function garmentPng(spec: GarmentSpec): Promise<Buffer> {
  const size = spec.size ?? 320;
  const rand = seededRandom(spec.seed ?? 7);
  const main = hexToRgb(spec.colour);
  const second = hexToRgb(spec.second ?? '#f7f7f5');
  const stripe = spec.stripeWidth ?? Math.max(4, Math.round(size / 16));
  const blobs = Array.from({ length: 40 }, () => ({
    x: rand() * size,
    y: rand() * size,
    r: (0.02 + rand() * 0.05) * size,
    c: [Math.floor(rand() * 255), Math.floor(rand() * 255), Math.floor(rand() * 255)] as [
      number,
      number,
      number,
    ],
  }));
  const printBlobs = Array.from({ length: 60 }, () => ({
    x: rand() * size,
    y: rand() * size,
    r: (0.015 + rand() * 0.03) * size,
  }));
  const bg = spec.background === 'busy' ? null : hexToRgb(spec.background ?? '#ffffff');
  const raw = Buffer.alloc(size * size * 3);
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      let c: [number, number, number];
      if (inGarment(x / size, y / size)) {
        const p = spec.pattern ?? 'solid';
        const along = spec.horizontal ? y : x;
        if (p === 'striped') c = Math.floor(along / stripe) % 2 === 0 ? main : second;
        else if (p === 'checked')
          c = (Math.floor(x / stripe) + Math.floor(y / stripe)) % 2 === 0 ? main : second;
        else if (p === 'print')
          c = printBlobs.some((b) => (x - b.x) ** 2 + (y - b.y) ** 2 < b.r ** 2) ? second : main;
        else c = main;
      } else if (bg) {
        c = bg;
      } else {
        const blob = blobs.find((b) => (x - b.x) ** 2 + (y - b.y) ** 2 < b.r ** 2);
        c = blob ? blob.c : [128 + ((x * 7 + y * 3) % 60), 120 + ((x * 5) % 50), 110 + ((y * 11) % 70)];
      }
      raw[(y * size + x) * 3] = c[0];
      raw[(y * size + x) * 3 + 1] = c[1];
      raw[(y * size + x) * 3 + 2] = c[2];
    }
  }
  return sharp(raw, { raw: { width: size, height: size, channels: 3 } })
    .png()
    .toBuffer();
}
