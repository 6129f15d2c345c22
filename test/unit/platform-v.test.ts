/**
 * Platform V (platforms/v): golden create bodies per model family (each accepted by the simulator's strict
 * validator, sim/v, written from the same sources), the per-model rules (a 400 naming the field, and a body the
 * platform would refuse too), status mapping incl. `expired`, error classification (quota vs rate limit,
 * ClosedEndpoint), the lost-answer lookup through the task list and its seed marker, the models file, and which
 * callbacks wake a task.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../core/config';
import type { GenerationRequest } from '../../core/task';
import { buildCatalogue, videoRequestSchema } from '../../platforms';
import type { HttpClient, HttpResponse } from '../../platforms/http';
import { RequestRuleError } from '../../platforms/rules';
import { validateGeneration } from '../../platforms/validation';
import { createPlatformV } from '../../platforms/v/adapter';
import { callbackToken, vCallbackReceiver } from '../../platforms/v/announcements';
import { CallbackRefused } from '../../platforms/platform';
import { expiresAfterSeconds, markerSeed, toVCreateBody, V_EXPIRES_MAX_S, V_EXPIRES_MIN_S } from '../../platforms/v/request-body';
import { V_MODELS } from '../../platforms/v/models';
import { classifyVError, fromVTask } from '../../platforms/v/replies';
import type { VVideoRequest } from '../../platforms/v/rules';
import { LOOKUP_CLOCK_SKEW_S } from '../../platforms/v/lost-answer';
import { validateVCreate } from '../../sim/v';

const catalogue = buildCatalogue();
const ENABLED: ReadonlySet<string> = new Set(['T', 'B', 'V']);
const NOW = 1767225600_000;
const KEY = 'task_abc-0123456789abcdef';
const OPTS = { dedupKey: KEY, deadlineAt: NOW + 2 * 3600_000, now: NOW };
const SEED = markerSeed(KEY);

const V10 = 'vendor-video-1-0-pro-250528';
const V10F = 'vendor-video-1-0-pro-fast-251015';
const V15 = 'vendor-video-1-5-pro-251215';
const V20 = 'vendor-video-2-0-260128';
const V20F = 'vendor-video-2-0-fast-260128';
const I2V = 'vendor-video-1-0-lite-i2v-250428';

function normalised(body: Record<string, unknown>) {
  return validateGeneration(catalogue, ENABLED, 'video', videoRequestSchema.parse(body) as Record<string, unknown> & { model: string });
}

function refusedParam(body: Record<string, unknown>): string | undefined {
  try {
    normalised(body);
    return undefined;
  } catch (err) {
    if (err instanceof RequestRuleError) return err.param;
    throw err;
  }
}

/** A strict platform V's verdict on a create body: undefined when accepted, else its error code and message. */
function simVerdict(body: unknown): string | undefined {
  try {
    validateVCreate(body, () => undefined, () => 1);
    return undefined;
  } catch (err) {
    return `${(err as { code: string }).code}: ${(err as Error).message}`;
  }
}

const text = (t: string) => ({ type: 'text', text: t });
const image = (url: string, role: string) => ({ type: 'image_url', image_url: { url }, role });

