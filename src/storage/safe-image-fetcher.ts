import { lookup } from 'node:dns/promises';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { Agent, buildConnector, request } from 'undici';
import { isIpLiteral, isPublicAddress, normalizeHost } from './address-policy';
import { ImageRejectedError, MAX_IMAGE_BYTES, MAX_REDIRECTS } from './image-limits';

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

type Resolver = (hostname: string) => Promise<string[]>;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const TLS_ERROR_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/;

/** Raised when a host resolves to (or is) an address this fetcher refuses to connect to. */
export class BlockedAddressError extends ImageRejectedError {}

async function resolveAll(hostname: string): Promise<string[]> {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/**
 * Fetches user-supplied image URLs without letting them reach internal addresses.
 *
 * - https only, no credentials, port 443 unless the host is in `allowedHosts`;
 * - the connection goes through a dedicated undici Agent (never the global dispatcher, never a proxy)
 *   whose connector resolves the name itself, refuses if ANY address is not public unicast, and then
 *   connects to the checked address (TLS SNI and certificate check still use the host name), so a
 *   second, rebinding DNS answer cannot be used;
 * - literal IP hosts (after WHATWG parsing: `127.1`, `2130706433`, `[::ffff:127.0.0.1]`) are checked
 *   before any connection;
 * - redirects are followed by hand, at most `maxRedirects`, each hop checked like the first;
 * - 2xx and an `image/*` Content-Type are required; the body is capped while streaming.
 *
 * The TLS trust store is Node's default (which includes NODE_EXTRA_CA_CERTS).
 */
export class SafeImageFetcher {
  private readonly allowedHosts: ReadonlySet<string>;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly agent: Agent;

  constructor(options: SafeImageFetcherOptions, resolver: Resolver = resolveAll) {
    this.allowedHosts = new Set(options.allowedHosts.map(normalizeHost).filter(Boolean));
    this.timeoutMs = options.timeoutMs;
    this.maxBytes = options.maxBytes ?? MAX_IMAGE_BYTES;
    this.maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
    this.agent = new Agent({
      connect: this.pinnedConnector(resolver),
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      keepAliveTimeout: 1000,
      connections: 16,
    });
  }

  /**
   * Parses and checks a URL without any network traffic. Returns the parsed URL or throws
   * ImageRejectedError naming the rule that was broken.
   */
  checkUrl(raw: string | URL): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ImageRejectedError('not a valid URL');
    }
    if (url.protocol !== 'https:') throw new ImageRejectedError('only https URLs are allowed');
    if (url.username !== '' || url.password !== '') {
      throw new ImageRejectedError('URLs with credentials are not allowed');
    }
    const host = normalizeHost(url.hostname);
    if (host === '') throw new ImageRejectedError('URL has no host');
    const exempt = this.allowedHosts.has(host);
    if (isIpLiteral(host) && !exempt && !isPublicAddress(host)) {
      throw new ImageRejectedError(`address ${host} is not a public address`);
    }
    if (url.port !== '' && url.port !== '443' && !exempt) {
      throw new ImageRejectedError(`port ${url.port} is not allowed (443 only)`);
    }
    return url;
  }

  /** Fetches one image URL; throws ImageRejectedError with a short reason on any failure. */
  async fetch(rawUrl: string): Promise<FetchedImage> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      return await this.follow(rawUrl, signal);
    } catch (err) {
      throw this.toRejection(err, signal);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async follow(rawUrl: string, signal: AbortSignal): Promise<FetchedImage> {
    let url = this.checkUrl(rawUrl);
    for (let hop = 0; ; hop++) {
      const res = await request(url, {
        method: 'GET',
        dispatcher: this.agent,
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
          throw new ImageRejectedError(`redirect (HTTP ${statusCode}) without a Location header`);
        if (hop >= this.maxRedirects) {
          throw new ImageRejectedError(`too many redirects (more than ${this.maxRedirects})`);
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new ImageRejectedError('redirect to an invalid URL');
        }
        url = this.checkRedirect(next);
        continue;
      }
      if (statusCode < 200 || statusCode > 299) {
        discard(body);
        throw new ImageRejectedError(`the server answered HTTP ${statusCode}`);
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

  /** undici connector: resolve, refuse non-public addresses, connect to the checked address. */
  private pinnedConnector(resolver: Resolver): buildConnector.connector {
    const base = buildConnector({ timeout: Math.min(this.timeoutMs, 10_000) });
    return (options, callback) => {
      const host = normalizeHost(options.hostname);
      const exempt = this.allowedHosts.has(host);
      const addressesOf = isIpLiteral(host) ? Promise.resolve([host]) : resolver(host);
      addressesOf
        .then(
          (addresses) => {
            if (addresses.length === 0) throw new ImageRejectedError(`host ${host} has no address`);
            const blocked = exempt ? undefined : addresses.find((a) => !isPublicAddress(a));
            if (blocked !== undefined) {
              throw new BlockedAddressError(
                `host ${host} resolves to ${blocked}, which is not a public address`,
              );
            }
            const servername = options.servername || (isIpLiteral(host) ? undefined : host);
            const attempt = (i: number): void => {
              base({ ...options, hostname: addresses[i], servername }, (err: Error | null, socket) => {
                if (err) {
                  if (i + 1 < addresses.length && isRetryableConnectError(err)) attempt(i + 1);
                  else callback(err, null);
                  return;
                }
                callback(null, socket as Socket | TLSSocket);
              });
            };
            attempt(0);
          },
          (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null),
        )
        .catch((err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null));
    };
  }

  private toRejection(err: unknown, signal: AbortSignal): ImageRejectedError {
    if (err instanceof ImageRejectedError) return err;
    if (signal.aborted) return new ImageRejectedError(`timed out after ${this.timeoutMs} ms`);
    const code = errorCode(err);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new ImageRejectedError('host not found');
    if (code === 'UND_ERR_CONNECT_TIMEOUT') return new ImageRejectedError('connection timed out');
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return new ImageRejectedError(`timed out after ${this.timeoutMs} ms`);
    }
    if (code === 'ECONNREFUSED') return new ImageRejectedError('connection refused');
    if (code && TLS_ERROR_CODES.test(code))
      return new ImageRejectedError(`TLS verification failed (${code})`);
    return new ImageRejectedError(`could not be fetched (${code ?? 'network error'})`);
  }
}

function isRetryableConnectError(err: Error): boolean {
  const code = errorCode(err);
  return (
    code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL'
  );
}

function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string')
    return err.code;
  return undefined;
}

/** Drops a response body we will not read (closing the connection); its abort error is expected. */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A URL for messages: no credentials, no query, at most 100 characters. */
export function describeUrl(url: URL | string): string {
  let text: string;
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    text = u.toString();
  } catch {
    text = String(url);
  }
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}
