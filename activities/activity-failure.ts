/** What Temporal sees when an adapter fails: an ApplicationFailure typed by the adapter's classification. */
import { ApplicationFailure } from '@temporalio/activity';
import { UpstreamError } from '../platforms/upstream-error';

/**
 * The bounds of a platform's Retry-After. Temporal takes `nextRetryDelay` instead of the retry policy's backoff
 * (the policy's maximumInterval does not cap it), so the gateway bounds it itself: never sooner than a second (a
 * `Retry-After: 0` must not become a tight loop), never later than 5 minutes (a platform's quota reset hours
 * away must not park a task; the policy's backoff takes over on the next attempt). The task's deadline bounds
 * every retry anyway (the activity's scheduleToClose).
 */
export const RETRY_AFTER_MIN_MS = 1_000;
export const RETRY_AFTER_MAX_MS = 5 * 60_000;

/** The wait before the next attempt, from the platform's Retry-After; undefined: the retry policy's backoff. */
export function retryDelayFor(retryAfterMs: number | undefined): number | undefined {
  if (retryAfterMs === undefined || !Number.isFinite(retryAfterMs)) return undefined;
  return Math.min(RETRY_AFTER_MAX_MS, Math.max(RETRY_AFTER_MIN_MS, retryAfterMs));
}

/** Converts anything an adapter threw into the failure Temporal should see. */
export function toActivityFailure(err: unknown): Error {
  if (err instanceof UpstreamError) {
    const { retryable: isRetryable, reason, code, retryAfterMs } = err.opts;
    return ApplicationFailure.create({
      type: isRetryable ? 'upstream_unavailable' : reason,
      message: err.message,
      nonRetryable: !isRetryable,
      details: code ? [{ code }] : [],
      nextRetryDelay: retryDelayFor(retryAfterMs),
    });
  }
  // Anything unexpected (a bug, a malformed reply) is retried: the policy's budget bounds it.
  return err instanceof Error ? err : new Error(String(err));
}
