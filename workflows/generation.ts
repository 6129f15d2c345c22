/**
 * The generation workflow: one for every model and platform. Submit the job upstream once, then poll it on
 * durable timers until it succeeds, fails, is cancelled, or passes its deadline. Platform-agnostic: it sees
 * only the normalised request and normalised upstream statuses (core/task.ts).
 *
 * A task *is* this workflow: task_id is the workflow ID, its result is the generation result, and its failure
 * (an ApplicationFailure whose type is a FailureReason) is the task's error.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  makeContinueAsNewFunc,
  patched,
  proxyLocalActivities,
  proxyActivities,
  setHandler,
  sleep,
  TimeoutFailure,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { SA } from '../core/search-attributes';
import { ACTIVITY_ATTEMPT_TIMEOUT_MS } from '../core/timeouts';
import type { FailureReason, GenerationInput, GenerationResult, PollTiming, TaskError, TaskState, UpstreamStatus } from '../core/task';
import { isFailureReason } from '../core/task';
import { submitDedupKey } from './dedup-key';
import { taskStateQuery } from './messages';

/** Error types the activities raise that must never be retried: each ends the task at once. */
const FINAL_ERRORS: FailureReason[] = ['content_policy', 'invalid_request', 'upstream_auth', 'insufficient_balance', 'upstream_failed'];

/** One attempt of submit or poll: a little more than the HTTP client's own bound (core/timeouts.ts says why). */
const ATTEMPT_TIMEOUT = ACTIVITY_ATTEMPT_TIMEOUT_MS;

/**
 * Submitting costs money, so it retries only what the activities classify as transient (network errors,
 * timeouts, 429 with its Retry-After, 5xx); every other error is final and fails the task at once with the
 * platform's reason. A retried submit is harmless on T and B (the dedup key, workflows/dedup-key.ts, makes the
 * platform return the first job); on V the window is an attempt that reached the platform and then lost its
 * answer, which the adapter documents. The budget is the task's own deadline: an outage shorter than the
 * deadline never fails a task, a longer one fails it with `deadline_exceeded` and the last upstream error.
 * Backoff is capped at a minute so a recovered platform is noticed quickly.
 */
const SUBMIT_RETRY: RetryPolicy = {
  initialInterval: '2s',
  backoffCoefficient: 2,
  maximumInterval: '60s',
  nonRetryableErrorTypes: FINAL_ERRORS,
};

/**
 * Polling is read-only and free, so it retries every transient failure with backoff (honouring Retry-After)
 * until the task's deadline. Retries are not recorded in history, so an outage does not grow it.
 */
const POLL_RETRY: RetryPolicy = {
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumInterval: '30s',
  nonRetryableErrorTypes: FINAL_ERRORS,
};

/** Cancelling upstream is best effort: a few quick tries, then the task ends anyway. */
const CANCEL_RETRY: RetryPolicy = { initialInterval: '1s', backoffCoefficient: 2, maximumAttempts: 3, nonRetryableErrorTypes: FINAL_ERRORS };

/** Submit and poll are bounded by what is left of the task's deadline, so their proxies are made per call. */
function untilDeadline(remainingMs: number, retry: RetryPolicy) {
  return proxyActivities<Activities>({ startToCloseTimeout: ATTEMPT_TIMEOUT, scheduleToCloseTimeout: Math.max(1_000, remainingMs), retry });
}
const submitActivity = (remainingMs: number) => untilDeadline(remainingMs, SUBMIT_RETRY).submitGeneration;

/**
 * Polls run as local activities: executed by the worker inside the workflow task that the poll timer wakes, so
 * a poll costs one workflow task and about 6 history events instead of an activity task, two workflow tasks and
 * about 11 events — half the Temporal load per in-flight task, which is what bounds how many jobs a cluster can
 * watch. A poll is a short, read-only, idempotent HTTP GET, the case local activities are for. Retries back off
 * in the worker; a backoff longer than a minute becomes a durable timer (localRetryThreshold), so a long outage
 * still survives worker restarts.
 *
 * Versioned with patched(): histories recorded before this change (regular poll activities) replay unchanged.
 */
export const LOCAL_POLL_PATCH = 'poll-as-local-activity';

