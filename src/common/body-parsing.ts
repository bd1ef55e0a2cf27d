import { PayloadTooLargeException, UnsupportedMediaTypeException } from '@nestjs/common';
import { MIMEType } from 'node:util';
import { json, raw } from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { BodyError, closingQuote, parseJsonBytes, parseStrictJson } from './json-bytes';

/** Every JSON body outside the image routes: 1 MB (docs/decisions/0022-body-handling-before-auth.md). */
export const SMALL_BODY_LIMIT_BYTES = 1024 * 1024;
/** Deepest array/object nesting accepted in a JSON body; deeper is 400 before JSON.parse runs. */
export const MAX_JSON_DEPTH = 64;
const TOO_DEEP = `Request body nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects.`;

const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether a JSON text nests arrays/objects deeper than `max`, in one pass over the bytes without
 * parsing: string contents are skipped with `indexOf` (the bulk of an image-carrying body is base64
 * strings), so a 70 MB body costs milliseconds, and no recursion means no stack to overflow.
 * Malformed JSON is left to JSON.parse.
 */
export function jsonNestingExceeds(buf: Buffer, max: number): boolean {
  let depth = 0;
  let i = 0;
  const n = buf.length;
  while (i < n) {
    const c = buf[i];
    if (c === QUOTE) {
      const close = closingQuote(buf, i);
      if (close === -1) return false;
      i = close + 1;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
    i++;
  }
  return false;
}

type RequestWithBodySize = Request & { bodyBytes?: number };

/** Runs on the raw bytes, after the size limit and before JSON.parse. */
function verifyJson(req: RequestWithBodySize, _res: Response, buf: Buffer): void {
  req.bodyBytes = buf.length;
  if (jsonNestingExceeds(buf, MAX_JSON_DEPTH)) throw new BodyError(400, 'entity.too.deep', TOO_DEEP);
}

const API = /^\/api\/v1\/org(\/|$)/i;
const CREATE_CORE = /^\/api\/v1\/org\/cores\/?$/i;
const CORE_BY_ID = /^\/api\/v1\/org\/cores\/[^/]+\/?$/i;
const MCP = /^\/mcp\/?$/i;

/** The MCP endpoint's path (`/mcp`, with or without its trailing slash). */
export function isMcpPath(path: string): boolean {
  return MCP.test(path);
}

/** The only routes that accept bodies up to BODY_LIMIT: they carry images (or MCP calls that do). */
export function acceptsLargeBody(method: string, path: string): boolean {
  return (
    (method === 'POST' && (CREATE_CORE.test(path) || MCP.test(path))) ||
    (method === 'PATCH' && CORE_BY_ID.test(path))
  );
}

/** Whether a request announces a body: a length above 0, or chunked. */
export function announcesBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * A body the JSON parsers would not read: announced without a JSON Content-Type (a form, text, none).
 * Left unread, the API used to answer as if no body had been sent: a search with its filters in a
 * form body returned unfiltered products.
 */
function announcesNonJsonBody(req: Request): boolean {
  return announcesBody(req) && !req.is('application/json');
}

function notJson(): UnsupportedMediaTypeException {
  return new UnsupportedMediaTypeException(
    'Request body must be JSON: send it with Content-Type: application/json.',
  );
}

function tooLarge(): PayloadTooLargeException {
  return new PayloadTooLargeException(
    `Request body too large: at most ${SMALL_BODY_LIMIT_BYTES} bytes unless it replaces images.`,
  );
}

/** body-parser's answer to a charset JSON cannot be in (RFC 8259: UTF-8; body-parser took any UTF). */
const unsupportedCharset = (charset: string): BodyError =>
  new BodyError(415, 'charset.unsupported', `unsupported charset "${charset.toUpperCase()}"`);

function charsetOf(req: Request): string {
  try {
    return new MIMEType(req.headers['content-type'] ?? '').params.get('charset')?.toLowerCase() ?? 'utf-8';
  } catch {
    return 'utf-8';
  }
}

/**
 * The image routes' JSON, parsed from the bytes that `raw` read (docs/decisions/0043): UTF-8 through
 * parseJsonBytes, another UTF encoding decoded first, anything else 415, as body-parser's `json` did.
 */
function parseImageRouteJson(req: Request, _res: Response, next: NextFunction): void {
  const bytes: unknown = req.body;
  if (!Buffer.isBuffer(bytes)) return next();
  const charset = charsetOf(req);
  try {
    if (charset === 'utf-8' || charset === 'utf8') req.body = parseJsonBytes(bytes);
    else if (!charset.startsWith('utf-')) throw unsupportedCharset(charset);
    else req.body = parseStrictJson(decodeText(bytes, charset));
    next();
  } catch (err) {
    next(err);
  }
}

function decodeText(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    throw unsupportedCharset(charset);
  }
}

/** A request whose body could not be read, with the error it is answered once its key is counted. */
export type RequestWithBodyError = Request & { bodyError?: unknown; org?: unknown };

/** The error of a body that could not be read, kept for the rate-limit guard (see jsonBodyParsers). */
export function deferredBodyError(req: Request): unknown {
  return (req as RequestWithBodyError).bodyError;
}

/**
 * The JSON body parsers, installed after the API-key authentication (so an anonymous body is never
 * read): BODY_LIMIT for the image routes, 1 MB everywhere else. An over-1 MB `PATCH /cores/{id}`
 * must replace images (carry `images` or `imageUrls`), otherwise it is 413 like any other route.
 *
 * For an authenticated key, a body that cannot be read (malformed, too deep, too large, not JSON, a
 * charset JSON cannot be in) is not answered here: the error waits in `bodyError` for the rate-limit
 * guard, which counts the request against the key's general budget first (so a key over it gets 429,
 * and such requests are not free), then throws it (docs/decisions/0005, addendum).
 */
export function jsonBodyParsers(largeLimit: string): RequestHandler[] {
  const readLarge = raw({ type: 'application/json', limit: largeLimit, verify: verifyJson });
  const large: RequestHandler = (req, res, next) =>
    readLarge(req, res, (err?: unknown) => (err ? next(err) : parseImageRouteJson(req, res, next)));
  const small = json({ limit: SMALL_BODY_LIMIT_BYTES, verify: verifyJson });
  const deferring =
    (req: RequestWithBodyError, next: NextFunction) =>
    (err?: unknown): void => {
      if (err === undefined || req.org === undefined) return next(err);
      req.bodyError = err;
      next();
    };
  const choose: RequestHandler = (req, res, next) => {
    // A request whose API key was refused is answered 401 without its body being read.
    if ((req as { authFailure?: unknown }).authFailure !== undefined) return next();
    const done = deferring(req, next);
    if (API.test(req.path) && announcesNonJsonBody(req)) return done(notJson());
    return acceptsLargeBody(req.method, req.path) ? large(req, res, done) : small(req, res, done);
  };
  const patchMustReplaceImages = (req: RequestWithBodySize, _res: Response, next: NextFunction): void => {
    if (req.method !== 'PATCH' || (req.bodyBytes ?? 0) <= SMALL_BODY_LIMIT_BYTES) return next();
    const body = req.body as Record<string, unknown> | null;
    const replaces = typeof body === 'object' && body !== null && ('images' in body || 'imageUrls' in body);
    deferring(req, next)(replaces ? undefined : tooLarge());
  };
  return [choose, patchMustReplaceImages];
}
