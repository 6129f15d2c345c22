/**
 * A grant as Temporal carries it: the `capacityGranted` signal to the task's workflow (workflows/capacity.ts waits for
 * it). Shared by the worker and the API, which both free slots (capacity/grant-notifier.ts).
 *
 * Before the signal, the task's workflow is moved to the front of its task queue (priority key 1, the key its granted
 * submit already takes). In a burst the queue holds thousands of new tasks' first workflow tasks, and a task granted
 * a slot is the longest-waiting one, the first the worker's cache of workflows evicted: without the raise, its
 * signal's workflow task waits behind that backlog while its slot idles upstream. The raise stays for the task's
 * remaining life, which is what a task holding a slot wants: its polls and its end free the slot for the next one.
 * Temporal takes a running workflow's priority through UpdateWorkflowExecutionOptions (the pinned server 1.30.1 and
 * the embedded dev server do; it records an event and makes no workflow task, and an unchanged priority records
 * nothing, so a grant signalled again costs nothing more). A server that refuses it still gets the signal, and the
 * task is dispatched in its turn, as before (https://docs.temporal.io/develop/task-queue-priority-fairness).
 */
import { isGrpcServiceError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { CAPACITY_GRANTED_SIGNAL, GRANTED_PRIORITY_KEY } from '../core/capacity';
import type { Logger } from '../core/logger';
import type { GrantSignal } from './grant-notifier';

/** gRPC's codes for a request the server does not understand (https://grpc.io/docs/guides/status-codes/). */
const INVALID_ARGUMENT = 3;
const UNIMPLEMENTED = 12;

export function temporalGrantSignal(client: Client, log: Logger): GrantSignal {
  let raiseRefused = false;
  return async (taskId) => {
    if (!raiseRefused) {
      const raised = await raisePriority(client, taskId);
      if (raised === 'refused') {
        raiseRefused = true;
        log.warn({ taskId }, "The Temporal server cannot change a running task's priority; granted tasks wait their turn");
      }
    }
    try {
      await client.workflow.getHandle(taskId).signal(CAPACITY_GRANTED_SIGNAL);
      return 'signalled';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'closed';
      throw err;
    }
  };
}

/**
 * The task's workflow at the granted priority. `refused`: the server cannot change a running workflow's priority.
 * `failed`: anything else (a closed task among them), for the signal to find out.
 */
async function raisePriority(client: Client, taskId: string): Promise<'raised' | 'refused' | 'failed'> {
  try {
    await client.workflowService.updateWorkflowExecutionOptions({
      namespace: client.options.namespace,
      workflowExecution: { workflowId: taskId },
      workflowExecutionOptions: { priority: { priorityKey: GRANTED_PRIORITY_KEY } },
      // Only the key: the task keeps its fairness key and weight (tasks/task-queue-share.ts).
      updateMask: { paths: ['priority.priority_key'] },
    });
    return 'raised';
  } catch (err) {
    if (isGrpcServiceError(err) && (err.code === INVALID_ARGUMENT || err.code === UNIMPLEMENTED)) return 'refused';
    return 'failed';
  }
}
