import { lookup } from 'node:dns/promises';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { isIpLiteral, isPublicAddress, normalizeHost } from './address-policy';

/** A reason an outbound request to a user-supplied URL was refused or failed (safe to show the user). */
export class OutboundRejectedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'OutboundRejectedError';
  }
}

export interface SafeOutboundOptions {
  /** Hosts exempt from the public-address rule and the port-443 rule (lower case, no port). */
  allowedHosts: readonly string[];
  /** Connection, headers and body timeouts of the dispatcher. */
  timeoutMs: number;
}

export type Resolver = (hostname: string) => Promise<string[]>;
/** Builds the error thrown for a refused URL or address (`blocked`: a resolved address was not public). */
export type RejectionFactory = (reason: string, blocked: boolean) => OutboundRejectedError;

const TLS_ERROR_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/;

async function resolveAll(hostname: string): Promise<string[]> {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/**
 * The outbound policy for user-supplied URLs (image URLs, webhook endpoints), shared so both obey the
 * same rules:
 *
 * - https only, no credentials, port 443 unless the host is in `allowedHosts`;
 * - the connection goes through a dedicated undici Agent (never the global dispatcher, never a proxy)
 *   whose connector resolves the name itself, refuses if ANY address is not public unicast, and then
 *   connects to the checked address (TLS SNI and certificate check still use the host name), so a
 *   second, rebinding DNS answer cannot be used;
 * - literal IP hosts (after WHATWG parsing: `127.1`, `2130706433`, `[::ffff:127.0.0.1]`) are checked
 *   before any connection.
 *
 * Redirects are the caller's business: undici's `request` never follows them. The TLS trust store is
 * Node's default (which includes NODE_EXTRA_CA_CERTS).
 */
export class SafeOutbound {
  readonly dispatcher: Agent;
  readonly timeoutMs: number;
  private readonly allowedHosts: ReadonlySet<string>;

  constructor(
    options: SafeOutboundOptions,
    private readonly resolver: Resolver = resolveAll,
    private readonly reject: RejectionFactory = (reason) => new OutboundRejectedError(reason),
  ) {
    this.allowedHosts = new Set(options.allowedHosts.map(normalizeHost).filter(Boolean));
    this.timeoutMs = options.timeoutMs;
    this.dispatcher = new Agent({
      connect: this.pinnedConnector(this.resolver),
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      keepAliveTimeout: 1000,
      connections: 16,
    });
  }

  /**
   * Parses and checks a URL without any network traffic. Returns the parsed URL or throws the
   * rejection naming the rule that was broken.
   */
  checkUrl(raw: string | URL): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw this.reject('not a valid URL', false);
    }
    if (url.protocol !== 'https:') throw this.reject('only https URLs are allowed', false);
    if (url.username !== '' || url.password !== '') {
      throw this.reject('URLs with credentials are not allowed', false);
    }
    const host = normalizeHost(url.hostname);
    if (host === '') throw this.reject('URL has no host', false);
    const exempt = this.allowedHosts.has(host);
    if (isIpLiteral(host) && !exempt && !isPublicAddress(host)) {
      throw this.reject(`address ${host} is not a public address`, true);
    }
    if (url.port !== '' && url.port !== '443' && !exempt) {
      throw this.reject(`port ${url.port} is not allowed (443 only)`, false);
    }
    return url;
  }

  /** A short, user-safe reason for a failed request (`signal`: the request's overall deadline). */
  failure(err: unknown, signal: AbortSignal): OutboundRejectedError {
    if (err instanceof OutboundRejectedError) return err;
    if (signal.aborted) return this.reject(`timed out after ${this.timeoutMs} ms`, false);
    const code = errorCode(err);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return this.reject('host not found', false);
    if (code === 'UND_ERR_CONNECT_TIMEOUT') return this.reject('connection timed out', false);
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return this.reject(`timed out after ${this.timeoutMs} ms`, false);
    }
    if (code === 'ECONNREFUSED') return this.reject('connection refused', false);
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return this.reject('connection reset', false);
    if (code && TLS_ERROR_CODES.test(code)) return this.reject(`TLS verification failed (${code})`, false);
    return this.reject(`request failed (${code ?? 'network error'})`, false);
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  /**
   * Resolves the URL's host now and refuses it unless every address is public (or the host is
   * allow-listed): a registration-time check. The connection checks again, whatever DNS says then.
   */
  async checkResolved(url: URL): Promise<void> {
    try {
      await this.checkedAddresses(normalizeHost(url.hostname), this.resolver);
    } catch (err) {
      if (err instanceof OutboundRejectedError) throw err;
      const code = errorCode(err);
      throw this.reject(
        code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'host not found' : 'host lookup failed',
        false,
      );
    }
  }

  /** The addresses to connect to: all of them public unless the host is allow-listed. */
  private async checkedAddresses(host: string, resolver: Resolver): Promise<string[]> {
    const addresses = isIpLiteral(host) ? [host] : await resolver(host);
    if (addresses.length === 0) throw this.reject(`host ${host} has no address`, false);
    if (this.allowedHosts.has(host)) return addresses;
    if (addresses.some((a) => !isPublicAddress(a))) {
      // The address stays out of the message (it reaches the caller): it would map the internal DNS.
      throw this.reject(`host ${host} resolves to an address that is not public`, true);
    }
    return addresses;
  }

  /** undici connector: resolve, refuse non-public addresses, connect to the checked address. */
  private pinnedConnector(resolver: Resolver): buildConnector.connector {
    const base = buildConnector({ timeout: Math.min(this.timeoutMs, 10_000) });
    return (options, callback) => {
      const host = normalizeHost(options.hostname);
      this.checkedAddresses(host, resolver)
        .then(
          (addresses) => {
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
