/**
 * A task's changes as they happen (GET /v1/generations/:id/events), all from Temporal (no process memory, so any
 * replica serves a stream).
 *
 * Watching a task costs one long-poll: GetWorkflowExecutionHistory with waitNewEvent, which the server answers
 * when the task's history grows. Only a batch that may change what a client sees (a memo or search-attribute upsert:
 * new runs tell `running` by GenerationStatus alone; the run's close) is followed by one DescribeWorkflowExecution to
 * read the record, so a stream never polls on a timer.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { TaskRecord } from '../tasks/record';
import type { TaskService } from '../tasks/task-service';

const EventType = temporal.api.enums.v1.EventType;
/** History events after which a task's record may read differently: a memo or search-attribute upsert, or the run's end. */
const RECORD_CHANGING = new Set<number>([
  EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED,
  EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);

export class TaskChanges {
  constructor(
    private readonly client: Client,
    private readonly tasks: Pick<TaskService, 'read'>,
  ) {}

  /**
   * The task's record each time it may have changed, until the task has ended (the last record is final) or
   * `signal` is aborted. The first is the record as it is now. One long-poll at a time; runs continued as new are
   * followed (the history of the latest run is watched again from its start).
   */
  async *changes(taskId: string, ownerId: string, signal: AbortSignal, origin: string | undefined): AsyncGenerator<TaskRecord> {
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
        const record = await this.tasks.read(taskId, ownerId, origin);
        if (!record) return;
        yield record;
        if (record.status === 'success' || record.status === 'failed') return;
      }
      // A closed run that is not final was continued as new: watch the latest run's history from its start.
      token = closed ? undefined : page.nextPageToken!;
    }
  }
}
