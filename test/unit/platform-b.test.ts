/**
 * Platform B adapter: golden bodies from spec requests (run through the gateway's own validation, so the input
 * is exactly what the adapter receives), status mapping, error classification, and the calls it makes. Every
 * golden body must also pass the simulator's strict validation: adapter and simulator follow one protocol.
 */
import { defaultCatalogue } from '../../core/catalogue';
import type { Platform } from '../../core/platforms';
import { imageRequestSchema, videoRequestSchema, type GenerationRequest } from '../../core/schemas';
import { validateGeneration } from '../../core/validation';
import { classifyBError, createPlatformB, fromBTask, toBImageBody, toBVideoBody, type BTask } from '../../activities/platform-b';
import type { HttpClient, HttpResponse } from '../../activities/http';
import { UpstreamError } from '../../activities/errors';
import { validateBImage, validateBVideo } from '../../sim/b';

const ENABLED = new Set<Platform>(['T', 'B', 'V']);
const IMG = 'https://x.test/first.png';

function validated(kind: 'video' | 'image', body: Record<string, unknown>) {
  const parsed = kind === 'video' ? videoRequestSchema.parse(body) : imageRequestSchema.parse(body);
  return validateGeneration(defaultCatalogue, ENABLED, kind, parsed);
}

describe('toBVideoBody: one text-to-video and one image-to-video case per series', () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'V series, text-to-video with audio and bgm',
      { model: 'VQ2P', action: 'text_to_video', prompt: 'a lighthouse at dusk', duration: 7, resolution: '1080p', audio: 'true', bgm: 'false' },
      { model: 'VQ2P', action: 'text_to_video', prompt: 'a lighthouse at dusk', duration: 7, resolution: '1080P', audio: 'true', bgm: 'false' },
    ],
    [
      'V series, image-to-video by default (no action), from the B `image` field',
      { model: 'V20', prompt: 'slow zoom', image: { imageUrl: IMG }, duration: 4, resolution: '540P' },
      { model: 'V20', action: 'image_to_video', prompt: 'slow zoom', duration: 4, resolution: '540p', image: { imageUrl: IMG } },
    ],
    [
      'P series, text-to-video',
      { model: 'P45', action: 'text_to_video', prompt: 'paper boats', duration: 8 },
      { model: 'P45', action: 'text_to_video', prompt: 'paper boats', duration: 8 },
    ],
    [
      'P series, image-to-video from the general image_url, without a prompt',
      { model: 'P50', action: 'image_to_video', image_url: IMG, duration: 5, resolution: '720P' },
      { model: 'P50', action: 'image_to_video', prompt: '', duration: 5, resolution: '720p', image: { imageUrl: IMG } },
    ],
    [
      'K series, text-to-video',
      { model: 'K21', action: 'text_to_video', prompt: 'a fox runs', duration: 10, resolution: '720p' },
      { model: 'K21', action: 'text_to_video', prompt: 'a fox runs', duration: 10, resolution: '720p' },
    ],
    [
      'K series, image-to-video with image and image_url agreeing',
      { model: 'K21M', prompt: 'wind', image: { imageUrl: IMG }, image_url: IMG, duration: 5, audio: 'false' },
      { model: 'K21M', action: 'image_to_video', prompt: 'wind', duration: 5, image: { imageUrl: IMG }, audio: 'false' },
    ],
    [
      'H series, text-to-video with upper-case resolution',
      { model: 'H23', action: 'text_to_video', prompt: 'rain on glass', duration: 6, resolution: '768p' },
      { model: 'H23', action: 'text_to_video', prompt: 'rain on glass', duration: 6, resolution: '768P' },
    ],
    [
      'H series, image-to-video',
      { model: 'H23F', image: { imageUrl: IMG }, prompt: 'pan left', duration: 10 },
      { model: 'H23F', action: 'image_to_video', prompt: 'pan left', duration: 10, image: { imageUrl: IMG } },
    ],
    [
      'VE series, text-to-video (model code with a dot)',
      { model: 'VE3.1F', action: 'text_to_video', prompt: 'city timelapse', duration: 8, resolution: '1080P', bgm: 'true' },
      { model: 'VE3.1F', action: 'text_to_video', prompt: 'city timelapse', duration: 8, resolution: '1080P', bgm: 'true' },
    ],
    [
      'VE series, image-to-video',
      { model: 'VE3.1P', image: { imageUrl: IMG }, prompt: 'smile', duration: 4, resolution: '720P' },
      { model: 'VE3.1P', action: 'image_to_video', prompt: 'smile', duration: 4, resolution: '720p', image: { imageUrl: IMG } },
    ],
  ];

  test.each(cases)('%s', (_name, spec, expected) => {
    const { entry, request } = validated('video', spec);
    const body = toBVideoBody(entry, request as Extract<GenerationRequest, { kind: 'video' }>);
    expect(body).toEqual(expected);
    expect(validateBVideo(JSON.parse(JSON.stringify(body))).id).toBe(spec.model);
  });
});

