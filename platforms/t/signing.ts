/**
 * TC3-HMAC-SHA256, platform T's request signature (docs/platforms/t.md#signing). Pure: the platform T
 * adapter signs with it (the simulator verifies with its own, sim/t/signing.ts), so it is unit-tested byte for byte
 * against the platform's published worked example and against the official SDK's own signer.
 *
 * Why not the official SDK (`tencentcloud-sdk-nodejs-vod`) for signing and transport: it derives the signing
 * service from the first DNS label of the endpoint (`endpoint.split(".")[0]` in
 * tencentcloud-sdk-nodejs-common/tencentcloud/common/abstract_client.js), so any endpoint that is not `vod.<domain>` (the simulator at 127.0.0.1:port, a test double,
 * a proxy) is signed for service "127" and rejected; and it signs the URL's hostname without the port while
 * sending a Host header with it. Signing here keeps the service fixed and the signed Host equal to the sent one.
 * So the SDK is used for its types only (wire-types.ts), at compile time: a devDependency.
 */
import { createHash, createHmac } from 'node:crypto';

export const TC3_ALGORITHM = 'TC3-HMAC-SHA256';

export interface Tc3Request {
  secretId: string;
  secretKey: string;
  /** The service in the credential scope: `vod` for platform T. */
  service: string;
  /** Unix seconds, as sent in X-TC-Timestamp; the scope's date is its UTC date. */
  timestamp: number;
  /**
   * The signed headers by name, with the values exactly as sent. Platform T signs `content-type` and `host`
   * (the minimum TC3 requires); the names are lower-cased and sorted here.
   */
  headers: Record<string, string>;
  /** The exact request body, byte for byte. */
  payload: string | Buffer;
  method?: string;
  /** Canonical URI; platform T always posts to `/`. */
  path?: string;
  query?: string;
}

export interface Tc3Signature {
  date: string;
  hashedPayload: string;
  canonicalRequest: string;
  hashedCanonicalRequest: string;
  stringToSign: string;
  signature: string;
  signedHeaders: string;
  /** The full `Authorization` header value. */
  authorization: string;
}

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** `yyyy-mm-dd` of a unix timestamp, in UTC (the credential scope's date). */
export function tc3Date(timestamp: number): string {
  return new Date(timestamp * 1000).toISOString().slice(0, 10);
}

export function tc3Sign(req: Tc3Request): Tc3Signature {
  const date = tc3Date(req.timestamp);
  // Canonical headers: names and values lower-cased and trimmed, sorted by name, each line ending in \n.
  const headers = Object.entries(req.headers)
    .map(([k, v]) => [k.toLowerCase(), v.trim().toLowerCase()] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const canonicalHeaders = headers.map(([k, v]) => `${k}:${v}\n`).join('');
  const signedHeaders = headers.map(([k]) => k).join(';');
  const hashedPayload = sha256Hex(req.payload);
  const canonicalRequest = [req.method ?? 'POST', req.path ?? '/', req.query ?? '', canonicalHeaders, signedHeaders, hashedPayload].join(
    '\n',
  );
  const hashedCanonicalRequest = sha256Hex(canonicalRequest);
  const scope = `${date}/${req.service}/tc3_request`;
  const stringToSign = `${TC3_ALGORITHM}\n${req.timestamp}\n${scope}\n${hashedCanonicalRequest}`;

  const kDate = hmac(`TC3${req.secretKey}`, date);
  const kService = hmac(kDate, req.service);
  const kSigning = hmac(kService, 'tc3_request');
  const signature = createHmac('sha256', kSigning).update(stringToSign).digest('hex');

  return {
    date,
    hashedPayload,
    canonicalRequest,
    hashedCanonicalRequest,
    stringToSign,
    signature,
    signedHeaders,
    authorization: `${TC3_ALGORITHM} Credential=${req.secretId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}
