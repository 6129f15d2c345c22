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
  ContinueAsNew,
  condition,
  isCancellation,
  log,
  makeContinueAsNewFunc,
  patched,
  proxyLocalActivities,
  proxyActivities,
  proxySinks,
  setHandler,
  sleep,
  TimeoutFailure,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { SA, type GenerationStatus } from '../core/search-attributes';
import { ACTIVITY_ATTEMPT_TIMEOUT_MS } from '../core/timeouts';
import type { FailureReason, GenerationInput, GenerationResult, PollTiming, ResultItem, StoreResultsInput, SubmitResult, TaskError, TaskState, UpstreamStatus } from '../core/task';
import { isFailureReason } from '../core/task';
import type { WebhookEvent } from '../core/webhooks';
import { submitDedupKey } from './dedup-key';
import { taskStateQuery, upstreamEventSignal } from './messages';
import type { PushMonitorSinks } from './sinks';

/** Tells the worker that a platform's callbacks arrive (not called during replay). */
const { pushMonitor } = proxySinks<PushMonitorSinks>();

/** Error types the activities raise that must never be retried: each ends the task at once. */
const FINAL_ERRORS: FailureReason[] = ['content_policy', 'invalid_request', 'upstream_auth', 'insufficient_balance', 'upstream_failed', 'upstream_lost'];

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
/**
 * The submit heartbeats while it waits on the platform (activities/index.ts), so a worker that dies mid-submit
 * is noticed within the heartbeat timeout rather than the 45 s attempt timeout; the next attempt reconciles
 * with the platform before sending anything again.
 */
const SUBMIT_HEARTBEAT_TIMEOUT = '5s';
const submitActivity = (remainingMs: number) =>
  proxyActivities<Activities>({
    startToCloseTimeout: ATTEMPT_TIMEOUT,
    scheduleToCloseTimeout: Math.max(1_000, remainingMs),
    heartbeatTimeout: SUBMIT_HEARTBEAT_TIMEOUT,
    retry: SUBMIT_RETRY,
  }).submitGeneration;

/**
 * Polls run as local activities: executed by the worker inside the workflow task that the poll timer wakes, so
 * a poll costs one workflow task and about 6 history events instead of an activity task, two workflow tasks and
 * about 11 events — half the Temporal load per in-flight task, which is what bounds how many jobs a cluster can
 * watch. A poll is a short, read-only, idempotent HTTP GET, the case local activities are for.
 *
 * Versioned with patched(): histories recorded before this change (regular poll activities) replay unchanged.
 */
export const LOCAL_POLL_PATCH = 'poll-as-local-activity';

/**
 * Temporal expects a local activity to finish within seconds: its retries run inside one workflow task, which
 * the worker keeps alive meanwhile. So a poll gets a bounded budget (a few quick attempts, at most a minute);
 * when that runs out during an outage, the workflow itself backs off on durable timers (POLL_BACKOFF) and
 * polls again, until the task's deadline. Versioned: runs before it retried one local poll up to the deadline.
 */
export const BOUNDED_LOCAL_POLL_PATCH = 'bounded-local-poll';
const LOCAL_POLL_BUDGET_MS = 60_000;
const LOCAL_POLL_RETRY: RetryPolicy = { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 3, nonRetryableErrorTypes: FINAL_ERRORS };
/** The workflow's own backoff between bounded polls that failed: 2 s, doubling, at most 30 s. */
const POLL_BACKOFF = { initialMs: 2_000, maxMs: 30_000 };

function pollActivity(remainingMs: number) {
  if (!patched(LOCAL_POLL_PATCH)) return untilDeadline(remainingMs, POLL_RETRY).pollGeneration;
  if (patched(BOUNDED_LOCAL_POLL_PATCH)) {
    return proxyLocalActivities<Activities>({
      startToCloseTimeout: ATTEMPT_TIMEOUT,
      scheduleToCloseTimeout: Math.max(1_000, Math.min(LOCAL_POLL_BUDGET_MS, remainingMs)),
      retry: LOCAL_POLL_RETRY,
    }).pollGeneration;
  }
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
  if (patched(TIMING_FROM_WORKER_PATCH)) return taskTiming({ kind: input.kind, platform: input.platform });
  if (!input.timing) throw ApplicationFailure.create({ type: 'invalid_request', message: 'The task was started without timing', nonRetryable: true });
  return input.timing;
}

