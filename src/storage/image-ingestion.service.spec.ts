import { ConfigService } from '@nestjs/config';
import sharp from 'sharp';
import { crc32 } from 'node:zlib';
import { fixtureImages, startHttpsFixture, type HttpsFixture } from '../../test/support/https-fixture';
import type { AllConfig } from '../config/configuration';
import { ImageIngestionService, type ImageSource } from './image-ingestion.service';
import { ImageRejectedError, STORED_MAX_EDGE } from './image-limits';
import { SafeImageFetcher } from './safe-image-fetcher';
import { ImageErrorCode, ImageIngestionException } from './storage.exception';

// Only loopback is ever contacted: the fixture on localhost, and refused connections never leave.

function serviceWith(ingest: Partial<AllConfig['ingest']> = {}): ImageIngestionService {
  const values: Pick<AllConfig, 'ingest'> = { ingest: { allowedHosts: [], timeoutMs: 5000, ...ingest } };
  const config = { get: (key: 'ingest') => values[key] } as unknown as ConfigService<AllConfig, true>;
  return new ImageIngestionService(config);
}

/** The 400 a refused ingestion throws: its message and its domain reason. */
async function refusal(promise: Promise<unknown>): Promise<{ message: string; reason: ImageErrorCode }> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ImageIngestionException);
    const { message, reason } = err as ImageIngestionException;
    expect((err as ImageIngestionException).getStatus()).toBe(400);
    expect(message).not.toMatch(/\n\s+at /); // no stack trace
    return { message, reason };
  }
  throw new Error('expected a 400');
}

async function rejection(promise: Promise<unknown>): Promise<string> {
  return (await refusal(promise)).message;
}

const url = (u: string): ImageSource => ({ kind: 'url', url: u });
const data = (buf: Buffer, type = 'image/png'): ImageSource => ({
  kind: 'data',
  dataUrl: `data:${type};base64,${buf.toString('base64')}`,
});

