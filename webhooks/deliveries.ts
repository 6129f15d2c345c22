/**
 * The deliveries as the API reads them, all from Temporal (no process memory, so any replica answers): a task's
 * deliveries (the delivery workflow's memo, workflows/webhook-delivery.ts — or, for a final event its task delivered
 * at its end with no delivery workflow, the record that attempt left in the task's history, webhooks/first-attempt.ts),
 * a redelivery of its last event (webhooks/delivery.ts, the one start of a delivery), and the operator's list and
 * counts of deliveries not yet made, from visibility. The operator's list is of delivery workflows: an event settled
 * at its task's end (delivered, or gone) has none, and is shown on its task's page.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { WEBHOOK_PENDING_SINCE } from '../core/search-attributes';
import { WEBHOOK_DELIVERY_WORKFLOW_TYPE, type DeliveryEventRecord, type WebhookDeliveryMemo } from '../core/webhooks';
import { visibilityPage } from '../operations/visibility-page';
import { signalDelivery, webhookDeliveryWorkflowId } from './delivery';
import { firstAttemptRecord } from './first-attempt';

export interface TaskDeliveries {
  webhook_url?: string;
  events: DeliveryEventRecord[];
}

/** How the operator's list groups a task's deliveries (GET /admin/v1/deliveries). */
export type DeliveryListState = 'pending' | 'retrying' | 'given_up';

/** One task's deliveries in the operator's list. */
export interface DeliveryListItem {
  task_id: string;
  key: string;
  webhook_url: string;
  state: DeliveryListState | 'delivered';
  pending_since: string | null;
  events: DeliveryEventRecord[];
}

const DELIVERY_RUNS = `WorkflowType = '${WEBHOOK_DELIVERY_WORKFLOW_TYPE}'`;
const GIVEN_UP = new Set(['expired', 'gone']);
/** Visibility's part of each state; a given-up event is told from the closed runs' memos. */
const DELIVERY_QUERIES: Record<DeliveryListState, string> = {
  pending: `${DELIVERY_RUNS} AND ExecutionStatus = 'Running' AND ${WEBHOOK_PENDING_SINCE.name} IS NULL`,
  retrying: `${DELIVERY_RUNS} AND ExecutionStatus = 'Running' AND ${WEBHOOK_PENDING_SINCE.name} IS NOT NULL`,
  given_up: `${DELIVERY_RUNS} AND ExecutionStatus != 'Running'`,
};

export class WebhookService {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /** The delivery record of a task the caller owns (the caller checked); undefined when the task has no webhook events yet. */
  async deliveries(taskId: string): Promise<TaskDeliveries | undefined> {
    const memo = await this.deliveryMemo(taskId);
    return memo && { webhook_url: memo.delivery.target.url, events: memo.delivery.events ?? [] };
  }

  /**
   * Sends the task's last event again (a new attempt, the same webhook-id): a signal to its delivery workflow,
   * or — when that run has ended — a new run carrying the record on. Undefined when there is no event yet.
   */
  async redeliver(taskId: string): Promise<DeliveryEventRecord | undefined> {
    const memo = await this.deliveryMemo(taskId);
    const last = memo?.delivery.events?.at(-1);
    if (!memo || !last) return undefined;
    await signalDelivery(this.client, this.taskQueue, memo.delivery, 'redeliver');
    return { ...last, state: 'pending' };
  }

  /**
   * One page of the tasks whose webhook events are pending, being retried, or were given up (an event expired after
   * its retries, or its receiver answered 410), each with its events and their last answers. Given-up deliveries are
   * found among the ended delivery runs, a page of them at a time: a page may hold fewer items than its size, and the
   * next token goes on from there.
   */
  async list(state: DeliveryListState | undefined, pageSize: number, pageToken?: Uint8Array) {
    const query = state ? DELIVERY_QUERIES[state] : DELIVERY_RUNS;
    const page = await visibilityPage(this.client, query, pageSize, pageToken);
    const items: DeliveryListItem[] = [];
    for (const info of page.infos) {
      const memo = info.memo as Partial<WebhookDeliveryMemo> | undefined;
      if (!memo?.delivery) continue;
      const events = memo.delivery.events ?? [];
      const pendingSince = info.typedSearchAttributes.get(WEBHOOK_PENDING_SINCE) ?? null;
      const givenUp = events.some((e) => GIVEN_UP.has(e.state));
      const itemState = info.status.name === 'RUNNING' ? (pendingSince ? 'retrying' : 'pending') : givenUp ? 'given_up' : 'delivered';
      if (state === 'given_up' && !givenUp) continue;
      items.push({
        task_id: memo.delivery.taskId,
        key: memo.delivery.ownerId,
        webhook_url: memo.delivery.target.url,
        state: itemState,
        pending_since: pendingSince,
        events,
      });
    }
    return { data: items, nextPageToken: page.nextPageToken };
  }

  /** How many tasks have events not yet delivered: being sent, and being retried (the overview). */
  async undelivered(): Promise<{ pending: number; retrying: number }> {
    const [pending, retrying] = await Promise.all([
      this.client.workflow.count(DELIVERY_QUERIES.pending),
      this.client.workflow.count(DELIVERY_QUERIES.retrying),
    ]);
    return { pending: pending.count, retrying: retrying.count };
  }

  /**
   * The task's delivery record: its delivery workflow's memo (which carries a first attempt made at the task's end
   * when that attempt was handed over), else that attempt's own record in the task's history.
   */
  private async deliveryMemo(taskId: string): Promise<WebhookDeliveryMemo | undefined> {
    try {
      const desc = await this.client.workflow.getHandle(webhookDeliveryWorkflowId(taskId)).describe();
      const memo = desc.memo as Partial<WebhookDeliveryMemo> | undefined;
      if (memo?.delivery) return memo as WebhookDeliveryMemo;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    try {
      return await firstAttemptRecord(this.client, taskId);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
  }
}