describe('toVCreateBody: golden bodies per model family (and a strict platform V accepts each)', () => {
  const marker = { seed: SEED, execution_expires_after: 7200 };
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      '1.0 pro text-to-video: top-level options; no generate_audio on a model without sound',
      { model: V10, prompt: 'a cat', duration: 5, resolution: '1080p', ratio: '16:9', watermark: false },
      { model: 'doubao-seedance-1-0-pro-250528', content: [text('a cat')], ratio: '16:9', duration: 5, resolution: '1080p', watermark: false, ...marker },
    ],
    [
      '1.0 pro fast first frame from image_url (default role)',
      { model: V10F, prompt: 'move', image_url: 'https://x.test/a.png', duration: 6 },
      { model: 'doubao-seedance-1-0-pro-fast-251015', content: [text('move'), image('https://x.test/a.png', 'first_frame')], duration: 6, ...marker },
    ],
    [
      '1.5 pro first + last frame: generate_audio false said explicitly (the platform defaults to true)',
      { model: V15, image_url: 'https://x.test/a.png', last_frame_url: 'https://x.test/b.png', duration: 5, return_last_frame: true },
      {
        model: 'doubao-seedance-1-5-pro-251215',
        content: [image('https://x.test/a.png', 'first_frame'), image('https://x.test/b.png', 'last_frame')],
        duration: 5,
        generate_audio: false,
        return_last_frame: true,
        ...marker,
      },
    ],
    [
      '1.5 pro draft: draft true at 480p',
      { model: V15, prompt: 'quick', service_tier: 'draft', duration: 4, resolution: '480p' },
      { model: 'doubao-seedance-1-5-pro-251215', content: [text('quick')], duration: 4, resolution: '480p', generate_audio: false, draft: true, ...marker },
    ],
    [
      '2.0 without sound asked: generate_audio false (the spec default), not the platform\'s true',
      { model: V20, prompt: 'silent film', duration: 5 },
      { model: 'doubao-seedance-2-0-260128', content: [text('silent film')], duration: 5, generate_audio: false, ...marker },
    ],
    [
      '2.0 multimodal: reference images, videos and audios, sound, web search, upper-case resolution lowered',
      {
        model: V20,
        prompt: 'remix',
        images: [{ url: 'https://x.test/r1.png', role: 'reference_image' }],
        video_url: 'https://x.test/v.mp4',
        videos: [{ url: 'https://x.test/v2.mp4' }],
        audio_url: 'https://x.test/a.mp3',
        audios: [{ url: 'https://x.test/a2.mp3' }, { url: 'https://x.test/a3.mp3' }],
        generate_audio: true,
        web_search: true,
        resolution: '1080P',
        duration: 10,
      },
      {
        model: 'doubao-seedance-2-0-260128',
        content: [
          text('remix'),
          image('https://x.test/r1.png', 'reference_image'),
          { type: 'video_url', video_url: { url: 'https://x.test/v.mp4' }, role: 'reference_video' },
          { type: 'video_url', video_url: { url: 'https://x.test/v2.mp4' }, role: 'reference_video' },
          { type: 'audio_url', audio_url: { url: 'https://x.test/a.mp3' }, role: 'reference_audio' },
          { type: 'audio_url', audio_url: { url: 'https://x.test/a2.mp3' }, role: 'reference_audio' },
          { type: 'audio_url', audio_url: { url: 'https://x.test/a3.mp3' }, role: 'reference_audio' },
        ],
        duration: 10,
        resolution: '1080p',
        generate_audio: true,
        tools: [{ type: 'web_search' }],
        ...marker,
      },
    ],
    [
      '2.0 takes nine reference images',
      { model: V20, prompt: 'collage', duration: 5, images: Array.from({ length: 9 }, (_, i) => ({ url: `https://x.test/${i}.png` })) },
      {
        model: 'doubao-seedance-2-0-260128',
        content: [text('collage'), ...Array.from({ length: 9 }, (_, i) => image(`https://x.test/${i}.png`, 'reference_image'))],
        duration: 5,
        generate_audio: false,
        ...marker,
      },
    ],
    [
      '2.0 fast at 720p with sound',
      { model: V20F, prompt: 'fast', duration: 12, resolution: '720p', generate_audio: true },
      { model: 'doubao-seedance-2-0-fast-260128', content: [text('fast')], duration: 12, resolution: '720p', generate_audio: true, ...marker },
    ],
    [
      'lite i2v: the image as a reference (image_role)',
      { model: I2V, prompt: 'animate', image_url: 'https://x.test/a.png', image_role: 'reference_image', duration: 4 },
      { model: 'doubao-seedance-1-0-lite-i2v-250428', content: [text('animate'), image('https://x.test/a.png', 'reference_image')], duration: 4, ...marker },
    ],
  ];
  test.each(cases)('%s', (_name, req, expected) => {
    const { entry, request } = normalised(req);
    const body = toVCreateBody(entry, request as VVideoRequest, OPTS);
    expect(body).toEqual(expected);
    expect(simVerdict(body)).toBeUndefined();
  });

  test('the seed marker is stable per dedup key, different across keys, within Ark\'s range', () => {
    expect(markerSeed(KEY)).toBe(SEED);
    expect(markerSeed(`${KEY}r1`)).not.toBe(SEED);
    for (const k of ['a', 'b', 'task_x-123', 'z'.repeat(50)]) {
      const s = markerSeed(k);
      expect(Number.isInteger(s) && s >= 0 && s <= 2 ** 32 - 1).toBe(true);
    }
  });

  test('execution_expires_after is what is left of the deadline, within the platform\'s 1 h … 72 h', () => {
    expect(expiresAfterSeconds(NOW + 2 * 3600_000 + 999, NOW)).toBe(7200);
    expect(expiresAfterSeconds(NOW + 10 * 60_000, NOW)).toBe(V_EXPIRES_MIN_S);
    expect(expiresAfterSeconds(NOW - 1, NOW)).toBe(V_EXPIRES_MIN_S);
    expect(expiresAfterSeconds(NOW + 5 * 24 * 3600_000, NOW)).toBe(V_EXPIRES_MAX_S);
    expect([V_EXPIRES_MIN_S, V_EXPIRES_MAX_S]).toEqual([3600, 259200]);
  });
});

