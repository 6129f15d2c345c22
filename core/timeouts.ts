/**
 * The one bound shared by the workflow (activity attempt timeout) and the configuration (upstream HTTP
 * timeouts must fit inside it). No I/O: workflows import it.
 *
 * One attempt of submit or poll is one HTTP call. Temporal must not start a second attempt while the first may
 * still be waiting for the platform — for platform V, which has no dedup key, that overlap could be a second
 * paid job — so an attempt gets a little more than the HTTP client's own bound
 * (UPSTREAM_CONNECT_TIMEOUT_MS + UPSTREAM_RESPONSE_TIMEOUT_MS). It is also how long Temporal waits before it
 * retries an attempt that was running on a worker that died (SIGKILL, OOM).
 */
export const ACTIVITY_ATTEMPT_TIMEOUT_MS = 45_000;

/** Headroom between the HTTP client's bound and the attempt timeout (worker scheduling, serialisation). */
export const ATTEMPT_HEADROOM_MS = 2_000;

/**
 * The longest task deadline the worker accepts (TASK_DEADLINE_*_MS). Until the first submit has settled a task's
 * timing, it is the bound Temporal keeps on that submit (workflows/generation.ts); a day is far beyond any job the
 * platforms run.
 */
export const MAX_TASK_DEADLINE_MS = 24 * 60 * 60_000;

/** Why a task ran out of time, the same words whether its submit or its polls saw the deadline pass. */
export function deadlineMessage(deadlineMs: number, step: 'submit' | 'finish', lastError?: string): string {
  const why = lastError ? `; the platform could not be reached: ${lastError}` : '';
  const what = step === 'submit' ? 'could not be submitted' : 'did not finish';
  const budget = deadlineMs >= 120_000 ? `${Math.round(deadlineMs / 60_000)} min` : `${Math.round(deadlineMs / 1000)} s`;
  return `The job ${what} within the task deadline (${budget})${why}`;
}
