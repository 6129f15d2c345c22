/**
 * The pull consumer's activity (activities/platform-events.ts) in Temporal's mock activity environment: it hands
 * each pulled announcement on, confirms only what it handed on, and returns at once when the worker begins to
 * stop — a long poll in flight is abandoned unconfirmed (the queue shows it again), so a worker stop is not held
 * for the whole shutdown grace.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { createPlatformEventsActivity } from '../../../activities/platform-events';
import type { PlatformAdapter, PlatformEventQueue } from '../../../platforms/platform';

function consumer(queue: PlatformEventQueue, stopping?: AbortSignal) {
  const hinted: string[] = [];
  const adapter = {
    submit: async () => ({ upstreamTaskId: 'x' }),
    poll: async () => ({ state: 'running' }),
    events: queue,
  } as PlatformAdapter;
  const activity = createPlatformEventsActivity({
    adapterFor: () => adapter,
    hint: async (_platform, hint) => {
      hinted.push(hint.taskId ?? '');
      return 'signalled';
    },
    stopping,
  });
  return { activity, hinted };
}

test('pulled announcements are handed on, then confirmed; the run ends after forMs', async () => {
  const confirmed: string[][] = [];
  let pulls = 0;
  const queue: PlatformEventQueue = {
    pull: async () =>
      ++pulls === 1 ? [{ handle: 'h1', hint: { taskId: 'task_a' } }, { handle: 'h2' }] : new Promise((r) => setTimeout(() => r([]), 20)),
    confirm: async (handles) => void confirmed.push(handles),
  };
  const { activity, hinted } = consumer(queue);
  await expect(new MockActivityEnvironment().run(activity, { platform: 'T', forMs: 100 })).resolves.toEqual({ handedOn: 1 });
  expect(hinted).toEqual(['task_a']);
  // The announcement for no task is confirmed too: there is nothing to hand on, and it must not come back.
  expect(confirmed).toEqual([['h1', 'h2']]);
});

test('a worker that begins to stop ends the run at once, abandoning the long poll in flight unconfirmed', async () => {
  const stopping = new AbortController();
  const confirmed: string[][] = [];
  const queue: PlatformEventQueue = {
    // A long poll that would outlast any shutdown grace.
    pull: () => new Promise((r) => setTimeout(() => r([{ handle: 'late', hint: { taskId: 'task_b' } }]), 60_000).unref()),
    confirm: async (handles) => void confirmed.push(handles),
  };
  const { activity, hinted } = consumer(queue, stopping.signal);
  const run = new MockActivityEnvironment().run(activity, { platform: 'T', forMs: 5 * 60_000 });
  setTimeout(() => stopping.abort(), 50);
  const outcome = await Promise.race([run, new Promise((r) => setTimeout(() => r('still running after 5 s'), 5_000).unref())]);
  expect(outcome).toEqual({ handedOn: 0 });
  expect(hinted).toEqual([]);
  expect(confirmed).toEqual([]);
});
