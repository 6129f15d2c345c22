/**
 * Which addresses and host names lead into a private network rather than the public internet: loopback, private,
 * link-local (cloud metadata at 169.254.169.254), reserved ranges, and the names that by convention never leave
 * the machine or the site (localhost, *.internal…). Shared by every place where a URL from outside could steer a
 * connection inward: the result copy (results/address-guard.ts, which also checks what names resolve to), webhook
 * URLs at request and at delivery time (webhooks/url.ts, webhooks/activities.ts) and the input URLs a
 * request forwards to a platform (platforms/request.ts, literal addresses and names only).
 *
 * An IPv6 address may carry an IPv4 address inside it, and reach that IPv4 host through a translator or a tunnel:
 * IPv4-mapped, IPv4-translated and IPv4-compatible forms, NAT64, 6to4 and Teredo (embeddedIPv4). Each is judged by
 * the IPv4 address it carries, so `[2002:7f00:1::]` (6to4 of 127.0.0.1) is as private as 127.0.0.1.
 */
import { BlockList, isIP, isIPv4 } from 'node:net';

const blockedV4 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24], // the former 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blockedV4.addSubnet(net, bits, 'ipv4');
}

const blockedV6 = new BlockList();
for (const [net, bits] of [
  ['::', 96], // unspecified, loopback, and the deprecated IPv4-compatible form (::127.0.0.1), whatever it carries
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): never globally reachable, wherever its prefix puts the IPv4 address
  ['100::', 64], // discard
  ['2001:2::', 48], // benchmarking
  ['2001:10::', 28], // ORCHID
  ['2001:20::', 28], // ORCHIDv2
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blockedV6.addSubnet(net, bits, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address in any textual form (`::`, a dotted IPv4 tail); undefined if it is none. */
export function ipv6Groups(text: string): number[] | undefined {
  let s = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(s) !== 6) return undefined;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(s)?.[1];
  if (tail) {
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    s = `${s.slice(0, -tail.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = s.split('::') as [string, string | undefined];
  const part = (p: string) => (p === '' ? [] : p.split(':').map((g) => parseInt(g, 16)));
  const left = part(head);
  const right = rest === undefined ? [] : part(rest);
  const zeros = rest === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  const groups = [...left, ...zeros, ...right];
  return groups.length === 8 ? groups : undefined;
}

const dotted = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/**
 * The IPv4 addresses an IPv6 address carries, by the forms that embed one: IPv4-mapped `::ffff:0:0/96`,
 * IPv4-translated `::ffff:0:0:0/96`, IPv4-compatible `::/96`, the well-known NAT64 prefix `64:ff9b::/96` (the last
 * 32 bits), 6to4 `2002::/16` (bits 16–47) and Teredo `2001::/32` (its server in bits 32–63, its client in the last
 * 32 bits, inverted). Empty for any other address.
 */
export function embeddedIPv4(ip: string): string[] {
  const g = ipv6Groups(ip);
  if (!g) return [];
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(5) && g5 === 0xffff) return [dotted(g6, g7)]; // IPv4-mapped
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return [dotted(g6, g7)]; // IPv4-translated
  if (zeroTo(6)) return [dotted(g6, g7)]; // IPv4-compatible
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return [dotted(g6, g7)]; // NAT64
  if (g0 === 0x2002) return [dotted(g1, g2)]; // 6to4
  if (g0 === 0x2001 && g1 === 0) return [dotted(g2, g3), dotted(g6 ^ 0xffff, g7 ^ 0xffff)]; // Teredo: server, client
  return [];
}

/**
 * True for loopback, private, link-local, CGNAT, multicast, reserved and documentation addresses, and for an IPv6
 * address that carries such an IPv4 address (embeddedIPv4).
 */
export function isPrivateAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return blockedV4.check(bare, 'ipv4');
  if (isIP(bare) !== 6) return false;
  if (blockedV6.check(bare, 'ipv6')) return true;
  return embeddedIPv4(bare).some((v4) => blockedV4.check(v4, 'ipv4'));
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
