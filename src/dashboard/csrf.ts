import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The anonymous visitor's CSRF cookie (signed double submit): the sign-in form works without a
 * server-side session. Path /dashboard, httpOnly, SameSite=Lax.
 */
export const CSRF_COOKIE = 'tps_csrf';

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

function mac(secret: string, nonce: string): string {
  return createHmac('sha256', secret).update(`csrf:${nonce}`).digest('base64url');
}

/** `<nonce>.<HMAC of the nonce>`: only this server can mint one, so a planted cookie must be one it issued. */
export function newSignedCsrfToken(secret: string): string {
  const nonce = randomBytes(32).toString('base64url');
  return `${nonce}.${mac(secret, nonce)}`;
}

export function isSignedCsrfToken(secret: string, token: unknown): token is string {
  if (typeof token !== 'string' || token.length > 200) return false;
  const [nonce, signature, extra] = token.split('.');
  if (!nonce || !signature || extra !== undefined) return false;
  return csrfTokensMatch(mac(secret, nonce), signature);
}

/** One cookie's value from the Cookie header (the dashboard reads no other cookie by hand). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
