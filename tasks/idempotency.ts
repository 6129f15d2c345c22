/**
 * A task's id, and Idempotency-Key. A task id is 128 random bits, or — for a request with an Idempotency-Key —
 * an HMAC of (API key, Idempotency-Key): a repeated request names the same task, on every API replica and after
 * restarts, and nobody without that API key can guess it. The request's fingerprint is what tells a faithful retry
 * (the same task back) from a key reused for another request (refused): the ledger entry that reserved the task
 * keeps it (tasks/task-ledger.ts), and so does the task's memo (for deployments without a ledger).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { ApiKey } from '../keys/api-keys';
import { invalidTask } from './refusal';

/** Printable ASCII, like the IETF draft's examples; long enough for UUIDs and client-side composite keys. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Opaque, URL-safe and unguessable: 128 random bits. */
export function newTaskId(): string {
  return `task_${randomBytes(16).toString('base64url')}`;
}

/**
 * The key, or undefined when the header is absent. Present but empty is an error, not "no key": a client that
 * sent the header meant its retries to be safe, and would get a second paid job without one.
 */
export function readIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(header)) {
    throw invalidTask(
      'Idempotency-Key must be 1 to 255 printable ASCII characters without spaces',
      'Idempotency-Key',
      'invalid_idempotency_key',
    );
  }
  return header;
}

export function idempotentTaskId(key: Pick<ApiKey, 'id' | 'digest'>, idempotencyKey: string): string {
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

/** Fingerprint of what was asked: the door's name for what it creates and the request as the client sent it. */
export function requestFingerprint(kind: string, body: unknown): string {
  return createHash('sha256')
    .update(`${kind}\n${canonicalJson(body)}`)
    .digest('base64url');
}
