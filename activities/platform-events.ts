/**
 * The pull consumer's activity (workflows/platform-events.ts): for `forMs`, pull the platform's announcements,
 * hand each on to its task's workflow (core/task-hints.ts), confirm them, heartbeat. Returns early when the
 * worker is shutting down (the workflow starts it again on another worker): Temporal only cancels a running
 * activity once the worker's shutdown grace has passed, and this one would otherwise hold every worker stop for
 * that long (WORKER_SHUTDOWN_GRACE_MS, 30 s).
 */
import { CancelledFailure, Context, heartbeat, log } from '@temporalio/activity';
import type { HintOutcome, TaskHint } from '../core/task-hints';
import type { PlatformAdapter } from '../platforms/platform';

export interface PlatformEventsDeps {
  adapterFor(platform: string): PlatformAdapter;
  /** Hands an announcement on to its task (core/task-hints.ts hintTask with the worker's client). */
  hint(platform: string, hint: TaskHint): Promise<HintOutcome>;
  /** Aborted when the worker begins to shut down (worker/main.ts). */
  stopping?: AbortSignal;
  now?: () => number;
}

const STOPPED = Symbol('stopped');

/** Resolves with STOPPED once `signal` aborts (never, without one). */
function whenAborted(signal: AbortSignal | undefined): Promise<typeof STOPPED> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve(STOPPED);
    else signal.addEventListener('abort', () => resolve(STOPPED), { once: true });
  });
}

export function createPlatformEventsActivity({ adapterFor, hint, stopping, now = Date.now }: PlatformEventsDeps) {
  const stopped = whenAborted(stopping);
  return async function consumePlatformEvents({ platform, forMs }: { platform: string; forMs: number }): Promise<{ handedOn: number }> {
    const queue = adapterFor(platform).events;
    if (!queue) throw new Error(`Platform ${platform} has no event queue to consume`);
    const until = now() + forMs;
    let handedOn = 0;
    const cancelled = Context.current().cancellationSignal;
    while (now() < until && !cancelled.aborted && !stopping?.aborted) {
      heartbeat({ handedOn });
      // A pull cut short by the shutdown leaves its events unconfirmed: the queue shows them again after its
      // visibility timeout, to the consumer's next run.
      const events = await Promise.race([queue.pull(), stopped]);
      if (events === STOPPED) break;
      const handles: string[] = [];
      for (const e of events) {
        // Confirmed once handed on (or when there is nothing to hand on: an event for no task of ours).
        if (e.hint) {
          const outcome = await hint(platform, e.hint);
          if (outcome === 'signalled') handedOn++;
        }
        handles.push(e.handle);
      }
      if (handles.length > 0) await queue.confirm(handles);
    }
    if (cancelled.aborted) throw new CancelledFailure('consumer stopped');
    log.debug(stopping?.aborted ? 'Platform events consumer handed back: the worker is stopping' : 'Platform events consumed', {
      platform,
      handedOn,
    });
    return { handedOn };
  };
}
