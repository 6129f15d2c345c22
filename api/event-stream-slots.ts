/**
 * Bounds on open event streams (GET /v1/generations/:id/events). A stream lives up to SYNC_TIMEOUT_MS (10 minutes)
 * and holds a connection and a history long-poll on Temporal the whole time, so a key opening them at its request
 * rate would pile up thousands within a minute. Each key may hold KEY_MAX_STREAMS open on this API process (its
 * `max_streams` in API_KEYS_FILE or the admin API overrides it), and the process all keys together API_MAX_STREAMS;
 * past either the stream is refused before anything is read from Temporal: 429 for the key's own bound (its client
 * holds them: close one), 503 for the process's (the replica is full: another replica, or later). 0 means unbounded.
 *
 * Counts live in this process, like the request rate (api/key-limits.ts): with several replicas each enforces its
 * own bounds, which suits them, since a stream costs the replica that serves it.
 */
import { ApiError } from './api-error';
import type { ApiKey } from '../keys/api-keys';

export interface StreamBounds {
  /** Open streams per key on this process (KEY_MAX_STREAMS); a key's `maxStreams` overrides it; 0 = unbounded. */
  perKey: number;
  /** Open streams on this process, every key together (API_MAX_STREAMS); 0 = unbounded. */
  total: number;
}

/** A held slot: give it back once when the stream ends (later calls do nothing). */
export type StreamRelease = () => void;

/** How soon a refused client may try again: a stream of the same key may well have ended by then. */
const RETRY_AFTER_SECONDS = 5;

export class EventStreamSlots {
  private readonly byKey = new Map<string, number>();
  private open = 0;

  constructor(private readonly bounds: StreamBounds) {}

  /** The key's bound: its own setting, else the default. */
  maxFor(key: ApiKey): number {
    return key.maxStreams ?? this.bounds.perKey;
  }

  /** Streams open now on this process, in total and for `keyId`. */
  count(keyId?: string): number {
    return keyId === undefined ? this.open : (this.byKey.get(keyId) ?? 0);
  }

  /**
   * Takes a slot for a new stream of `key`, or throws: 429 `too_many_streams` past the key's bound, 503
   * `streams_at_capacity` past the process's. Check and take happen with no await between them, so concurrent
   * requests cannot overshoot.
   */
  acquire(key: ApiKey): StreamRelease {
    const max = this.maxFor(key);
    const held = this.count(key.id);
    if (max > 0 && held >= max) {
      throw new ApiError(
        429,
        'rate_limit_error',
        `This API key already has ${max} event streams open on this server; close one before opening another`,
        {
          code: 'too_many_streams',
          headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        },
      );
    }
    if (this.bounds.total > 0 && this.open >= this.bounds.total) {
      throw new ApiError(
        503,
        'service_unavailable_error',
        `This server has its maximum of ${this.bounds.total} event streams open; try again shortly`,
        {
          code: 'streams_at_capacity',
          headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        },
      );
    }
    this.byKey.set(key.id, held + 1);
    this.open++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      const left = (this.byKey.get(key.id) ?? 1) - 1;
      if (left > 0) this.byKey.set(key.id, left);
      else this.byKey.delete(key.id);
    };
  }
}
