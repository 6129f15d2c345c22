/** What Temporal sees when an adapter fails: an ApplicationFailure typed by the adapter's classification. */
import { ApplicationFailure } from '@temporalio/activity';
import { UpstreamError } from '../platforms/upstream-error';

/** Converts anything an adapter threw into the failure Temporal should see. */
export function toActivityFailure(err: unknown): Error {
  if (err instanceof UpstreamError) {
    const { retryable: isRetryable, reason, code, retryAfterMs } = err.opts;
    return ApplicationFailure.create({
      type: isRetryable ? 'upstream_unavailable' : reason,
      message: err.message,
      nonRetryable: !isRetryable,
      details: code ? [{ code }] : [],
      nextRetryDelay: retryAfterMs,
    });
  }
  // Anything unexpected (a bug, a malformed reply) is retried: the policy's budget bounds it.
  return err instanceof Error ? err : new Error(String(err));
}
