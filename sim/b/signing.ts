/**
 * bce-auth-v1, Baidu AI Cloud's AK/SK request signature, as Baidu's pages describe it (docs/platforms/b.md#signing) (sources: the
 * official "生成认证字符串" / "签名流程" pages; test vectors reproduced in test/unit/sim/b/signing.test.ts):
 *
 *   authStringPrefix = "bce-auth-v1/{AK}/{timestamp}/{expirationPeriodInSeconds}"
 *   signingKey       = HMAC-SHA256-HEX(SK, authStringPrefix)
 *   CanonicalRequest = METHOD \n CanonicalURI \n CanonicalQueryString \n CanonicalHeaders
 *   signature        = HMAC-SHA256-HEX(signingKey as its ASCII hex string, CanonicalRequest)
 *   Authorization    = authStringPrefix/{signedHeaders joined by ;}/{signature}
 *
 * This is the simulator's own implementation, written from that description: it both signs (tests, examples)
 * and verifies (every /v2 request). The body is not signed: bce-auth-v1 has no payload hash.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const BCE_AUTH_VERSION = 'bce-auth-v1';

/**
 * Headers signed when the Authorization string's signedHeaders part is empty (`…/1800//<sig>`): "当signedHeaders为空时
 * 表示取默认值" — host, content-length, content-type, content-md5, and every x-bce-* header. [OFF]
 */
const DEFAULT_SIGNED = new Set(['host', 'content-length', 'content-type', 'content-md5']);

/** Timestamps are UTC, second precision, no milliseconds: 2015-04-27T08:23:49Z. [OFF] */
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/**
 * RFC 3986 UriEncode: keep A-Z a-z 0-9 - . _ ~, percent-encode every other UTF-8 byte with upper-case hex. [OFF]
 * encodeURIComponent leaves ! ' ( ) * unencoded, so those are finished by hand.
 */
export function uriEncode(value: string, keepSlash = false): string {
  const encoded = encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return keepSlash ? encoded.replace(/%2F/g, '/') : encoded;
}

function hmacHex(key: string, message: string): string {
  return createHmac('sha256', key).update(message, 'utf8').digest('hex');
}

/** `bce-auth-v1/{ak}/{timestamp}/{expiration}` */
export function authStringPrefix(accessKeyId: string, timestamp: string, expirationSeconds: number): string {
  return `${BCE_AUTH_VERSION}/${accessKeyId}/${timestamp}/${expirationSeconds}`;
}

export function signingKey(secretAccessKey: string, prefix: string): string {
  return hmacHex(secretAccessKey, prefix);
}

/** CanonicalURI = UriEncodeExceptSlash(path); empty → "/". The path is taken decoded. */
export function canonicalUri(path: string): string {
  if (path === '') return '/';
  return uriEncode(path, true);
}

/**
 * CanonicalQueryString from decoded (key, value) pairs: `UriEncode(key)=UriEncode(value)` for every pair except
 * `authorization`, sorted as strings, joined by `&`. An absent value is `key=`.
 */
export function canonicalQueryString(pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs
    .filter(([k]) => k.toLowerCase() !== 'authorization')
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
    .sort()
    .join('&');
}

/** Decodes a raw query string (as received) into pairs; `a&b=` gives [a, ''], [b, '']. */
export function parseQueryPairs(rawQuery: string): Array<[string, string]> {
  if (rawQuery === '') return [];
  return rawQuery
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=');
      const [k, v] = eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)];
      return [safeDecode(k), safeDecode(v)];
    });
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * CanonicalHeaders and the signedHeaders list. `names` undefined/empty = the default set. A listed header the
 * request does not carry (or carries empty) is left out, as the rules say for empty values; the signature then
 * cannot match a client that signed a value for it.
 */
