import * as ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

/**
 * True only for globally routable unicast addresses. IPv4-mapped IPv6 addresses are unwrapped first
 * (`::ffff:169.254.169.254` is judged as 169.254.169.254); IPv4-compatible ones (`::127.0.0.1`) are
 * refused. Everything ipaddr.js classifies as anything
 * other than `unicast` (loopback, private, linkLocal, carrierGradeNat, uniqueLocal, multicast,
 * unspecified, reserved, broadcast, 6to4, teredo, rfc6052, ...) is refused. Unparseable input: false.
 */
export function isPublicAddress(address: string): boolean {
  const bare = stripBrackets(address);
  if (isIP(bare) === 0) return false;
  try {
    // ipaddr.js reads every `::a.b.c.d` as the mapped `::ffff:a.b.c.d`; the network does not. Dotted
    // IPv6 other than the mapped form is therefore judged on its own: it is IPv4-compatible or NAT64.
    if (bare.includes(':') && bare.includes('.') && !/^::ffff:\d/i.test(bare)) return false;
    const literal = ipaddr.parse(bare);
    if (literal.kind() === 'ipv6' && literal.match(IPV4_COMPATIBLE)) return false;
    return ipaddr.process(bare).range() === 'unicast';
  } catch {
    return false;
  }
}

/**
 * `::/96`, the deprecated IPv4-compatible form (RFC 4291 2.5.5.1): `::a9fe:a9fe` (the metadata address)
 * embeds an IPv4 address and ipaddr.js rates it `unicast`. No public host
 * is reached that way, so the whole block is refused (`::` and `::1` are in it and refused anyway).
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

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