describe('per-model rules: a 400 naming the field, for a body the platform would refuse too', () => {
  const many = (n: number, ext: string) => Array.from({ length: n }, (_, i) => ({ url: `https://x.test/${i}.${ext}` }));
  const cases: [string, string, Record<string, unknown>][] = [
    ['1.5 pro is 4–12 s: 3 s', 'duration', { model: V15, prompt: 'x', duration: 3 }],
    ['1.5 pro is 4–12 s: 13 s', 'duration', { model: V15, prompt: 'x', duration: 13 }],
    ['1.0 pro fast has no first/last frame', 'last_frame_url', { model: V10F, prompt: 'x', duration: 5, image_url: 'https://x.test/a.png', last_frame_url: 'https://x.test/b.png' }],
    ['2.0 fast has no confirmed 1080p', 'resolution', { model: V20F, prompt: 'x', duration: 5, resolution: '1080p' }],
    ['2.0 fast has no confirmed draft mode', 'service_tier', { model: V20F, prompt: 'x', duration: 5, service_tier: 'draft' }],
    ['a draft renders at 480p only', 'resolution', { model: V15, prompt: 'x', duration: 5, service_tier: 'draft', resolution: '720p' }],
    ['2.0 takes at most 9 reference images', 'images', { model: V20, prompt: 'x', duration: 5, images: many(10, 'png') }],
    ['lite i2v takes at most 4 reference images', 'images', { model: I2V, prompt: 'x', duration: 5, images: many(5, 'png') }],
    ['2.0 takes at most 3 reference videos', 'video_url', { model: V20, prompt: 'x', duration: 5, video_url: 'https://x.test/v.mp4', videos: many(3, 'mp4') }],
    ['2.0 takes at most 3 reference audios', 'audio_url', { model: V20, prompt: 'x', duration: 5, images: many(1, 'png'), audio_url: 'https://x.test/a.mp3', audios: many(3, 'mp3') }],
    ['2.0 never takes audio alone', 'audio_url', { model: V20, prompt: 'x', duration: 5, audio_url: 'https://x.test/a.mp3' }],
    ['reference audio cannot go with a first frame', 'audios', { model: V20, prompt: 'x', duration: 5, image_url: 'https://x.test/a.png', audios: many(1, 'mp3') }],
    ['web search is 2.0 only', 'web_search', { model: V15, prompt: 'x', duration: 5, web_search: true }],
    ['sound is 2.0 only (spec rule 4)', 'generate_audio', { model: V15, prompt: 'x', duration: 5, generate_audio: true }],
  ];

  test.each(cases)('%s → 400 %s', (_name, param, body) => {
    expect(refusedParam(body)).toBe(param);
    if (param === 'generate_audio') return; // 1.5 pro makes sound upstream: the gateway narrows it to the spec's 2.0 only
    const entry = catalogue.find('video', body.model as string)!;
    const unchecked = toVCreateBody(entry, { ...body, kind: 'video' } as GenerationRequest as VVideoRequest, OPTS);
    expect(simVerdict(unchecked)).toMatch(/^InvalidParameter/);
  });

  test.each([
    ['1.5 pro at 4 and 12 s', { model: V15, prompt: 'x', duration: 12 }],
    ['2.0 fast at 12 s', { model: V20F, prompt: 'x', duration: 12 }],
    ['2.0 reference audio with a reference video', { model: V20, prompt: 'x', duration: 5, video_url: 'https://x.test/v.mp4', audio_url: 'https://x.test/a.mp3' }],
    ['2.0 web search', { model: V20, prompt: 'x', duration: 5, web_search: true }],
    ['1.5 pro draft without a resolution', { model: V15, prompt: 'x', duration: 5, service_tier: 'draft' }],
  ])('accepted: %s', (_name, body) => {
    expect(refusedParam(body)).toBeUndefined();
  });
});