/**
 * A platform's callback (upstreamEventSignal) ends the wait for the next poll early, so a finished job is
 * noticed within a second instead of at the next timer. The timer stays as the safety net: a callback is a
 * hint, and a lost one costs only the wait. While the worker sees the platform's callbacks arrive, the timer
 * stretches to the fallback interval. Versioned: runs before it waited on plain timers.
 */
export const WAKE_ON_CALLBACK_PATCH = 'wake-on-callback';

/**
 * While push is healthy the first poll waits the fallback interval too, not the spec's 3 s: the job's end will
 * wake the task, and a poll of a job that has just started learns only that it runs. For short jobs this takes
 * a task from three polls to one. Versioned: runs before it polled first after POLL_FIRST_DELAY_MS always.
 */
export const FIRST_POLL_ON_PUSH_PATCH = 'first-poll-on-push';

/**
 * A job that failed upstream for a transient reason (T: the account's concurrency limit, a model backlog) is
 * submitted again — a new job with its own dedup key — after a pause, at most MAX_RESUBMISSIONS times and only
 * while the deadline leaves room; the client never sees the transient failure. Versioned: runs before it
 * failed such tasks.
 */
export const RESUBMIT_PATCH = 'resubmit-transient-failures';
const MAX_RESUBMISSIONS = 3;
const RESUBMIT_PAUSE_MS = 10_000;

/**
 * Before a task becomes `success`, the gateway copies each output into its result store (results/), so the
 * client's links outlive the platform's. A copy that keeps failing returns the platform's link marked
 * `stored: false` rather than failing the task. Versioned: runs before it recorded the platform's links only.
 */
export const STORE_RESULTS_PATCH = 'store-results';
const { storeResults } = proxyActivities<Activities>({
  // Streams up to RESULTS_MAX_BYTES; heartbeats carry progress, so a worker that dies mid-copy is noticed fast.
  startToCloseTimeout: '10m',
  heartbeatTimeout: '10s',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 3 },
});

/** Continue-as-new well before Temporal's 10k-event warning; a long job keeps a short history per run. */
const MAX_EVENTS_PER_RUN = 2_500;

/** Where a continued run picks up. */
export interface GenerationResume {
  upstreamTaskId: string;
  /** The account that owns the job (absent in runs continued before accounts). */
  upstreamAccount?: string;
  deadlineAt: number;
  state: TaskState;
  /** The timing the first run settled on (absent in runs continued before patch `timing-from-worker`). */
  timing?: PollTiming;
  /** Jobs submitted again after a transient upstream failure so far. */
  resubmissions?: number;
}

/**
 * A task with a webhook announces its events to its delivery workflow (workflows/webhook-delivery.ts) through a
 * local activity: one marker event here per event, while the delivery's attempts and retries live in the delivery
 * workflow's own history. The final event is announced after the task's final memo and search attributes are
 * written, in the workflow task that closes it; the delivery waits for the task to be closed before its first
 * attempt, so a webhook never delays a task and sync callers have their answer first.
 */
const { announceWebhookEvent } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 10 },
});

async function announce(input: GenerationInput, event: WebhookEvent): Promise<void> {
  const webhook = input.webhook;
  if (!webhook || !webhook.events.includes(event)) return;
  try {
    await announceWebhookEvent({ taskId: workflowInfo().workflowId, ownerId: input.ownerId, target: webhook, event, occurredAt: new Date().toISOString() });
  } catch (err) {
    // Temporal unreachable from the worker for the whole budget: the task's own outcome must not change.
    log.error('Could not hand a webhook event to its delivery workflow', { event, error: err instanceof Error ? err.message : String(err) });
  }
}

/** The task, then its final webhook event (when it has a webhook): succeeded, or failed (a cancel included). */
export async function generationWorkflow(input: GenerationInput, resume?: GenerationResume): Promise<GenerationResult> {
  let result: GenerationResult;
  try {
    result = await runGeneration(input, resume);
  } catch (err) {
    if (input.webhook && !(err instanceof ContinueAsNew) && (err instanceof ApplicationFailure || isCancellation(err))) {
      await CancellationScope.nonCancellable(() => announce(input, 'failed'));
    }
    throw err;
  }
  await announce(input, 'succeeded');
  return result;
}

