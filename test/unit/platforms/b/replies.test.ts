/**
 * platforms/b/replies.ts: task details → statuses, and the classification of B's error answers.
 */
import { fromBTaskDetail, classifyBError } from '../../../../platforms/b/replies';
import { UpstreamError } from '../../../../platforms/upstream-error';

describe('task detail → status', () => {
  const detail = (status: string, inner: string, extra: Record<string, unknown> = {}, urls: string[] = []) => ({
    taskId: 'tsk-aaaaaaaaaaaaaaaa',
    type: 'VIDEO_GENERATE',
    status,
    createTime: '2025-01-09T02:04:53Z',
    videoGenerateTaskInfo: {
      status: inner,
      videoGenerateTaskInput: { type: '文生视频', textToVideoRequest: { model: 'VQ2' } },
      ...(urls.length > 0
        ? {
            videoGenerateTaskOutput: {
              mediaBasicInfos: urls.map((u, i) => ({ mediaId: `mda-${i}`, source: { sourceType: 'GENERATE', sourceUrl: u } })),
            },
          }
        : {}),
      ...extra,
    },
  });
  test.each<[string, unknown, unknown]>([
    ['PENDING', detail('PENDING', 'pending'), { state: 'pending' }],
    ['RUNNING: no progress figure is invented', detail('RUNNING', 'running'), { state: 'running' }],
    ['an unknown top status reads as running', detail('PROCESSING', ''), { state: 'running' }],
    [
      'SUCCESS, one video',
      detail('SUCCESS', 'success', {}, ['https://v/a.mp4']),
      { state: 'success', outputs: [{ url: 'https://v/a.mp4' }] },
    ],
    ['FINISHED', detail('FINISHED', 'success', {}, ['https://v/a.mp4']), { state: 'success', outputs: [{ url: 'https://v/a.mp4' }] }],
    [
      'n images, in order',
      detail('SUCCESS', 'success', {}, ['https://i/0.png', 'https://i/1.png', 'https://i/2.png']),
      { state: 'success', outputs: [{ url: 'https://i/0.png' }, { url: 'https://i/1.png' }, { url: 'https://i/2.png' }] },
    ],
    [
      'inner "succeeded" with media before the top flips (3P)',
      detail('RUNNING', 'succeeded', {}, ['https://v/a.mp4']),
      { state: 'success', outputs: [{ url: 'https://v/a.mp4' }] },
    ],
    ['inner "succeeded" without media: still running', detail('RUNNING', 'succeeded'), { state: 'running' }],
    ['SUCCESS without any link: still running (the deadline decides)', detail('SUCCESS', 'success'), { state: 'running' }],
    [
      'FAILED with errMsg',
      detail('FAILED', 'failed', { errMsg: 'Video generation failed: the model returned no result.' }),
      {
        state: 'failed',
        failure: { reason: 'upstream_failed', message: 'Video generation failed: the model returned no result.', code: 'FAILED' },
      },
    ],
    [
      'inner failed first, moderation',
      detail('RUNNING', 'failed', { errMsg: 'Content moderation failed: the input violates the content security policy.' }),
      {
        state: 'failed',
        failure: {
          reason: 'content_policy',
          message: 'Content moderation failed: the input violates the content security policy.',
          code: 'RUNNING',
        },
      },
    ],
    [
      'a Chinese moderation message',
      detail('FAILED', 'failed', { errMsg: '输入内容审核不通过' }),
      { state: 'failed', failure: expect.objectContaining({ reason: 'content_policy' }) },
    ],
    [
      'Veo’s "Internal error. Please try again later.": a new job is worth it (not billed)',
      detail('FAILED', 'failed', { errMsg: 'Internal error. Please try again later.' }),
      {
        state: 'failed',
        failure: { reason: 'upstream_unavailable', resubmit: true, message: 'Internal error. Please try again later.', code: 'FAILED' },
      },
    ],
    [
      'CANCELLED',
      detail('CANCELLED', 'cancelled'),
      { state: 'failed', failure: expect.objectContaining({ reason: 'upstream_failed', code: 'CANCELLED' }) },
    ],
  ])('%s', (_name, d, expected) => {
    expect(fromBTaskDetail(d)).toEqual(expected);
  });

  test("the usage B reports: its videos' seconds (sourceMetadata.durationInSecond), else the number of images", () => {
    const withMedia = (infos: Record<string, unknown>[]) => ({
      taskId: 'tsk-aaaaaaaaaaaaaaaa',
      status: 'SUCCESS',
      videoGenerateTaskInfo: {
        status: 'success',
        videoGenerateTaskOutput: { mediaBasicInfos: infos.map((m, i) => ({ source: { sourceUrl: `https://v/${i}` }, ...m })) },
      },
    });
    expect(
      fromBTaskDetail(withMedia([{ mediaType: 'video', sourceMetadata: { durationInSecond: 8, video: { widthInPixel: 1920 } } }])).usage,
    ).toEqual({ seconds: 8 });
    expect(fromBTaskDetail(withMedia([{ mediaType: 'image' }, { mediaType: 'image' }])).usage).toEqual({ images: 2 });
    expect(fromBTaskDetail(withMedia([{ mediaType: 'video' }])).usage).toBeUndefined();
  });

  test('an answer without a task is a retryable malformed reply', () => {
    expect(() => fromBTaskDetail({ code: 'x' })).toThrow(UpstreamError);
    expect(() => fromBTaskDetail('<html>')).toThrow(expect.objectContaining({ retryable: true }));
  });
});

