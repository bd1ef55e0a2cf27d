/**
 * Photograph-like core images for the benchmarks and evaluations (issues 12 and 13), drawn with sharp
 * (nothing is downloaded): a garment of a known colour family worn by a person (face, neck, hands) or
 * on a hanger, in front of a coloured, striped or busy wall above a floor, lit from one side (a
 * gradient and a vignette), shaded like cloth (a cylinder across the body, folds, fabric texture), with
 * a cast shadow on the wall, sometimes other garments (trousers, a bag) in other families, a slight
 * warm or cool white-balance cast and sensor noise; JPEG at any size up to 12 MP and beyond. The same
 * scene can be lit three ways (`light`: as drawn, a strong side light, open shade).
 *
 * The truth is what the generator drew: the dominant garment's family and shade, the other garments'
 * families, and the lighting it applied (so a test can check the garment's pixels). Colours come from
 * bench/colour-families.ts, never from the code under test.
 */
import sharp from 'sharp';
import { seededRandom } from '../src/common/seeded-random';
import { verifyAndNormalizeImage } from '../src/storage/image-verifier';
import { COLOUR_FAMILIES, family as familyOf } from './colour-families';

export type Subject = 'person' | 'hanger';
export type Backdrop = 'plain' | 'stripes' | 'busy';

export interface PhotoSpec {
  /** The dominant garment's colour family (a key of COLOUR_FAMILIES). */
  family: string;
  seed: number;
  /** Drawing size (default 600 x 800); the JPEG may be resized to `outWidth` x `outHeight`. */
  width?: number;
  height?: number;
  subject?: Subject;
  backdrop?: Backdrop;
  /** Number of other garments (0-2); drawn from the seed when not given. */
  others?: number;
  /**
   * White-balance cast, -1 (cool) to 1 (warm), scaled to at most 4% per channel; drawn when not given.
   * Giving it (0: none) keeps the rest of the scene as drawn for the seed.
   */
  cast?: number;
  /**
   * The light on top of the drawn scene (the scene itself is the same for every value):
   * - `as-drawn` (default): side light of 12%, cloth shading, the drawn cast;
   * - `side-lit`: a strong window light from one side (30%) and deeper cloth shading (the far side of
   *   the body at 65%), 5% brighter;
   * - `shade`: open shade: exposed 28% darker, with a cool cast (blue +6%, red -6%) on top of the
   *   drawn one.
   */
  light?: Lighting;
}

export type Lighting = 'as-drawn' | 'side-lit' | 'shade';

const LIGHTING: Record<Lighting, { side: number; cloth: number; exposure: number; gains: Rgb }> = {
  'as-drawn': { side: 0.12, cloth: 0.2, exposure: 1, gains: [1, 1, 1] },
  'side-lit': { side: 0.3, cloth: 0.35, exposure: 1.05, gains: [1, 1, 1] },
  shade: { side: 0.12, cloth: 0.2, exposure: 0.72, gains: [0.94, 1, 1.06] },
};

export interface PhotoTruth {
  family: string;
  /** The hex shade the dominant garment was drawn in. */
  shade: string;
  otherFamilies: string[];
  subject: Subject;
  backdrop: Backdrop;
  wall: string;
  /** Channel gains of the white-balance cast (r, g, b), the lighting's included. */
  gains: [number, number, number];
  light: Lighting;
  /** A box (fractions of width/height) inside the lit middle of the dominant garment. */
  probe: { u0: number; v0: number; u1: number; v1: number };
  /** Share of the picture covered by the dominant garment. */
  garmentShare: number;
}

export interface RawPhoto {
  data: Buffer;
  width: number;
  height: number;
  truth: PhotoTruth;
}

type Rgb = [number, number, number];

