/**
 * Delivers one task's webhook events: one workflow per task (`webhooks-<task_id>`), signalled by the
 * generation workflow with each event (activities: announceWebhookEvent), so its retries — exponential, for up to
 * WEBHOOK_RETRY_FOR_MS (72 h) — survive restarts of the API, the workers and Temporal and never add an event to
 * the generation workflow's history.
 *
 * A task whose webhook did not ask for `running` makes its final event's first attempt itself, at its end
 * (workflows/generation/announcement.ts), and starts this workflow only when that attempt did not deliver: the
 * event then arrives in the run's input, `pending`, its first attempt recorded, and its second attempt waits the
 * first back-off like any retry (patch `webhook-first-attempt`).
 *
 * Events go out one at a time, in order: a `running` event still being retried when the task ends is dropped
 * (`superseded`) as soon as the final event arrives (its back-off wait ends then, not at its timer), so it never
 * arrives after the final one and never delays it. Every attempt is recorded in the memo, which
 * GET /v1/generations/:id/deliveries reads without a worker. The run ends once the task's final event is settled;
 * a redelivery (POST .../deliveries/redeliver) starts a new run that carries the record on.
 *
 * The metrics learn of each event's fate from here, not from the attempts (which may each run on another worker,
 * and some fates have no attempt): every settlement goes to the `webhookMetrics` sink of the worker deciding it,
 * and while an event is being retried the run carries the search attribute WebhookPendingSince, from which every
 * worker reads the age of the oldest undelivered event (webhooks/backlog.ts).
 */