function pollActivity(remainingMs: number) {
  if (!patched(LOCAL_POLL_PATCH)) return untilDeadline(remainingMs, POLL_RETRY).pollGeneration;
  return proxyLocalActivities<Activities>({
    startToCloseTimeout: ATTEMPT_TIMEOUT,
    scheduleToCloseTimeout: Math.max(1_000, remainingMs),
    retry: POLL_RETRY,
  }).pollGeneration;
}
const { cancelGeneration } = proxyActivities<Activities>({ startToCloseTimeout: '30s', retry: CANCEL_RETRY });

/**
 * Poll intervals and the deadline are the worker's settings (POLL_*, TASK_DEADLINE_*), read once when the task
 * starts through a local activity, so its answer is recorded and a later settings change never alters a running
 * task. Versioned with patched(): runs started before this carry the API's timing in their input.
 */
export const TIMING_FROM_WORKER_PATCH = 'timing-from-worker';
const { taskTiming } = proxyLocalActivities<Activities>({ startToCloseTimeout: '10s', retry: { maximumAttempts: 5 } });

async function startTiming(input: GenerationInput): Promise<PollTiming> {
  if (patched(TIMING_FROM_WORKER_PATCH)) return taskTiming({ kind: input.kind });
  if (!input.timing) throw ApplicationFailure.create({ type: 'invalid_request', message: 'The task was started without timing', nonRetryable: true });
  return input.timing;
}

/** Continue-as-new well before Temporal's 10k-event warning; a long job keeps a short history per run. */
const MAX_EVENTS_PER_RUN = 2_500;

/** Where a continued run picks up. */
export interface GenerationResume {
  upstreamTaskId: string;
  deadlineAt: number;
  state: TaskState;
  /** The timing the first run settled on (absent in runs continued before patch `timing-from-worker`). */
  timing?: PollTiming;
}

export async function generationWorkflow(input: GenerationInput, resume?: GenerationResume): Promise<GenerationResult> {
  const state: TaskState = resume?.state ?? { status: 'pending' };
  setHandler(taskStateQuery, () => state);
  const timing = resume?.timing ?? input.timing ?? (await startTiming(input));
  const deadlineAt = resume?.deadlineAt ?? Date.now() + timing.deadlineMs;
  let upstreamTaskId = resume?.upstreamTaskId;

  try {
    if (upstreamTaskId === undefined) {
      // Non-cancellable: once a paid submit is on its way we must learn the upstream id, so that a cancel
      // arriving meanwhile can still cancel the upstream job.
      const { workflowId, runId } = workflowInfo();
      const submit = submitActivity(remaining(deadlineAt));
      const submitted = await CancellationScope.nonCancellable(() =>
        submit({ platform: input.platform, request: input.request, dedupKey: submitDedupKey(workflowId, runId), taskId: workflowId, deadlineAt }),
      ).catch((err) => {
        if (isActivityTimeout(err)) return deadlineExceeded(input, timing, undefined, lastFailureMessage(err));
        return failFromActivity(err, 'submit');
      });
      upstreamTaskId = submitted.upstreamTaskId;
      state.upstreamTaskId = upstreamTaskId;
      upsertSearchAttributes([{ key: SA.upstreamTaskId, value: upstreamTaskId }]);
      await sleep(Math.min(timing.firstPollDelayMs, remaining(deadlineAt)));
    }

    for (;;) {
      if (remaining(deadlineAt) <= 0) return await deadlineExceeded(input, timing, upstreamTaskId);
      const poll = pollActivity(remaining(deadlineAt));
      let status: UpstreamStatus;
      try {
        status = await poll({ platform: input.platform, kind: input.kind, upstreamTaskId });
      } catch (err) {
        if (isActivityTimeout(err)) return await deadlineExceeded(input, timing, upstreamTaskId, lastFailureMessage(err));
        return failFromActivity(err, 'poll');
      }

      if (status.state === 'success') return succeed(state, status);
      if (status.state === 'failed') {
        const f = status.failure ?? { reason: 'upstream_failed' as const, message: 'The platform reported the job as failed' };
        return fail(f.reason, f.message, f.code);
      }
      setStatus(state, status.state, status.progress);

      if (workflowInfo().historyLength >= MAX_EVENTS_PER_RUN || workflowInfo().continueAsNewSuggested) {
        // Memo and search attributes are passed on explicitly: they are the task's record for reads.
        const next = makeContinueAsNewFunc<typeof generationWorkflow>({
          memo: workflowInfo().memo,
          typedSearchAttributes: workflowInfo().typedSearchAttributes,
        });
        return await next(input, { upstreamTaskId, deadlineAt, state, ...(input.timing ? {} : { timing }) });
      }
      await sleep(Math.min(timing.pollIntervalMs, Math.max(1, remaining(deadlineAt))));
    }
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        if (upstreamTaskId !== undefined) await cancelUpstream(input, upstreamTaskId);
        markFailed({ message: 'The task was cancelled at the client\'s request', code: 'cancelled' });
      });
    }
    throw err;
  }
}

