/**
 * bce-auth-v1: Baidu AI Cloud's AK/SK request signature, required on every `/v2/...` VOD endpoint
 * (docs/platforms/b.md#signing, [OFF] "生成认证字符串" / "签名流程"):
 *
 *   authStringPrefix = "bce-auth-v1/{AK}/{timestamp}/{expirationPeriodInSeconds}"
 *   signingKey       = HMAC-SHA256-HEX(SK, authStringPrefix)
 *   CanonicalRequest = METHOD \n UriEncodeExceptSlash(path) \n CanonicalQueryString \n CanonicalHeaders
 *   signature        = HMAC-SHA256-HEX(signingKey as its lower-case hex string, CanonicalRequest)
 *   Authorization    = authStringPrefix/{signed header names joined by ;}/{signature}
 *
 * VOD signs only `host;x-bce-date` ("本API签名仅使用host和x-bce-date两个header" [OFF]), so that is our default;
 * the body is not part of the signature (bce-auth-v1 has no payload hash). The `host` signed must be the one
 * sent, port included when it is not the scheme's default (the adapter sets the header itself, from the URL).
 * Tested against Baidu's published vector and the SDK's `@baiducloud/sdk/src/auth.js` (test/unit/platforms/b/signing.test.ts).
 */
import { createHmac } from 'node:crypto';

export const BCE_AUTH_VERSION = 'bce-auth-v1';
/** "expirationPeriodInSeconds … 1800" is the documented usual value [OFF]. */
export const DEFAULT_EXPIRATION_SECONDS = 1800;
/** What VOD signs [OFF]. */
export const VOD_SIGNED_HEADERS = ['host', 'x-bce-date'] as const;

export interface BceCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface BceRequestToSign {
  method: string;
  /** The path as sent, before encoding: `/v2/tasks/tsk-…`. */
  path: string;
  /** Query parameters before encoding; order does not matter. */
  query?: ReadonlyArray<readonly [string, string]>;
  /** The request's headers; every header to sign must be present with the value sent. */
  headers: Readonly<Record<string, string>>;
}

export interface BceSignOptions {
  /** UTC `yyyy-mm-ddThh:mm:ssZ` (bceTimestamp), the same instant as the `x-bce-date` header. */
  timestamp: string;
  expirationSeconds?: number;
  /** Lower-case header names to sign; default VOD's `host;x-bce-date`. */
  signedHeaders?: readonly string[];
}

/** UTC, second precision, no milliseconds: `2015-04-27T08:23:49Z` [OFF]. */
export function bceTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * RFC 3986 UriEncode: keep `A-Z a-z 0-9 - . _ ~`, percent-encode every other UTF-8 byte with upper-case hex [OFF].
 * encodeURIComponent leaves `! ' ( ) *` alone, so those are finished by hand.
 */
export function uriEncode(value: string, keepSlash = false): string {
  const encoded = encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return keepSlash ? encoded.replace(/%2F/g, '/') : encoded;
}

/** `k=v&…` with both sides UriEncoded and the pairs sorted; `authorization` is never signed [OFF]. */
export function canonicalQueryString(query: ReadonlyArray<readonly [string, string]> = []): string {
  return query
    .filter(([k]) => k.toLowerCase() !== 'authorization')
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
    .sort()
    .join('&');
}

function canonicalHeaders(headers: Readonly<Record<string, string>>, names: readonly string[]): { lines: string; signed: string } {
  const byName = new Map(Object.entries(headers).map(([k, v]) => [k.trim().toLowerCase(), v.trim()]));
  const entries = names
    .map((n) => n.trim().toLowerCase())
    .map((name) => {
      const value = byName.get(name);
      // Signing a header that is not sent would make a signature the platform can never reproduce.
      if (value === undefined || value === '') throw new Error(`bce-auth-v1: header '${name}' is to be signed but is not set`);
      return { name, line: `${uriEncode(name)}:${uriEncode(value)}` };
    });
  const sortedLines = entries.map((e) => e.line).sort();
  const sortedNames = entries.map((e) => e.name).sort();
  return { lines: sortedLines.join('\n'), signed: sortedNames.join(';') };
}

const hmacHex = (key: string, message: string) => createHmac('sha256', key).update(message, 'utf8').digest('hex');

export function canonicalRequest(req: BceRequestToSign, signedHeaders: readonly string[] = VOD_SIGNED_HEADERS): string {
  return canonicalRequestWith(req, canonicalHeaders(req.headers, signedHeaders).lines);
}

function canonicalRequestWith(req: BceRequestToSign, headerLines: string): string {
  const path = req.path === '' ? '/' : req.path;
  return [req.method.toUpperCase(), uriEncode(path, true), canonicalQueryString(req.query), headerLines].join('\n');
}

/** The `Authorization` header value for `req`. */
export function bceAuthorization(req: BceRequestToSign, credentials: BceCredentials, opts: BceSignOptions): string {
  const headers = canonicalHeaders(req.headers, opts.signedHeaders ?? VOD_SIGNED_HEADERS);
  const prefix = `${BCE_AUTH_VERSION}/${credentials.accessKeyId}/${opts.timestamp}/${opts.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS}`;
  const signingKey = hmacHex(credentials.secretAccessKey, prefix);
  const signature = hmacHex(signingKey, canonicalRequestWith(req, headers.lines));
  return `${prefix}/${headers.signed}/${signature}`;
}
