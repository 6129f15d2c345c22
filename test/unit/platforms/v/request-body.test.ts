/**
 * platforms/v/request-body.ts: golden create bodies per model family (each accepted by the simulator's strict
 * validator, sim/v, written from the same sources), the seed marker and execution_expires_after.
 */
import { expiresAfterSeconds, markerSeed, toVCreateBody, V_EXPIRES_MAX_S, V_EXPIRES_MIN_S } from '../../../../platforms/v/request-body';
import type { VVideoRequest } from '../../../../platforms/v/rules';
import { normalised } from '../../../support/platform-kit';
import { I2V, KEY, NOW, OPTS, SEED, V10, V10F, V15, V20, V20F, vSimVerdict } from '../../../support/platforms/v';

const text = (t: string) => ({ type: 'text', text: t });
const image = (url: string, role: string) => ({ type: 'image_url', image_url: { url }, role });

describe('toVCreateBody: golden bodies per model family (and a strict platform V accepts each)', () => {
  const marker = { seed: SEED, execution_expires_after: 7200 };
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      '1.0 pro text-to-video: top-level options; no generate_audio on a model without sound',
      { model: V10, prompt: 'a cat', duration: 5, resolution: '1080p', ratio: '16:9', watermark: false },
      {
        model: 'doubao-seedance-1-0-pro-250528',
        content: [text('a cat')],
        ratio: '16:9',
        duration: 5,
        resolution: '1080p',
        watermark: false,
        ...marker,
      },
    ],
    [
      '1.0 pro fast first frame from image_url (default role)',
      { model: V10F, prompt: 'move', image_url: 'https://x.test/a.png', duration: 6 },
      {
        model: 'doubao-seedance-1-0-pro-fast-251015',
        content: [text('move'), image('https://x.test/a.png', 'first_frame')],
        duration: 6,
        ...marker,
      },
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
      {
        model: 'doubao-seedance-1-5-pro-251215',
        content: [text('quick')],
        duration: 4,
        resolution: '480p',
        generate_audio: false,
        draft: true,
        ...marker,
      },
    ],
    [
      "2.0 without sound asked: generate_audio false (the spec default), not the platform's true",
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
      {
        model: 'doubao-seedance-2-0-fast-260128',
        content: [text('fast')],
        duration: 12,
        resolution: '720p',
        generate_audio: true,
        ...marker,
      },
    ],
    [
      'lite i2v: the image as a reference (image_role)',
      { model: I2V, prompt: 'animate', image_url: 'https://x.test/a.png', image_role: 'reference_image', duration: 4 },
      {
        model: 'doubao-seedance-1-0-lite-i2v-250428',
        content: [text('animate'), image('https://x.test/a.png', 'reference_image')],
        duration: 4,
        ...marker,
      },
    ],
  ];
  test.each(cases)('%s', (_name, req, expected) => {
    const { entry, request } = normalised('video', req);
    const body = toVCreateBody(entry, request as VVideoRequest, OPTS);
    expect(body).toEqual(expected);
    expect(vSimVerdict(body)).toBeUndefined();
  });

  test("the seed marker is stable per dedup key, different across keys, within Ark's range", () => {
    expect(markerSeed(KEY)).toBe(SEED);
    expect(markerSeed(`${KEY}r1`)).not.toBe(SEED);
    for (const k of ['a', 'b', 'task_x-123', 'z'.repeat(50)]) {
      const s = markerSeed(k);
      expect(Number.isInteger(s) && s >= 0 && s <= 2 ** 32 - 1).toBe(true);
    }
  });

  test("execution_expires_after is what is left of the deadline, within the platform's 1 h … 72 h", () => {
    expect(expiresAfterSeconds(NOW + 2 * 3600_000 + 999, NOW)).toBe(7200);
    expect(expiresAfterSeconds(NOW + 10 * 60_000, NOW)).toBe(V_EXPIRES_MIN_S);
    expect(expiresAfterSeconds(NOW - 1, NOW)).toBe(V_EXPIRES_MIN_S);
    expect(expiresAfterSeconds(NOW + 5 * 24 * 3600_000, NOW)).toBe(V_EXPIRES_MAX_S);
    expect([V_EXPIRES_MIN_S, V_EXPIRES_MAX_S]).toEqual([3600, 259200]);
  });
});

describe('the offline tier on the wire', () => {
  const sent = (body: Record<string, unknown>) => {
    const { entry, request } = normalised('video', body);
    return { request: request as VVideoRequest, body: toVCreateBody(entry, request as VVideoRequest, OPTS) };
  };

  test("flex goes upstream as service_tier flex with the request's deadline as execution_expires_after (a strict V accepts it)", () => {
    const { body } = sent({ model: V15, prompt: 'x', duration: 5, service_tier: 'flex', deadline_seconds: 7200 });
    expect(body).toMatchObject({ service_tier: 'flex', execution_expires_after: 7200 });
    expect(body.draft).toBeUndefined();
    expect(vSimVerdict(body)).toBeUndefined();
  });

  test("without deadline_seconds, V's default window (172800 s) is written into the request and sent", () => {
    const { request, body } = sent({ model: V10, prompt: 'x', duration: 5, service_tier: 'flex' });
    expect(request.deadline_seconds).toBe(172_800);
    expect(body).toMatchObject({ service_tier: 'flex', execution_expires_after: 172_800 });
  });

  test('an online request sends no service_tier, and its window from the task deadline', () => {
    const { body } = sent({ model: V10, prompt: 'x', duration: 5 });
    expect(body.service_tier).toBeUndefined();
    expect(body.execution_expires_after).toBe(7200);
  });
});
