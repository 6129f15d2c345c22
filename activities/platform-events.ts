/**
 * The pull consumer's activity (workflows/platform-events.ts): for `forMs`, pull the platform's announcements,
 * hand each on to its task's workflow (core/task-hints.ts), confirm them, heartbeat. Returns early when the
 * worker is shutting down (the workflow starts it again on another worker).
 */
import { CancelledFailure, Context, heartbeat, log } from '@temporalio/activity';
import type { HintOutcome, TaskHint } from '../core/task-hints';
import type { PlatformAdapter } from '../platforms/platform';

export interface PlatformEventsDeps {
  adapterFor(platform: string): PlatformAdapter;
  /** Hands an announcement on to its task (core/task-hints.ts hintTask with the worker's client). */
  hint(platform: string, hint: TaskHint): Promise<HintOutcome>;
  now?: () => number;
}

export function createPlatformEventsActivity({ adapterFor, hint, now = Date.now }: PlatformEventsDeps) {
  return async function consumePlatformEvents({ platform, forMs }: { platform: string; forMs: number }): Promise<{ handedOn: number }> {
    const queue = adapterFor(platform).events;
    if (!queue) throw new Error(`Platform ${platform} has no event queue to consume`);
    const until = now() + forMs;
    let handedOn = 0;
    const cancelled = Context.current().cancellationSignal;
    while (now() < until && !cancelled.aborted) {
      heartbeat({ handedOn });
      const events = await queue.pull();
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
    log.debug('Platform events consumed', { platform, handedOn });
    return { handedOn };
  };
}