describe('error classification', () => {
  const res = (status: number, code: string, message = 'm', headers: Record<string, string> = {}) => ({
    status,
    headers,
    body: { requestId: 'req-1', code, message },
  });
  test.each<[string, ReturnType<typeof res>, boolean, string]>([
    ['InvalidAccessKeyId', res(403, 'InvalidAccessKeyId'), false, 'upstream_auth'],
    ['SignatureDoesNotMatch', res(400, 'SignatureDoesNotMatch'), false, 'upstream_auth'],
    ['AccessDenied', res(403, 'AccessDenied'), false, 'upstream_auth'],
    ['QualifyNotPass (no real-name verification)', res(403, 'QualifyNotPass', 'The User has not pass qualify.'), false, 'upstream_auth'],
    ['OptInRequired', res(403, 'OptInRequired'), false, 'upstream_auth'],
    ['InvalidHTTPAuthHeader', res(400, 'InvalidHTTPAuthHeader'), false, 'upstream_auth'],
    ['a v3 API key refused', res(401, 'InvalidAccessKeyId'), false, 'upstream_auth'],
    ['an account in arrears [GUESS]', res(403, 'AccessDenied', 'The account is in arrears'), false, 'insufficient_balance'],
    ['InternalError', res(500, 'InternalError'), true, 'upstream_unavailable'],
    [
      'Veo throttling, whatever the code',
      res(500, 'InternalError', 'Internal error. Please try again later.'),
      true,
      'upstream_unavailable',
    ],
    ['Veo throttling as a 400', res(400, 'SomethingElse', 'Internal error. Please try again later.'), true, 'upstream_unavailable'],
    [
      'RequestExpired: re-signed on retry',
      res(400, 'RequestExpired', 'Request has expired. Timestamp date is 2024-03-24T13:08:44Z'),
      true,
      'upstream_unavailable',
    ],
    ['429', res(429, 'TooManyRequests'), true, 'upstream_unavailable'],
    ['503', res(503, 'ServiceUnavailable'), true, 'upstream_unavailable'],
    ['InappropriateJSON', res(400, 'InappropriateJSON'), false, 'invalid_request'],
    ['MalformedJSON', res(400, 'MalformedJSON'), false, 'invalid_request'],
    ['a refusal that says moderation', res(400, 'InvalidParameter', 'prompt failed content moderation'), false, 'content_policy'],
    ['a 404 (the poll decides whether it names the task: isUnknownTask)', res(404, 'TaskNotFound'), false, 'upstream_failed'],
    ['an unknown endpoint', res(404, 'NotFound'), false, 'upstream_failed'],
  ])('%s', (_name, r, isRetryable, reason) => {
    const err = classifyBError(r);
    expect({ retryable: err.retryable, reason: err.opts.reason, code: err.opts.code }).toEqual({
      retryable: isRetryable,
      reason,
      code: r.body.code,
    });
    expect(err.message).toContain('request req-1');
  });

  test('Retry-After is honoured; a body that is not B’s shape is classified by status', () => {
    expect(classifyBError(res(429, 'TooManyRequests', 'slow down', { 'retry-after': '7' })).opts.retryAfterMs).toBe(7000);
    const proxy = classifyBError({ status: 502, headers: { 'x-bce-request-id': 'hdr-9' }, body: undefined });
    expect({ retryable: proxy.retryable, code: proxy.opts.code, message: proxy.message }).toEqual({
      retryable: true,
      code: 'HTTP_502',
      message: expect.stringContaining('request hdr-9'),
    });
  });
});