const WALLS = [
  '#eee8de',
  '#d8d3ca',
  '#c7d1bd',
  '#e7c8b6',
  '#b8c6d5',
  '#d7b3ae',
  '#a8a8a6',
  '#e4d9c4',
  '#5e6a63',
];
const FLOORS = ['#8a6a4a', '#6f5a48', '#9a9a96', '#c4b49c'];
const SKIN = ['#f1c9a5', '#e0ac85', '#c68a62', '#8d5a3b', '#5c3a26'];
const HAIR = ['#2a1d14', '#5a3a22', '#b08a4e', '#111111'];

function rgb(hex: string): Rgb {
  const n = parseInt(hex.replace('#', ''), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)];
}

function otherFamily(rand: () => number, not: ReadonlySet<string>): string {
  let key: string;
  do key = pick(rand, COLOUR_FAMILIES).key;
  while (not.has(key));
  return key;
}

interface Shape {
  /** True inside the shape at (u, v). */
  inside(u: number, v: number): boolean;
}

function ellipse(cu: number, cv: number, ru: number, rv: number): Shape {
  return { inside: (u, v) => ((u - cu) / ru) ** 2 + ((v - cv) / rv) ** 2 <= 1 };
}

function box(u0: number, v0: number, u1: number, v1: number): Shape {
  return { inside: (u, v) => u >= u0 && u <= u1 && v >= v0 && v <= v1 };
}

/** A sleeve as a slanted band from the shoulder (su, sv) to the cuff (eu, ev) of half-width w. */
function band(su: number, sv: number, eu: number, ev: number, w: number): Shape {
  const du = eu - su;
  const dv = ev - sv;
  const len2 = du * du + dv * dv;
  return {
    inside: (u, v) => {
      const t = Math.max(0, Math.min(1, ((u - su) * du + (v - sv) * dv) / len2));
      return Math.hypot(u - (su + t * du), v - (sv + t * dv)) <= w;
    },
  };
}

function union(...shapes: Shape[]): Shape {
  return { inside: (u, v) => shapes.some((s) => s.inside(u, v)) };
}

