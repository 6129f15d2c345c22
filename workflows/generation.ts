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
import type { Priority } from '@temporalio/common';
import type { Activities } from '../activities';
import { SA, type GenerationStatus } from '../core/search-attributes';
import { ACTIVITY_ATTEMPT_TIMEOUT_MS, deadlineMessage, MAX_TASK_DEADLINE_MS } from '../core/timeouts';
import type {
  FailureReason,
  GenerationInput,
  GenerationResult,
  PolledStatus,
  PollTiming,
  ReportedUsage,
  SubmitAnswer,
  ServedBy,
  SettleInput,
  TaskEndOutcome,
  TaskError,
  TaskState,
} from '../core/task';
import { endsInSuccess, isFailureReason } from '../core/task';
import type { WebhookEvent } from '../core/webhooks';
import { SlotWait } from './capacity';
import { submitDedupKey } from './dedup-key';
import { JobCharge } from './job-charge';
import { taskStateQuery, upstreamEventSignal } from './messages';
import { Serving } from './serving';
import type { PushMonitorSinks } from './sinks';

/** Tells the worker that a platform's callbacks arrive (not called during replay). */
const { pushMonitor } = proxySinks<PushMonitorSinks>();

/** Error types the activities raise that must never be retried: each ends the task at once. */
const FINAL_ERRORS: FailureReason[] = [
  'content_policy',
  'invalid_request',
  'upstream_auth',
  'insufficient_balance',
  'upstream_failed',
  'upstream_lost',
  'deadline_exceeded',
];

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
 * The submit heartbeats while it waits on the platform (activities/submit.ts), so a worker that dies mid-submit
 * is noticed within the heartbeat timeout rather than the 45 s attempt timeout; the next attempt reconciles
 * with the platform before sending anything again.
 *
 * The first submit also settles the task's timing: the worker's POLL_* and TASK_DEADLINE_* settings come back
 * with the job (SubmitResult.timing, recorded in the history with it), so a settings change never alters a
 * running task and no step of its own is spent on them. Until the deadline is known, the submit's own attempts
 * enforce it (each refuses to start past it, as `deadline_exceeded`) and Temporal's bound is the longest deadline
 * the worker accepts; a re-submission is bounded by what is left of the known deadline.
 */
const SUBMIT_HEARTBEAT_TIMEOUT = '5s';
const submitActivity = (boundMs: number, priority?: Priority) =>
  proxyActivities<Activities>({
    startToCloseTimeout: ATTEMPT_TIMEOUT,
    scheduleToCloseTimeout: Math.max(1_000, boundMs),
    heartbeatTimeout: SUBMIT_HEARTBEAT_TIMEOUT,
    retry: SUBMIT_RETRY,
    ...(priority ? { priority } : {}),
  }).submitGeneration;

/**
 * A poll is a local activity: executed by the worker inside the workflow task that the poll timer (or a
 * callback) wakes, so it costs one marker event, not an activity task's three events and a second workflow task.
 * A poll that finds the job done also copies its outputs into the result store in the same local activity
 * (activities/index.ts, pollGeneration), so a task ends in the workflow task that learnt of its end.
 *
 * Temporal expects a local activity to be short: its retries run inside one workflow task. So a poll gets a few
 * quick attempts within a bound that leaves room for a copy (up to RESULTS_MAX_BYTES, heartbeating the workflow
 * task meanwhile); when that runs out during an outage, the workflow itself backs off on durable timers
 * (POLL_BACKOFF) and polls again, until the task's deadline.
 */
const POLL_AND_KEEP_ATTEMPT_MS = 10 * 60_000;
const POLL_AND_KEEP_BUDGET_MS = 11 * 60_000;
const LOCAL_POLL_RETRY: RetryPolicy = {
  initialInterval: '500ms',
  backoffCoefficient: 2,
  maximumInterval: '5s',
  maximumAttempts: 3,
  nonRetryableErrorTypes: FINAL_ERRORS,
};
/** The workflow's own backoff between bounded polls that failed: 2 s, doubling, at most 30 s. */
const POLL_BACKOFF = { initialMs: 2_000, maxMs: 30_000 };

function pollActivity(remainingMs: number) {
  return proxyLocalActivities<Activities>({
    startToCloseTimeout: POLL_AND_KEEP_ATTEMPT_MS,
    scheduleToCloseTimeout: Math.max(1_000, Math.min(POLL_AND_KEEP_BUDGET_MS, remainingMs)),
    retry: LOCAL_POLL_RETRY,
  }).pollGeneration;
}

