/**
 * Where a task's webhook events are delivered: its own workflow (workflows/webhook-delivery.ts, `webhooks-<task_id>`)
 * on its own task queue, started — or, when it runs, signalled — here and nowhere else. Three callers: the
 * announcement of a new event (webhooks/activities.ts, a local activity of the generation workflow), the hand-over
 * of a final event whose first attempt at the task's end did not deliver (webhooks/first-attempt.ts, the event and
 * that attempt in the input), and a client's or an operator's redelivery of the last one (webhooks/deliveries.ts).
 * All start the run with the same input and the same memo: `{delivery: input}`, the record GET .../deliveries reads
 * and the next run's input.
 */
import type { Client } from '@temporalio/client';
import {
  WEBHOOK_DELIVERY_WORKFLOW_TYPE,
  WEBHOOK_EVENT_SIGNAL,
  WEBHOOK_REDELIVER_SIGNAL,
  webhookTaskQueue,
  type WebhookDeliveryInput,
  type WebhookDeliveryMemo,
  type WebhookEvent,
} from '../core/webhooks';

/** The delivery workflow's id per task. */
export function webhookDeliveryWorkflowId(taskId: string): string {
  return `webhooks-${taskId}`;
}

/** What the delivery workflow is told: a new event of its task, or to send its last event again. */
export type DeliveryNews = { event: WebhookEvent; occurredAt: string } | 'redeliver';

/**
 * Starts the task's delivery workflow if none runs and gives it the news (idempotent: the workflow deduplicates an
 * event it has). `delivery` is the run's input: a new task's target and timing, or a redelivered task's record
 * carried on from its last run.
 */
export async function signalDelivery(client: Client, taskQueue: string, delivery: WebhookDeliveryInput, news: DeliveryNews): Promise<void> {
  const memo: WebhookDeliveryMemo = { delivery };
  const signal =
    news === 'redeliver' ? { signal: WEBHOOK_REDELIVER_SIGNAL, signalArgs: [] } : { signal: WEBHOOK_EVENT_SIGNAL, signalArgs: [news] };
  await client.workflow.signalWithStart(WEBHOOK_DELIVERY_WORKFLOW_TYPE, {
    workflowId: webhookDeliveryWorkflowId(delivery.taskId),
    taskQueue: webhookTaskQueue(taskQueue),
    args: [delivery],
    memo: memo as unknown as Record<string, unknown>,
    ...signal,
    staticSummary: `Webhooks of task ${delivery.taskId}`,
  });
}