describe('fromVTask', () => {
  test.each([
    ['queued', { state: 'pending' }],
    ['running', { state: 'running' }],
  ] as const)('%s', (status, expected) => {
    expect(fromVTask({ id: 'cgt-1', status })).toEqual(expected);
  });

  test('succeeded carries the URL and the raw extras', () => {
    const s = fromVTask({ id: 'cgt-1', status: 'succeeded', content: { video_url: 'https://cdn.test/v.mp4' }, usage: { completion_tokens: 10, total_tokens: 10 }, duration: 5, ratio: '16:9' });
    expect(s).toEqual({ state: 'success', outputs: [{ url: 'https://cdn.test/v.mp4' }], extras: { video_url: 'https://cdn.test/v.mp4', duration: 5, ratio: '16:9', usage: { completion_tokens: 10, total_tokens: 10 } } });
  });

  test.each([
    ['OutputVideoSensitiveContentDetected', 'content_policy'],
    ['InputTextSensitiveContentDetected', 'content_policy'],
    ['InvalidParameter', 'invalid_request'],
    ['InternalServiceError', 'upstream_failed'],
  ])('failed with %s → %s', (code, reason) => {
    expect(fromVTask({ id: 'cgt-1', status: 'failed', error: { code, message: 'm' } })).toEqual({ state: 'failed', failure: { reason, message: 'm', code } });
  });

  test('expired is a final failure with a clear reason, never retried as an unknown state', () => {
    const s = fromVTask({ id: 'cgt-1', status: 'expired' });
    expect(s).toEqual({ state: 'failed', failure: { reason: 'upstream_failed', code: 'expired', message: expect.stringMatching(/execution window \(expired\)/) } });
    expect(s.failure!.resubmit).toBeUndefined();
  });

  test('cancelled upstream is a failure; an unknown status is retried', () => {
    expect(fromVTask({ id: 'cgt-1', status: 'cancelled' }).state).toBe('failed');
    expect(() => fromVTask({ id: 'cgt-1', status: 'exploded' as never })).toThrow(expect.objectContaining({ retryable: true }));
  });
});

describe('classifyVError', () => {
  const reply = (status: number, code: string | undefined, headers: Record<string, string> = {}) => ({ status, headers, body: code ? { error: { code, message: 'm' } } : undefined });
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
    // True rate limits are retried…
    [429, 'RateLimitExceeded.EndpointRPMExceeded', true, 'upstream_unavailable'],
    [429, 'RateLimitExceeded.EndpointTPMExceeded', true, 'upstream_unavailable'],
    [429, 'ServerOverloaded', true, 'upstream_unavailable'],
    // …spend and quota limits are final and need the operator (the decorator alerts on insufficient_balance).
    [429, 'QuotaExceeded', false, 'insufficient_balance'],
    [429, 'SetLimitExceeded', false, 'insufficient_balance'],
    [500, 'InternalServiceError', true, 'upstream_unavailable'],
    [503, 'ServiceUnavailable', true, 'upstream_unavailable'],
  ])('%i %s → retryable %s, %s', (status, code, isRetryable, reason) => {
    const e = classifyVError(reply(status, code));
    expect(e.retryable).toBe(isRetryable);
    expect(e.opts).toMatchObject({ reason, code });
  });

  test('a 429 without a code (a proxy in between) is a rate limit; Retry-After is honoured', () => {
    expect(classifyVError(reply(429, undefined))).toMatchObject({ retryable: true, opts: { code: 'HTTP_429' } });
    expect(classifyVError(reply(429, 'RateLimitExceeded', { 'retry-after': '7' })).opts.retryAfterMs).toBe(7000);
  });
});

