/**
 * The task's webhook events: `running` when its job starts, then `succeeded` or `failed` as it ends, each announced to
 * the task's delivery workflow (workflows/webhook-delivery.ts), which makes every attempt and retry in a history of
 * its own.
 *
 * Since patch `webhook-first-attempt`, the final event of a task that did not ask for `running` is first attempted
 * by the task itself, as the last step of its end: a delivery workflow is a new workflow whose first workflow task
 * queues behind every other task ending at the same moment, which put seconds between a burst of tasks' ends and
 * their webhooks. The attempt is an activity on the webhooks' task queue, scheduled by the workflow task that wrote
 * the task's final memo (and settled it): Temporal dispatches it only once that workflow task is committed, so the
 * final record is visible to every reader (GET /v1/generations/:id, the OpenAI SDK's `videos.retrieve` inside the
 * receiver's handler) before the receiver is called, with no timer or extra workflow task in between. The activity
 * reads the record from the memo (webhooks/first-attempt.ts); the workflow completes after it. Only an attempt that
 * does not deliver starts the delivery workflow, carrying that attempt. A task whose webhook asked for `running`
 * already has a delivery workflow from that event, so its final event goes there too, behind it, in order.
 *
 * Since patch `webhook-attempt-eager`, the attempt is scheduled on the task's own task queue rather than the
 * webhooks' queue: Temporal then hands it to the worker that completed the workflow task, in that workflow task's
 * answer (eager activity execution, when the worker has a free activity slot), instead of through the queue's
 * dispatch after the commit, which in a burst of tasks ending together was the larger part of the wait. An attempt
 * the worker has no slot for waits on the task queue like any activity.
 *
 * A sync caller's answer waits for the workflow to close, so for the attempt: at most FIRST_ATTEMPT_TIMEOUT_MS (5 s)
 * when the receiver answers or times out. A worker lost during the attempt has it made again (same webhook-id) once
 * its time has run out; a platform's late callback reaching the task meanwhile is taken by a workflow task of its own
 * and changes nothing.
 */
import { CancellationScope, log, patched, proxySinks, workflowInfo } from '@temporalio/workflow';
import type { GenerationInput } from '../../core/task';
import { FINAL_WEBHOOK_EVENTS, webhookTaskQueue, type WebhookEvent, type WebhookTarget } from '../../core/webhooks';
import type { WebhookMetricsSinks } from '../sinks';
import { announceWebhookEvent, firstWebhookAttemptOn } from './policies';

/** The final event's first attempt is the last step of the task's end (see above). */
export const WEBHOOK_FIRST_ATTEMPT = 'webhook-first-attempt';
/** That attempt on the task's own task queue, started by the worker that ended the task (see above). */
export const WEBHOOK_ATTEMPT_EAGER = 'webhook-attempt-eager';

const { webhookMetrics } = proxySinks<WebhookMetricsSinks>();

/**
 * One event, when the task has a webhook that asked for it: one marker event (a local activity), or for the final
 * event of a task without `running` (new runs) one activity, a step nothing cancels: the task has ended.
 */
export async function announce(input: GenerationInput, event: WebhookEvent): Promise<void> {
  const webhook = input.webhook;
  if (!webhook || !webhook.events.includes(event)) return;
  const occurredAt = new Date().toISOString();
  if (FINAL_WEBHOOK_EVENTS.includes(event) && !webhook.events.includes('running') && patched(WEBHOOK_FIRST_ATTEMPT))
    return CancellationScope.nonCancellable(() => attemptAtEnd(input, webhook, event, occurredAt));
  await handOver(input, webhook, event, occurredAt);
}

/**
 * The final event attempted by the task itself, by an activity that starts once the workflow task that wrote its
 * final record is committed. Delivered or gone, the event is settled here and the metrics are told (as the delivery workflow tells them
 * of the events it settles: once, by the worker whose workflow task decided it, never on replay); otherwise the
 * activity has handed it to the delivery workflow. Should the activity itself fail, the event is announced as before.
 */
async function attemptAtEnd(input: GenerationInput, target: WebhookTarget, event: WebhookEvent, occurredAt: string): Promise<void> {
  const ownQueue = workflowInfo().taskQueue;
  const firstWebhookAttempt = firstWebhookAttemptOn(patched(WEBHOOK_ATTEMPT_EAGER) ? ownQueue : webhookTaskQueue(ownQueue));
  try {
    const { delivery } = await firstWebhookAttempt({
      taskId: workflowInfo().workflowId,
      ownerId: input.ownerId,
      target,
      event,
      occurredAt,
    });
    const state = delivery.events?.[0]?.state;
    if (state === 'delivered' || state === 'gone') webhookMetrics.settled(state);
  } catch (err) {
    log.warn('The final webhook event could not be attempted at the task end: announced to its delivery workflow', {
      event,
      error: err instanceof Error ? err.message : String(err),
    });
    await handOver(input, target, event, occurredAt);
  }
}

/** The event handed to the task's delivery workflow, which makes its attempts. */
async function handOver(input: GenerationInput, target: WebhookTarget, event: WebhookEvent, occurredAt: string): Promise<void> {
  try {
    await announceWebhookEvent({ taskId: workflowInfo().workflowId, ownerId: input.ownerId, target, event, occurredAt });
  } catch (err) {
    // Temporal unreachable from the worker for the whole budget: the task's own outcome must not change.
    log.error('Could not hand a webhook event to its delivery workflow', {
      event,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}
