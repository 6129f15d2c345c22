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
import { isPrivateAddress } from '../core/private-address';

export { isPrivateAddress };

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
  guardedLookupVia(dnsLookup)(hostname, options, callback);
}

/** A name resolver as dns.lookup is one (all addresses asked for). */
export type Resolver = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** guardedLookup over another resolver (a test's, standing in for a DNS answer that changed: rebinding). */
export function guardedLookupVia(resolve: Resolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void =>
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => isPrivateAddress(a.address));
      if (bad) return callback(new PrivateAddressError(`${hostname} resolves to a private address (${bad.address})`), []);
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
}