// ------------------------------------------------------------------------------------------ on the wire

type Sent = { method: string; url: string; headers: Record<string, string>; body: any };

function fakeV(answer: (method: string, url: URL, body: any) => { status?: number; body: unknown }) {
  const sent: Sent[] = [];
  const http: HttpClient = {
    async send(method, url, opts = {}) {
      const body = opts.body === undefined ? undefined : JSON.parse(opts.body);
      sent.push({ method, url, headers: opts.headers ?? {}, body });
      const r = answer(method, new URL(url), body);
      return { status: r.status ?? 200, headers: {}, body: r.body, text: '' } satisfies HttpResponse;
    },
  };
  return { http, sent };
}

const SETTINGS = { baseUrl: 'http://sim.test/api/v3/', apiKey: 'sim-v-key' };

describe('createPlatformV on the wire', () => {
  test('submit posts the body with the seed marker and the deadline as execution_expires_after', async () => {
    const { http, sent } = fakeV(() => ({ body: { id: 'cgt-1' } }));
    const { entry, request } = normalised({ model: V20, prompt: 'p', duration: 5 });
    const adapter = createPlatformV(SETTINGS, { http, now: () => NOW });
    await expect(adapter.submit(entry, request, { taskId: 'task_abc', dedupKey: KEY, deadlineAt: NOW + 3 * 3600_000 })).resolves.toEqual({ upstreamTaskId: 'cgt-1' });
    expect(sent[0]).toMatchObject({ method: 'POST', url: 'http://sim.test/api/v3/contents/generations/tasks', headers: { authorization: 'Bearer sim-v-key' } });
    expect(sent[0]!.body).toMatchObject({ model: 'doubao-seedance-2-0-260128', seed: SEED, execution_expires_after: 3 * 3600, generate_audio: false });
  });
});

describe('poll: a task Ark no longer knows', () => {
  test('a 404 on the task is a lost job (upstream_lost); a 404 naming the model stays the account’s problem', async () => {
    const { http } = fakeV((_m, url) =>
      url.pathname.endsWith('/cgt-gone')
        ? { status: 404, body: { error: { code: 'ResourceNotFound', message: 'The specified task cgt-gone is not found.' } } }
        : { status: 404, body: { error: { code: 'InvalidEndpointOrModel.NotFound', message: 'The model does not exist.' } } },
    );
    const adapter = createPlatformV(SETTINGS, { http });
    await expect(adapter.poll('video', 'cgt-gone')).rejects.toMatchObject({ retryable: false, opts: { reason: 'upstream_lost', code: 'ResourceNotFound', httpStatus: 404 } });
    await expect(adapter.poll('video', 'cgt-other')).rejects.toMatchObject({ retryable: false, opts: { reason: 'upstream_auth' } });
  });
});

