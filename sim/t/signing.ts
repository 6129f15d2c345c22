/**
 * TC3-HMAC-SHA256, platform T's request signature, written for the simulator from Tencent Cloud's API 3.0
 * signature documentation (cloud.tencent.com/document/api/266/31767, summarised in
 * docs/platforms/t.md#signing). It is deliberately the simulator's own implementation: the gateway signs with its own code, and the
 * two only have to agree on the published algorithm (test/unit/sim/t/signing.test.ts checks this one against the
 * published worked example and against the official SDK's signer).
 *
 * The algorithm, in short:
 *   CanonicalRequest = Method \n URI \n Query \n CanonicalHeaders \n SignedHeaders \n hex(SHA256(body))
 *     CanonicalHeaders: every signed header as `name:value\n`, name and value lower-cased and trimmed.
 *   StringToSign = "TC3-HMAC-SHA256" \n Timestamp \n Date/service/tc3_request \n hex(SHA256(CanonicalRequest))
 *   kDate = HMAC("TC3" + SecretKey, Date); kService = HMAC(kDate, service); kSigning = HMAC(kService, "tc3_request")
 *   Signature = hex(HMAC(kSigning, StringToSign))
 *   Authorization: TC3-HMAC-SHA256 Credential=SecretId/Date/service/tc3_request, SignedHeaders=…, Signature=…
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const TC3_ALGORITHM = 'TC3-HMAC-SHA256';
const TERMINATOR = 'tc3_request';
/** "Timestamp 和服务器时间相差不得超过五分钟" (Tencent Cloud common error AuthFailure.SignatureExpire). */
export const TC3_MAX_SKEW_S = 300;

export interface Tc3Input {
  secretKey: string;
  service: string;
  /** Unix seconds (X-TC-Timestamp); the credential scope's date is its UTC date. */
  timestamp: number;
  method: string;
  /** Canonical URI: `/` for every API 3.0 POST. */
  path: string;
  /** Canonical query string: empty for POST. */
  query: string;
  /** The signed headers, in SignedHeaders order, with their values as sent. */
  headers: ReadonlyArray<readonly [name: string, value: string]>;
  /** The request body exactly as sent. */
  payload: string | Buffer;
}

export interface Tc3Parts {
  date: string;
  credentialScope: string;
  signedHeaders: string;
  hashedPayload: string;
  canonicalRequest: string;
  hashedCanonicalRequest: string;
  stringToSign: string;
  signature: string;
}

export const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/** `yyyy-mm-dd` of a unix timestamp in UTC. */
export function tc3Date(timestamp: number): string {
  return new Date(timestamp * 1000).toISOString().slice(0, 10);
}

export function tc3Signature(input: Tc3Input): Tc3Parts {
  const date = tc3Date(input.timestamp);
  const headers = input.headers.map(([k, v]) => [k.trim().toLowerCase(), v.trim().toLowerCase()] as const);
  const signedHeaders = headers.map(([k]) => k).join(';');
  const canonicalHeaders = headers.map(([k, v]) => `${k}:${v}\n`).join('');
  const hashedPayload = sha256Hex(input.payload);
  const canonicalRequest = [input.method.toUpperCase(), input.path, input.query, canonicalHeaders, signedHeaders, hashedPayload].join('\n');
  const hashedCanonicalRequest = sha256Hex(canonicalRequest);
  const credentialScope = `${date}/${input.service}/${TERMINATOR}`;
  const stringToSign = [TC3_ALGORITHM, String(input.timestamp), credentialScope, hashedCanonicalRequest].join('\n');
  const kDate = hmac(`TC3${input.secretKey}`, date);
  const kService = hmac(kDate, input.service);
  const kSigning = hmac(kService, TERMINATOR);
  const signature = createHmac('sha256', kSigning).update(stringToSign).digest('hex');
  return { date, credentialScope, signedHeaders, hashedPayload, canonicalRequest, hashedCanonicalRequest, stringToSign, signature };
}

export function tc3Authorization(secretId: string, parts: Pick<Tc3Parts, 'credentialScope' | 'signedHeaders' | 'signature'>): string {
  return `${TC3_ALGORITHM} Credential=${secretId}/${parts.credentialScope}, SignedHeaders=${parts.signedHeaders}, Signature=${parts.signature}`;
}

export interface ParsedTc3Authorization {
  secretId: string;
  date: string;
  service: string;
  terminator: string;
  signedHeaders: string[];
  signature: string;
}

