/**
 * platforms/t/replies.ts: task details → statuses (with the transient failures that are submitted again), and the
 * classification of T's error codes and of replies that are not T envelopes.
 */
import { classifyTError, fromTTaskDetail, readTResponse, type TTaskDetail } from '../../../../platforms/t/replies';

describe('fromTTaskDetail', () => {
  const video = (task: Record<string, unknown>, Status: string): TTaskDetail => ({ Status, AigcVideoTask: { TaskId: 't', ...task } });

  test.each([
    ['WAITING', {}, { state: 'pending' }],
    ['PROCESSING', { Progress: 40 }, { state: 'running', progress: 40 }],
    ['PROCESSING', {}, { state: 'running' }],
  ] as const)('%s %j', (status, task, expected) => {
    expect(fromTTaskDetail('video', video(task, status))).toEqual(expected);
  });

  test('FINISH with ErrCode 0 and an empty ErrCodeExt is a success with every output file', () => {
    const detail: TTaskDetail = {
      Status: 'FINISH',
      AigcImageTask: {
        ErrCode: 0,
        ErrCodeExt: '',
        Progress: 100,
        Output: {
          FileInfos: [{ FileUrl: 'https://cdn.test/a.png', ExpireTime: '2026-01-08T00:00:00Z' }, { FileUrl: 'https://cdn.test/b.png' }],
        },
      },
    };
    expect(fromTTaskDetail('image', detail)).toEqual({
      state: 'success',
      progress: 100,
      outputs: [{ url: 'https://cdn.test/a.png' }, { url: 'https://cdn.test/b.png' }],
    });
  });

  test.each([
    [
      { ErrCode: 40000, ErrCodeExt: 'InvalidParameter.VoilationContent', Message: 'bad words' },
      { reason: 'content_policy', message: 'bad words', code: 'InvalidParameter.VoilationContent' },
    ],
    [
      { ErrCode: 40000, ErrCodeExt: 'ContentModerationFailed', Message: 'sensitive' },
      { reason: 'content_policy', message: 'sensitive', code: 'ContentModerationFailed' },
    ],
    [
      { ErrCode: 40000, ErrCodeExt: 'InvalidParameterValue', Message: 'bad value' },
      { reason: 'invalid_request', message: 'bad value', code: 'InvalidParameterValue' },
    ],
    [
      { ErrCode: 70000, ErrCodeExt: 'InternalError', Message: 'model failed' },
      { reason: 'upstream_failed', message: 'model failed', code: 'InternalError' },
    ],
    [
      { ErrCode: 70000, Message: '' },
      { reason: 'upstream_failed', message: 'Generation failed (70000)', code: '70000' },
    ],
    // The account's concurrency and a model backlog: transient, the job is submitted again.
    [
      { ErrCode: 70000, ErrCodeExt: 'RequestLimitExceeded', Message: 'over the limit' },
      { reason: 'upstream_unavailable', message: 'over the limit', code: 'RequestLimitExceeded', resubmit: true, overCapacity: true },
    ],
    [
      { ErrCode: 70000, ErrCodeExt: 'FailedOperation', Message: 'backlog' },
      { reason: 'upstream_unavailable', message: 'backlog', code: 'FailedOperation', resubmit: true },
    ],
    [
      { ErrCode: 70000, ErrCodeExt: 'FailedOperation.InsufficientBalance', Message: 'pay up' },
      { reason: 'insufficient_balance', message: 'pay up', code: 'FailedOperation.InsufficientBalance' },
    ],
  ])('FINISH with a failure code is a failure: %j', (task, failure) => {
    expect(fromTTaskDetail('video', video(task, 'FINISH'))).toEqual({ state: 'failed', failure });
  });

  test('FINISH without files, and ABORTED, are failures', () => {
    expect(fromTTaskDetail('video', video({ ErrCode: 0, Output: { FileInfos: [] } }, 'FINISH'))).toMatchObject({
      state: 'failed',
      failure: { reason: 'upstream_failed' },
    });
    expect(fromTTaskDetail('video', video({ ErrCodeExt: 'OperationCanceled' }, 'ABORTED'))).toMatchObject({
      state: 'failed',
      failure: { reason: 'upstream_failed', code: 'OperationCanceled' },
    });
  });

  test('an unknown status is retried, not trusted', () => {
    expect(() => fromTTaskDetail('video', video({}, 'EXPLODED'))).toThrow(expect.objectContaining({ retryable: true }));
  });
});

describe('error classification', () => {
  test.each([
    ['RequestLimitExceeded', true, 'upstream_unavailable'],
    ['RequestLimitExceeded.UinLimitExceeded', true, 'upstream_unavailable'],
    ['InternalError', true, 'upstream_unavailable'],
    ['AuthFailure.SignatureFailure', false, 'upstream_auth'],
    ['UnauthorizedOperation', false, 'upstream_auth'],
    ['InvalidParameter', false, 'invalid_request'],
    ['InvalidParameterValue.SessionId', false, 'invalid_request'],
    ['UnknownParameter', false, 'invalid_request'],
    ['MissingParameter', false, 'invalid_request'],
    ['InvalidParameter.VoilationContent', false, 'content_policy'],
    ['FailedOperation.InsufficientBalance', false, 'insufficient_balance'],
    ['ResourceUnavailable.InArrears', false, 'insufficient_balance'],
    ['ResourceNotFound.TaskNotExist', false, 'upstream_failed'],
  ])('%s → retryable %s, %s', (code, isRetryable, reason) => {
    const e = classifyTError(code, 'msg');
    expect(e.retryable).toBe(isRetryable);
    expect(e.opts).toMatchObject({ reason, code });
  });

  test('replies that are not T envelopes', () => {
    const r = (status: number, body: unknown) => readTResponse({ status, body });
    expect(r(200, { Response: { TaskId: 't', RequestId: 'r' } })).toEqual({ TaskId: 't', RequestId: 'r' });
    expect(r(502, undefined)).toMatchObject({ retryable: true, opts: { httpStatus: 502 } });
    expect(r(404, undefined)).toMatchObject({ retryable: false, opts: { reason: 'upstream_failed' } });
    expect(r(200, { unexpected: true })).toMatchObject({ retryable: true });
  });
});