function remaining(deadlineAt: number): number {
  return deadlineAt - Date.now();
}

/**
 * Status and progress are recorded in the memo (and status in a search attribute) when they change, so the
 * API reads a task with one DescribeWorkflowExecution call and needs no worker to answer: reads keep working
 * while every worker is down. Progress moves in coarse steps, so this adds a few events per task, not one
 * per poll.
 */
function setStatus(state: TaskState, status: 'pending' | 'running', progress?: number): void {
  const pct = progress === undefined ? state.progress : Math.max(0, Math.min(100, Math.round(progress)));
  if (state.status === status && state.progress === pct) return;
  if (state.status !== status) upsertSearchAttributes([{ key: SA.status, value: status }]);
  state.status = status;
  state.progress = pct;
  upsertMemo({ status, progress: pct });
}

function succeed(state: TaskState, status: UpstreamStatus): GenerationResult {
  const outputs = status.outputs ?? [];
  if (outputs.length === 0) return fail('upstream_failed', 'The platform reported success but returned no result URL');
  state.status = 'success';
  state.progress = 100;
  const result: GenerationResult = { created: Math.floor(Date.now() / 1000), data: outputs.map((o) => ({ url: o.url })) };
  if (status.extras) result.extras = status.extras;
  upsertSearchAttributes([{ key: SA.status, value: 'success' }]);
  upsertMemo({ status: 'success', progress: 100, result });
  return result;
}

function markFailed(error: TaskError): void {
  upsertSearchAttributes([
    { key: SA.status, value: 'failed' },
    { key: SA.failureReason, value: error.code },
  ]);
  upsertMemo({ status: 'failed', error });
}

function fail(reason: FailureReason, message: string, upstreamCode?: string): never {
  markFailed({ message, code: reason, ...(upstreamCode ? { upstream_code: upstreamCode } : {}) });
  throw ApplicationFailure.create({ type: reason, message, nonRetryable: true, details: upstreamCode ? [{ code: upstreamCode }] : [] });
}

/** An activity that ran out of retries or hit a final error: the task fails with the adapter's reason. */
function failFromActivity(err: unknown, step: 'submit' | 'poll'): never {
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
 * The task's deadline ran out inside an activity: either its last attempt timed out at the schedule-to-close
 * bound, or the server declined another retry because it would end past that bound (retry state TIMEOUT, the
 * last attempt's error as the cause).
 */
function isActivityTimeout(err: unknown): boolean {
  return err instanceof ActivityFailure && (err.retryState === 'TIMEOUT' || err.cause instanceof TimeoutFailure);
}

async function cancelUpstream(input: GenerationInput, upstreamTaskId: string): Promise<void> {
  try {
    await cancelGeneration({ platform: input.platform, kind: input.kind, upstreamTaskId });
  } catch {
    // Best effort: the platform may not allow cancelling a running job. The task ends either way.
  }
}

/** The last error of an activity that kept failing until the deadline, if any: it says why the task ran out. */
function lastFailureMessage(err: unknown): string | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  const last = cause instanceof TimeoutFailure ? cause.cause : cause;
  return last instanceof Error ? last.message : undefined;
}

async function deadlineExceeded(input: GenerationInput, timing: PollTiming, upstreamTaskId: string | undefined, lastError?: string): Promise<never> {
  if (upstreamTaskId !== undefined) await cancelUpstream(input, upstreamTaskId);
  const why = lastError ? `; the platform could not be reached: ${lastError}` : '';
  const step = upstreamTaskId === undefined ? 'could not be submitted' : 'did not finish';
  return fail('deadline_exceeded', `The job ${step} within the task deadline (${formatDuration(timing.deadlineMs)})${why}`);
}

function formatDuration(ms: number): string {
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}
