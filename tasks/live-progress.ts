/**
 * A running task's progress, asked of its workflow (the `taskState` query) when a single task is read. New runs keep
 * progress out of their memo (workflows/generation/records.ts, patch `quieter-task`): it changes with
 * every poll of a platform that reports it, and each memo change is a history event and a visibility write on every
 * cluster, paid whether or not anybody reads the task. A query is paid only by a read, costs no history event and
 * no write, and answers what the last poll saw. It needs a worker: while none answers within the bound (every worker
 * down, or the task's worker stalled), the read goes on without it and shows the progress last recorded (0 % for a
 * new run), so a read is never held longer than LIVE_PROGRESS_DEADLINE_MS by it.
 */
import type { Client } from '@temporalio/client';
import { TASK_STATE_QUERY, type TaskState } from '../core/task';
import type { LiveProgress } from './record';

/** How long a read waits for a running task's workflow to tell its progress. */
export const LIVE_PROGRESS_DEADLINE_MS = 1_000;

export function queriedProgress(client: Client, deadlineMs: number = LIVE_PROGRESS_DEADLINE_MS): LiveProgress {
  return async (info) => {
    try {
      const handle = client.workflow.getHandle(info.workflowId, info.runId);
      const state = await client.withDeadline(Date.now() + deadlineMs, () => handle.query<TaskState>(TASK_STATE_QUERY));
      // A task that ended between the read's describe and this query (its state 100 % and `success`) keeps the
      // describe's view: a record never shows `running` with a progress it did not have while running.
      return state.status === 'running' ? state.progress : undefined;
    } catch {
      return undefined;
    }
  };
}
