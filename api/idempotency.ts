/**
 * Idempotency-Key on POST, built on Temporal's workflow-ID policies rather than a side table: the task id is
 * derived from (API key, Idempotency-Key), so a repeated request names the same workflow, and
 * REJECT_DUPLICATE + the default conflict policy make Temporal refuse a second one. The request's fingerprint
 * is kept in the workflow memo to tell a faithful retry (same task back) from a reused key (409).
 *
 * The derivation is an HMAC keyed by the API key's digest: stable across API replicas and restarts, and
 * unguessable for anyone who does not hold that API key.
 */
import { createHash, createHmac } from 'node:crypto';
import type { ApiKey } from './api-keys';
import { invalidRequest } from './api-error';

/** Printable ASCII, like the IETF draft's examples; long enough for UUIDs and client-side composite keys. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The key, or undefined when the header is absent. Present but empty is an error, not "no key": a client that
 * sent the header meant its retries to be safe, and would get a second paid job without one.
 */
export function readIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(header)) {
    throw invalidRequest(
      'Idempotency-Key must be 1 to 255 printable ASCII characters without spaces',
      'Idempotency-Key',
      'invalid_idempotency_key',
    );
  }
  return header;
}

export function idempotentTaskId(key: ApiKey, idempotencyKey: string): string {
  const mac = createHmac('sha256', key.digest).update(`${key.id}\n${idempotencyKey}`).digest('base64url');
  return `task_${mac.slice(0, 22)}`;
}

/** JSON with object keys sorted, so the same request always has the same fingerprint. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Fingerprint of what was asked: the endpoint's kind and the request as the client sent it. */
export function requestFingerprint(kind: string, body: unknown): string {
  return createHash('sha256')
    .update(`${kind}\n${canonicalJson(body)}`)
    .digest('base64url');
}