async function runGeneration(input: GenerationInput, resume?: GenerationResume): Promise<GenerationResult> {
  const state: TaskState = resume?.state ?? { status: 'pending' };
  if (!resume) logTransition('pending');
  setHandler(taskStateQuery, () => state);
  // A callback since the last poll: the next wait ends at once.
  let hinted = false;
  setHandler(upstreamEventSignal, (hint) => {
    hinted = true;
    pushMonitor.seen(hint.platform);
  });
  const timing = resume?.timing ?? input.timing ?? (await startTiming(input));
  const deadlineAt = resume?.deadlineAt ?? Date.now() + timing.deadlineMs;
  let upstreamTaskId = resume?.upstreamTaskId;
  // The platform account that created the job: every poll and cancel goes to it. Set from the submit's recorded
  // answer, so histories from before accounts (no `account`) replay without it and without its upsert.
  let upstreamAccount = resume?.upstreamAccount;
  const owner = () => (upstreamAccount === undefined ? {} : { account: upstreamAccount });
  const job = (): UpstreamJob | undefined => (upstreamTaskId === undefined ? undefined : { upstreamTaskId, ...owner() });
  let resubmissions = resume?.resubmissions ?? 0;
  let failedPolls = 0;
  // When this run submitted the current job (workflow time, so replays agree); unknown in a continued run, whose
  // job is long past the poll activity's "not visible yet" grace anyway. Only an activity input: no new command.
  let submittedAt: number | undefined;

  /** Waits `ms` (capped by the deadline) for the next poll; a callback ends the wait early where patched. */
  const waitForNextPoll = async (ms: number) => {
    const wait = Math.min(ms, Math.max(1, remaining(deadlineAt)));
    if (!patched(WAKE_ON_CALLBACK_PATCH)) return sleep(wait);
    if (!hinted) await condition(() => hinted, wait);
    hinted = false;
  };

  try {
    for (;;) {
      if (upstreamTaskId === undefined) {
        const submitted = await submitJob(input, timing, deadlineAt, resubmissions);
        upstreamTaskId = submitted.upstreamTaskId;
        upstreamAccount = submitted.account;
        submittedAt = Date.now();
        state.upstreamTaskId = upstreamTaskId;
        if (upstreamAccount === undefined) delete state.upstreamAccount;
        else state.upstreamAccount = upstreamAccount;
        upsertSearchAttributes([
          { key: SA.upstreamTaskId, value: upstreamTaskId },
          ...(upstreamAccount === undefined ? [] : [{ key: SA.upstreamAccount, value: upstreamAccount }]),
        ]);
        const fallbackMs = fallbackWhilePushHealthy(timing, submitted);
        await waitForNextPoll(fallbackMs !== undefined && patched(FIRST_POLL_ON_PUSH_PATCH) ? fallbackMs : timing.firstPollDelayMs);
      }

      if (remaining(deadlineAt) <= 0) return await deadlineExceeded(input, timing, job());
      const poll = pollActivity(remaining(deadlineAt));
      let status: UpstreamStatus;
      try {
        status = await poll({ platform: input.platform, kind: input.kind, upstreamTaskId, ...(submittedAt === undefined ? {} : { submittedAt }), ...owner() });
        failedPolls = 0;
      } catch (err) {
        if (isActivityTimeout(err) && remaining(deadlineAt) <= 0) return await deadlineExceeded(input, timing, job(), lastFailureMessage(err));
        if (isTransientPollFailure(err) && patched(BOUNDED_LOCAL_POLL_PATCH)) {
          // The poll's own budget ran out (an outage): back off on a durable timer, then poll again.
          failedPolls += 1;
          const backoff = Math.min(POLL_BACKOFF.maxMs, POLL_BACKOFF.initialMs * 2 ** (failedPolls - 1));
          if (remaining(deadlineAt) <= backoff) return await deadlineExceeded(input, timing, job(), lastFailureMessage(err));
          await sleep(backoff);
          continue;
        }
        if (isActivityTimeout(err)) return await deadlineExceeded(input, timing, job(), lastFailureMessage(err));
        return failFromActivity(err, 'poll');
      }
      if (status.state === 'success') return await succeed(input, state, status);
      if (status.state === 'failed') {
        const f = status.failure ?? { reason: 'upstream_failed' as const, message: 'The platform reported the job as failed' };
        if (f.resubmit && resubmissions < MAX_RESUBMISSIONS && remaining(deadlineAt) > RESUBMIT_PAUSE_MS + timing.firstPollDelayMs && patched(RESUBMIT_PATCH)) {
          resubmissions += 1;
          log.warn('The job failed upstream for a transient reason; submitting a new one', { upstreamTaskId, code: f.code, resubmissions });
          upstreamTaskId = undefined;
          setStatus(state, 'pending');
          await sleep(RESUBMIT_PAUSE_MS);
          continue;
        }
        return fail(f.reason, f.message, f.code);
      }
      const wasRunning = state.status === 'running';
      setStatus(state, status.state, status.progress);
      if (!wasRunning && state.status === 'running') await announce(input, 'running');

      const info = workflowInfo();
      if (info.historyLength >= (input.maxEventsPerRun ?? MAX_EVENTS_PER_RUN) || info.continueAsNewSuggested) {
        // Memo and search attributes are passed on explicitly: they are the task's record for reads.
        const next = makeContinueAsNewFunc<typeof generationWorkflow>({ memo: info.memo, typedSearchAttributes: info.typedSearchAttributes });
        return await next(input, { upstreamTaskId, ...(upstreamAccount === undefined ? {} : { upstreamAccount }), deadlineAt, state, ...(input.timing ? {} : { timing }), ...(resubmissions > 0 ? { resubmissions } : {}) });
      }
      const interval = fallbackWhilePushHealthy(timing, status) ?? timing.pollIntervalMs;
      await waitForNextPoll(interval);
    }
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        const current = job();
        if (current) await cancelUpstream(input, current);
        markFailed({ message: 'The task was cancelled at the client\'s request', code: 'cancelled' }, 'cancelled');
      });
    }
    throw err;
  }
}