describe('findSubmitted: the lost job, through the task list and the seed marker', () => {
  const since = NOW - 30_000;
  const ctx = { taskId: 'task_abc', dedupKey: KEY, deadlineAt: NOW + 3600_000, since };
  const sinceS = Math.floor(since / 1000);
  const task = (id: string, seed: number, createdAt = sinceS + 5, model = 'doubao-seedance-1-0-pro-250528') => ({ id, model, status: 'queued', seed, created_at: createdAt });
  const entry = () => normalised({ model: V10, prompt: 'p', duration: 5 });

  test('lists the model\'s tasks (filter.model) and adopts the one carrying this submit\'s seed', async () => {
    const { http, sent } = fakeV(() => ({ body: { total: 3, items: [task('cgt-other', SEED + 1), task('cgt-mine', SEED), task('cgt-old', SEED + 2, sinceS - 3600)] } }));
    const { entry: e, request } = entry();
    await expect(createPlatformV(SETTINGS, { http }).findSubmitted!(e, request, ctx)).resolves.toEqual({ upstreamTaskId: 'cgt-mine' });
    const url = new URL(sent[0]!.url);
    expect(sent[0]!.method).toBe('GET');
    expect(url.pathname).toBe('/api/v3/contents/generations/tasks');
    expect(Object.fromEntries(url.searchParams)).toEqual({ page_num: '1', page_size: '100', 'filter.model': 'doubao-seedance-1-0-pro-250528' });
  });

  test('another submit\'s job is never adopted: another seed, or the same seed before the window', async () => {
    const { http } = fakeV(() => ({ body: { total: 2, items: [task('cgt-a', markerSeed('task_zzz-run')), task('cgt-b', SEED, sinceS - LOOKUP_CLOCK_SKEW_S - 1)] } }));
    const { entry: e, request } = entry();
    await expect(createPlatformV(SETTINGS, { http }).findSubmitted!(e, request, ctx)).resolves.toBeUndefined();
  });

  test('a job within the clock-skew margin before the first attempt is still found', async () => {
    const { http } = fakeV(() => ({ body: { total: 1, items: [task('cgt-mine', SEED, sinceS - LOOKUP_CLOCK_SKEW_S + 1)] } }));
    const { entry: e, request } = entry();
    await expect(createPlatformV(SETTINGS, { http }).findSubmitted!(e, request, ctx)).resolves.toEqual({ upstreamTaskId: 'cgt-mine' });
  });

  test('pages on until the list is exhausted; stops early once a newest-first page reaches before the window', async () => {
    const full = (page: number, createdAt: number) => Array.from({ length: 100 }, (_, i) => task(`cgt-${page}-${i}`, 7, createdAt - i));
    const pages: Record<string, unknown[]> = { '1': full(1, sinceS + 500), '2': [task('cgt-mine', SEED)] };
    const { http, sent } = fakeV((_m, url) => ({ body: { total: 101, items: pages[url.searchParams.get('page_num')!] ?? [] } }));
    const { entry: e, request } = entry();
    await expect(createPlatformV(SETTINGS, { http }).findSubmitted!(e, request, ctx)).resolves.toEqual({ upstreamTaskId: 'cgt-mine' });
    expect(sent.map((s) => new URL(s.url).searchParams.get('page_num'))).toEqual(['1', '2']);

    const old: Record<string, unknown[]> = { '1': full(1, sinceS - LOOKUP_CLOCK_SKEW_S + 50), '2': [task('cgt-never-read', SEED)] };
    const second = fakeV((_m, url) => ({ body: { total: 101, items: old[url.searchParams.get('page_num')!] ?? [] } }));
    await expect(createPlatformV(SETTINGS, { http: second.http }).findSubmitted!(e, request, ctx)).resolves.toBeUndefined();
    expect(second.sent).toHaveLength(1);
  });

  test('a list the platform cannot answer is an error (retried), never "no job" (which would re-send and pay twice)', async () => {
    const { http } = fakeV(() => ({ status: 503, body: { error: { code: 'ServiceUnavailable', message: 'down' } } }));
    const { entry: e, request } = entry();
    await expect(createPlatformV(SETTINGS, { http }).findSubmitted!(e, request, ctx)).rejects.toMatchObject({ retryable: true });
  });
});

