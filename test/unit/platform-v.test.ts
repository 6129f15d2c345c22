/** Platform V adapter: request mapping (golden bodies), status mapping, error classification. */
import { defaultCatalogue } from '../../core/catalogue';
import type { VideoRequest } from '../../core/schemas';
import { classifyVError, fromVTask, toVCreateBody } from '../../activities/platform-v';

const entry = (id: string) => defaultCatalogue.find('video', id)!;

describe('toVCreateBody', () => {
  const cases: [string, string, VideoRequest, Record<string, unknown>][] = [
    [
      'text-to-video with top-level options',
      'vendor-video-1-0-pro-250528',
      { model: 'vendor-video-1-0-pro-250528', prompt: 'a cat', duration: 5, resolution: '1080p', ratio: '16:9', watermark: false },
      { model: 'doubao-seedance-1-0-pro-250528', content: [{ type: 'text', text: 'a cat' }], ratio: '16:9', duration: 5, resolution: '1080p', watermark: false },
    ],
    [
      'first frame from image_url (default role)',
      'vendor-video-1-0-pro-250528',
      { model: 'vendor-video-1-0-pro-250528', prompt: 'move', image_url: 'https://x.test/a.png', duration: 6 },
      {
        model: 'doubao-seedance-1-0-pro-250528',
        content: [
          { type: 'text', text: 'move' },
          { type: 'image_url', image_url: { url: 'https://x.test/a.png' }, role: 'first_frame' },
        ],
        duration: 6,
      },
    ],
    [
      'first + last frame',
      'vendor-video-1-5-pro-251215',
      { model: 'vendor-video-1-5-pro-251215', image_url: 'https://x.test/a.png', last_frame_url: 'https://x.test/b.png', duration: 5, return_last_frame: true },
      {
        model: 'doubao-seedance-1-5-pro-251215',
        content: [
          { type: 'image_url', image_url: { url: 'https://x.test/a.png' }, role: 'first_frame' },
          { type: 'image_url', image_url: { url: 'https://x.test/b.png' }, role: 'last_frame' },
        ],
        duration: 5,
        return_last_frame: true,
      },
    ],
    [
      '2.0 multimodal: reference images, video and audio, sound, upper-case resolution lowered',
      'vendor-video-2-0-260128',
      {
        model: 'vendor-video-2-0-260128',
        prompt: 'remix',
        images: [{ url: 'https://x.test/r1.png', role: 'reference_image' }],
        video_url: 'https://x.test/v.mp4',
        audio_url: 'https://x.test/a.mp3',
        generate_audio: true,
        resolution: '1080P',
        duration: 10,
      },
      {
        model: 'doubao-seedance-2-0-260128',
        content: [
          { type: 'text', text: 'remix' },
          { type: 'image_url', image_url: { url: 'https://x.test/r1.png' }, role: 'reference_image' },
          { type: 'video_url', video_url: { url: 'https://x.test/v.mp4' }, role: 'reference_video' },
          { type: 'audio_url', audio_url: { url: 'https://x.test/a.mp3' }, role: 'reference_audio' },
        ],
        duration: 10,
        resolution: '1080p',
        generate_audio: true,
      },
    ],
    [
      'draft service tier',
      'vendor-video-2-0-fast-260128',
      { model: 'vendor-video-2-0-fast-260128', prompt: 'quick', service_tier: 'draft', duration: 4 },
      { model: 'doubao-seedance-2-0-fast-260128', content: [{ type: 'text', text: 'quick' }], duration: 4, draft: true },
    ],
  ];
  test.each(cases)('%s', (_name, id, req, expected) => {
    expect(toVCreateBody(entry(id), req)).toEqual(expected);
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
    const s = fromVTask({
      id: 'cgt-1',
      status: 'succeeded',
      content: { video_url: 'https://cdn.test/v.mp4' },
      usage: { completion_tokens: 10, total_tokens: 10 },
      duration: 5,
      ratio: '16:9',
    });
    expect(s).toEqual({
      state: 'success',
      outputs: [{ url: 'https://cdn.test/v.mp4' }],
      extras: { video_url: 'https://cdn.test/v.mp4', duration: 5, ratio: '16:9', usage: { completion_tokens: 10, total_tokens: 10 } },
    });
  });

  test.each([
    ['OutputVideoSensitiveContentDetected', 'content_policy'],
    ['InputTextSensitiveContentDetected', 'content_policy'],
    ['InputImageSensitiveContentDetected', 'content_policy'],
    ['InvalidParameter', 'invalid_request'],
    ['InternalServiceError', 'upstream_failed'],
  ])('failed with %s → %s', (code, reason) => {
    const s = fromVTask({ id: 'cgt-1', status: 'failed', error: { code, message: 'm' } });
    expect(s).toEqual({ state: 'failed', failure: { reason, message: 'm', code } });
  });

  test('cancelled upstream is a failure', () => {
    expect(fromVTask({ id: 'cgt-1', status: 'cancelled' }).state).toBe('failed');
  });
});

describe('classifyVError', () => {
  const reply = (status: number, code: string, headers: Record<string, string> = {}) => ({ status, headers, body: { error: { code, message: 'm' } } });
  test.each([
    [400, 'InvalidParameter', false, 'invalid_request'],
    [401, 'AuthenticationError', false, 'upstream_auth'],
    [403, 'AccessDenied', false, 'upstream_auth'],
    [403, 'AccountOverdueError', false, 'insufficient_balance'],
    [404, 'InvalidEndpointOrModel.NotFound', false, 'upstream_auth'],
    [408, 'RequestTimeout', true, 'upstream_unavailable'],
    [409, 'Conflict', true, 'upstream_unavailable'],
    [429, 'RateLimitExceeded.EndpointRPMExceeded', true, 'upstream_unavailable'],
    [500, 'InternalServiceError', true, 'upstream_unavailable'],
    [503, 'ServiceUnavailable', true, 'upstream_unavailable'],
  ])('%i %s → retryable %s, %s', (status, code, isRetryable, reason) => {
    const e = classifyVError(reply(status, code));
    expect(e.retryable).toBe(isRetryable);
    expect(e.opts.reason).toBe(reason);
    expect(e.opts.code).toBe(code);
  });

  test('429 honours Retry-After', () => {
    expect(classifyVError(reply(429, 'RateLimitExceeded', { 'retry-after': '7' })).opts.retryAfterMs).toBe(7000);
  });
});