/** Cancelling upstream is best effort: a few quick tries, then the task ends anyway. */
const CANCEL_RETRY: RetryPolicy = {
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumAttempts: 3,
  nonRetryableErrorTypes: FINAL_ERRORS,
};
const { cancelGeneration } = proxyActivities<Activities>({ startToCloseTimeout: '30s', retry: CANCEL_RETRY });

/**
 * A job that failed upstream for a transient reason (T: the account's concurrency limit, a model backlog) is
 * submitted again — a new job with its own dedup key — after a pause, at most MAX_RESUBMISSIONS times and only
 * while the deadline leaves room; the client never sees the transient failure.
 */
const MAX_RESUBMISSIONS = 3;
const RESUBMIT_PAUSE_MS = 10_000;

/** Continue-as-new well before Temporal's 10k-event warning; a long job keeps a short history per run. */
const MAX_EVENTS_PER_RUN = 2_500;

/** Where a continued run picks up. */
export interface GenerationResume {
  upstreamTaskId: string;
  /** The account that owns the job. */
  upstreamAccount: string;
  deadlineAt: number;
  state: TaskState;
  /** The timing the first submit settled on. */
  timing: PollTiming;
  /** Jobs submitted again after a transient upstream failure so far. */
  resubmissions?: number;
  /** A routed task's member that made the job (its polls and bill follow it). */
  servedBy?: ServedBy;
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
    await announceWebhookEvent({
      taskId: workflowInfo().workflowId,
      ownerId: input.ownerId,
      target: webhook,
      event,
      occurredAt: new Date().toISOString(),
    });
  } catch (err) {
    // Temporal unreachable from the worker for the whole budget: the task's own outcome must not change.
    log.error('Could not hand a webhook event to its delivery workflow', {
      event,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

/**
 * Settlement: when a task ends, its ledger entry is settled to its final cost (tasks/settlement.ts), before its
 * final webhook event. A task that succeeds is settled by the poll that found its job done, in the same local
 * activity that kept its outputs (activities/index.ts pollGeneration): no event of its own. Otherwise — a task that
 * failed or was cancelled, or a success whose poll could not reach the ledger — settlement is a step of its own at
 * the task's end (patch `settlement-step`): a local activity, one marker event in the workflow task that ended the
 * task, and, if the ledger cannot be written within its bound (a database outage), an activity Temporal retries for
 * up to a day; the task's record is final meanwhile (its memo says how it ended). Runs recorded before the step
 * (1.0) replay without it.
 */
export const SETTLEMENT_STEP = 'settlement-step';

/**
 * Routes: a task started with a route (core/task.ts TaskRoute) gives its submit the route's members, and the submit
 * answers which one made the job (activities/submit.ts). New runs record that member where operators and readers
 * see it — the `GenerationModel` and `GenerationPlatform` search attributes (beside the `GenerationRoute` the API
 * set) and `servedBy` in the memo — as soon as the submit answers (patch `routes`); polls, cancels and the
 * settlement go to that member's platform whatever the patch. Only routed tasks take the patch, so a task that
 * named its model keeps its history as it was.
 */
export const ROUTES = 'routes';

/** A few quick tries inside the workflow task (about 8 s in all), bounded by attempts as well as time. */
const { settleTask: settleInTask } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10s',
  scheduleToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '4s', maximumAttempts: 5 },
});
const { settleTask: settleDurably } = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  scheduleToCloseTimeout: '24h',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5m' },
});

async function settle(serving: Serving, outcome: TaskEndOutcome, usage: ReportedUsage, billed?: boolean): Promise<void> {
  const settlement: SettleInput = {
    taskId: workflowInfo().workflowId,
    platform: serving.platform,
    request: serving.request,
    ...(serving.servedBy ? { servedBy: serving.servedBy } : {}),
    outcome,
    usage,
    ...(billed !== undefined ? { billed } : {}),
  };
  try {
    await settleInTask(settlement);
    return;
  } catch {
    // The ledger was not reachable within the local bound: the durable retries take over.
  }
  try {
    await settleDurably(settlement);
  } catch (err) {
    // A day without the ledger: the task's outcome must not change; the ledger's sweep settles it from its record.
    log.error('Could not settle the task in the ledger', { outcome, error: err instanceof Error ? err.message : String(err) });
  }
}

