/**
 * Telling waiting tasks that a freed slot is theirs: a `capacityGranted` signal to each task the slot store granted
 * one to. Shared by the worker (capacity/dispatcher.ts: its releases and its sweep) and the API (a platform's
 * announcement that a job ended, api/routes/callbacks.ts), since either may free a slot.
 */
import type { Logger } from '../core/logger';
import type { Grant, SlotStore } from './slots';

/** How a grant reaches its task: `closed` when the task has no open run any more (capacity/temporal-grants.ts). */
export type GrantSignal = (taskId: string) => Promise<'signalled' | 'closed'>;

/** What is reported of each grant, for the metrics. */
export type GrantObserver = (grant: Grant) => void;

export class GrantNotifier {
  constructor(
    private readonly store: SlotStore,
    private readonly signal: GrantSignal,
    private readonly log: Logger,
    private readonly observe: GrantObserver = () => {},
  ) {}

  /**
   * Tells each granted task. A task that closed meanwhile gives its slot straight back (to the next in line); a signal
   * that fails otherwise is left to the worker's sweep, which signals unclaimed grants again.
   */
  async wake(grants: readonly Grant[]): Promise<void> {
    for (const grant of grants) {
      this.observe(grant);
      await this.tell(grant.taskId);
    }
  }

  /** Signals one task its grant (again, for the sweep's unclaimed grants). */
  async tell(taskId: string): Promise<void> {
    let answer: 'signalled' | 'closed';
    try {
      answer = await this.signal(taskId);
    } catch (err) {
      this.log.warn({ taskId, err: (err as Error).message }, 'Could not tell a task its slot; the sweep tells it again');
      return;
    }
    if (answer === 'closed') await this.wake(await this.store.release(taskId));
  }
}
