import * as ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

/**
 * True only for globally routable unicast addresses. IPv4-mapped IPv6 addresses are unwrapped first
 * (`::ffff:169.254.169.254` is judged as 169.254.169.254). Everything ipaddr.js classifies as anything
 * other than `unicast` (loopback, private, linkLocal, carrierGradeNat, uniqueLocal, multicast,
 * unspecified, reserved, broadcast, 6to4, teredo, rfc6052, ...) is refused. Unparseable input: false.
 */
export function isPublicAddress(address: string): boolean {
  const bare = stripBrackets(address);
  if (isIP(bare) === 0) return false;
  try {
    return ipaddr.process(bare).range() === 'unicast';
  } catch {
    return false;
  }
}

/** `[::1]` → `::1`; anything else unchanged. */
export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** True when the host (brackets allowed) is a literal IPv4 or IPv6 address. */
export function isIpLiteral(host: string): boolean {
  return isIP(stripBrackets(host)) !== 0;
}

/** Lower case, brackets and one trailing dot removed: the form compared against the allow list. */
export function normalizeHost(host: string): string {
  return stripBrackets(host.toLowerCase()).replace(/\.$/, '');
}
