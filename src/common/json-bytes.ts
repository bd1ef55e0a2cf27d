import { isAscii } from 'node:buffer';
import { randomUUID } from 'node:crypto';

/**
 * JSON of an image-carrying body read from its bytes (docs/decisions/0043-image-bodies-parsed-from-bytes.md).
 * Nearly all of a create's 7 MB body is five base64 strings: decoding it all as UTF-8 and handing it
 * to JSON.parse cost about 100 ms of the event loop per request, and two copies of every image for the
 * collector. Here each long ASCII string without escapes is read with one latin1 copy (for ASCII the
 * same characters as UTF-8), and only the rest of the body goes through JSON.parse. The result is
 * equal to JSON.parse of the whole text; malformed JSON fails as JSON.parse fails.
 */

/** Strings at least this long (in bytes, quotes excluded) are read from the bytes directly. */
export const LONG_STRING_BYTES = 64 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/**
 * An error of the body parsers, shaped like body-parser's own (http-errors: `status`, `expose`, `type`),
 * so the exception filter answers them all alike: `entity.parse.failed` is 400 `malformed_json`.
 */
export class BodyError extends Error {
  readonly statusCode: number;
  readonly expose = true;

  constructor(
    readonly status: 400 | 415,
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.statusCode = status;
  }
}

const malformed = (message: string): BodyError => new BodyError(400, 'entity.parse.failed', message);

/**
 * The index of the quote closing the string whose opening quote is at `open` (the first one not
 * preceded by an odd number of backslashes), or -1 when the string is unterminated.
 */
export function closingQuote(buf: Buffer, open: number): number {
  let j = buf.indexOf(QUOTE, open + 1);
  while (j !== -1) {
    let slashes = 0;
    for (let k = j - 1; k > open && buf[k] === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return j;
    j = buf.indexOf(QUOTE, j + 1);
  }
  return -1;
}

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** True when the string closing at `close` is an object key (a colon follows it). */
function isKey(buf: Buffer, close: number): boolean {
  let i = close + 1;
  while (i < buf.length && isWhitespace(buf[i])) i++;
  return buf[i] === COLON;
}

/**
 * The contents ([first byte, closing quote)) of the long string values that can be read as they are:
 * ASCII only and without a backslash, so the bytes are the characters.
 */
export function longPlainStrings(buf: Buffer, min = LONG_STRING_BYTES): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  let i = buf.indexOf(QUOTE);
  while (i !== -1) {
    const close = closingQuote(buf, i);
    if (close === -1) break;
    const content = buf.subarray(i + 1, close);
    if (content.length >= min && !content.includes(BACKSLASH) && isAscii(content) && !isKey(buf, close))
      found.push([i + 1, close]);
    i = buf.indexOf(QUOTE, close + 1);
  }
  return found;
}

/** The answer to a body that is JSON but no object or array (`null`, `5`, `"text"`). */
export const BARE_JSON_VALUE = 'Request body must be a JSON object or array.';

/**
 * Whether a body refused as malformed is in fact a bare JSON value (body-parser's strict mode refuses
 * those with the same error type as broken JSON, and both read "Malformed JSON").
 */
export function isBareJsonValue(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  const trimmed = text.trim();
  if (trimmed === '' || trimmed[0] === '{' || trimmed[0] === '[') return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}

/** body-parser's strict JSON: an empty body is `{}`; otherwise an object or an array. */
export function parseStrictJson(text: string, reviver?: (key: string, value: unknown) => unknown): unknown {
  if (text.length === 0) return {};
  let i = 0;
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  if (text[i] !== '{' && text[i] !== '[') {
    throw malformed(isBareJsonValue(text) ? BARE_JSON_VALUE : 'The body is not JSON.');
  }
  try {
    return JSON.parse(text, reviver) as unknown;
  } catch (err) {
    throw malformed(err instanceof Error ? err.message : String(err));
  }
}

/** JSON.parse of UTF-8 bytes, with the long plain strings read without a UTF-8 decode. */
export function parseJsonBytes(buf: Buffer): unknown {
  const long = longPlainStrings(buf);
  if (long.length === 0) return parseStrictJson(buf.toString('utf8'));
  // Each long string becomes a short placeholder no client can send (a NUL and a fresh UUID), and the
  // reviver puts the string back.
  const marker = `\u0000${randomUUID()}:`;
  const pieces: string[] = [];
  const strings: string[] = [];
  let from = 0;
  for (const [start, end] of long) {
    pieces.push(buf.toString('utf8', from, start), `\\u0000${marker.slice(1)}${strings.length}`);
    strings.push(buf.toString('latin1', start, end));
    from = end;
  }
  pieces.push(buf.toString('utf8', from));
  return parseStrictJson(pieces.join(''), (_key, value) =>
    typeof value === 'string' && value.startsWith(marker)
      ? strings[Number(value.slice(marker.length))]
      : value,
  );
}
