/**
 * A job the platform announced ended gives its slot back at once (docs/architecture.md, "Capacity"). The API hears the
 * announcement (a verified callback, api/routes/callbacks.ts) before the task's workflow has polled: otherwise the slot
 * would idle for a workflow task and a poll while a queue waits, the most a busy Temporal adds to each job. The task
 * still polls for its outcome and gives back its slot then too, which finds it already given back.
 */
import type { GrantNotifier } from './grant-notifier';
import type { SlotStore } from './slots';

/** Gives back the slot of `upstreamTaskId`, the job of `taskId` on `platform`, and tells the tasks it goes to. */
export type AnnouncedEnd = (platform: string, taskId: string, upstreamTaskId: string) => Promise<void>;

export function announcedEnds(store: SlotStore, grants: GrantNotifier): AnnouncedEnd {
  return async (platform, taskId, upstreamTaskId) => grants.wake(await store.releaseEndedJob(platform, taskId, upstreamTaskId));
}
