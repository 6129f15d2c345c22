/**
 * The final event's first attempt as a step of the task's own end (workflows/generation/announcement.ts, patch
 * `webhook-first-attempt`): one activity of the generation workflow, on the task's own task queue (patch `webhook-attempt-eager`; the
 * webhooks' queue before it), that attempts the event and, when the
 * attempt does not deliver, hands it to the task's delivery workflow (workflows/webhook-delivery.ts) carrying that
 * attempt. No delivery workflow — no workflow start, no workflow task queued behind a burst of tasks ending
 * together — for an event its receiver takes at once, which is most of them.
 *
 * Attempt and hand-over are one activity, so a worker lost between them repeats both: the receiver gets the same
 * `webhook-id` again (it deduplicates on it), and a hand-over made twice is one event to the delivery workflow (it
 * ignores an event it has). The record this answers is the activity's result, kept in the task's history:
 * GET .../deliveries reads it there when no delivery workflow was needed (webhooks/deliveries.ts).
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import {
  FIRST_ATTEMPT_TIMEOUT_MS,
  FIRST_WEBHOOK_ATTEMPT_ACTIVITY,
  lostAttempt,
  webhookMessageId,
  type DeliveryEventRecord,
  type FirstAttemptInput,
  type WebhookDeliveryInput,
  type WebhookDeliveryMemo,
  type WebhookSendInput,
  type WebhookSendResult,
  type WebhookTiming,
} from '../core/webhooks';
import { signalDelivery } from './delivery';

/** What the first attempt needs beyond one attempt: where and how a hand-over starts the delivery workflow. */
export interface FirstAttemptDeps {
  client: Client;
  taskQueue: string;
  timing: WebhookTiming;
}

/**
 * Attempts the event once — bounded by WEBHOOK_ATTEMPT_TIMEOUT_MS, at most FIRST_ATTEMPT_TIMEOUT_MS, its record read
 * from the task's memo while the task's workflow is still open — and answers its delivery record: `delivered` or
 * `gone` settle it here; anything else leaves it `pending` with the delivery workflow, started now with the event
 * and this attempt. Only a failed hand-over throws (the activity is retried, attempt included).
 */
export async function firstAttempt(
  deps: FirstAttemptDeps,
  input: FirstAttemptInput,
  deliver: (input: WebhookSendInput) => Promise<WebhookSendResult>,
): Promise<WebhookDeliveryMemo> {
  const webhookId = webhookMessageId(input.taskId, input.event);
  const result = await deliver({
    taskId: input.taskId,
    ownerId: input.ownerId,
    target: input.target,
    webhookId,
    event: input.event,
    occurredAt: input.occurredAt,
    attemptTimeoutMs: Math.min(deps.timing.attemptTimeoutMs, FIRST_ATTEMPT_TIMEOUT_MS),
    taskOpen: true,
  }).catch(lostAttempt);
  const record: DeliveryEventRecord = {
    webhook_id: webhookId,
    event: input.event,
    state: result.outcome === 'delivered' || result.outcome === 'gone' ? result.outcome : 'pending',
    occurred_at: input.occurredAt,
    attempt_count: 1,
    attempts: [result.attempt],
  };
  const delivery: WebhookDeliveryInput = {
    taskId: input.taskId,
    ownerId: input.ownerId,
    target: input.target,
    timing: deps.timing,
    events: [record],
  };
  if (record.state === 'pending')
    await signalDelivery(deps.client, deps.taskQueue, delivery, { event: input.event, occurredAt: input.occurredAt });
  return { delivery };
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * The record the first attempt at a task's end answered, from the task's history (its last run: the one that ended):
 * the result of its completed `firstWebhookAttempt` activity. Undefined when the task made no such attempt (still
 * running, no webhook, a webhook that asked for `running`, a run from before the patch) or the attempt never
 * completed (the event was then announced to the delivery workflow, whose memo has it).
 */
export async function firstAttemptRecord(client: Client, taskId: string): Promise<WebhookDeliveryMemo | undefined> {
  const history = await client.workflow.getHandle(taskId).fetchHistory();
  const events = history.events ?? [];
  const scheduled = new Set(events.filter(isFirstAttemptScheduled).map((e) => String(e.eventId)));
  const completed = events.filter((e) => scheduled.has(String(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? ''))).at(-1);
  const result = completed?.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
  if (!result) return undefined;
  const memo = client.options.loadedDataConverter.payloadConverter.fromPayload<Partial<WebhookDeliveryMemo>>(result);
  return memo?.delivery ? (memo as WebhookDeliveryMemo) : undefined;
}

function isFirstAttemptScheduled(e: HistoryEvent): boolean {
  return e.activityTaskScheduledEventAttributes?.activityType?.name === FIRST_WEBHOOK_ATTEMPT_ACTIVITY;
}
