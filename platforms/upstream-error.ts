/**
 * Failure classification shared by the adapters. An adapter throws UpstreamError; the activities turn it into
 * the failure Temporal acts on (activities/activity-failure.ts): retryable ones are retried by the activity's
 * retry policy (honouring Retry-After), final ones fail the task at once with a FailureReason as the type.
 */
import type { FailureReason } from '../core/task';

export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    message: string,
    readonly opts: {
      /** Retryable: network error, timeout, 429, 5xx, the platform's rate-limit and internal codes. */
      retryable: boolean;
      /** Why the task fails if this error is final (or if retries run out). */
      reason: FailureReason;
      /** The platform's own error code, kept for operators and for the task's error. */
      code?: string;
      httpStatus?: number;
      /** From Retry-After, when the platform sent one. */
      retryAfterMs?: number;
      /**
       * No answer came back (connection refused or reset, timeout): a request that was sent may still have been
       * carried out upstream. The submit activity reconciles before sending again (activities/submit.ts).
       */
      noAnswer?: boolean;
      /**
       * Transient for the task, but an operator should know (V's `QuotaExceeded`: a usage quota that resets
       * later): the task is retried as usual and the adapter decorator logs a notice — never the "action needed"
       * alert of a refused account, and never a failure.
       */
      operatorNotice?: boolean;
      /**
       * The platform answered that this account is over its rate or concurrency limit and created nothing: with
       * several accounts the submit moves to another (activities/submit.ts). An answered HTTP 429 counts as one too.
       */
      throttled?: boolean;
      /**
       * The refusal is the account's concurrency limit (V's `InflightBatchsizeExceeded`: "the maximum concurrency for
       * the current recharge amount"): the gateway lowers the account's learned limit and queues the task behind its
       * running jobs (capacity/slots.ts) instead of retrying.
       */
      overCapacity?: boolean;
    },
  ) {
    super(message);
  }

  get retryable(): boolean {
    return this.opts.retryable;
  }
}

export const retryable = (
  message: string,
  code?: string,
  extra: {
    httpStatus?: number;
    retryAfterMs?: number;
    noAnswer?: boolean;
    operatorNotice?: boolean;
    throttled?: boolean;
    overCapacity?: boolean;
  } = {},
) => new UpstreamError(message, { retryable: true, reason: 'upstream_unavailable', code, ...extra });

export const final = (reason: FailureReason, message: string, code?: string, httpStatus?: number) =>
  new UpstreamError(message, { retryable: false, reason, code, httpStatus });

/**
 * The platform answered that it does not know a job it had accepted (expired past its retention, or lost):
 * nothing more will come of it. Final `upstream_lost` — the platform's loss, replayable by operators
 * (docs/guides/repair.md). The poll activity holds it back as retryable for a short while after the submit, in case a
 * platform's reads lag its writes (activities/index.ts).
 */
export const lostJob = (platform: string, upstreamTaskId: string, cause: UpstreamError) =>
  new UpstreamError(`Platform ${platform} no longer knows job ${upstreamTaskId}: ${cause.message}`, {
    retryable: false,
    reason: 'upstream_lost',
    code: cause.opts.code,
    httpStatus: cause.opts.httpStatus,
  });

/** Parses an HTTP Retry-After header (seconds or HTTP date) into milliseconds, capped at 5 minutes. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  const seconds = Number(v);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(v) - now;
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  return Math.min(ms, 5 * 60_000);
}