describe('toBImageBody', () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ['prompt only', { model: 'NB', prompt: 'a teapot' }, { model: 'NB', prompt: 'a teapot' }],
    [
      'negative prompt, pixel size → ratio, standard → 1K',
      { model: 'NBP', prompt: 'a teapot', negative_prompt: 'text', size: '1792x1024', quality: 'standard' },
      { model: 'NBP', prompt: 'a teapot', negativePrompt: 'text', aspectRatio: '16:9', quality: '1K' },
    ],
    [
      'n images, quality 2K passes, ratio size passes',
      { model: 'NB2', prompt: 'three cats', n: 3, quality: '2K', size: '9:16' },
      { model: 'NB2', prompt: 'three cats', aspectRatio: '9:16', quality: '2K', n: 3 },
    ],
    [
      'hd → 4K, any WxH reduced to its ratio',
      { model: 'I4YG1', prompt: 'a map', quality: 'hd', size: '2048x1536' },
      { model: 'I4YG1', prompt: 'a map', aspectRatio: '4:3', quality: '4K' },
    ],
    ['I4FG1 with n = 4', { model: 'I4FG1', prompt: 'icons', n: 4 }, { model: 'I4FG1', prompt: 'icons', n: 4 }],
    ['I4G1 with 512x512', { model: 'I4G1', prompt: 'a logo', size: '512x512' }, { model: 'I4G1', prompt: 'a logo', aspectRatio: '1:1' }],
  ];

  test.each(cases)('%s', (_name, spec, expected) => {
    const { entry, request } = validated('image', spec);
    const body = toBImageBody(entry, request as Extract<GenerationRequest, { kind: 'image' }>);
    expect(body).toEqual(expected);
    expect(validateBImage(JSON.parse(JSON.stringify(body))).id).toBe(spec.model);
  });

  test('B quality values the catalogue does not list still map exactly', () => {
    const entry = defaultCatalogue.find('image', 'NB')!;
    expect(toBImageBody(entry, { model: 'NB', prompt: 'p', quality: '1K' }).quality).toBe('1K');
    expect(toBImageBody(entry, { model: 'NB', prompt: 'p', quality: '4K' }).quality).toBe('4K');
  });
});

describe('fromBTask', () => {
  const task = (t: Partial<BTask>): BTask => ({ taskId: 'btask-1', status: 'QUEUED', progress: 0, outputs: [], error: null, ...t });

  test.each([
    ['QUEUED', task({ status: 'QUEUED' }), { state: 'pending' }],
    ['RUNNING with progress', task({ status: 'RUNNING', progress: 40 }), { state: 'running', progress: 40 }],
    ['RUNNING without progress', { taskId: 'b', status: 'RUNNING' } as BTask, { state: 'running' }],
    [
      'SUCCEEDED keeps every output in order',
      task({ status: 'SUCCEEDED', progress: 100, outputs: [{ url: 'https://cdn.test/0.png' }, { url: 'https://cdn.test/1.png' }, { url: 'https://cdn.test/2.png' }] }),
      { state: 'success', outputs: [{ url: 'https://cdn.test/0.png' }, { url: 'https://cdn.test/1.png' }, { url: 'https://cdn.test/2.png' }] },
    ],
    [
      'FAILED by moderation code',
      task({ status: 'FAILED', error: { code: 45101, message: 'Content moderation: flagged' } }),
      { state: 'failed', failure: { reason: 'content_policy', message: 'Content moderation: flagged', code: '45101' } },
    ],
    [
      'FAILED with an unknown code but a policy message',
      task({ status: 'FAILED', error: { code: 'E_X', message: 'Input contains sensitive content' } }),
      { state: 'failed', failure: { reason: 'content_policy', message: 'Input contains sensitive content', code: 'E_X' } },
    ],
    [
      'FAILED otherwise',
      task({ status: 'FAILED', error: { code: 50010, message: 'Generation failed' } }),
      { state: 'failed', failure: { reason: 'upstream_failed', message: 'Generation failed', code: '50010' } },
    ],
    [
      'CANCELLED',
      task({ status: 'CANCELLED' }),
      { state: 'failed', failure: { reason: 'upstream_failed', message: 'The job was cancelled on the platform', code: 'CANCELLED' } },
    ],
  ] as const)('%s', (_name, t, expected) => {
    expect(fromBTask(t as BTask)).toEqual(expected);
  });

  test('an unknown status is a retryable protocol error, not a guess', () => {
    expect(() => fromBTask({ taskId: 'b', status: 'PAUSED' } as unknown as BTask)).toThrow(expect.objectContaining({ retryable: true }));
  });
});