describe('PLATFORM_V_MODELS_FILE: the public-id → upstream-id mapping is deployment data', () => {
  const dir = mkdtempSync(join(tmpdir(), 'v-models-'));
  const file = (name: string, content: string) => {
    const p = join(dir, name);
    writeFileSync(p, content);
    return p;
  };

  test('unset: the Volcengine ids', () => {
    expect(buildCatalogue({}).entries.filter((e) => e.platform === 'V')).toEqual(V_MODELS);
    expect(catalogue.find('video', V20)!.upstream.model).toBe('doubao-seedance-2-0-260128');
  });

  test('overrides ids (BytePlus) and leaves a model out with null; the catalogue and the adapter follow', async () => {
    const env = { PLATFORM_V_MODELS_FILE: file('byteplus.json', JSON.stringify({ [V20]: 'dreamina-seedance-2-0-260128', [V15]: 'seedance-1-5-pro-251215', [I2V]: null })) };
    const byteplus = buildCatalogue(env);
    expect(byteplus.find('video', V20)!.upstream.model).toBe('dreamina-seedance-2-0-260128');
    expect(byteplus.find('video', V15)!.upstream.model).toBe('seedance-1-5-pro-251215');
    expect(byteplus.find('video', V10)!.upstream.model).toBe('doubao-seedance-1-0-pro-250528');
    expect(byteplus.find('video', I2V)).toBeUndefined();

    const { http, sent } = fakeV(() => ({ body: { id: 'cgt-1' } }));
    const { entry, request } = validateGeneration(byteplus, ENABLED, 'video', { model: V20, prompt: 'p', duration: 5 });
    await createPlatformV(SETTINGS, { http, now: () => NOW }).submit(entry, request, { taskId: 't', dedupKey: KEY, deadlineAt: NOW });
    expect(sent[0]!.body.model).toBe('dreamina-seedance-2-0-260128');
  });

  test.each([
    ['not JSON', '{"a":', /is not JSON/],
    ['an unknown public id', JSON.stringify({ 'vendor-video-9': 'x' }), /vendor-video-9: not a platform V model/],
    ['a value that is no model id', JSON.stringify({ [V20]: 'has spaces' }), /must be a model or endpoint id/],
    ['a value of the wrong type', JSON.stringify({ [V20]: 3 }), /vendor-video-2-0-260128/],
  ])('%s → a start-up error naming PLATFORM_V_MODELS_FILE', (_name, content, why) => {
    const env = { PLATFORM_V_MODELS_FILE: file(`bad-${Math.random()}.json`, content) };
    expect(() => buildCatalogue(env)).toThrow(ConfigError);
    expect(() => buildCatalogue(env)).toThrow(/PLATFORM_V_MODELS_FILE/);
    expect(() => buildCatalogue(env)).toThrow(why);
  });

  test('a file that cannot be read → a start-up error naming the variable', () => {
    expect(() => buildCatalogue({ PLATFORM_V_MODELS_FILE: join(dir, 'missing.json') })).toThrow(/PLATFORM_V_MODELS_FILE: cannot read .*missing\.json: ENOENT/);
  });
});

describe('V callbacks: the token proves the URL, and only an end (or an unreadable status) wakes the task', () => {
  const SECRET = 'callback-secret-for-tests-0123456789abcdef';
  const env = { CALLBACK_SECRET: SECRET };
  const receiveCallback = vCallbackReceiver.create(env);
  const receive = (body: string, token = callbackToken(SECRET, 'task_1')) =>
    receiveCallback({ rest: ['task_1'], query: { token }, headers: {}, rawBody: Buffer.from(body), url: 'http://gw/v1/callbacks/V/task_1', receivedAt: NOW });

  test.each(['succeeded', 'failed', 'expired', 'cancelled', 'some-future-status'])('status %s → one hint for the task', (status) => {
    expect(receive(JSON.stringify({ id: 'cgt-1', status }))).toEqual([{ taskId: 'task_1', upstreamTaskId: 'cgt-1' }]);
  });

  test.each(['queued', 'running'])('status %s → acknowledged, nothing to wake (a poll would learn nothing)', (status) => {
    expect(receive(JSON.stringify({ id: 'cgt-1', status }))).toEqual([]);
  });

  test('a body that is not JSON still wakes the task: when in doubt, one extra poll', () => {
    expect(receive('not json')).toEqual([{ taskId: 'task_1' }]);
  });

  test('a token for another task is refused, whatever the body says', () => {
    expect(() => receive(JSON.stringify({ status: 'succeeded' }), callbackToken(SECRET, 'task_2'))).toThrow(CallbackRefused);
  });
});
