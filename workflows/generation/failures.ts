/**
 * How the generation workflow's task fails: an activity's error read as the task's failure reason, the deadline
 * passing, and the best-effort cancel of the upstream job that goes with it.
 */
import { ActivityFailure, ApplicationFailure, isCancellation, TimeoutFailure } from '@temporalio/workflow';
import { deadlineMessage } from '../../core/timeouts';
import { isFailureReason, type GenerationInput } from '../../core/task';
import type { JobCharge } from '../job-charge';
import type { Serving } from '../serving';
import { cancelGeneration } from './policies';
import { fail } from './records';
import type { Running, UpstreamJob } from './run';
import type { PollWake } from './wake';

/** An activity that ran out of retries or hit a final error: the task fails with the adapter's reason. */
export function failFromActivity(err: unknown, step: 'submit' | 'poll'): never {
  if (isCancellation(err)) throw err;
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && isFailureReason(cause.type)) {
    const code = (cause.details?.[0] as { code?: string } | undefined)?.code;
    return fail(cause.type, cause.message, code);
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return fail('upstream_unavailable', `Could not ${step} the job upstream: ${message}`);
}

/**
 * A poll whose own bounded budget ran out on transient errors, as opposed to a final classification. A local
 * activity's failure reaches the workflow as the activity's own ApplicationFailure (or a TimeoutFailure when
 * its schedule-to-close bound passed), not wrapped in an ActivityFailure.
 */
export function isTransientPollFailure(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const last = cause instanceof TimeoutFailure ? (cause.cause ?? cause) : cause;
  if (last instanceof TimeoutFailure) return true;
  return last instanceof ApplicationFailure && !last.nonRetryable && !(isFailureReason(last.type) && last.type !== 'upstream_unavailable');
}

/** The poll's answer that the platform no longer knows the job (after its grace): nothing of it is billed. */
export function isUpstreamLost(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type === 'upstream_lost';
}

/**
 * The task's deadline ran out inside an activity: either its last attempt timed out at the schedule-to-close
 * bound, or the server declined another retry because it would end past that bound (retry state TIMEOUT, the
 * last attempt's error as the cause).
 */
export function isActivityTimeout(err: unknown): boolean {
  return err instanceof ActivityFailure && (err.retryState === 'TIMEOUT' || err.cause instanceof TimeoutFailure);
}

/** The last error of an activity that kept failing until the deadline, if any: it says why the task ran out. */
export function lastFailureMessage(err: unknown): string | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  const last = cause instanceof TimeoutFailure ? cause.cause : cause;
  return last instanceof Error ? last.message : undefined;
}

/** The upstream job cancelled where the platform allows (best effort), its answer told to the task's charge. */
export async function cancelUpstream(input: GenerationInput, serving: Serving, job: UpstreamJob, charge: JobCharge): Promise<void> {
  try {
    charge.cancelAnswered(
      await cancelGeneration({ platform: serving.platform, kind: input.kind, upstreamTaskId: job.upstreamTaskId, account: job.account }),
    );
  } catch {
    // Best effort: the platform may not allow cancelling a running job. The task ends either way.
  }
}

/** The deadline passed: the job (if there is one) is cancelled upstream where the platform allows, and the task fails. */
export async function deadlineExceeded(
  input: GenerationInput,
  run: Running,
  wake: PollWake | undefined,
  charge: JobCharge,
  serving: Serving,
  lastError?: string,
): Promise<never> {
  wake?.dropTimer();
  if (run.job !== undefined) await cancelUpstream(input, serving, run.job, charge);
  return fail('deadline_exceeded', deadlineMessage(run.timing.deadlineMs, run.job === undefined ? 'submit' : 'finish', lastError));
}
