/**
 * The generation workflow's wake-up: the wait before the next poll, which a platform's callback (the
 * `upstreamEvent` hint signal, workflows/messages.ts) ends early.
 */
import { CancellationScope, condition, proxySinks, setHandler, sleep } from '@temporalio/workflow';
import { upstreamEventSignal } from '../messages';
import type { PushMonitorSinks } from '../sinks';
import { remaining } from './run';

/** Tells the worker that a platform's callbacks arrive (not called during replay). */
const { pushMonitor } = proxySinks<PushMonitorSinks>();

/**
 * The wait before the next poll: a timer, which a platform's callback (a hint signal) ends early. A timer a
 * callback cut short is left running rather than cancelled: when the poll it leads to ends the task, the
 * workflow completes and the timer goes with it, at no history event; only if the task waits again (or sleeps)
 * is it cancelled then, in the same workflow task that starts the next one.
 */
export class PollWake {
  private hinted = false;
  private left: CancellationScope | undefined;

  /** A callback since the last poll: the next wait ends at once. */
  hint(): void {
    this.hinted = true;
  }

  /** Cancels the timer a callback cut short, before the workflow waits on anything else. */
  dropTimer(): void {
    this.left?.cancel();
    this.left = undefined;
  }

  async wait(ms: number, deadlineAt: number): Promise<void> {
    this.dropTimer();
    if (!this.hinted) {
      const timer = new CancellationScope();
      let fired = false;
      timer
        .run(() => sleep(Math.min(ms, Math.max(1, remaining(deadlineAt)))))
        .then(
          () => (fired = true),
          () => undefined, // cancelled: by dropTimer, or with the whole task
        );
      await condition(() => this.hinted || fired);
      if (!fired) this.left = timer;
    }
    this.hinted = false;
  }
}

/** The task's wake-up, hinted by every callback from now on (each also tells the worker's push monitor). */
export function listenForCallbacks(): PollWake {
  const wake = new PollWake();
  setHandler(upstreamEventSignal, (hint) => {
    wake.hint();
    pushMonitor.seen(hint.platform);
  });
  return wake;
}