export function canonicalHeaders(
  headers: Readonly<Record<string, string | undefined>>,
  names?: readonly string[],
): { canonical: string; signed: string[] } {
  const lower = new Map<string, string>();
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) lower.set(k.trim().toLowerCase(), v.trim());
  const wanted = names && names.length > 0 ? new Set(names.map((n) => n.trim().toLowerCase())) : undefined;
  const lines: Array<{ name: string; line: string }> = [];
  for (const [name, value] of lower) {
    if (value === '') continue;
    const take = wanted ? wanted.has(name) : DEFAULT_SIGNED.has(name) || name.startsWith('x-bce-');
    if (take) lines.push({ name, line: `${uriEncode(name)}:${uriEncode(value)}` });
  }
  lines.sort((a, b) => (a.line < b.line ? -1 : a.line > b.line ? 1 : 0));
  return { canonical: lines.map((l) => l.line).join('\n'), signed: lines.map((l) => l.name) };
}

export interface BceSignRequest {
  method: string;
  /** Decoded path, e.g. /v2/aigc/text_to_video */
  path: string;
  /** Decoded query pairs. */
  query?: ReadonlyArray<readonly [string, string]>;
  headers: Readonly<Record<string, string | undefined>>;
}

export interface BceSignOptions {
  accessKeyId: string;
  secretAccessKey: string;
  /** UTC `yyyy-mm-ddThh:mm:ssZ`. */
  timestamp: string;
  /** Default 1800, the documented usual value. */
  expirationSeconds?: number;
  /** Headers to sign; undefined/empty = the default set (and the Authorization says `//`). */
  signedHeaders?: readonly string[];
}

export interface BceSignature {
  prefix: string;
  signingKey: string;
  canonicalRequest: string;
  signedHeaders: string[];
  signature: string;
  authorization: string;
}

export function bceSign(req: BceSignRequest, opts: BceSignOptions): BceSignature {
  const prefix = authStringPrefix(opts.accessKeyId, opts.timestamp, opts.expirationSeconds ?? 1800);
  const key = signingKey(opts.secretAccessKey, prefix);
  const headers = canonicalHeaders(req.headers, opts.signedHeaders);
  const canonicalRequest = [
    req.method.toUpperCase(),
    canonicalUri(req.path),
    canonicalQueryString(req.query ?? []),
    headers.canonical,
  ].join('\n');
  const signature = hmacHex(key, canonicalRequest);
  // An explicit list is written out as signed; an empty one stays empty so the server applies the default set.
  const listed = opts.signedHeaders && opts.signedHeaders.length > 0 ? headers.signed.join(';') : '';
  return {
    prefix,
    signingKey: key,
    canonicalRequest,
    signedHeaders: headers.signed,
    signature,
    authorization: `${prefix}/${listed}/${signature}`,
  };
}

export function bceTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function parseBceTimestamp(ts: string): number | undefined {
  const m = TIMESTAMP.exec(ts);
  if (!m) return undefined;
  const ms = Date.parse(ts);
  // Date.parse rolls 2024-02-30 over; a real date prints back identically.
  return Number.isNaN(ms) || bceTimestamp(ms) !== ts ? undefined : ms;
}

export interface ParsedBceAuthorization {
  accessKeyId: string;
  timestamp: string;
  timestampMs: number;
  expirationSeconds: number;
  /** Empty = the default set. */
  signedHeaders: string[];
  signature: string;
}

/** Splits `bce-auth-v1/{ak}/{ts}/{exp}/{signedHeaders}/{signature}`; undefined when it is not that. */
export function parseBceAuthorization(value: string): ParsedBceAuthorization | undefined {
  const parts = value.trim().split('/');
  if (parts.length !== 6) return undefined;
  const [version, ak, ts, exp, signed, signature] = parts as [string, string, string, string, string, string];
  if (version !== BCE_AUTH_VERSION || ak === '' || !/^\d{1,9}$/.test(exp) || Number(exp) <= 0) return undefined;
  if (!/^[0-9a-f]{64}$/i.test(signature)) return undefined;
  const timestampMs = parseBceTimestamp(ts);
  if (timestampMs === undefined) return undefined;
  const signedHeaders = signed === '' ? [] : signed.split(';');
  if (signedHeaders.some((h) => h.trim() === '')) return undefined;
  return { accessKeyId: ak, timestamp: ts, timestampMs, expirationSeconds: Number(exp), signedHeaders, signature: signature.toLowerCase() };
}

