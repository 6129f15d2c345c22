/**
 * SSRF guard for the copy: a platform's result URL is data from outside, so the worker must not be steered into
 * its own network (cloud metadata at 169.254.169.254, the Temporal frontend, an admin port on localhost) by a
 * URL, a redirect, or a DNS name that resolves to a private address.
 *
 * The check happens where the connection is made — a `lookup` for the HTTP client's sockets — so a name that
 * resolves to a public address at check time and a private one at connect time (DNS rebinding) is refused too.
 * Literal IP addresses never reach `lookup`, so callers check those with isPrivateAddress first.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
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
  ['::', 128],
  ['::1', 128],
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

export class PrivateAddressError extends Error {
  override name = 'PrivateAddressError';
  readonly code = 'EPRIVATEADDRESS';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A drop-in for dns.lookup that refuses names resolving to any private address (all of them are checked: a name
 * with one public and one private address is refused, since the socket may pick either).
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new PrivateAddressError(`${hostname} resolves to a private address (${bad.address})`), []);
    if (list.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    if (options.all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
}
