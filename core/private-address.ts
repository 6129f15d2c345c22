/**
 * Which addresses and host names lead into a private network rather than the public internet: loopback, private,
 * link-local (cloud metadata at 169.254.169.254), reserved ranges, and the names that by convention never leave
 * the machine or the site (localhost, *.internal…). Shared by the two places where a URL from outside could
 * steer a fetch inward: the result copy (results/address-guard.ts, which also checks what names resolve to) and
 * the input URLs a request forwards to a platform (platforms/request.ts, literal addresses and names only).
 */
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 96], // unspecified, loopback, and the deprecated IPv4-compatible form (::127.0.0.1)
  ['64:ff9b::', 96], // NAT64: may embed any IPv4 address
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** True for loopback, private, link-local, CGNAT, multicast, reserved and documentation addresses (IPv4-mapped IPv6 too). */
export function isPrivateAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return false;
  // BlockList matches IPv4-mapped IPv6 (::ffff:10.0.0.1) against the IPv4 rules.
  return blocked.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Top-level names that only ever mean something inside a machine or a site: `localhost` (RFC 6761), `local`
 * (mDNS, RFC 6762), `internal` (reserved by ICANN for private use in 2024; metadata.google.internal),
 * `localdomain`, `home.arpa` (RFC 8375).
 */
const LOCAL_SUFFIXES = ['localhost', 'local', 'internal', 'localdomain', 'home.arpa'];

/**
 * True for a host name that names the machine or its site rather than a public host: the suffixes above, and a
 * single label (`metadata`, `intranet`), which only a local search domain can resolve. `hostname` is a URL's
 * (lower case, IPv4 already dotted by the WHATWG parser); a trailing dot is ignored.
 */
export function isLocalHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (isIP(name.replace(/^\[|\]$/g, '')) !== 0) return false;
  if (!name.includes('.')) return true;
  return LOCAL_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
}

/** A URL host no public service can reach: a private literal address or a local name (no DNS lookup). */
export function isPrivateHost(hostname: string): boolean {
  return isPrivateAddress(hostname) || isLocalHostname(hostname);
}