import {
  condition,
  defineSignal,
  patched,
  proxyLocalActivities,
  proxySinks,
  setHandler,
  sleep,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { WEBHOOK_PENDING_SINCE } from '../core/search-attributes';
import {
  FINAL_WEBHOOK_EVENTS,
  WEBHOOK_EVENT_SIGNAL,
  WEBHOOK_REDELIVER_SIGNAL,
  lostAttempt,
  webhookMessageId,
  type DeliveryEventRecord,
  type WebhookDeliveryInput,
  type WebhookDeliveryMemo,
  type WebhookEvent,
  type WebhookSendResult,
} from '../core/webhooks';
import type { WebhookMetricsSinks, WebhookSettlement } from './sinks';

export const webhookEventSignal = defineSignal<[{ event: WebhookEvent; occurredAt: string }]>(WEBHOOK_EVENT_SIGNAL);
export const webhookRedeliverSignal = defineSignal<[]>(WEBHOOK_REDELIVER_SIGNAL);

/**
 * The run ends in a workflow task of its own, never in the one that made its last attempt. An attempt is a local
 * activity: its send happens inside the workflow task that asked for it, and only that task's completion records
 * it. Temporal refuses to complete a workflow while a signal it has not seen is waiting (a repeated announcement, a
 * redelivery): the completing task then fails and is tried again from the last recorded one, so an attempt made in
 * it would be sent a second time and counted once. Ending one short timer later, the attempt is recorded by a
 * completion Temporal accepts whatever arrives meanwhile, and a task refused at the end holds no attempt.
 */
export const CLOSE_AFTER_ATTEMPT_PATCH = 'webhook-close-after-attempt';

/**
 * An event handed over with its first attempt made (its task's end step, patch `webhook-first-attempt` of the
 * generation workflow) waits the first back-off before its second attempt, and counts its retry bound and
 * WebhookPendingSince from when it occurred, as if this run had made that attempt. Runs without the marker attempted
 * such an event at once, from the run's start.
 */
export const FIRST_ATTEMPT_CARRIED_PATCH = 'webhook-first-attempt';

/** Attempts kept per event in the record (the count covers all). */
const MAX_ATTEMPTS_SHOWN = 20;

const isFinal = (e: WebhookEvent) => FINAL_WEBHOOK_EVENTS.includes(e);

const { webhookMetrics } = proxySinks<WebhookMetricsSinks>();

/** What deliver() reports as it goes: the memo, an event being retried since (or no longer), its fate. */
interface Progress {
  /** An attempt ran in the current workflow task: the run must not end in that task. */
  attempted(): void;
  record(): void;
  retrying(queuedAt: number | undefined): void;
  settled(ev: DeliveryEventRecord, state: WebhookSettlement): void;
}

/**
 * The run's WebhookPendingSince (core/search-attributes.ts): the queue time of the event being retried, absent
 * when none is. Upserted only when it changes, so a delivery that succeeds at once writes nothing.
 */
function pendingSince(): (queuedAt: number | undefined) => void {
  let current: string | undefined;
  return (queuedAt) => {
    const value = queuedAt === undefined ? undefined : new Date(queuedAt).toISOString();
    if (value === current) return;
    current = value;
    upsertSearchAttributes([{ key: WEBHOOK_PENDING_SINCE, value: value ?? null }]);
  };
}

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<void> {
  const events: DeliveryEventRecord[] = input.events ?? [];
  const carried = carriedFirstAttempts(events);
  // When each pending event was queued (workflow time), for its retry bound and WebhookPendingSince.
  const queuedAt = new Map<string, number>(
    events.filter((e) => e.state === 'pending').map((e) => [e.webhook_id, carried.has(e.webhook_id) ? occurred(e) : Date.now()]),
  );
  const record = () => upsertMemo({ delivery: { ...input, events } } satisfies WebhookDeliveryMemo as unknown as Record<string, unknown>);
  const retrying = pendingSince();
  // Whether an attempt may still be unrecorded: one ran since the run last waited on a timer of its own.
  let attemptUnrecorded = false;
  const progress: Progress = {
    attempted() {
      attemptUnrecorded = true;
    },
    record,
    retrying,
    settled(ev, state) {
      ev.state = state;
      retrying(undefined);
      webhookMetrics.settled(state);
    },
  };

  setHandler(webhookEventSignal, ({ event, occurredAt }) => {
    const webhookId = webhookMessageId(input.taskId, event);
    // At least once upstream too: a repeated announcement (a retried local activity, a resubmitted job running
    // again) is the same event.
    if (events.some((e) => e.webhook_id === webhookId)) return;
    events.push({ webhook_id: webhookId, event, state: 'pending', occurred_at: occurredAt, attempt_count: 0, attempts: [] });
    queuedAt.set(webhookId, Date.now());
  });
  setHandler(webhookRedeliverSignal, () => {
    const last = events[events.length - 1];
    if (!last) return;
    last.state = 'pending';
    queuedAt.set(last.webhook_id, Date.now());
  });

  for (;;) {
    await condition(() => events.some((e) => e.state === 'pending') || settled(input, events));
    const next = events.find((e) => e.state === 'pending');
    if (!next) {
      if (attemptUnrecorded && patched(CLOSE_AFTER_ATTEMPT_PATCH)) {
        attemptUnrecorded = false;
        // Ends this workflow task with the attempt recorded; whatever was signalled meanwhile is read before the end.
        await sleep(1);
        continue;
      }
      return;
    }
    await deliver(input, next, events, queuedAt.get(next.webhook_id) ?? Date.now(), progress, carried.delete(next.webhook_id));
    queuedAt.delete(next.webhook_id);
    record();
  }
}

/**
 * The events this run was started with whose first attempt was made already (a hand-over from the task's end step:
 * `pending`, with an attempt), for runs that take the patch. A redelivery's run starts with none pending.
 */
function carriedFirstAttempts(events: DeliveryEventRecord[]): Set<string> {
  const handedOver = events.filter((e) => e.state === 'pending' && e.attempt_count > 0);
  if (handedOver.length === 0 || !patched(FIRST_ATTEMPT_CARRIED_PATCH)) return new Set();
  return new Set(handedOver.map((e) => e.webhook_id));
}

/** When an event occurred (workflow time of its task), or now if its record says nothing readable. */
function occurred(ev: DeliveryEventRecord): number {
  const at = Date.parse(ev.occurred_at);
  return Number.isNaN(at) ? Date.now() : Math.min(at, Date.now());
}

/**
 * Nothing more will come: the task's final event is settled, or — for a client that asked for `running` only —
 * its one event is.
 */
function settled(input: WebhookDeliveryInput, events: DeliveryEventRecord[]): boolean {
  const wantsFinal = input.target.events.some(isFinal);
  return events.some((e) => (isFinal(e.event) || !wantsFinal) && e.state !== 'pending');
}

/**
 * Tries one event until it is delivered, refused for good (410), superseded or past its retry bound. An event whose
 * first attempt was carried in (`firstMade`) begins with the back-off that attempt would have been followed by.
 */
async function deliver(
  input: WebhookDeliveryInput,
  ev: DeliveryEventRecord,
  events: DeliveryEventRecord[],
  queuedAt: number,
  progress: Progress,
  firstMade = false,
): Promise<void> {
  const { timing } = input;
  // A running event is worth sending only until the task's final event is here.
  const superseded = () => ev.event === 'running' && events.some((e) => isFinal(e.event));
  for (let failures = 0; ; failures++) {
    if (superseded()) return progress.settled(ev, 'superseded');
    if (!(firstMade && failures === 0)) {
      const result = await attemptOnce(input, ev);
      progress.attempted();
      if (result.outcome !== 'superseded') {
        ev.attempt_count += 1;
        ev.attempts = [...ev.attempts, result.attempt].slice(-MAX_ATTEMPTS_SHOWN);
      }
      if (result.outcome !== 'retry') return progress.settled(ev, result.outcome);
    }
    const wait = Math.min(timing.maxIntervalMs, timing.initialIntervalMs * 2 ** Math.min(failures, 30));
    if (Date.now() + wait - queuedAt > timing.retryForMs) return progress.settled(ev, 'expired');
    progress.record();
    progress.retrying(queuedAt);
    // The back-off ends early when the event is superseded: a final event waits for no running one's timer.
    await condition(superseded, wait);
  }
}

/** One attempt of the event: the receiver's answer, or the attempt lost (its worker gone) as one to retry. */
async function attemptOnce(input: WebhookDeliveryInput, ev: DeliveryEventRecord): Promise<WebhookSendResult> {
  const { timing } = input;
  // The activity reports the receiver's answer, it does not throw for it; only a lost worker fails an attempt.
  // A local activity: it runs in the workflow task that decided it, with no activity task to queue and dispatch,
  // so a burst of tasks ending together is not delayed by a queue hop each, and an attempt is one marker event.
  const { deliverWebhook } = proxyLocalActivities<Activities>({
    startToCloseTimeout: timing.attemptTimeoutMs + 5_000,
    retry: { maximumAttempts: 1 },
  });
  try {
    return await deliverWebhook({
      taskId: input.taskId,
      ownerId: input.ownerId,
      target: input.target,
      webhookId: ev.webhook_id,
      event: ev.event,
      occurredAt: ev.occurred_at,
      attemptTimeoutMs: timing.attemptTimeoutMs,
    });
  } catch (err) {
    return lostAttempt(err);
  }
}
