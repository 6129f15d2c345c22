/**
 * The API's side of client webhooks and event streams, all from Temporal (no process memory, so any replica
 * answers): a task's deliveries (the delivery workflow's memo, workflows/webhook-delivery.ts), a redelivery, and
 * the task's changes as they happen (GET /v1/generations/:id/events).
 *
 * Watching a task costs one long-poll: GetWorkflowExecutionHistory with waitNewEvent, which the server answers
 * when the task's history grows. Only a batch that may change what a client sees (a memo upsert, the run's close)
 * is followed by one DescribeWorkflowExecution to read the record, so a stream never polls on a timer.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import {
  WEBHOOK_DELIVERY_WORKFLOW_TYPE,
  webhookTaskQueue,
  WEBHOOK_REDELIVER_SIGNAL,
  webhookDeliveryWorkflowId,
  type DeliveryEventRecord,
  type WebhookDeliveryMemo,
} from '../core/webhooks';
import { WEBHOOK_PENDING_SINCE } from '../core/search-attributes';
import type { TaskService } from '../tasks/task-service';
import type { TaskRecord } from '../tasks/record';
import { visibilityPage } from '../operations/visibility-page';

const EventType = temporal.api.enums.v1.EventType;
/** History events after which a task's record may read differently: a memo upsert, or the run's end. */
const RECORD_CHANGING = new Set<number>([
  EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);

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
    private readonly tasks: TaskService,
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
    await this.client.workflow.signalWithStart(WEBHOOK_DELIVERY_WORKFLOW_TYPE, {
      workflowId: webhookDeliveryWorkflowId(taskId),
      taskQueue: webhookTaskQueue(this.taskQueue),
      args: [memo.delivery],
      memo: memo as unknown as Record<string, unknown>,
      signal: WEBHOOK_REDELIVER_SIGNAL,
      signalArgs: [],
    });
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

  private async deliveryMemo(taskId: string): Promise<WebhookDeliveryMemo | undefined> {
    try {
      const desc = await this.client.workflow.getHandle(webhookDeliveryWorkflowId(taskId)).describe();
      const memo = desc.memo as Partial<WebhookDeliveryMemo> | undefined;
      return memo?.delivery ? (memo as WebhookDeliveryMemo) : undefined;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
  }

  /**
   * The task's record each time it may have changed, until the task has ended (the last record is final) or
   * `signal` is aborted. The first is the record as it is now. One long-poll at a time; runs continued as new are
   * followed (the history of the latest run is watched again from its start).
   */
  async *changes(taskId: string, ownerId: string, signal: AbortSignal): AsyncGenerator<TaskRecord> {
    const namespace = this.client.options.namespace;
    let token: Uint8Array | undefined;
    while (!signal.aborted) {
      const page = await this.client.withAbortSignal(signal, () =>
        this.client.workflowService.getWorkflowExecutionHistory({
          namespace,
          execution: { workflowId: taskId },
          waitNewEvent: true,
          skipArchival: true,
          ...(token ? { nextPageToken: token } : {}),
        }),
      );
      const closed = !page.nextPageToken || page.nextPageToken.length === 0;
      const events = page.history?.events ?? [];
      if (token === undefined || closed || events.some((e) => RECORD_CHANGING.has(Number(e.eventType)))) {
        const record = await this.tasks.read(taskId, ownerId);
        if (!record) return;
        yield record;
        if (record.status === 'success' || record.status === 'failed') return;
      }
      // A closed run that is not final was continued as new: watch the latest run's history from its start.
      token = closed ? undefined : page.nextPageToken!;
    }
  }
}