/** Draws the scene as raw RGB (3 channels). Deterministic for a spec. */
export function renderPhoto(spec: PhotoSpec): RawPhoto {
  const rand = seededRandom(spec.seed * 104729 + 7);
  const width = spec.width ?? 600;
  const height = spec.height ?? 800;
  const fam = familyOf(spec.family);
  const shadeHex = pick(rand, fam.shades);
  const shade = rgb(shadeHex);
  const subject: Subject = spec.subject ?? (rand() < 0.6 ? 'person' : 'hanger');
  const backdrop: Backdrop = spec.backdrop ?? pick(rand, ['plain', 'plain', 'stripes', 'busy'] as const);
  const wallHex = pick(rand, WALLS);
  const wall = rgb(wallHex);
  const wall2 = wall.map((c) => Math.round(c * 0.86)) as Rgb;
  const floor = rgb(pick(rand, FLOORS));
  const skin = rgb(pick(rand, SKIN));
  const hair = rgb(pick(rand, HAIR));
  // Drawn even when `cast` is given, so that a given cast changes only the light, not the scene.
  const drawnCast = rand() * 2 - 1;
  const castLevel = spec.cast ?? drawnCast;
  const light = spec.light ?? 'as-drawn';
  const lighting = LIGHTING[light];
  const gains: Rgb = [
    (1 + 0.04 * castLevel) * lighting.gains[0],
    lighting.gains[1],
    (1 - 0.04 * castLevel) * lighting.gains[2],
  ];
  const lightDir = rand() < 0.5 ? -1 : 1;
  const floorTop = 0.8 + rand() * 0.08;
  const stripeWidth = 0.03 + rand() * 0.05;

  // The dominant garment: a body with two sleeves, centred a little off the middle.
  const cu = 0.5 + (rand() - 0.5) * 0.06;
  const bw = 0.2 + rand() * 0.05;
  const top = subject === 'person' ? 0.27 : 0.2;
  const bottom = Math.min(floorTop + 0.02, 0.72 + rand() * 0.12);
  const body = box(cu - bw, top, cu + bw, bottom);
  const sleeveLen = 0.32 + rand() * 0.1;
  const leftSleeve = band(cu - bw + 0.02, top + 0.04, cu - bw - 0.07, top + sleeveLen, 0.05);
  const rightSleeve = band(cu + bw - 0.02, top + 0.04, cu + bw + 0.07, top + sleeveLen, 0.05);
  const garment = union(body, leftSleeve, rightSleeve);

  const own = new Set([fam.key]);
  const otherCount = spec.others ?? (rand() < 0.45 ? 1 + Math.floor(rand() * 2) : 0);
  const otherFamilies: string[] = [];
  const others: { shape: Shape; colour: Rgb }[] = [];
  for (let i = 0; i < otherCount; i += 1) {
    const key = otherFamily(rand, own);
    own.add(key);
    otherFamilies.push(key);
    const colour = rgb(pick(rand, familyOf(key).shades));
    if (i === 0 && subject === 'person') {
      // trousers below the garment, two legs
      others.push({
        shape: union(box(cu - bw * 0.8, bottom, cu - 0.02, 1), box(cu + 0.02, bottom, cu + bw * 0.8, 1)),
        colour,
      });
    } else {
      const side = lightDir > 0 ? 0.08 : 0.78;
      others.push({ shape: box(side, 0.55, side + 0.14, 0.75), colour }); // a bag on a chair or a shelf
    }
  }

  const person =
    subject === 'person'
      ? {
          face: ellipse(cu, top - 0.1, 0.075, 0.075 * (width / height) * 1.3),
          hairCap: ellipse(cu, top - 0.14, 0.08, 0.06 * (width / height) * 1.3),
          neck: box(cu - 0.03, top - 0.04, cu + 0.03, top + 0.01),
          hands: union(
            ellipse(cu - bw - 0.07, top + sleeveLen + 0.03, 0.035, 0.03),
            ellipse(cu + bw + 0.07, top + sleeveLen + 0.03, 0.035, 0.03),
          ),
          legs: union(box(cu - bw * 0.7, bottom, cu - 0.03, 1), box(cu + 0.03, bottom, cu + bw * 0.7, 1)),
        }
      : null;
  const hook = band(cu, 0.04, cu, top, 0.006);
  const bar = band(cu - bw - 0.02, top + 0.005, cu + bw + 0.02, top + 0.005, 0.008);
  const hangerColour = rgb('#7a5535');

  const blobs = Array.from({ length: 28 }, () => ({
    u: rand(),
    v: rand() * floorTop,
    r: 0.03 + rand() * 0.07,
    c: rgb(pick(rand, [...WALLS, '#c05a3a', '#3a6a8a', '#d0b040', '#6a8a4a', '#8a4a6a'])),
  }));
  const folds = Array.from({ length: 5 }, () => ({ u: cu - bw + rand() * 2 * bw, w: 0.008 + rand() * 0.02 }));
  const shadowDu = -lightDir * 0.035;
  const shadowDv = 0.02;

  const data = Buffer.alloc(width * height * 3);
  const noise = seededRandom(spec.seed * 31 + 3);
  let garmentPixels = 0;
  for (let y = 0; y < height; y += 1) {
    const v = y / height;
    for (let x = 0; x < width; x += 1) {
      const u = x / width;
      let c: Rgb;
      let material = 1; // extra shading of the surface itself
      if (garment.inside(u, v) && !(person?.hands.inside(u, v) ?? false)) {
        garmentPixels += 1;
        c = shade;
        // cloth: darker towards the sides of the body (a cylinder), folds, fine texture
        const across = Math.min(1, Math.abs(u - cu) / (bw + 0.08));
        material = 1 - lighting.cloth + lighting.cloth * Math.cos(across * Math.PI * 0.5);
        for (const f of folds) if (Math.abs(u - f.u) < f.w) material *= 0.93;
        material *= 0.98 + 0.04 * noise();
      } else if (others.some((o) => o.shape.inside(u, v))) {
        const o = others.find((s) => s.shape.inside(u, v));
        c = o ? o.colour : shade;
        material = 0.9 + 0.05 * noise();
      } else if (person && person.hairCap.inside(u, v) && v < top - 0.1) {
        c = hair;
      } else if (
        person &&
        (person.face.inside(u, v) || person.neck.inside(u, v) || person.hands.inside(u, v))
      ) {
        c = skin;
        material = 0.92 + 0.08 * Math.cos(Math.min(1, Math.abs(u - cu) / 0.08) * Math.PI * 0.5);
      } else if (person && person.legs.inside(u, v)) {
        c = skin;
        material = 0.9;
      } else if (!person && (hook.inside(u, v) || bar.inside(u, v))) {
        c = hangerColour;
      } else if (v >= floorTop) {
        c = floor;
        material = 0.85 + 0.1 * ((Math.floor(u * 12) % 2) * 0.5 + 0.5 * noise());
      } else {
        if (backdrop === 'stripes') c = Math.floor(u / stripeWidth) % 2 === 0 ? wall : wall2;
        else if (backdrop === 'busy') c = blobs.find((b) => Math.hypot(u - b.u, v - b.v) < b.r)?.c ?? wall;
        else c = wall;
        if (garment.inside(u - shadowDu, v - shadowDv)) material = 0.68; // the cast shadow
      }
      // light from one side, a little from above, and a vignette
      const lit =
        (1 + lighting.side * lightDir * (u - 0.5) * 2 + 0.05 * (0.5 - v)) *
        (1 - 0.22 * ((u - 0.5) ** 2 + (v - 0.5) ** 2)) *
        lighting.exposure;
      const k = material * lit;
      const i = (y * width + x) * 3;
      data[i] = Math.max(0, Math.min(255, Math.round(c[0] * k * gains[0])));
      data[i + 1] = Math.max(0, Math.min(255, Math.round(c[1] * k * gains[1])));
      data[i + 2] = Math.max(0, Math.min(255, Math.round(c[2] * k * gains[2])));
    }
  }
  const mid = (top + bottom) / 2;
  return {
    data,
    width,
    height,
    truth: {
      family: fam.key,
      shade: shadeHex,
      otherFamilies,
      subject,
      backdrop,
      wall: wallHex,
      gains,
      light,
      probe: { u0: cu - bw * 0.25, v0: mid - 0.06, u1: cu + bw * 0.25, v1: mid + 0.06 },
      garmentShare: garmentPixels / (width * height),
    },
  };
}