/** How a task's run ended with an error: failed, cancelled, or not an end (continue-as-new, a workflow-task error). */
function endOf(err: unknown): Exclude<TaskEndOutcome, 'success'> | undefined {
  if (err instanceof ContinueAsNew) return undefined;
  return err instanceof ApplicationFailure ? 'failed' : isCancellation(err) ? 'cancelled' : undefined;
}

/**
 * The task, settled in the ledger when it ends, then its final webhook event (when it has a webhook): succeeded, or
 * failed (a cancel included). Once the task has ended, nothing cancels what follows.
 */
export async function generationWorkflow(input: GenerationInput, resume?: GenerationResume): Promise<GenerationResult> {
  const charge = new JobCharge(resume !== undefined);
  const serving = new Serving(input, resume?.servedBy);
  let result: GenerationResult;
  try {
    result = await runGeneration(input, resume, charge, serving);
  } catch (err) {
    const outcome = endOf(err);
    if (outcome) await CancellationScope.nonCancellable(() => endedWithoutSuccess(input, outcome, charge, serving));
    throw err;
  }
  if (!charge.settledByPoll() && patched(SETTLEMENT_STEP))
    await CancellationScope.nonCancellable(() => settle(serving, 'success', result.usage ?? {}));
  await announce(input, 'succeeded');
  return result;
}

/** A task that failed or was cancelled: its job's charge recorded and settled, then its `failed` event announced. */
async function endedWithoutSuccess(
  input: GenerationInput,
  outcome: Exclude<TaskEndOutcome, 'success'>,
  charge: JobCharge,
  serving: Serving,
): Promise<void> {
  const taskCharge = charge.charge();
  if (patched(SETTLEMENT_STEP)) {
    upsertMemo({ charge: taskCharge });
    await settle(serving, outcome, taskCharge.usage ?? {}, taskCharge.billed);
    if (input.webhook) await announce(input, 'failed');
  } else {
    // The 1.0 shape: the event, then the charge in the memo (the ledger was settled outside the history).
    if (input.webhook) await announce(input, 'failed');
    upsertMemo({ charge: taskCharge });
  }
}

/** The task's upstream job and the account that owns it: every poll and cancel goes to that account. */
interface UpstreamJob {
  upstreamTaskId: string;
  account: string;
  /** When this run received the job's id (workflow time); unknown in a continued run. */
  submittedAt?: number;
}

/** What the poll loop knows once the first submit answered: the job, its timing and its deadline. */
interface Running {
  job: UpstreamJob | undefined;
  timing: PollTiming;
  deadlineAt: number;
  /** The submit's answer said the platform's callbacks are arriving (SubmitResult.pushHealthy). */
  pushHealthy?: boolean;
  /** The submit's answer: the model (a routed task's member) whose platform made the job. */
  servedBy?: ServedBy;
}

/** A task with its job: what every poll needs. */
type Submitted = Running & { job: UpstreamJob };
const hasJob = (run: Running | undefined): run is Submitted => run?.job !== undefined;

/** What the poll loop carries from one turn to the next. */
interface PollLoop {
  readonly input: GenerationInput;
  readonly charge: JobCharge;
  readonly serving: Serving;
  readonly state: TaskState;
  readonly wake: PollWake;
  /** The wait for a slot on a platform account, when every account that could serve the task is full. */
  readonly slots: SlotWait;
  resubmissions: number;
  failedPolls: number;
  /** Set by the first submit (or the continued run's resume): from then on, the task has a timing and a deadline. */
  run: Running | undefined;
}

async function runGeneration(
  input: GenerationInput,
  resume: GenerationResume | undefined,
  charge: JobCharge,
  serving: Serving,
): Promise<GenerationResult> {
  const state: TaskState = resume?.state ?? { status: 'pending' };
  if (!resume) logTransition('pending');
  setHandler(taskStateQuery, () => state);
  const wake = new PollWake();
  setHandler(upstreamEventSignal, (hint) => {
    wake.hint();
    pushMonitor.seen(hint.platform);
  });
  const loop: PollLoop = {
    input,
    charge,
    serving,
    state,
    wake,
    slots: new SlotWait(),
    resubmissions: resume?.resubmissions ?? 0,
    failedPolls: 0,
    run: resume && {
      job: { upstreamTaskId: resume.upstreamTaskId, account: resume.upstreamAccount },
      timing: resume.timing,
      deadlineAt: resume.deadlineAt,
    },
  };

  try {
    for (;;) {
      const current = hasJob(loop.run) ? loop.run : await submitAndWait(loop);
      const end = await pollTurn(loop, current);
      if (end) return end;
    }
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        if (loop.run?.job) await cancelUpstream(input, serving, loop.run.job, charge);
        markFailed({ message: "The task was cancelled at the client's request", code: 'cancelled' }, 'cancelled');
      });
    }
    throw err;
  }
}

