/**
 * A worker whose PLATFORMS_ENABLED lacks a platform the API offers: its activities must not
 * fail the task for good — another, correctly configured worker of the fleet should take it — so the failure is
 * retryable, and it names the setting.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../../activities';
import { buildCatalogue } from '../../../platforms';
import type { PlatformAdapter } from '../../../platforms/platform';

const adapter: PlatformAdapter = { submit: async () => ({ upstreamTaskId: 'x' }), poll: async () => ({ state: 'running' }) };
const onlyV = createActivities({
  catalogue: buildCatalogue(),
  adapters: { V: adapter },
  timing: {
    video: { firstPollDelayMs: 3_000, pollIntervalMs: 5_000, deadlineMs: 3_600_000 },
    image: { firstPollDelayMs: 3_000, pollIntervalMs: 3_000, deadlineMs: 900_000 },
  },
  results: {} as never,
});

async function failure(run: () => Promise<unknown>): Promise<ApplicationFailure> {
  const err = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

test.each([
  [
    'submit',
    () =>
      new MockActivityEnvironment().run(onlyV.submitGeneration, {
        platform: 'T',
        request: { kind: 'image' as const, model: 'GEM-2.5', prompt: 'x' },
        dedupKey: 'k',
        taskId: 'task_1',
        deadlineAt: Date.now() + 60_000,
      }),
  ],
  [
    'poll',
    () =>
      new MockActivityEnvironment().run(onlyV.pollGeneration, {
        platform: 'T',
        kind: 'video' as const,
        upstreamTaskId: 'job',
        account: 'default',
      }),
  ],
  [
    'cancel',
    () =>
      new MockActivityEnvironment().run(onlyV.cancelGeneration, {
        platform: 'T',
        kind: 'video' as const,
        upstreamTaskId: 'job',
        account: 'default',
      }),
  ],
])('%s of a platform this worker lacks: retryable platform_not_configured naming PLATFORMS_ENABLED', async (_op, run) => {
  const f = await failure(run);
  expect({ type: f.type, nonRetryable: f.nonRetryable }).toEqual({ type: 'platform_not_configured', nonRetryable: false });
  expect(f.message).toMatch(/Platform T is not configured on this worker \(PLATFORMS_ENABLED\)/);
});