/** A valid PNG whose header claims width x height pixels (IHDR patched, CRC recomputed). */
function pngClaiming(template: Buffer, width: number, height: number): Buffer {
  const png = Buffer.from(template);
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

describe('ImageIngestionService', () => {
  let fixture: HttpsFixture;
  let open: ImageIngestionService; // localhost allowed, as in the e2e environment
  let strict: ImageIngestionService; // nothing allowed, as in production

  beforeAll(async () => {
    fixture = await startHttpsFixture();
    open = serviceWith({ allowedHosts: ['localhost'] });
    strict = serviceWith();
  });

  afterAll(async () => {
    await open.onModuleDestroy();
    await strict.onModuleDestroy();
    await fixture.close();
  });

  beforeEach(() => {
    fixture.hits.length = 0;
  });

  describe('URL rules (no request is made)', () => {
    it.each([
      ['http://example.com/a.png', 'only https URLs are allowed'],
      ['ftp://example.com/a.png', 'only https URLs are allowed'],
      ['file:///etc/passwd', 'only https URLs are allowed'],
      ['https://user:secret@example.com/a.png', 'URLs with credentials are not allowed'],
      ['https://user@example.com/a.png', 'URLs with credentials are not allowed'],
      ['https://example.com:8443/a.png', 'port 8443 is not allowed (443 only)'],
      ['not a url', 'not a valid URL'],
    ])('rejects %s', async (u, reason) => {
      expect(await rejection(strict.ingestAll([url(u)]))).toContain(`: ${reason}`);
    });

    it('does not echo credentials in the message', async () => {
      const message = await rejection(strict.ingestAll([url('https://user:secret@example.com/a.png')]));
      expect(message).not.toContain('secret');
      expect(message).toBe('image 1 (https://example.com/a.png): URLs with credentials are not allowed');
    });

    it('exempts allowed hosts from the port rule only for those hosts', async () => {
      const message = await rejection(open.ingestAll([url(`https://example.com:${fixture.port}/red.png`)]));
      expect(message).toContain(`port ${fixture.port} is not allowed`);
    });
  });

  describe('literal loopback addresses never reach the server', () => {
    const forms = (port: number) => [
      `https://127.0.0.1:${port}/red.png`,
      `https://127.1:${port}/red.png`,
      `https://2130706433:${port}/red.png`,
      `https://0x7f.1:${port}/red.png`,
      `https://0177.0.0.1:${port}/red.png`,
      `https://[::1]:${port}/red.png`,
      `https://[::ffff:127.0.0.1]:${port}/red.png`,
      // IPv4-compatible: the URL parser writes these [::7f00:1] and [::a9fe:a9fe], which were let through.
      `https://[::127.0.0.1]:${port}/red.png`,
      'https://[::169.254.169.254]/latest/meta-data/',
      `https://public@127.0.0.1:${port}/red.png`,
      'https://0x7f.1/',
      'https://127.0.0.1/',
      'https://[::ffff:169.254.169.254]/latest/meta-data/',
      'https://169.254.169.254/latest/meta-data/',
      'https://0.0.0.0/',
    ];

    it('rejects every form, even with localhost allowed', async () => {
      for (const u of forms(fixture.port)) {
        const message = await rejection(open.ingestAll([url(u)]));
        expect(message).toMatch(/^image 1 \(https:\/\/.+\): /);
        expect(message).toMatch(/not a public address|credentials/);
      }
      expect(fixture.hits).toEqual([]);
    });

    it('rejects them on port 443 without an allow list too', async () => {
      for (const u of ['https://127.0.0.1/', 'https://[::1]/', 'https://2130706433/', 'https://10.0.0.1/']) {
        expect(await rejection(strict.ingestAll([url(u)]))).toContain('is not a public address');
      }
    });
  });

  describe('resolved addresses', () => {
    const fetcherResolving = (addresses: string[], allowedHosts: string[] = []) =>
      new SafeImageFetcher({ allowedHosts, timeoutMs: 3000 }, () => Promise.resolve(addresses));

    it.each([
      [['127.0.0.1']],
      [['10.1.2.3']],
      [['::1']],
      [['8.8.8.8', '127.0.0.1']],
      [['::ffff:169.254.169.254']],
    ])('refuses a host resolving to %j before connecting', async (addresses) => {
      const fetcher = fetcherResolving(addresses);
      try {
        await expect(fetcher.fetch('https://rebind.example.test/red.png')).rejects.toThrow(
          /resolves to an address that is not public$/,
        );
      } finally {
        await fetcher.close();
      }
    });

    it('connects to the pinned address but verifies TLS against the host name', async () => {
      // pinned.example.test -> 127.0.0.1 (allowed): the socket reaches the fixture, but the certificate
      // is for localhost, so the handshake fails and no HTTP request is ever made.
      const fetcher = fetcherResolving(['127.0.0.1'], ['pinned.example.test']);
      try {
        await expect(fetcher.fetch(`https://pinned.example.test:${fixture.port}/red.png`)).rejects.toThrow(
          /TLS verification failed/,
        );
      } finally {
        await fetcher.close();
      }
      expect(fixture.hits).toEqual([]);
    });

    it('refuses localhost by name when it is not allowed', async () => {
      const fetcher = new SafeImageFetcher({ allowedHosts: [], timeoutMs: 3000 });
      try {
        await expect(fetcher.fetch('https://localhost/red.png')).rejects.toBeInstanceOf(ImageRejectedError);
        await expect(fetcher.fetch('https://localhost/red.png')).rejects.toThrow(/is not public/);
      } finally {
        await fetcher.close();
      }
    });
  });

  describe('fetching from the HTTPS fixture (localhost allowed)', () => {
    it('fetches and normalises a PNG', async () => {
      const [img] = await open.ingestAll([url(`${fixture.origin}/red.png`)]);
      expect(img).toMatchObject({
        format: 'png',
        ext: 'png',
        contentType: 'image/png',
        width: 64,
        height: 64,
      });
      expect(img.bytes).toBe(img.data.length);
      expect(img.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(fixture.hits).toEqual(['/red.png']);
    });

    it('strips EXIF (GPS included) from a JPEG', async () => {
      const original = await sharp((await fixtureImages()).photoJpg).metadata();
      expect(original.exif).toBeDefined(); // the fixture really carries EXIF
      const [img] = await open.ingestAll([url(`${fixture.origin}/photo.jpg`)]);
      expect(img).toMatchObject({
        format: 'jpeg',
        ext: 'jpg',
        contentType: 'image/jpeg',
        width: 320,
        height: 240,
      });
      const meta = await sharp(img.data).metadata();
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      expect(img.data.includes(Buffer.from('FixtureCam'))).toBe(false);
    });

    it('keeps WebP and GIF, and stores TIFF as PNG', async () => {
      const imgs = await open.ingestAll([
        url(`${fixture.origin}/red.webp`),
        url(`${fixture.origin}/red.gif`),
        url(`${fixture.origin}/red.tiff`),
      ]);
      expect(imgs.map((i) => i.format)).toEqual(['webp', 'gif', 'png']);
      expect(imgs.map((i) => i.contentType)).toEqual(['image/webp', 'image/gif', 'image/png']);
    });

    it('follows a redirect on the same allowed origin', async () => {
      const [img] = await open.ingestAll([url(`${fixture.origin}/redirect-ok`)]);
      expect(img.format).toBe('png');
      expect(fixture.hits).toEqual(['/redirect-ok', '/red.png']);
    });

    it('follows up to 3 redirects and refuses a 4th', async () => {
      await expect(open.ingestAll([url(`${fixture.origin}/redirect-chain/3`)])).resolves.toHaveLength(1);
      const message = await rejection(open.ingestAll([url(`${fixture.origin}/redirect-chain/4`)]));
      expect(message).toContain('too many redirects');
    });

    it('checks every redirect hop: a redirect to loopback is refused before it is followed', async () => {
      const message = await rejection(open.ingestAll([url(`${fixture.origin}/redirect-loopback`)]));
      expect(message).toContain(`redirect to https://127.0.0.1:${fixture.port}/red.png refused`);
      expect(fixture.hits).toEqual(['/redirect-loopback']);
    });

    it.each([
      ['/image.svg', 'format svg is not accepted', ImageErrorCode.Rejected],
      ['/text.html', 'content type text/html is not an image', ImageErrorCode.Rejected],
      ['/fake.png', 'content is not a decodable image', ImageErrorCode.Rejected],
      ['/big.png', 'image is 10 MB or larger', ImageErrorCode.Rejected],
      ['/big-stream.png', 'image is 10 MB or larger', ImageErrorCode.Rejected],
      ['/status/404', 'the server answered HTTP 404', ImageErrorCode.FetchFailed],
      ['/status/500', 'the server answered HTTP 500', ImageErrorCode.FetchFailed],
      ['/redirect-chain/4', 'too many redirects', ImageErrorCode.FetchFailed],
      ['/redirect-loopback', 'redirect to https://127.0.0.1', ImageErrorCode.Rejected],
    ])('rejects %s', async (path, reason, code) => {
      const { message, reason: domainReason } = await refusal(
        open.ingestAll([url(`${fixture.origin}${path}`)]),
      );
      expect(message.startsWith(`image 1 (${fixture.origin}${path}): ${reason}`)).toBe(true);
      expect(domainReason).toBe(code);
    });

    it('times out on a response that never finishes', async () => {
      const quick = serviceWith({ allowedHosts: ['localhost'], timeoutMs: 300 });
      try {
        const started = Date.now();
        const { message, reason } = await refusal(quick.ingestAll([url(`${fixture.origin}/slow.png`)]));
        expect(message).toContain('timed out after 300 ms');
        expect(reason).toBe(ImageErrorCode.FetchFailed);
        expect(Date.now() - started).toBeLessThan(3000);
      } finally {
        await quick.onModuleDestroy();
      }
    });
  });

  describe('verification of the bytes, whatever the source', () => {
    it('accepts a data URL and names the detected format, not the declared one', async () => {
      const { redPng } = await fixtureImages();
      const [img] = await strict.ingestAll([data(redPng, 'image/jpeg')]);
      expect(img).toMatchObject({ format: 'png', contentType: 'image/png', width: 64, height: 64 });
    });

    it('rejects SVG in a data URL', async () => {
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"></svg>');
      expect(await rejection(strict.ingestAll([data(svg, 'image/svg+xml')]))).toContain(
        'format svg is not accepted',
      );
    });

    it('rejects bytes that are not an image', async () => {
      expect(await rejection(strict.ingestAll([data(Buffer.from('hello world'))]))).toContain(
        'content is not a decodable image',
      );
    });

    it('rejects a decompression bomb by its header dimensions', async () => {
      const bomb = pngClaiming((await fixtureImages()).redPng, 20000, 20000);
      expect(await rejection(strict.ingestAll([data(bomb)]))).toMatch(
        /too large \(20000x20000 pixels; at most 24 megapixels\)|decodable/,
      );
    });

    it('rejects a truncated image', async () => {
      const { photoJpg } = await fixtureImages();
      const cut = photoJpg.subarray(0, Math.floor(photoJpg.length / 2));
      expect(await rejection(strict.ingestAll([data(cut, 'image/jpeg')]))).toContain('not a decodable image');
    });

    it('applies the EXIF orientation before stripping it', async () => {
      const rotated = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#0a0' } })
        .jpeg()
        .withMetadata({ orientation: 6 })
        .toBuffer();
      expect((await sharp(rotated).metadata()).orientation).toBe(6);
      const [img] = await strict.ingestAll([data(rotated, 'image/jpeg')]);
      expect([img.width, img.height]).toEqual([20, 40]);
      expect((await sharp(img.data).metadata()).orientation).toBeUndefined();
    });
  });

  describe('the stored rendition', () => {
    /** A JPEG of a horizontal gradient (so resampling has real work to do). */
    const gradientJpeg = (width: number, height: number, orientation?: number) => {
      const pixels = Buffer.alloc(width * height * 3);
      for (let i = 0; i < width * height; i += 1) {
        const x = i % width;
        pixels[i * 3] = Math.round((255 * x) / width);
        pixels[i * 3 + 1] = 90;
        pixels[i * 3 + 2] = 255 - pixels[i * 3];
      }
      const image = sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 80 });
      return (orientation ? image.withMetadata({ orientation }) : image).toBuffer();
    };

    it(`scales a large image down to ${STORED_MAX_EDGE} px on its long edge, keeping its proportions`, async () => {
      const [wide, tall] = await strict.ingestAll([
        data(await gradientJpeg(5000, 2000), 'image/jpeg'), // 1/2 scale decoded at load
        data(
          await sharp(await gradientJpeg(1000, 2400))
            .png()
            .toBuffer(),
        ),
      ]);
      expect([wide.width, wide.height]).toEqual([STORED_MAX_EDGE, 640]);
      expect([tall.width, tall.height]).toEqual([667, STORED_MAX_EDGE]);
      const stored = await sharp(wide.data).metadata();
      expect([stored.format, stored.width, stored.height]).toEqual(['jpeg', STORED_MAX_EDGE, 640]);
      expect(wide.bytes).toBe(wide.data.length);
      // The colours survive the scaling: left edge red, right edge blue.
      const { data: raw } = await sharp(wide.data)
        .extract({ left: 0, top: 300, width: 1, height: 1 })
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect(raw[0]).toBeLessThan(40);
      expect(raw[2]).toBeGreaterThan(215);
    });

    it('never enlarges a small image', async () => {
      const [img] = await strict.ingestAll([data(await gradientJpeg(300, 200), 'image/jpeg')]);
      expect([img.width, img.height]).toEqual([300, 200]);
    });

    it('applies the EXIF orientation of a large photograph before scaling it', async () => {
      const sideways = await gradientJpeg(4000, 3000, 6); // stored landscape, displayed portrait
      const [img] = await strict.ingestAll([data(sideways, 'image/jpeg')]);
      expect([img.width, img.height]).toEqual([1200, STORED_MAX_EDGE]);
      const meta = await sharp(img.data).metadata();
      expect(meta.orientation).toBeUndefined();
      expect(meta.exif).toBeUndefined();
    });

    it('still refuses a truncated large JPEG decoded at reduced size', async () => {
      const jpeg = await gradientJpeg(5000, 3400);
      const cut = jpeg.subarray(0, Math.floor(jpeg.length * 0.6));
      expect(await rejection(strict.ingestAll([data(cut, 'image/jpeg')]))).toContain(
        'content is not a decodable image',
      );
    });
  });

  describe('ingestAll', () => {
    it('keeps order and names the failing image by its 1-based position in the combined list', async () => {
      const { redPng } = await fixtureImages();
      const ok = await open.ingestAll([data(redPng), url(`${fixture.origin}/red.gif`), data(redPng)]);
      expect(ok.map((i) => i.format)).toEqual(['png', 'gif', 'png']);

      const message = await rejection(
        open.ingestAll([data(redPng), url(`${fixture.origin}/red.png`), url(`${fixture.origin}/text.html`)]),
      );
      expect(message).toBe(`image 3 (${fixture.origin}/text.html): content type text/html is not an image`);
    });

    it('describes data URLs briefly', async () => {
      const message = await rejection(strict.ingestAll([data(Buffer.from('x'.repeat(5000)))]));
      expect(message).toBe('image 1 (data:image/png;base64,...): content is not a decodable image');
    });

    it('returns an empty list for no sources', async () => {
      await expect(strict.ingestAll([])).resolves.toEqual([]);
    });
  });
});