/** A job submitted (the first, or a new one after a transient failure), recorded, then the wait before its first poll. */
async function submitAndWait(loop: PollLoop): Promise<Submitted> {
  const { input, charge, serving, state } = loop;
  const current = await submitJob(input, loop.run, loop.resubmissions, charge, serving, loop.slots);
  loop.slots.done();
  loop.run = current;
  charge.submitted();
  serving.serve(current.servedBy);
  state.upstreamTaskId = current.job.upstreamTaskId;
  state.upstreamAccount = current.job.account;
  recordJob(input, current.job, serving);
  // While push is healthy the first poll waits the fallback interval too: the job's end will wake the task,
  // and a poll of a job that has just started learns only that it runs.
  const fallback = current.pushHealthy ? current.timing.fallbackPollIntervalMs : undefined;
  await loop.wake.wait(fallback ?? current.timing.firstPollDelayMs, current.deadlineAt);
  return current;
}

/** One poll and what follows it: the task's end (returned), or undefined to poll again (or submit anew). */
async function pollTurn(loop: PollLoop, current: Submitted): Promise<GenerationResult | undefined> {
  const { input, charge, serving, state, wake } = loop;
  const { job, timing, deadlineAt } = current;
  if (remaining(deadlineAt) <= 0) return await deadlineExceeded(input, current, wake, charge, serving);
  const polled = await pollJob(loop, current);
  if (!('status' in polled)) return polled.end;
  const status = polled.status;
  if (status.state === 'success') return succeed(state, status, serving);
  if (status.state === 'failed') {
    await resubmitOrFail(loop, current, status);
    return undefined;
  }
  const wasRunning = state.status === 'running';
  setStatus(state, status.state, status.progress);
  if (!wasRunning && state.status === 'running') await announce(input, 'running');

  const info = workflowInfo();
  if (info.historyLength >= (input.maxEventsPerRun ?? MAX_EVENTS_PER_RUN) || info.continueAsNewSuggested) {
    // Memo and search attributes are passed on explicitly: they are the task's record for reads.
    const next = makeContinueAsNewFunc<typeof generationWorkflow>({
      memo: info.memo,
      typedSearchAttributes: info.typedSearchAttributes,
    });
    return await next(input, {
      upstreamTaskId: job.upstreamTaskId,
      upstreamAccount: job.account,
      deadlineAt,
      state,
      timing,
      ...(loop.resubmissions > 0 ? { resubmissions: loop.resubmissions } : {}),
      ...(serving.servedBy ? { servedBy: serving.servedBy } : {}),
    });
  }
  const fallback = status.pushHealthy ? timing.fallbackPollIntervalMs : undefined;
  await wake.wait(fallback ?? timing.pollIntervalMs, deadlineAt);
  return undefined;
}

/**
 * The job polled: its status, or the task's end (the deadline passed, the poll failed for good), or no end (`end`
 * undefined) after a poll whose own budget ran out (an outage) and the durable backoff that follows it.
 */
async function pollJob(loop: PollLoop, current: Submitted): Promise<{ status: PolledStatus } | { end: GenerationResult | undefined }> {
  const { input, charge, serving, wake } = loop;
  const { job, deadlineAt } = current;
  try {
    const status = await pollActivity(remaining(deadlineAt))({
      platform: serving.platform,
      kind: input.kind,
      ...job,
      request: serving.request,
      ...(serving.servedBy ? { servedBy: serving.servedBy } : {}),
    });
    charge.polled(status);
    loop.failedPolls = 0;
    return { status };
  } catch (err) {
    if (isUpstreamLost(err)) charge.lost();
    if (isActivityTimeout(err) && remaining(deadlineAt) <= 0)
      return { end: await deadlineExceeded(input, current, wake, charge, serving, lastFailureMessage(err)) };
    if (!isTransientPollFailure(err)) return failFromActivity(err, 'poll');
    // The poll's own budget ran out (an outage): back off on a durable timer, then poll again.
    loop.failedPolls += 1;
    const backoff = Math.min(POLL_BACKOFF.maxMs, POLL_BACKOFF.initialMs * 2 ** (loop.failedPolls - 1));
    if (remaining(deadlineAt) <= backoff)
      return { end: await deadlineExceeded(input, current, wake, charge, serving, lastFailureMessage(err)) };
    wake.dropTimer();
    await sleep(backoff);
    return { end: undefined };
  }
}