/** Adds sensor-like noise (uniform, +-amplitude levels) in place. */
function addNoise(buf: Buffer, seed: number, amplitude: number): void {
  let x = (seed * 2654435761) >>> 0;
  const span = amplitude * 2 + 1;
  for (let i = 0; i < buf.length; i += 1) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const n = (x >>> 24) % span;
    const val = buf[i] + n - amplitude;
    buf[i] = val < 0 ? 0 : val > 255 ? 255 : val;
  }
}

export interface JpegOptions {
  /** Output size (the drawing is resized to it); default the drawing's size. */
  outWidth?: number;
  outHeight?: number;
  quality?: number;
  /** Sensor noise amplitude in levels (default 3). */
  noise?: number;
}

export interface PhotoJpeg {
  jpeg: Buffer;
  width: number;
  height: number;
  truth: PhotoTruth;
}

/** The scene as a JPEG, optionally resized (a 12 MP photo: outWidth 4240, outHeight 2832). */
export async function photoJpeg(spec: PhotoSpec, opts: JpegOptions = {}): Promise<PhotoJpeg> {
  const raw = renderPhoto(spec);
  const width = opts.outWidth ?? raw.width;
  const height = opts.outHeight ?? raw.height;
  let pixels = raw.data;
  if (width !== raw.width || height !== raw.height) {
    pixels = await sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 3 } })
      .resize(width, height, { fit: 'fill', kernel: 'cubic' })
      .raw()
      .toBuffer();
  }
  addNoise(pixels, spec.seed, opts.noise ?? 3);
  const jpeg = await sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: opts.quality ?? 88 })
    .toBuffer();
  return { jpeg, width, height, truth: raw.truth };
}

