/** Queries and signals of the generation workflow, shared by the workflow and the API so names are never retyped. */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { UPSTREAM_EVENT_SIGNAL, type TaskState } from '../core/task';

/** Live status and progress of a running task. */
export const taskStateQuery = defineQuery<TaskState>('taskState');

/**
 * A platform announced that the task's job changed state (a callback or a pulled event). A hint, never a
 * result: the workflow polls at once and trusts only the poll, so a forged, repeated or late hint costs at
 * most one extra poll.
 */
export interface UpstreamEventHint {
  platform: string;
  /** How the event named the job, for the logs. */
  upstreamTaskId?: string;
}
export const upstreamEventSignal = defineSignal<[UpstreamEventHint]>(UPSTREAM_EVENT_SIGNAL);