/** Parses an `Authorization` header; undefined when it is not a well-formed TC3 authorization. */
export function parseTc3Authorization(value: string | undefined): ParsedTc3Authorization | undefined {
  if (!value) return undefined;
  const m =
    /^TC3-HMAC-SHA256\s+Credential=([^/\s,]+)\/([^/\s,]+)\/([^/\s,]+)\/([^/\s,]+)\s*,\s*SignedHeaders=([a-z0-9;-]+)\s*,\s*Signature=([0-9a-f]{64})\s*$/i.exec(
      value,
    );
  if (!m) return undefined;
  const [, secretId, date, service, terminator, signedHeaders, signature] = m as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return { secretId, date, service, terminator, signedHeaders: signedHeaders.split(';'), signature: signature.toLowerCase() };
}

export function sameSignature(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** What the verifier needs of an incoming request. */
export interface Tc3IncomingRequest {
  method: string;
  path: string;
  query: string;
  header(name: string): string;
  body: string | Buffer;
}

export type Tc3Verdict = { ok: true } | { ok: false; code: string; message: string };

/**
 * Verifies an incoming request the way platform T does, answering with T's common error codes
 * (cloud.tencent.com/document/api/266/31774 "公共错误码"):
 *   MissingParameter                  no X-TC-Timestamp
 *   InvalidParameter                  X-TC-Timestamp not a unix time
 *   AuthFailure.InvalidAuthorization  Authorization missing or not TC3 ("不符合腾讯云标准"), or not signing
 *                                     content-type and host (TC3's required minimum)
 *   AuthFailure.SignatureExpire       timestamp more than five minutes from the server clock
 *   AuthFailure.SecretIdNotFound      unknown SecretId
 *   AuthFailure.SignatureFailure      credential scope of another date/service, or a signature that does not match
 */
export function verifyTc3(
  req: Tc3IncomingRequest,
  creds: { secretId: string; secretKey: string },
  service: string,
  nowMs: number,
): Tc3Verdict {
  const fail = (code: string, message: string): Tc3Verdict => ({ ok: false, code, message });
  const rawTimestamp = req.header('x-tc-timestamp');
  if (!rawTimestamp) return fail('MissingParameter', 'The request is missing a required parameter `X-TC-Timestamp`.');
  if (!/^\d{1,12}$/.test(rawTimestamp)) return fail('InvalidParameter', 'The value of `X-TC-Timestamp` must be a unix time in seconds.');
  const timestamp = Number(rawTimestamp);
  const auth = parseTc3Authorization(req.header('authorization'));
  if (!auth) return fail('AuthFailure.InvalidAuthorization', 'The Authorization header does not conform to the TC3-HMAC-SHA256 standard.');
  if (!auth.signedHeaders.includes('content-type') || !auth.signedHeaders.includes('host')) {
    return fail('AuthFailure.InvalidAuthorization', 'SignedHeaders must include at least content-type and host.');
  }
  if (Math.abs(nowMs / 1000 - timestamp) > TC3_MAX_SKEW_S) {
    return fail('AuthFailure.SignatureExpire', 'Signature expired: X-TC-Timestamp differs from the server time by more than 5 minutes.');
  }
  if (auth.secretId !== creds.secretId)
    return fail('AuthFailure.SecretIdNotFound', 'The SecretId is not found, please ensure that your SecretId is correct.');
  const date = tc3Date(timestamp);
  if (auth.date !== date || auth.service !== service || auth.terminator !== TERMINATOR) {
    return fail(
      'AuthFailure.SignatureFailure',
      `The credential scope must be ${date}/${service}/${TERMINATOR} for this timestamp and service.`,
    );
  }
  const expected = tc3Signature({
    secretKey: creds.secretKey,
    service,
    timestamp,
    method: req.method,
    path: req.path,
    query: req.query,
    headers: auth.signedHeaders.map((h) => [h, req.header(h)] as const),
    payload: req.body,
  });
  if (!sameSignature(expected.signature, auth.signature)) {
    return fail('AuthFailure.SignatureFailure', 'The provided credentials could not be validated. Please check your signature is correct.');
  }
  return { ok: true };
}

/**
 * Signs a T API 3.0 call the way a client does (POST /, JSON, signing content-type and host): the headers to
 * send. Used by tests and scripts that talk to the simulator directly.
 */
export function signTRequest(opts: {
  secretId: string;
  secretKey: string;
  host: string;
  action: string;
  body: string;
  version?: string;
  service?: string;
  timestamp?: number;
  contentType?: string;
}): Record<string, string> {
  const contentType = opts.contentType ?? 'application/json; charset=utf-8';
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const parts = tc3Signature({
    secretKey: opts.secretKey,
    service: opts.service ?? 'vod',
    timestamp,
    method: 'POST',
    path: '/',
    query: '',
    headers: [
      ['content-type', contentType],
      ['host', opts.host],
    ],
    payload: opts.body,
  });
  return {
    'Content-Type': contentType,
    Host: opts.host,
    'X-TC-Action': opts.action,
    'X-TC-Version': opts.version ?? '2018-07-17',
    'X-TC-Timestamp': String(timestamp),
    Authorization: tc3Authorization(opts.secretId, parts),
  };
}