describe('classifyBError', () => {
  const reply = (status: number, code: number, headers: Record<string, string> = {}) => ({ status, headers, body: { code, message: 'm' } });
  test.each([
    [400, 40001, false, 'invalid_request'],
    [400, 45101, false, 'content_policy'],
    [401, 40100, false, 'upstream_auth'],
    [402, 40200, false, 'insufficient_balance'],
    [404, 40400, false, 'upstream_failed'],
    [408, 40800, true, 'upstream_unavailable'],
    [429, 42900, true, 'upstream_unavailable'],
    [500, 50000, true, 'upstream_unavailable'],
    [502, 50200, true, 'upstream_unavailable'],
    [503, 50300, true, 'upstream_unavailable'],
  ])('%i %i → retryable %s, %s', (status, code, isRetryable, reason) => {
    const e = classifyBError(reply(status, code));
    expect(e.retryable).toBe(isRetryable);
    expect(e.opts.reason).toBe(reason);
    expect(e.opts.code).toBe(String(code));
    expect(e.opts.httpStatus).toBe(status);
  });

  test('429 honours Retry-After in seconds and as an HTTP date', () => {
    expect(classifyBError(reply(429, 42900, { 'retry-after': '3' })).opts.retryAfterMs).toBe(3000);
    const at = new Date(Date.now() + 60_000).toUTCString();
    const ms = classifyBError(reply(429, 42900, { 'retry-after': at })).opts.retryAfterMs!;
    expect(ms).toBeGreaterThan(50_000);
    expect(ms).toBeLessThanOrEqual(60_000);
  });

  test('a reply without B’s error body still classifies by status', () => {
    const e = classifyBError({ status: 503, headers: {}, body: undefined });
    expect(e).toMatchObject({ retryable: true, opts: { code: 'HTTP_503' } });
  });
});

describe('createPlatformB against a recording HttpClient', () => {
  type Sent = { method: string; url: string; headers: Record<string, string>; body: unknown };
  function fakeHttp(replies: HttpResponse[]) {
    const sent: Sent[] = [];
    const http: HttpClient = {
      async send(method, url, opts = {}) {
        sent.push({ method, url, headers: opts.headers ?? {}, body: opts.body === undefined ? undefined : JSON.parse(opts.body) });
        const next = replies.shift();
        if (!next) throw new Error('no reply scripted');
        return next;
      },
    };
    return { http, sent };
  }
  const ok = (data: unknown): HttpResponse => ({ status: 200, headers: {}, body: { code: 0, message: 'ok', data }, text: '' });
  const err = (status: number, code: number, headers: Record<string, string> = {}): HttpResponse => ({ status, headers, body: { code, message: 'no' }, text: '' });
  const config = { baseUrl: 'https://b.test/', apiKey: 'k-123', simulated: false };

  test('submit posts to the kind’s endpoint with Bearer auth and the Idempotency-Key, and returns the taskId', async () => {
    const { http, sent } = fakeHttp([ok({ taskId: 'bt-1' }), ok({ taskId: 'bt-2' })]);
    const adapter = createPlatformB(config, http, jest.fn());
    const video = validated('video', { model: 'K21', action: 'text_to_video', prompt: 'p', duration: 5 });
    const image = validated('image', { model: 'NB', prompt: 'q', n: 2 });
    await expect(adapter.submit(video.entry, video.request, 'task_abc')).resolves.toEqual({ upstreamTaskId: 'bt-1' });
    await expect(adapter.submit(image.entry, image.request, 'task_def')).resolves.toEqual({ upstreamTaskId: 'bt-2' });
    expect(sent).toEqual([
      {
        method: 'POST',
        url: 'https://b.test/v1/video/generations',
        headers: { authorization: 'Bearer k-123', 'content-type': 'application/json', 'idempotency-key': 'task_abc' },
        body: { model: 'K21', action: 'text_to_video', prompt: 'p', duration: 5 },
      },
      {
        method: 'POST',
        url: 'https://b.test/v1/image/generations',
        headers: { authorization: 'Bearer k-123', 'content-type': 'application/json', 'idempotency-key': 'task_def' },
        body: { model: 'NB', prompt: 'q', n: 2 },
      },
    ]);
  });

  test('poll unwraps the envelope; a 2xx without it is retryable', async () => {
    const { http, sent } = fakeHttp([
      ok({ taskId: 'bt-1', status: 'RUNNING', progress: 30, outputs: [], error: null }),
      { status: 200, headers: {}, body: { taskId: 'bt-1' }, text: '' },
    ]);
    const adapter = createPlatformB(config, http, jest.fn());
    await expect(adapter.poll('video', 'bt-1')).resolves.toEqual({ state: 'running', progress: 30 });
    await expect(adapter.poll('video', 'bt-1')).rejects.toMatchObject({ retryable: true, opts: { code: 'MALFORMED_REPLY' } });
    expect(sent[0]).toMatchObject({ method: 'GET', url: 'https://b.test/v1/tasks/bt-1', body: undefined });
  });

  test('401 and 402 alert the operator; 400 does not', async () => {
    const alert = jest.fn();
    const { http } = fakeHttp([err(401, 40100), err(402, 40200), err(400, 40001)]);
    const adapter = createPlatformB(config, http, alert);
    const { entry, request } = validated('image', { model: 'NB', prompt: 'q' });
    await expect(adapter.submit(entry, request, 't1')).rejects.toMatchObject({ opts: { reason: 'upstream_auth' } });
    await expect(adapter.submit(entry, request, 't2')).rejects.toMatchObject({ opts: { reason: 'insufficient_balance' } });
    await expect(adapter.submit(entry, request, 't3')).rejects.toMatchObject({ opts: { reason: 'invalid_request' } });
    expect(alert.mock.calls).toEqual([
      ['B', '40100', 'Platform B: no'],
      ['B', '40200', 'Platform B: no'],
    ]);
  });

  test('cancel posts to the cancel path; a not-cancellable answer resolves, a 503 is retried by the caller', async () => {
    const { http, sent } = fakeHttp([ok({ taskId: 'bt-1', status: 'CANCELLED' }), err(400, 40006), err(503, 50300)]);
    const adapter = createPlatformB(config, http, jest.fn());
    await expect(adapter.cancel('video', 'bt-1')).resolves.toBeUndefined();
    await expect(adapter.cancel('video', 'bt-2')).resolves.toBeUndefined();
    await expect(adapter.cancel('video', 'bt-3')).rejects.toBeInstanceOf(UpstreamError);
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST https://b.test/v1/tasks/bt-1/cancel',
      'POST https://b.test/v1/tasks/bt-2/cancel',
      'POST https://b.test/v1/tasks/bt-3/cancel',
    ]);
  });
});

