/**
 * A task waiting for platform capacity (patch `capacity`): when no account that could serve it has a free slot, its
 * submit answers `waiting` (activities/submit.ts) and the task waits here — on nothing but one timer, its deadline —
 * until a freed slot is granted to it (the `capacityGranted` signal, capacity/dispatcher.ts); then it submits again
 * and finds its slot. While it waits its record says so, and since when (the memo's `waiting`).
 *
 * Only a run that waits takes the patch (its marker is recorded at its first wait), so a task that never waits keeps
 * the history it had before capacity existed, and every 1.0 and later history replays unchanged.
 */
import type { Priority } from '@temporalio/common';
import { condition, patched, setHandler, upsertMemo } from '@temporalio/workflow';
import { GRANTED_PRIORITY_KEY, type TaskWaiting } from '../core/capacity';
import { capacityGrantedSignal } from './messages';

export const CAPACITY = 'capacity';

/**
 * A granted task's submit goes ahead of the task queue's backlog (patch `capacity-granted-first`): its slot is held
 * for it, idle upstream, until the submit runs, and in a burst the queue holds thousands of new tasks' first
 * workflow and activity tasks. Temporal dispatches a task queue's tasks by priority key, 1 first, 3 the default
 * (https://docs.temporal.io/develop/task-queue-priority-fairness); the fairness key the task started with is kept
 * (an unset field is inherited from the workflow).
 */
export const CAPACITY_GRANTED_FIRST = 'capacity-granted-first';
export const GRANTED_SUBMIT_PRIORITY: Priority = { priorityKey: GRANTED_PRIORITY_KEY };

export class SlotWait {
  /** Grants received; a wait ends when one arrives that no earlier wait took (a grant may come before its wait). */
  private grants = 0;
  private taken = 0;
  /** The record says the task waits (to be cleared once it has its slot). */
  private shown = false;
  /** The last wait ended with a grant, and its submit goes first (patch `capacity-granted-first`). */
  private grantedFirst = false;

  constructor() {
    setHandler(capacityGrantedSignal, () => {
      this.grants += 1;
    });
  }

  /** Waits for a grant until `deadlineAt`: true when one came, false when the deadline passed first. */
  async wait(waiting: TaskWaiting, deadlineAt: number): Promise<boolean> {
    patched(CAPACITY);
    if (!this.shown) upsertMemo({ waiting });
    this.shown = true;
    const granted = await condition(() => this.grants > this.taken, Math.max(1, deadlineAt - Date.now()));
    this.taken = this.grants;
    this.grantedFirst = granted && patched(CAPACITY_GRANTED_FIRST);
    return granted;
  }

  /** The next submit's priority: first in the task queue when it takes a granted slot, else the task's own. */
  submitPriority(): Priority | undefined {
    return this.grantedFirst ? GRANTED_SUBMIT_PRIORITY : undefined;
  }

  /** The task got its slot: its record no longer says it waits (nothing is written for a task that never waited). */
  done(): void {
    if (this.shown) upsertMemo({ waiting: null });
    this.shown = false;
  }
}
