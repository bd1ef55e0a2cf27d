import { randomBytes, timingSafeEqual } from 'node:crypto';

/** A per-session synchronizer token: 32 random bytes, base64url. */
export function newCsrfToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison; any missing or differently sized value is a mismatch. */
export function csrfTokensMatch(expected: unknown, given: unknown): boolean {
  if (typeof expected !== 'string' || typeof given !== 'string' || expected.length === 0) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
