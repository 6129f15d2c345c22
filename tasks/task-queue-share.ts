/**
 * The task's share of the workers, in Temporal's task queues: a fairness key per API key, weighted like its share of
 * platform slots (capacity/slots.ts). A burst of thousands of tasks from one key puts thousands of first workflow and
 * activity tasks in the queues; with a key of its own another key's task is dispatched in turn beside them, not
 * after them (https://docs.temporal.io/develop/task-queue-priority-fairness#task-queue-fairness; a server without
 * fairness enabled dispatches in order, as before). Temporal takes keys of up to 64 bytes: longer ids are hashed.
 */
import { createHash } from 'node:crypto';
import type { Priority } from '@temporalio/common';

/** The fairness key and weight a task of this key starts with (tasks/task-service.ts starts every task with it). */
export function taskQueueShare(ownerId: string, weight: number | undefined): Priority {
  const fairnessKey = Buffer.byteLength(ownerId) <= 64 ? ownerId : createHash('sha256').update(ownerId).digest('hex');
  return { fairnessKey, fairnessWeight: weight ?? 1 };
}