/**
 * Submits the job and returns its upstream id (and whether push is healthy). Non-cancellable: once a paid submit
 * is on its way we must learn the upstream id, so that a cancel arriving meanwhile can still cancel the upstream job.
 */
async function submitJob(input: GenerationInput, timing: PollTiming, deadlineAt: number, resubmission: number): Promise<SubmitResult> {
  const { workflowId, runId } = workflowInfo();
  const submit = submitActivity(remaining(deadlineAt));
  const dedupKey = submitDedupKey(workflowId, runId, resubmission);
  const submitted = await CancellationScope.nonCancellable(() =>
    submit({ platform: input.platform, request: input.request, dedupKey, taskId: workflowId, deadlineAt }),
  ).catch((err) => {
    if (isActivityTimeout(err)) return deadlineExceeded(input, timing, undefined, lastFailureMessage(err));
    return failFromActivity(err, 'submit');
  });
  return submitted;
}

/** The longer fallback wait, when the activity's answer says the platform's callbacks are arriving. */
function fallbackWhilePushHealthy(timing: PollTiming, answer: { pushHealthy?: boolean }): number | undefined {
  return answer.pushHealthy === true ? timing.fallbackPollIntervalMs : undefined;
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
  if (state.status !== status) {
    upsertSearchAttributes([{ key: SA.status, value: status }]);
    logTransition(status);
  }
  state.status = status;
  state.progress = pct;
  upsertMemo({ status, progress: pct });
}

async function succeed(input: GenerationInput, state: TaskState, status: UpstreamStatus): Promise<GenerationResult> {
  const outputs = status.outputs ?? [];
  if (outputs.length === 0) return fail('upstream_failed', 'The platform reported success but returned no result URL');
  const lastFrameUrl = typeof status.extras?.last_frame_url === 'string' ? status.extras.last_frame_url : undefined;
  let data: ResultItem[] = outputs.map((o) => ({ url: o.url }));
  let lastFrame: ResultItem | undefined = lastFrameUrl === undefined ? undefined : { url: lastFrameUrl };
  if (patched(STORE_RESULTS_PATCH)) ({ data, lastFrame } = await keepResults(input, outputs, lastFrameUrl));
  state.status = 'success';
  state.progress = 100;
  const result: GenerationResult = { created: Math.floor(Date.now() / 1000), data };
  if (status.extras) result.extras = status.extras;
  if (lastFrame) result.lastFrame = lastFrame;
  // What the platform reported it billed, kept with the result: the task's final cost follows it (api/task-cost.ts).
  if (status.usage) result.usage = status.usage;
  upsertSearchAttributes([{ key: SA.status, value: 'success' }]);
  upsertMemo({ status: 'success', progress: 100, result });
  logTransition('success');
  return result;
}

/**
 * Copies the outputs into the result store. Nothing is lost if that fails: every output keeps the platform's
 * link, marked `stored: false` with the reason, and the task still succeeds.
 */
