import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key format (see docs/decisions/0001-api-key-format.md):
 *   tpk_ + 32 base62 characters of randomness (≈190 bits) + 6 base62 characters of CRC32 checksum.
 * The prefix makes leaked keys recognisable to secret scanners; the checksum lets us refuse a
 * mistyped or made-up key without touching the database.
 */
export const KEY_PREFIX = 'tpk_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LEN = 32;
const CHECKSUM_LEN = 6;
export const KEY_LENGTH = KEY_PREFIX.length + RANDOM_LEN + CHECKSUM_LEN;
export const KEY_PATTERN = /^tpk_[0-9A-Za-z]{38}$/;
/** Characters of the key kept for display (`tpk_` + 8). Not enough to guess the rest. */
export const DISPLAY_PREFIX_LEN = KEY_PREFIX.length + 8;

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // Rejection sampling keeps the distribution uniform: 248 = 4 * 62.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function base62Fixed(value: number, width: number): string {
  let n = value >>> 0;
  let out = '';
  for (let i = 0; i < width; i += 1) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62Fixed(crc32(body), CHECKSUM_LEN);
}

export function generateApiKey(): string {
  const body = KEY_PREFIX + randomBase62(RANDOM_LEN);
  return body + checksum(body);
}

/** True when the key has the right shape and its checksum matches. No I/O. */
export function isWellFormedApiKey(key: string): boolean {
  if (key.length !== KEY_LENGTH || !KEY_PATTERN.test(key)) return false;
  const body = key.slice(0, KEY_LENGTH - CHECKSUM_LEN);
  const expected = Buffer.from(checksum(body));
  return timingSafeEqual(expected, Buffer.from(key.slice(KEY_LENGTH - CHECKSUM_LEN)));
}

export function hashApiKey(key: string, pepper: string): string {
  return createHmac('sha256', pepper).update(key).digest('hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LEN);
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameDigest(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}
