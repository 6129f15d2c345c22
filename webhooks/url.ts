/**
 * Which webhook URLs the gateway will call: an absolute https URL, or http to an origin the operator
 * allows; never a host that is, or resolves to, a loopback, private, link-local or metadata address
 * (core/private-address.ts), unless its origin is in WEBHOOK_ALLOW_PRIVATE_ORIGINS. Checked when the request
 * arrives (here) and again on every delivery, where the connection is made (webhooks/activities.ts), since
 * a name may resolve elsewhere by then (DNS rebinding).
 */
import { lookup } from 'node:dns/promises';
import { isPrivateAddress, isPrivateHost } from '../core/private-address';

export class WebhookUrlError extends Error {
  override name = 'WebhookUrlError';
}

/** Longest webhook URL accepted: it is stored in the task's workflow input. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** The URL's form: absolute, https (or http to an allowed origin), no credentials. Throws WebhookUrlError. */
export function parseWebhookUrl(raw: string, allowPrivateOrigins: ReadonlySet<string>): URL {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) throw new WebhookUrlError(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlError('must be an absolute URL');
  }
  const allowed = allowPrivateOrigins.has(url.origin);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowed)) {
    throw new WebhookUrlError(
      url.protocol === 'http:'
        ? `must be an https URL: http is called only at an origin the operator lists in WEBHOOK_ALLOW_PRIVATE_ORIGINS (a local test receiver: WEBHOOK_ALLOW_PRIVATE_ORIGINS=${url.origin}), and ${url.origin} is not listed`
        : 'must be an https URL',
    );
  }
  if (url.username || url.password) throw new WebhookUrlError('must not carry credentials');
  if (!allowed && isPrivateHost(url.hostname)) {
    throw new WebhookUrlError(
      `names a private or local host (${url.hostname}); the gateway does not call into private networks unless the operator lists the origin in WEBHOOK_ALLOW_PRIVATE_ORIGINS (WEBHOOK_ALLOW_PRIVATE_ORIGINS=${url.origin})`,
    );
  }
  return url;
}

/** Resolves a host name to its addresses (default: the system's resolver, dns.lookup with all: true). */
export type HostResolver = (host: string) => Promise<readonly { address: string }[]>;

/** How the request-time check resolves a host: which resolver, and how long it may take. */
export interface HostCheck {
  resolve?: HostResolver;
  /** A name that has not resolved by then is refused (default WEBHOOK_RESOLVE_TIMEOUT_MS). */
  timeoutMs?: number;
}

/** How long a request waits for its webhook_url's host to resolve before refusing it. */
export const WEBHOOK_RESOLVE_TIMEOUT_MS = 3_000;

const systemResolver: HostResolver = (host) => lookup(host, { all: true });

/**
 * parseWebhookUrl, then what the host resolves to now: a name resolving to a private address is refused too, and so
 * is one that does not resolve, or not within the bound (the request is not held up by a slow DNS server; the
 * client may try again).
 */
export async function checkWebhookUrl(raw: string, allowPrivateOrigins: ReadonlySet<string>, check: HostCheck = {}): Promise<URL> {
  const url = parseWebhookUrl(raw, allowPrivateOrigins);
  if (allowPrivateOrigins.has(url.origin)) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const timeoutMs = check.timeoutMs ?? WEBHOOK_RESOLVE_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  let addresses: readonly { address: string }[] | 'late';
  try {
    addresses = await Promise.race([(check.resolve ?? systemResolver)(host), late]);
  } catch {
    throw new WebhookUrlError(`host ${url.hostname} does not resolve`);
  } finally {
    clearTimeout(timer);
  }
  if (addresses === 'late') throw new WebhookUrlError(`host ${url.hostname} did not resolve within ${timeoutMs} ms`);
  if (addresses.length === 0) throw new WebhookUrlError(`host ${url.hostname} does not resolve`);
  const bad = addresses.find((a) => isPrivateAddress(a.address));
  if (bad)
    throw new WebhookUrlError(
      `host ${url.hostname} resolves to a private address (${bad.address}); the gateway does not call into private networks`,
    );
  return url;
}