/**
 * A photo JPEG of about `bytes` (within 10%), 4:3, quality 92 with sensor noise: the size is scaled
 * by the square root of the miss until it lands. For the create benchmark's ~1.1 MB images.
 */
export async function photoJpegOfSize(spec: PhotoSpec, bytes: number): Promise<PhotoJpeg> {
  let side = 1700;
  for (let attempt = 0; attempt < 6; attempt += 1) {
    const p = await photoJpeg(spec, {
      outWidth: Math.round(side * 1.333),
      outHeight: side,
      quality: 92,
      noise: 10,
    });
    if (p.jpeg.length <= bytes * 1.1 && p.jpeg.length >= bytes * 0.9) return p;
    side = Math.round(side * Math.sqrt(bytes / p.jpeg.length));
  }
  throw new Error(`could not make a JPEG of about ${bytes} bytes`);
}

/**
 * The base64 create benchmarks' five photos (`npm run bench`, `bench:ab-create`, `bench:floors`): one a
 * family, about 1.1 MB each, the same bytes in every run.
 */
export function createBenchPhotos(): Promise<PhotoJpeg[]> {
  const families = ['camel', 'navy', 'sage', 'blush', 'rust'];
  return Promise.all(
    families.map((family, i) => photoJpegOfSize({ family, seed: 2000 + i }, 1.1 * 1024 * 1024)),
  );
}

/** A create request's JSON body with `jpegs` as base64 data URLs. */
export function createBody(name: string, jpegs: readonly Buffer[]): string {
  return JSON.stringify({ name, images: jpegs.map((j) => `data:image/jpeg;base64,${j.toString('base64')}`) });
}

/** A 12 MP (4240 x 2832) photo JPEG of 2-3 MB, as a phone camera takes it. */
export function photo12Mp(spec: PhotoSpec): Promise<PhotoJpeg> {
  return photoJpeg(spec, { outWidth: 4240, outHeight: 2832, quality: 92, noise: 8 });
}

/**
 * Image `k` of core `ci` (its index in the evaluation's list of cores; a single-family core's is its
 * family's index in FAMILY_KEYS) for evaluation seed `seed`, as `npm run eval:search` draws it for a
 * core of `family`: 480x640, as drawn. `eval:taste -- --seeds` and the engine's regression tests read
 * the same images; `cast` (0: none) replaces the drawn white-balance cast in the same scene.
 */
export function corePhoto(
  seed: number,
  ci: number,
  family: string,
  k: number,
  cast?: number,
): Promise<PhotoJpeg> {
  return photoJpeg({ family, seed: seed * 100_000 + ci * 10 + k, width: 480, height: 640, cast });
}

/**
 * Image `k` of family `family` (index `fi` in FAMILY_KEYS) for evaluation seed `seed`, as
 * `npm run eval:taste` draws it: 480x640, under `light`. `npm run bench:light-gate` fits on the same
 * images of other seeds.
 */
export function evalPhoto(
  seed: number,
  fi: number,
  family: string,
  k: number,
  light: Lighting,
): Promise<PhotoJpeg> {
  return photoJpeg({ family, seed: seed * 100_000 + 50_000 + fi * 10 + k, width: 480, height: 640, light });
}

/**
 * The bytes the service analyses for an upload: the copy it stores (resized if over 1600 px and
 * re-encoded, a JPEG at quality 85: src/storage/image-verifier.ts), not the uploaded bytes. A re-encode
 * can move a pale colour across a family boundary (docs/decisions/0063).
 */
export async function asStored(upload: Buffer): Promise<Buffer> {
  return (await verifyAndNormalizeImage(upload)).data;
}