/** The failure codes of docs/platforms/b.md#signing and #errors, with the HTTP status the platform answers. */
export type BceAuthFailure =
  | { status: 400; code: 'InvalidHTTPAuthHeader'; message: string }
  | { status: 403; code: 'InvalidAccessKeyId'; message: string }
  | { status: 400; code: 'RequestExpired'; message: string }
  | { status: 400; code: 'SignatureDoesNotMatch'; message: string };

export interface BceVerifyOptions {
  /** The secret key for an access key id; undefined = unknown AK. */
  secretFor: (accessKeyId: string) => string | undefined;
  now: number;
  /**
   * How far in the future a timestamp may lie. Not documented [GUESS]: 15 minutes of clock skew, the usual
   * figure for signed-request APIs.
   */
  maxFutureSkewMs?: number;
}

export const DEFAULT_MAX_FUTURE_SKEW_MS = 15 * 60_000;

/** A request's failure to authenticate. */
const refused = (failure: BceAuthFailure) => ({ ok: false as const, failure });

const INVALID_HEADER: BceAuthFailure = {
  status: 400,
  code: 'InvalidHTTPAuthHeader',
  message: 'The Authorization header you provided is invalid.',
};

/** Why a signature's timestamp is refused (expired, or too far in the future), or undefined when it is in time. */
function timestampRefusal(auth: NonNullable<ReturnType<typeof parseBceAuthorization>>, opts: BceVerifyOptions): BceAuthFailure | undefined {
  if (opts.now > auth.timestampMs + auth.expirationSeconds * 1000)
    return { status: 400, code: 'RequestExpired', message: `Request has expired. Timestamp date is ${auth.timestamp}` };
  if (auth.timestampMs - opts.now > (opts.maxFutureSkewMs ?? DEFAULT_MAX_FUTURE_SKEW_MS))
    return {
      status: 400,
      code: 'RequestExpired',
      message: `Request timestamp is too far in the future. Timestamp date is ${auth.timestamp}`,
    };
  return undefined;
}

/** A request as received, for verifyBceRequest. */
export interface ReceivedBceRequest {
  method: string;
  rawPath: string;
  rawQuery: string;
  headers: Readonly<Record<string, string | undefined>>;
  authorization: string | undefined;
}

/**
 * Verifies a received request. `rawPath`/`rawQuery` are as on the wire (they are decoded here before being
 * canonicalised); `headers` must include `host` exactly as received (with its port).
 */
export function verifyBceRequest(
  req: ReceivedBceRequest,
  opts: BceVerifyOptions,
): { ok: true; accessKeyId: string } | { ok: false; failure: BceAuthFailure } {
  const auth = req.authorization ? parseBceAuthorization(req.authorization) : undefined;
  if (!auth) return refused(INVALID_HEADER);
  const secret = opts.secretFor(auth.accessKeyId);
  if (secret === undefined)
    return refused({ status: 403, code: 'InvalidAccessKeyId', message: 'The Access Key ID you provided does not exist in our records.' });
  const late = timestampRefusal(auth, opts);
  if (late) return refused(late);
  const expected = bceSign(
    { method: req.method, path: safeDecode(req.rawPath), query: parseQueryPairs(req.rawQuery), headers: req.headers },
    {
      accessKeyId: auth.accessKeyId,
      secretAccessKey: secret,
      timestamp: auth.timestamp,
      expirationSeconds: auth.expirationSeconds,
      signedHeaders: auth.signedHeaders,
    },
  );
  const a = Buffer.from(expected.signature, 'utf8');
  const b = Buffer.from(auth.signature, 'utf8');
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    return refused({
      status: 400,
      code: 'SignatureDoesNotMatch',
      message:
        'The request signature we calculated does not match the signature you provided. Check your Secret Access Key and signing method.',
    });
  }
  return { ok: true, accessKeyId: auth.accessKeyId };
}
