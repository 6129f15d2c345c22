/**
 * The poll activity in Temporal's mock activity environment: a job the platform says it does not know fails the
 * task as `upstream_lost` (final, replayable), except shortly after its submit, when it is polled again in case
 * the platform's reads lag its writes (UPSTREAM_LOST_GRACE_MS).
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities, type PollInput } from '../../../activities';
import type { Catalogue } from '../../../core/catalogue';
import type { PlatformAdapter } from '../../../platforms/platform';
import { final, lostJob } from '../../../platforms/upstream-error';

const GRACE_MS = 60_000;

function activities(poll: PlatformAdapter['poll']) {
  const adapter: PlatformAdapter = { submit: async () => ({ upstreamTaskId: 'x' }), poll };
  return createActivities({
    catalogue: {} as Catalogue,
    adapters: { V: adapter },
    timing: {
      video: { firstPollDelayMs: 3_000, pollIntervalMs: 5_000, deadlineMs: 3_600_000 },
      image: { firstPollDelayMs: 3_000, pollIntervalMs: 3_000, deadlineMs: 900_000 },
    },
    upstreamLostGraceMs: GRACE_MS,
    results: {} as never,
  });
}

const gone = activities(async (_kind, id) => {
  throw lostJob('V', id, final('invalid_request', 'Platform V: The specified task is not found.', 'ResourceNotFound', 404));
});

async function pollFailure(input: PollInput): Promise<ApplicationFailure> {
  const err = await new MockActivityEnvironment().run(gone.pollGeneration, input).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

const input = { platform: 'V', kind: 'video', upstreamTaskId: 'cgt-gone', account: 'default' } as const;

test('a job the platform no longer knows fails the task: upstream_lost, final, naming the job', async () => {
  const f = await pollFailure({ ...input, submittedAt: Date.now() - GRACE_MS - 1_000 });
  expect({ type: f.type, nonRetryable: f.nonRetryable }).toEqual({ type: 'upstream_lost', nonRetryable: true });
  expect(f.message).toContain('cgt-gone');
});

test('without a submit time (a continued run: its job is long past the grace), not found is final at once', async () => {
  const f = await pollFailure(input);
  expect({ type: f.type, nonRetryable: f.nonRetryable }).toEqual({ type: 'upstream_lost', nonRetryable: true });
});

test('within the grace after its submit, not found is retried: the job may not be visible yet', async () => {
  const f = await pollFailure({ ...input, submittedAt: Date.now() - 5_000 });
  expect({ type: f.type, nonRetryable: f.nonRetryable }).toEqual({ type: 'upstream_unavailable', nonRetryable: false });
  expect(f.message).toMatch(/submitted \d+ s ago/);
});

test('other poll answers pass through untouched', async () => {
  const running = activities(async () => ({ state: 'running', progress: 40 }));
  await expect(new MockActivityEnvironment().run(running.pollGeneration, { ...input, submittedAt: Date.now() })).resolves.toEqual({
    state: 'running',
    progress: 40,
  });
});