async function keepResults(input: GenerationInput, outputs: { url: string }[], lastFrameUrl: string | undefined): Promise<{ data: ResultItem[]; lastFrame?: ResultItem }> {
  const wanted: StoreResultsInput['outputs'] = outputs.map((o) => ({ url: o.url, role: 'result' as const }));
  if (lastFrameUrl !== undefined) wanted.push({ url: lastFrameUrl, role: 'last_frame' });
  let items: ResultItem[];
  try {
    items = await storeResults({ taskId: workflowInfo().workflowId, platform: input.platform, kind: input.kind, outputs: wanted });
  } catch (err) {
    const why = err instanceof ActivityFailure && err.cause instanceof Error ? err.cause.message : String(err);
    log.warn('Results could not be copied to the result store; the platform links are kept', { error: why });
    items = wanted.map((w) => ({ url: w.url, stored: false, storeError: why }));
  }
  return { data: items.slice(0, outputs.length), ...(lastFrameUrl !== undefined ? { lastFrame: items[outputs.length] } : {}) };
}

/**
 * Records the end of a task that did not succeed: `failed` in the memo (the API's status) and, in Temporal's
 * views, `failed` or, for the client's cancel, `cancelled` (core/search-attributes.ts, GENERATION_STATUSES).
 */
function markFailed(error: TaskError, searchStatus: Extract<GenerationStatus, 'failed' | 'cancelled'> = 'failed'): void {
  upsertSearchAttributes([
    { key: SA.status, value: searchStatus },
    { key: SA.failureReason, value: error.code },
  ]);
  upsertMemo({ status: 'failed', error });
  logTransition(searchStatus, searchStatus === 'cancelled' ? undefined : error.code);
}

/**
 * One line a person can read per status change, at info: task, platform, model, status, upstream job and time since
 * the task was created. Through the workflow's `log`, which is silent on replay, so each change is told once.
 */
function logTransition(status: string, reason?: string): void {
  const info = workflowInfo();
  const fields = {
    taskId: info.workflowId,
    platform: info.typedSearchAttributes.get(SA.platform) ?? '-',
    model: info.typedSearchAttributes.get(SA.model) ?? '-',
    status,
    ...(reason ? { reason } : {}),
    upstreamTaskId: info.typedSearchAttributes.get(SA.upstreamTaskId) ?? '-',
    elapsedMs: Date.now() - info.startTime.getTime(),
  };
  const why = reason ? ` (${reason})` : '';
  log.info(`Task ${fields.taskId} ${status}${why}: platform ${fields.platform}, model ${fields.model}, upstream ${fields.upstreamTaskId}, after ${(fields.elapsedMs / 1000).toFixed(1)} s`, fields);
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
 * A poll whose own bounded budget ran out on transient errors, as opposed to a final classification. A local
 * activity's failure reaches the workflow as the activity's own ApplicationFailure (or a TimeoutFailure when
 * its schedule-to-close bound passed), not wrapped in an ActivityFailure.
 */
function isTransientPollFailure(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const last = cause instanceof TimeoutFailure ? (cause.cause ?? cause) : cause;
  if (last instanceof TimeoutFailure) return true;
  return last instanceof ApplicationFailure && !last.nonRetryable && !(isFailureReason(last.type) && last.type !== 'upstream_unavailable');
}

/**
 * The task's deadline ran out inside an activity: either its last attempt timed out at the schedule-to-close
 * bound, or the server declined another retry because it would end past that bound (retry state TIMEOUT, the
 * last attempt's error as the cause).
 */
function isActivityTimeout(err: unknown): boolean {
  return err instanceof ActivityFailure && (err.retryState === 'TIMEOUT' || err.cause instanceof TimeoutFailure);
}

/** The task's upstream job and the account that owns it. */
interface UpstreamJob {
  upstreamTaskId: string;
  account?: string;
}

async function cancelUpstream(input: GenerationInput, job: UpstreamJob): Promise<void> {
  try {
    await cancelGeneration({ platform: input.platform, kind: input.kind, ...job });
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

async function deadlineExceeded(input: GenerationInput, timing: PollTiming, job: UpstreamJob | undefined, lastError?: string): Promise<never> {
  if (job !== undefined) await cancelUpstream(input, job);
  const why = lastError ? `; the platform could not be reached: ${lastError}` : '';
  const step = job === undefined ? 'could not be submitted' : 'did not finish';
  return fail('deadline_exceeded', `The job ${step} within the task deadline (${formatDuration(timing.deadlineMs)})${why}`);
}

function formatDuration(ms: number): string {
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}
