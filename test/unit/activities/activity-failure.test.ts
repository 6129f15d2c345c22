/**
 * activities/activity-failure.ts: what Temporal sees of an adapter's error — its type, whether it is retried, and
 * the platform's Retry-After as the next retry's delay, bounded.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { RETRY_AFTER_MAX_MS, RETRY_AFTER_MIN_MS, toActivityFailure } from '../../../activities/activity-failure';
import { final, retryable } from '../../../platforms/upstream-error';
import { classifyVError } from '../../../platforms/v/replies';

const asFailure = (err: unknown) => toActivityFailure(err) as ApplicationFailure;

test("a throttled create's Retry-After becomes the next attempt's delay (Temporal uses it instead of the backoff)", () => {
  const throttled = classifyVError({
    status: 429,
    headers: { 'retry-after': '4' },
    body: { error: { code: 'RequestBurstTooFast', message: 'm' } },
  });
  const f = asFailure(throttled);
  expect(f).toMatchObject({
    type: 'upstream_unavailable',
    nonRetryable: false,
    nextRetryDelay: 4_000,
    details: [{ code: 'RequestBurstTooFast' }],
  });
});

test('Retry-After is bounded: never sooner than a second, never later than 5 minutes; absent → the policy backoff', () => {
  expect(asFailure(retryable('m', 'c', { retryAfterMs: 0 })).nextRetryDelay).toBe(RETRY_AFTER_MIN_MS);
  expect(asFailure(retryable('m', 'c', { retryAfterMs: 3 * 3600_000 })).nextRetryDelay).toBe(RETRY_AFTER_MAX_MS);
  expect(asFailure(retryable('m', 'c')).nextRetryDelay).toBeUndefined();
});

test('a final error is typed by its reason and never retried', () => {
  expect(asFailure(final('insufficient_balance', 'cap', 'SetLimitExceeded'))).toMatchObject({
    type: 'insufficient_balance',
    nonRetryable: true,
  });
});
