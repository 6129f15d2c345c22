/** Queries and signals of the generation workflow, shared by the workflow and the API so names are never retyped. */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { CAPACITY_GRANTED_SIGNAL } from '../core/capacity';
import { TASK_STATE_QUERY, UPSTREAM_EVENT_SIGNAL, type TaskState } from '../core/task';

/** Live status and progress of a running task. */
export const taskStateQuery = defineQuery<TaskState>(TASK_STATE_QUERY);

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

/**
 * A slot freed on a platform account was granted to this waiting task (capacity/slots.ts): it submits again and finds
 * its slot. Carries nothing: the slot is the task's row in the slot store, and a repeated or stale signal costs at
 * most one submit that finds no slot and waits again.
 */
export const capacityGrantedSignal = defineSignal(CAPACITY_GRANTED_SIGNAL);