describe('simulator strictness (sim/platform-b.ts)', () => {
  const video = { model: 'K21', action: 'image_to_video', prompt: 'p', duration: 5, image: { imageUrl: IMG } };
  const image = { model: 'NB', prompt: 'p' };

  test.each([
    ['unknown field', 40003, { ...video, ratio: '16:9' }],
    ['unknown field inside image', 40003, { ...video, image: { imageUrl: IMG, role: 'first' } }],
    ['image model on the video endpoint', 40004, { ...video, model: 'NB' }],
    ['missing action', 40002, { ...video, action: undefined }],
    ['bad action', 40001, { ...video, action: 'video_to_video' }],
    ['rule 1: text_to_video without duration', 40002, { model: 'K21', action: 'text_to_video', prompt: 'p' }],
    ['rule 2: image_to_video without image', 40002, { ...video, image: undefined }],
    ['image_to_video with a non-URL image', 40001, { ...video, image: { imageUrl: 'file:///etc/passwd' } }],
    ['text_to_video with an image', 40001, { ...video, action: 'text_to_video' }],
    ['duration the model does not offer', 40001, { ...video, duration: 6 }],
    ['resolution in the wrong letter case', 40001, { ...video, resolution: '1080p' }],
    ['audio as a boolean', 40001, { ...video, audio: true }],
    ['bgm not true/false', 40001, { ...video, bgm: 'yes' }],
  ])('video: %s → %i', (_name, code, body) => {
    const b = JSON.parse(JSON.stringify(body));
    expect(() => validateBVideo(b)).toThrow(expect.objectContaining({ status: 400, code }));
  });

  test.each([
    ['unknown field', 40003, { ...image, size: '1024x1024' }],
    ['video model on the image endpoint', 40004, { ...image, model: 'K21' }],
    ['empty prompt', 40001, { ...image, prompt: ' ' }],
    ['quality outside 1K/2K/4K', 40001, { ...image, quality: 'hd' }],
    ['n above 4', 40001, { ...image, n: 5 }],
    ['n not an integer', 40001, { ...image, n: 1.5 }],
    ['aspectRatio not a ratio', 40001, { ...image, aspectRatio: '1024x1024' }],
  ])('image: %s → %i', (_name, code, body) => {
    expect(() => validateBImage(body)).toThrow(expect.objectContaining({ status: 400, code }));
  });
});
