/**
 * The task's webhook events, announced to its delivery workflow (workflows/webhook-delivery.ts): `running` when its
 * job starts, then `succeeded` or `failed` as it ends. The final event is announced after the task's final memo and
 * search attributes are written, in the workflow task that closes it; the delivery waits for the task to be closed
 * before its first attempt, so a webhook never delays a task and sync callers have their answer first.
 */
import { log, workflowInfo } from '@temporalio/workflow';
import type { GenerationInput } from '../../core/task';
import type { WebhookEvent } from '../../core/webhooks';
import { announceWebhookEvent } from './policies';

/** One event announced, when the task has a webhook that asked for it: one marker event (a local activity). */
export async function announce(input: GenerationInput, event: WebhookEvent): Promise<void> {
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
