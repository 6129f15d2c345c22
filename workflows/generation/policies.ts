/**
 * The generation workflow's activities and how each is run: timeouts, retry policies and proxies, declared once here
 * so every step of the workflow (workflows/generation.ts) calls them the same way.
 */
import { proxyActivities, proxyLocalActivities, type RetryPolicy } from '@temporalio/workflow';
import type { Priority } from '@temporalio/common';
import type { Activities } from '../../activities';
import { ACTIVITY_ATTEMPT_TIMEOUT_MS } from '../../core/timeouts';
import type { FailureReason } from '../../core/task';
import { FIRST_ATTEMPT_TIMEOUT_MS } from '../../core/webhooks';

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
export const submitActivity = (boundMs: number, priority?: Priority) =>
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

/** The durable pause after the `failedPolls`-th poll in a row whose own budget ran out. */
export function pollBackoffMs(failedPolls: number): number {
  return Math.min(POLL_BACKOFF.maxMs, POLL_BACKOFF.initialMs * 2 ** (failedPolls - 1));
}

export function pollActivity(remainingMs: number) {
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
export const { cancelGeneration } = proxyActivities<Activities>({ startToCloseTimeout: '30s', retry: CANCEL_RETRY });

/**
 * A job that failed upstream for a transient reason (T: the account's concurrency limit, a model backlog) is
 * submitted again — a new job with its own dedup key — after a pause, at most MAX_RESUBMISSIONS times and only
 * while the deadline leaves room; the client never sees the transient failure.
 */
export const MAX_RESUBMISSIONS = 3;
export const RESUBMIT_PAUSE_MS = 10_000;

/** Continue-as-new well before Temporal's 10k-event warning; a long job keeps a short history per run. */
export const MAX_EVENTS_PER_RUN = 2_500;

/**
 * A task with a webhook announces its events to its delivery workflow (workflows/webhook-delivery.ts) through a
 * local activity: one marker event here per event, while the delivery's attempts and retries live in the delivery
 * workflow's own history (workflows/generation/announcement.ts).
 */
export const { announceWebhookEvent } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 10 },
});

/**
 * The final event's first attempt at the task's end (workflows/generation/announcement.ts, webhooks/first-attempt.ts):
 * an activity on the task's own task queue (patch `webhook-attempt-eager`; before it, the webhooks' queue,
 * core/webhooks.ts webhookTaskQueue), which the worker that ended the task starts at once when it has a free slot.
 * Scheduled by the workflow task that wrote the task's final record, it starts only once that record is committed: a
 * receiver reading the task inside its handler finds it final.
 * Each attempt is bounded by the send's own bound plus room to read the task and hand the event over. It does not fail
 * for the receiver's answer; a failure is a lost worker (its attempt ran out of time) or a hand-over Temporal did not
 * take, and each retry repeats attempt and hand-over with the same webhook-id. A few quick tries only, within a minute
 * from scheduling (a webhooks queue no worker polls included): a sync caller waits for them, and past them the event
 * goes to the delivery workflow the way every event used to.
 */
export function firstWebhookAttemptOn(taskQueue: string): Activities['firstWebhookAttempt'] {
  return proxyActivities<Activities>({
    taskQueue,
    startToCloseTimeout: FIRST_ATTEMPT_TIMEOUT_MS + 10_000,
    scheduleToCloseTimeout: '60s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '4s', maximumAttempts: 3 },
  }).firstWebhookAttempt;
}

/**
 * Settling a task's ledger entry (workflows/generation/settlement.ts): first a few quick tries inside the workflow
 * task (about 8 s in all), bounded by attempts as well as time; then an activity Temporal retries for up to a day.
 */
export const { settleTask: settleInTask } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10s',
  scheduleToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '4s', maximumAttempts: 5 },
});
export const { settleTask: settleDurably } = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  scheduleToCloseTimeout: '24h',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5m' },
});