/** A job the platform reports failed: a new one submitted after a pause when the failure is transient and time allows, else the task fails. */
async function resubmitOrFail(loop: PollLoop, current: Submitted, status: PolledStatus): Promise<void> {
  const { job, timing, deadlineAt } = current;
  const f = status.failure ?? { reason: 'upstream_failed' as const, message: 'The platform reported the job as failed' };
  if (f.resubmit && loop.resubmissions < MAX_RESUBMISSIONS && remaining(deadlineAt) > RESUBMIT_PAUSE_MS + timing.firstPollDelayMs) {
    loop.resubmissions += 1;
    log.warn('The job failed upstream for a transient reason; submitting a new one', {
      upstreamTaskId: job.upstreamTaskId,
      code: f.code,
      resubmissions: loop.resubmissions,
    });
    loop.run = { ...current, job: undefined };
    setStatus(loop.state, 'pending');
    loop.wake.dropTimer();
    await sleep(RESUBMIT_PAUSE_MS);
    return;
  }
  fail(f.reason, f.message, f.code);
}

/**
 * The wait before the next poll: a timer, which a platform's callback (a hint signal) ends early. A timer a
 * callback cut short is left running rather than cancelled: when the poll it leads to ends the task, the
 * workflow completes and the timer goes with it, at no history event; only if the task waits again (or sleeps)
 * is it cancelled then, in the same workflow task that starts the next one.
 */
class PollWake {
  private hinted = false;
  private left: CancellationScope | undefined;

  /** A callback since the last poll: the next wait ends at once. */
  hint(): void {
    this.hinted = true;
  }

  /** Cancels the timer a callback cut short, before the workflow waits on anything else. */
  dropTimer(): void {
    this.left?.cancel();
    this.left = undefined;
  }

  async wait(ms: number, deadlineAt: number): Promise<void> {
    this.dropTimer();
    if (!this.hinted) {
      const timer = new CancellationScope();
      let fired = false;
      timer
        .run(() => sleep(Math.min(ms, Math.max(1, remaining(deadlineAt)))))
        .then(
          () => (fired = true),
          () => undefined, // cancelled: by dropTimer, or with the whole task
        );
      await condition(() => this.hinted || fired);
      if (!fired) this.left = timer;
    }
    this.hinted = false;
  }
}

/**
 * Submits the job and returns it with the task's timing and deadline (settled by the first submit). Non-cancellable:
 * once a paid submit is on its way we must learn the upstream id, so that a cancel arriving meanwhile can still
 * cancel the upstream job. While every account that could serve the task is full, the submit answers `waiting` and
 * the task waits for a slot (workflows/capacity.ts) — cancellable, since nothing has been sent — then submits again.
 */
async function submitJob(
  input: GenerationInput,
  known: Running | undefined,
  resubmission: number,
  charge: JobCharge,
  serving: Serving,
  slots: SlotWait,
): Promise<Submitted> {
  const { workflowId, runId } = workflowInfo();
  const dedupKey = submitDedupKey(workflowId, runId, resubmission);
  // The deadline and timing, once a first submit (one that answered `waiting` included) has settled them.
  let settled: Running | undefined = known;
  for (;;) {
    const bound = settled ? remaining(settled.deadlineAt) : MAX_TASK_DEADLINE_MS;
    const answered: Running | undefined = settled;
    const submit = submitActivity(bound, slots.submitPriority());
    const submitted: SubmitAnswer = await CancellationScope.nonCancellable(() =>
      submit({
        platform: input.platform,
        request: input.request,
        ...(input.route ? { members: input.route.members } : {}),
        dedupKey,
        taskId: workflowId,
        owner: input.ownerId,
        ...(input.weight !== undefined ? { weight: input.weight } : {}),
        mayWait: true,
        // The deadline counts from the run's first workflow task (workflow time, so replays agree): a run an operator
        // replayed after an outage (a reset to that task, scripts/replay-failed.ts) gets a deadline of its own.
        ...(answered ? { deadlineAt: answered.deadlineAt } : { taskStartedAt: Date.now() }),
      }),
    ).catch((err) => {
      if (isActivityTimeout(err) && answered) return deadlineExceeded(input, answered, undefined, charge, serving, lastFailureMessage(err));
      return failFromActivity(err, 'submit');
    });
    if ('waiting' in submitted) {
      settled ??= { job: undefined, timing: submitted.timing, deadlineAt: submitted.deadlineAt };
      if (!(await slots.wait(submitted.waiting, settled.deadlineAt))) return capacityTimeout(settled);
      continue;
    }
    return {
      job: { upstreamTaskId: submitted.upstreamTaskId, account: submitted.account, submittedAt: Date.now() },
      timing: settled?.timing ?? submitted.timing,
      deadlineAt: settled?.deadlineAt ?? submitted.deadlineAt,
      ...(submitted.pushHealthy ? { pushHealthy: true } : {}),
      ...(submitted.servedBy ? { servedBy: submitted.servedBy } : {}),
    };
  }
}

