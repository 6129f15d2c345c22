/**
 * How the generation workflow reads an activity's error (workflows/generation/failures.ts): a poll's budget that ran
 * out is transient (the workflow backs off and polls again), a final classification is not; a timeout at the deadline
 * and the last error behind it; a job the platform no longer knows.
 */
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { isActivityTimeout, isTransientPollFailure, isUpstreamLost, lastFailureMessage } from '../../../../workflows/generation/failures';

const activity = (cause: Error, retryState: ConstructorParameters<typeof ActivityFailure>[3] = 'MAXIMUM_ATTEMPTS_REACHED') =>
  new ActivityFailure('activity failed', 'pollGeneration', '1', retryState, 'worker', cause);
const timeout = (cause?: Error) => {
  const t = new TimeoutFailure('timed out', undefined, 'SCHEDULE_TO_CLOSE');
  if (cause) (t as { cause?: Error }).cause = cause;
  return t;
};

test('a poll whose budget ran out is transient; a final classification is not', () => {
  expect(isTransientPollFailure(timeout())).toBe(true);
  expect(isTransientPollFailure(ApplicationFailure.retryable('network', 'upstream_unavailable'))).toBe(true);
  expect(isTransientPollFailure(ApplicationFailure.retryable('socket hang up', 'Error'))).toBe(true);
  expect(isTransientPollFailure(activity(timeout(ApplicationFailure.retryable('503', 'upstream_unavailable'))))).toBe(true);
  expect(isTransientPollFailure(ApplicationFailure.nonRetryable('gone', 'upstream_lost'))).toBe(false);
  expect(isTransientPollFailure(ApplicationFailure.retryable('refused', 'content_policy'))).toBe(false);
  expect(isTransientPollFailure(new Error('a bug'))).toBe(false);
});

test('a job the platform no longer knows, told apart whether or not wrapped', () => {
  const lost = ApplicationFailure.nonRetryable('gone', 'upstream_lost');
  expect([isUpstreamLost(lost), isUpstreamLost(activity(lost))]).toEqual([true, true]);
  expect(isUpstreamLost(ApplicationFailure.nonRetryable('failed', 'upstream_failed'))).toBe(false);
});

test("the deadline ran out inside an activity, with the last attempt's error as the reason", () => {
  const last = ApplicationFailure.retryable('502 Bad Gateway', 'upstream_unavailable');
  expect(isActivityTimeout(activity(last, 'TIMEOUT'))).toBe(true);
  expect(isActivityTimeout(activity(timeout(last)))).toBe(true);
  expect(isActivityTimeout(activity(last))).toBe(false);
  expect(isActivityTimeout(timeout())).toBe(false);
  expect(lastFailureMessage(activity(timeout(last)))).toBe('502 Bad Gateway');
  expect(lastFailureMessage(activity(last, 'TIMEOUT'))).toBe('502 Bad Gateway');
  expect(lastFailureMessage(last)).toBeUndefined();
});
