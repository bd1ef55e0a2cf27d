import type { Readable } from 'node:stream';
import { request } from 'undici';
import { ImageFetchFailedError, ImageRejectedError, MAX_IMAGE_BYTES, MAX_REDIRECTS } from './image-limits';
import { describeUrl, OutboundRejectedError, Resolver, SafeOutbound } from './safe-outbound';

export { describeUrl } from './safe-outbound';

export interface SafeImageFetcherOptions {
  /** Hosts exempt from the public-address rule and the port-443 rule (lower case, no port). */
  allowedHosts: readonly string[];
  /** Total time for one URL: every redirect hop, the headers and the whole body. */
  timeoutMs: number;
  maxBytes?: number;
  maxRedirects?: number;
}

export interface FetchedImage {
  data: Buffer;
  /** The Content-Type header as sent (already checked to be image/*). */
  contentType: string;
  finalUrl: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Raised when a host resolves to (or is) an address this fetcher refuses to connect to. */
export class BlockedAddressError extends ImageRejectedError {}

/**
 * Fetches user-supplied image URLs without letting them reach internal addresses, through the
 * shared outbound policy ({@link SafeOutbound}: https, port 443 unless allow-listed, public addresses
 * checked at connect time, literal IPs checked before any connection), and:
 *
 * - redirects are followed by hand, at most `maxRedirects`, each hop checked like the first;
 * - 2xx and an `image/*` Content-Type are required; the body is capped while streaming.
 */
export class SafeImageFetcher {
  private readonly outbound: SafeOutbound;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;

  constructor(options: SafeImageFetcherOptions, resolver?: Resolver) {
    this.outbound = new SafeOutbound(options, resolver, (reason, blocked) =>
      blocked ? new BlockedAddressError(reason) : new ImageRejectedError(reason),
    );
    this.timeoutMs = options.timeoutMs;
    this.maxBytes = options.maxBytes ?? MAX_IMAGE_BYTES;
    this.maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
  }

  /**
   * Parses and checks a URL without any network traffic. Returns the parsed URL or throws
   * ImageRejectedError naming the rule that was broken.
   */
  checkUrl(raw: string | URL): URL {
    return this.outbound.checkUrl(raw);
  }

  /**
   * Fetches one image URL; throws ImageRejectedError with a short reason on any failure, an
   * ImageFetchFailedError when the URL could not be fetched (network, timeout, HTTP status).
   */
  async fetch(rawUrl: string): Promise<FetchedImage> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      return await this.follow(rawUrl, signal);
    } catch (err) {
      if (err instanceof OutboundRejectedError) throw err;
      throw new ImageFetchFailedError(this.outbound.failure(err, signal).message);
    }
  }

  async close(): Promise<void> {
    await this.outbound.close();
  }

  private async follow(rawUrl: string, signal: AbortSignal): Promise<FetchedImage> {
    let url = this.checkUrl(rawUrl);
    for (let hop = 0; ; hop++) {
      const res = await request(url, {
        method: 'GET',
        dispatcher: this.outbound.dispatcher,
        signal,
        headers: {
          accept: 'image/avif,image/webp,image/png,image/jpeg,image/*;q=0.8',
          'accept-encoding': 'identity',
        },
      });
      const { statusCode, headers, body } = res;
      if (REDIRECT_STATUSES.has(statusCode)) {
        discard(body);
        const location = firstHeader(headers['location']);
        if (!location)
          throw new ImageFetchFailedError(`redirect (HTTP ${statusCode}) without a Location header`);
        if (hop >= this.maxRedirects) {
          throw new ImageFetchFailedError(`too many redirects (more than ${this.maxRedirects})`);
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new ImageFetchFailedError('redirect to an invalid URL');
        }
        url = this.checkRedirect(next);
        continue;
      }
      if (statusCode < 200 || statusCode > 299) {
        discard(body);
        throw new ImageFetchFailedError(`the server answered HTTP ${statusCode}`);
      }
      const contentType = (firstHeader(headers['content-type']) ?? '').trim();
      const mediaType = contentType.split(';')[0].trim().toLowerCase();
      if (!/^image\/[a-z0-9.+-]+$/.test(mediaType)) {
        discard(body);
        throw new ImageRejectedError(`content type ${mediaType || '(none)'} is not an image`);
      }
      const declared = Number(firstHeader(headers['content-length']) ?? NaN);
      if (Number.isFinite(declared) && declared > this.maxBytes) {
        discard(body);
        throw new ImageRejectedError('image is 10 MB or larger');
      }
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of body) {
        const buf = chunk as Buffer;
        total += buf.length;
        if (total > this.maxBytes) {
          discard(body);
          throw new ImageRejectedError('image is 10 MB or larger');
        }
        chunks.push(buf);
      }
      return { data: Buffer.concat(chunks, total), contentType, finalUrl: url.toString() };
    }
  }

  private checkRedirect(next: URL): URL {
    try {
      return this.checkUrl(next);
    } catch (err) {
      if (err instanceof ImageRejectedError) {
        throw new ImageRejectedError(`redirect to ${describeUrl(next)} refused: ${err.message}`);
      }
      throw err;
    }
  }
}

/** Drops a response body we will not read (closing the connection); its abort error is expected. */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
