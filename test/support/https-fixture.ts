import type { Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import sharp from 'sharp';
import { createTlsServer } from './tls-server';

/**
 * A local HTTPS server for image-fetching tests, with a certificate for `localhost` / 127.0.0.1 / ::1
 * signed by the test CA in test/fixtures/tls (run jest with NODE_EXTRA_CA_CERTS=test/fixtures/tls/ca.pem).
 *
 * Routes:
 * - `/red.png` 64x64 red PNG; `/red.webp`, `/red.gif`, `/red.tiff` the same in other formats
 * - `/photo.jpg` 320x240 JPEG carrying EXIF with GPS tags (to prove metadata stripping)
 * - `/image.svg` (image/svg+xml), `/text.html` (text/html), `/fake.png` (image/png, not an image)
 * - `/big.png` 11 MB with Content-Length; `/big-stream.png` 11 MB chunked, no Content-Length
 * - `/redirect-loopback` 302 to https://127.0.0.1:PORT/red.png; `/redirect-ok` 302 to /red.png
 * - `/redirect-chain/N` exactly N redirects, then /red.png
 * - `/slow.png` sends headers and a few bytes, then never finishes
 * - `/status/N` answers HTTP N with an image/png body; `/delay/MS/red.png` the red PNG after MS ms
 * - anything else 404
 */
export interface HttpsFixture {
  port: number;
  /** `https://localhost:PORT` */
  origin: string;
  /** Every request path (with query) that reached the server, in order. */
  hits: string[];
  close(): Promise<void>;
}

const MB = 1024 * 1024;

export interface FixtureImages {
  redPng: Buffer;
  redWebp: Buffer;
  redGif: Buffer;
  redTiff: Buffer;
  photoJpg: Buffer;
}

let imagesPromise: Promise<FixtureImages> | null = null;

/** The fixture's images (generated once per process with sharp). */
export function fixtureImages(): Promise<FixtureImages> {
  imagesPromise ??= (async () => {
    const red = () =>
      sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 255, g: 0, b: 0 } } });
    const photo = sharp({
      create: { width: 320, height: 240, channels: 3, background: { r: 30, g: 120, b: 200 } },
    })
      .jpeg({ quality: 85 })
      .withExif({
        IFD0: { Make: 'FixtureCam', Model: 'GPS Test 1', Software: 'https-fixture' },
        IFD3: {
          GPSLatitudeRef: 'N',
          GPSLatitude: '48/1 51/1 2958/100',
          GPSLongitudeRef: 'E',
          GPSLongitude: '2/1 17/1 4030/100',
        },
      });
    const [redPng, redWebp, redGif, redTiff, photoJpg] = await Promise.all([
      red().png().toBuffer(),
      red().webp().toBuffer(),
      red().gif().toBuffer(),
      red().tiff().toBuffer(),
      photo.toBuffer(),
    ]);
    return { redPng, redWebp, redGif, redTiff, photoJpg };
  })();
  return imagesPromise;
}

const SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="red"/></svg>',
);

function listen(server: Server, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(0, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Starts the fixture on an ephemeral port, dual-stack (`::`) where IPv6 is available, else 127.0.0.1. */
export async function startHttpsFixture(): Promise<HttpsFixture> {
  const images = await fixtureImages();
  const hits: string[] = [];
  let port = 0;

  const send = (res: ServerResponse, status: number, type: string, body: Buffer) => {
    res.writeHead(status, { 'content-type': type, 'content-length': body.length });
    res.end(body);
  };
  const redirect = (res: ServerResponse, location: string) => {
    res.writeHead(302, { location, 'content-length': 0 });
    res.end();
  };
  const stream = (res: ServerResponse, chunks: number, chunk: Buffer) => {
    let sent = 0;
    const pump = () => {
      while (sent < chunks) {
        sent++;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.on('error', () => undefined);
    pump();
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    hits.push(path);
    answer(res, path);
  };

  const answer = (res: ServerResponse, path: string): void => {
    const pathname = path.split('?')[0];
    const chain = /^\/redirect-chain\/(\d+)$/.exec(pathname);
    const status = /^\/status\/(\d{3})$/.exec(pathname);
    if (chain) {
      const n = Number(chain[1]);
      return redirect(res, n > 1 ? `/redirect-chain/${n - 1}` : '/red.png');
    }
    if (status) return send(res, Number(status[1]), 'image/png', images.redPng);
    // `/delay/<ms>/<path>`: answers as `<path>` does, after a pause.
    const delay = /^\/delay\/(\d+)(\/.+)$/.exec(pathname);
    if (delay) {
      setTimeout(() => answer(res, delay[2]), Number(delay[1]));
      return;
    }
    switch (pathname) {
      case '/red.png':
        return send(res, 200, 'image/png', images.redPng);
      case '/red.webp':
        return send(res, 200, 'image/webp', images.redWebp);
      case '/red.gif':
        return send(res, 200, 'image/gif', images.redGif);
      case '/red.tiff':
        return send(res, 200, 'image/tiff', images.redTiff);
      case '/photo.jpg':
        return send(res, 200, 'image/jpeg', images.photoJpg);
      case '/image.svg':
        return send(res, 200, 'image/svg+xml', SVG);
      case '/text.html':
        return send(res, 200, 'text/html; charset=utf-8', Buffer.from('<!doctype html><p>not an image</p>'));
      case '/fake.png':
        return send(res, 200, 'image/png', Buffer.from('this is definitely not a PNG file'));
      case '/big.png':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': 11 * MB });
        return stream(res, 11, Buffer.alloc(MB, 0x41));
      case '/big-stream.png':
        res.writeHead(200, { 'content-type': 'image/png', 'transfer-encoding': 'chunked' });
        return stream(res, 11, Buffer.alloc(MB, 0x42));
      case '/redirect-loopback':
        return redirect(res, `https://127.0.0.1:${port}/red.png`);
      case '/redirect-ok':
        return redirect(res, '/red.png');
      case '/slow.png':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': images.redPng.length });
        res.write(images.redPng.subarray(0, 8));
        return; // never ends; close() destroys the socket
      default:
        return send(res, 404, 'text/plain', Buffer.from('not found'));
    }
  };

  const { server, close } = createTlsServer(handle);
  try {
    await listen(server, '::');
  } catch {
    await listen(server, '127.0.0.1');
  }
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('https fixture: no port');
  port = address.port;

  return {
    port,
    origin: `https://localhost:${port}`,
    hits,
    close,
  };
}
