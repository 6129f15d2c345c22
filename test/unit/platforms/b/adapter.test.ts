/**
 * platforms/b/adapter.ts: the calls it makes, against a fake HTTP client: signed creates (and /v3 with an API key),
 * replies without a task id, and a poll for a job B no longer knows.
 */
import { createPlatformB } from '../../../../platforms/b/adapter';
import { bceAuthorization } from '../../../../platforms/b/signing';
import { SIM_ACCOUNTS } from '../../../../sim/accounts';
import { fakeHttp, validated } from '../../../support/platform-kit';
import { ctx, IMG, NOW, SETTINGS } from '../../../support/platforms/b';

describe('adapter calls', () => {
  test('submit: signed host;x-bce-date with the port in the host, JSON body, the task id back; no cancel', async () => {
    const http = fakeHttp(() => ({ status: 200, body: { taskId: 'tsk-faikc9dmw8m8saic' } }));
    const adapter = createPlatformB(SETTINGS, { http, now: () => NOW });
    const { entry, request } = validated('video', { model: 'VQ2', action: 'text_to_video', prompt: 'p', duration: 5 });
    expect(await adapter.submit(entry, request, ctx('k1'))).toEqual({ upstreamTaskId: 'tsk-faikc9dmw8m8saic' });
    const [call] = http.calls;
    expect(call).toMatchObject({ method: 'POST', url: 'http://127.0.0.1:8090/v2/aigc/text_to_video' });
    expect(JSON.parse(call!.body!)).toEqual({ model: 'VQ2', modelVQ2TaskInput: { movementAmplitude: 'auto', prompt: 'p', duration: 5 } });
    const h = call!.headers!;
    expect(h).toMatchObject({
      host: '127.0.0.1:8090',
      'content-type': 'application/json',
      'x-bce-date': '2026-11-22T09:30:05Z',
      'x-bce-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(h.authorization).toBe(
      bceAuthorization(
        { method: 'POST', path: '/v2/aigc/text_to_video', headers: { host: '127.0.0.1:8090', 'x-bce-date': '2026-11-22T09:30:05Z' } },
        SETTINGS,
        { timestamp: '2026-11-22T09:30:05Z' },
      ),
    );
    expect(adapter.cancel).toBeUndefined();
  });

  test('with an API key, text-to-video goes to /v3 with Bearer; image-to-video, images and polls stay on signed /v2', async () => {
    const http = fakeHttp((c) =>
      c.method === 'POST'
        ? { status: 200, body: { taskId: 'tsk-1' } }
        : { status: 200, body: { taskId: 'tsk-1', status: 'RUNNING', videoGenerateTaskInfo: { status: 'running' } } },
    );
    const adapter = createPlatformB(
      { ...SETTINGS, endpoint: 'https://vod.bj.baidubce.com', apiKey: SIM_ACCOUNTS.B.apiKey },
      { http, now: () => NOW },
    );
    const t2v = validated('video', { model: 'K20', action: 'text_to_video', prompt: 'p', duration: 5 });
    const i2v = validated('video', { model: 'K20', image_url: IMG, duration: 5 });
    const img = validated('image', { model: 'NB', prompt: 'p' });
    await adapter.submit(t2v.entry, t2v.request, ctx('a'));
    await adapter.submit(i2v.entry, i2v.request, ctx('b'));
    await adapter.submit(img.entry, img.request, ctx('c'));
    expect(await adapter.poll('video', 'tsk-1')).toEqual({ state: 'running' });
    expect(http.calls.map((c) => [c.url, c.headers!.authorization!.split('/')[0], c.headers!.host])).toEqual([
      ['https://vod.bj.baidubce.com/v3/aigc/text_to_video', 'Bearer bce-v3', 'vod.bj.baidubce.com'],
      ['https://vod.bj.baidubce.com/v2/aigc/image_to_video', 'bce-auth-v1', 'vod.bj.baidubce.com'],
      ['https://vod.bj.baidubce.com/v2/aigc/image', 'bce-auth-v1', 'vod.bj.baidubce.com'],
      ['https://vod.bj.baidubce.com/v2/tasks/tsk-1', 'bce-auth-v1', 'vod.bj.baidubce.com'],
    ]);
    expect(http.calls[0]!.headers!.authorization).toBe(`Bearer ${SIM_ACCOUNTS.B.apiKey}`);
  });

  test('a 2xx without a task id is retryable (findSubmitted will look for the job); an error answer is classified', async () => {
    const { entry, request } = validated('image', { model: 'NB', prompt: 'p' });
    const empty = createPlatformB(SETTINGS, { http: fakeHttp(() => ({ status: 200, body: {} })), now: () => NOW });
    await expect(empty.submit(entry, request, ctx('k'))).rejects.toMatchObject({ retryable: true, opts: { code: 'MALFORMED_REPLY' } });
    const denied = createPlatformB(SETTINGS, {
      http: fakeHttp(() => ({ status: 403, body: { requestId: 'r', code: 'QualifyNotPass', message: 'The User has not pass qualify.' } })),
      now: () => NOW,
    });
    await expect(denied.submit(entry, request, ctx('k'))).rejects.toMatchObject({
      retryable: false,
      opts: { reason: 'upstream_auth', code: 'QualifyNotPass' },
    });
  });

  test('a poll answered 404 means B no longer knows the job (upstream_lost); InvalidVersion names our URI, not the job', async () => {
    const answering = (code: string) =>
      createPlatformB(SETTINGS, {
        http: fakeHttp(() => ({ status: 404, body: { requestId: 'r', code, message: 'not found' } })),
        now: () => NOW,
      });
    await expect(answering('TaskNotFound').poll('video', 'tsk-old')).rejects.toMatchObject({
      retryable: false,
      message: expect.stringContaining('no longer knows job tsk-old'),
      opts: { reason: 'upstream_lost', code: 'TaskNotFound', httpStatus: 404 },
    });
    await expect(answering('InvalidVersion').poll('video', 'tsk-old')).rejects.toMatchObject({
      retryable: false,
      opts: { reason: 'upstream_failed', code: 'InvalidVersion' },
    });
    // A create answered 404 is an endpoint B does not have: never "lost".
    const { entry, request } = validated('image', { model: 'NB', prompt: 'p' });
    await expect(answering('NotFound').submit(entry, request, ctx('k'))).rejects.toMatchObject({
      retryable: false,
      opts: { reason: 'upstream_failed' },
    });
  });
});