/** No slot became free before the deadline: nothing was created upstream, so nothing is charged. */
function capacityTimeout(run: Running): never {
  const minutes = Math.round(run.timing.deadlineMs / 60_000);
  return fail(
    'capacity_timeout',
    `No platform account that can serve this task had a free slot within its deadline (${minutes} min): every one was running ` +
      'as many jobs as it may run at once. Nothing was created upstream and nothing is charged; submit it again later.',
  );
}

/**
 * The job, where readers and platforms' callbacks find it: its upstream id and account (core/task-hints.ts finds the
 * task by its upstream id and platform) and, for a routed task (patch `routes`), the member that made it.
 */
function recordJob(input: GenerationInput, job: UpstreamJob, serving: Serving): void {
  const served = input.route !== undefined && serving.servedBy !== undefined && patched(ROUTES) ? serving.servedBy : undefined;
  upsertSearchAttributes([
    { key: SA.upstreamTaskId, value: job.upstreamTaskId },
    { key: SA.upstreamAccount, value: job.account },
    ...(served
      ? [
          { key: SA.model, value: served.model },
          { key: SA.platform, value: served.platform },
        ]
      : []),
  ]);
  if (served) upsertMemo({ servedBy: served });
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

/**
 * The job succeeded: its outputs as the poll kept them (each copied into the result store, or the platform's link
 * marked `stored: false` with the reason: nothing is lost if a copy fails), recorded in the memo for reads.
 */
function succeed(state: TaskState, status: PolledStatus, serving: Serving): GenerationResult {
  const kept = status.kept;
  if (!endsInSuccess(status) || !kept) return fail('upstream_failed', 'The platform reported success but returned no result URL');
  state.status = 'success';
  state.progress = 100;
  const result: GenerationResult = { created: Math.floor(Date.now() / 1000), data: kept.data };
  if (status.extras) result.extras = status.extras;
  if (kept.lastFrame) result.lastFrame = kept.lastFrame;
  // What the platform reported it billed, kept with the result: the task's final cost follows it (tasks/record.ts).
  if (status.usage) result.usage = status.usage;
  // A routed task's result names its member, whose bill is the task's (a sync answer's cost).
  if (serving.servedBy) result.servedBy = serving.servedBy;
  upsertSearchAttributes([{ key: SA.status, value: 'success' }]);
  upsertMemo({ status: 'success', progress: 100, result });
  logTransition('success');
  return result;
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
  log.info(
    `Task ${fields.taskId} ${status}${why}: platform ${fields.platform}, model ${fields.model}, upstream ${fields.upstreamTaskId}, after ${(fields.elapsedMs / 1000).toFixed(1)} s`,
    fields,
  );
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

/** The poll's answer that the platform no longer knows the job (after its grace): nothing of it is billed. */
function isUpstreamLost(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type === 'upstream_lost';
}

/**
 * The task's deadline ran out inside an activity: either its last attempt timed out at the schedule-to-close
 * bound, or the server declined another retry because it would end past that bound (retry state TIMEOUT, the
 * last attempt's error as the cause).
 */
function isActivityTimeout(err: unknown): boolean {
  return err instanceof ActivityFailure && (err.retryState === 'TIMEOUT' || err.cause instanceof TimeoutFailure);
}

async function cancelUpstream(input: GenerationInput, serving: Serving, job: UpstreamJob, charge: JobCharge): Promise<void> {
  try {
    charge.cancelAnswered(
      await cancelGeneration({ platform: serving.platform, kind: input.kind, upstreamTaskId: job.upstreamTaskId, account: job.account }),
    );
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

/** The deadline passed: the job (if there is one) is cancelled upstream where the platform allows, and the task fails. */
async function deadlineExceeded(
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
