/**
 * A grant as Temporal carries it: the `capacityGranted` signal to the task's workflow (workflows/capacity.ts waits for
 * it). Shared by the worker and the API, which both free slots (capacity/grant-notifier.ts).
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { CAPACITY_GRANTED_SIGNAL } from '../core/capacity';
import type { GrantSignal } from './grant-notifier';

export function temporalGrantSignal(client: Client): GrantSignal {
  return async (taskId) => {
    try {
      await client.workflow.getHandle(taskId).signal(CAPACITY_GRANTED_SIGNAL);
      return 'signalled';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'closed';
      throw err;
    }
  };
}
