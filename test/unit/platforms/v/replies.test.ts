/**
 * platforms/v/replies.ts: task statuses (incl. `expired`) and error classification (Ark's 429 table: throttling,
 * quota, spend cap; money and account 403s; ClosedEndpoint, Retry-After).
 */
import { classifyVError, fromVTask } from '../../../../platforms/v/replies';

describe('fromVTask', () => {
  test.each([
    ['queued', { state: 'pending' }],
    ['running', { state: 'running' }],
  ] as const)('%s', (status, expected) => {
    expect(fromVTask({ id: 'cgt-1', status })).toEqual(expected);
  });

  test('succeeded carries the URL, the raw extras and the billed tokens (usage.completion_tokens) as the usage', () => {
    const s = fromVTask({
      id: 'cgt-1',
      status: 'succeeded',
      content: { video_url: 'https://cdn.test/v.mp4' },
      usage: { completion_tokens: 10, total_tokens: 12 },
      duration: 5,
      ratio: '16:9',
    });
    expect(s).toEqual({
      state: 'success',
      outputs: [{ url: 'https://cdn.test/v.mp4' }],
      extras: { video_url: 'https://cdn.test/v.mp4', duration: 5, ratio: '16:9', usage: { completion_tokens: 10, total_tokens: 12 } },
      usage: { tokens: 10 },
    });
  });

  test('succeeded without usage reports none (the cost then follows the request)', () => {
    expect(fromVTask({ id: 'cgt-1', status: 'succeeded', content: { video_url: 'https://cdn.test/v.mp4' } }).usage).toBeUndefined();
  });

  test.each([
    ['OutputVideoSensitiveContentDetected', 'content_policy'],
    ['InputTextSensitiveContentDetected', 'content_policy'],
    ['InvalidParameter', 'invalid_request'],
    ['InternalServiceError', 'upstream_failed'],
  ])('failed with %s → %s', (code, reason) => {
    expect(fromVTask({ id: 'cgt-1', status: 'failed', error: { code, message: 'm' } })).toEqual({
      state: 'failed',
      failure: { reason, message: 'm', code },
    });
  });

  test('expired is a final failure of its own reason, saying the deadline passed, never retried as an unknown state', () => {
    const s = fromVTask({ id: 'cgt-1', status: 'expired' });
    expect(s).toEqual({
      state: 'failed',
      failure: { reason: 'expired', code: 'expired', message: expect.stringMatching(/deadline passed/) },
    });
    expect(s.failure!.resubmit).toBeUndefined();
  });

  test('cancelled upstream is a failure; an unknown status is retried', () => {
    expect(fromVTask({ id: 'cgt-1', status: 'cancelled' }).state).toBe('failed');
    expect(() => fromVTask({ id: 'cgt-1', status: 'exploded' as never })).toThrow(expect.objectContaining({ retryable: true }));
  });
});

describe('classifyVError', () => {
  const reply = (status: number, code: string | undefined, headers: Record<string, string> = {}) => ({
    status,
    headers,
    body: code ? { error: { code, message: 'm' } } : undefined,
  });
  test.each([
    [400, 'InvalidParameter', false, 'invalid_request'],
    [400, 'InputTextSensitiveContentDetected', false, 'content_policy'],
    // "temporarily unavailable, retry later".
    [400, 'InvalidEndpoint.ClosedEndpoint', true, 'upstream_unavailable'],
    [401, 'AuthenticationError', false, 'upstream_auth'],
    [403, 'AccessDenied', false, 'upstream_auth'],
    [403, 'AccountOverdueError', false, 'insufficient_balance'],
    [404, 'InvalidEndpointOrModel.NotFound', false, 'upstream_auth'],
    [404, 'ModelNotOpen', false, 'upstream_auth'],
    [408, 'RequestTimeout', true, 'upstream_unavailable'],
    [403, 'OperationDenied.ServiceOverdue', false, 'insufficient_balance'],
    // A closed or frozen account: the operator must act, but it is not money.
    [403, 'InvalidAccountStatus', false, 'upstream_auth'],
    // The whole code decides, not a part of it.
    [403, 'NotAccountOverdueError', false, 'upstream_auth'],
    [500, 'InternalServiceError', true, 'upstream_unavailable'],
    [503, 'ServiceUnavailable', true, 'upstream_unavailable'],
  ])('%i %s → retryable %s, %s', (status, code, isRetryable, reason) => {
    const e = classifyVError(reply(status, code));
    expect(e.retryable).toBe(isRetryable);
    expect(e.opts).toMatchObject({ reason, code });
  });

  // Every 429 code of Ark's table (docs/platforms/v.md#errors).
  describe.each([
    'RateLimitExceeded.EndpointRPMExceeded',
    'RateLimitExceeded.EndpointTPMExceeded',
    'RateLimitExceeded.EndpointFlexTPMExceeded',
    'ModelAccountRpmRateLimitExceeded',
    'ModelAccountTpmRateLimitExceeded',
    'ModelAccountIpmRateLimitExceeded',
    'APIAccountRpmRateLimitExceeded',
    'AccountRateLimitExceeded',
    'RequestBurstTooFast',
    'ServerOverloaded',
    'InflightBatchsizeExceeded',
  ])('429 %s', (code) => {
    test('is throttling: retried, no operator notice, Retry-After kept', () => {
      const e = classifyVError(reply(429, code, { 'retry-after': '3' }));
      expect(e.retryable).toBe(true);
      expect(e.opts).toMatchObject({ reason: 'upstream_unavailable', code, httpStatus: 429, retryAfterMs: 3000 });
      expect(e.opts.operatorNotice).toBeUndefined();
    });
  });

  // Not in the table: an unknown 429 code is throttling too (prefixes of known codes decide nothing), and the
  // operator hears of it (a notice, once per code), so the table can learn it.
  test.each(['SomeFutureRateLimitCode', 'SetLimitExceededSoon', 'QuotaExceeded.Daily'])(
    '429 %s (not in the table) is throttling, with an operator notice',
    (code) => {
      const e = classifyVError(reply(429, code, { 'retry-after': '3' }));
      expect(e.retryable).toBe(true);
      expect(e.opts).toMatchObject({ reason: 'upstream_unavailable', code, httpStatus: 429, retryAfterMs: 3000, operatorNotice: true });
    },
  );

  test('429 QuotaExceeded is retried (after Retry-After when sent) and tells the operator, never as money', () => {
    const e = classifyVError(reply(429, 'QuotaExceeded', { 'retry-after': '60' }));
    expect(e.retryable).toBe(true);
    expect(e.opts).toMatchObject({ reason: 'upstream_unavailable', code: 'QuotaExceeded', retryAfterMs: 60_000, operatorNotice: true });
  });

  test("429 SetLimitExceeded (the account's own spend cap, only the operator lifts it) is a final refusal as money (the account leaves the rotation)", () => {
    const e = classifyVError(reply(429, 'SetLimitExceeded'));
    expect(e.retryable).toBe(false);
    expect(e.opts).toMatchObject({ reason: 'insufficient_balance', code: 'SetLimitExceeded', httpStatus: 429 });
  });

  test('a 429 without a code (a proxy in between) is a rate limit; Retry-After is honoured', () => {
    expect(classifyVError(reply(429, undefined))).toMatchObject({ retryable: true, opts: { code: 'HTTP_429' } });
    expect(classifyVError(reply(429, 'RateLimitExceeded', { 'retry-after': '7' })).opts.retryAfterMs).toBe(7000);
  });
});
