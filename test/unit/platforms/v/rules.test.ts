/**
 * platforms/v/rules.ts: the per-model rules, a 400 naming the field, for a body the platform (the simulator) would
 * refuse too.
 */
import type { GenerationRequest } from '../../../../core/task';
import { toVCreateBody } from '../../../../platforms/v/request-body';
import type { VVideoRequest } from '../../../../platforms/v/rules';
import { catalogue, refusal, refusedParam } from '../../../support/platform-kit';
import { I2V, OPTS, V10F, V15, V20, V20F, vSimVerdict } from '../../../support/platforms/v';

describe('per-model rules: a 400 naming the field, for a body the platform would refuse too', () => {
  const many = (n: number, ext: string) => Array.from({ length: n }, (_, i) => ({ url: `https://x.test/${i}.${ext}` }));
  const cases: [string, string, Record<string, unknown>][] = [
    ['1.5 pro is 4–12 s: 3 s', 'duration', { model: V15, prompt: 'x', duration: 3 }],
    ['1.5 pro is 4–12 s: 13 s', 'duration', { model: V15, prompt: 'x', duration: 13 }],
    [
      '1.0 pro fast has no first/last frame',
      'last_frame_url',
      { model: V10F, prompt: 'x', duration: 5, image_url: 'https://x.test/a.png', last_frame_url: 'https://x.test/b.png' },
    ],
    ['2.0 fast has no confirmed 1080p', 'resolution', { model: V20F, prompt: 'x', duration: 5, resolution: '1080p' }],
    ['2.0 fast has no confirmed draft mode', 'service_tier', { model: V20F, prompt: 'x', duration: 5, service_tier: 'draft' }],
    ['a draft renders at 480p only', 'resolution', { model: V15, prompt: 'x', duration: 5, service_tier: 'draft', resolution: '720p' }],
    ['2.0 takes at most 9 reference images', 'images', { model: V20, prompt: 'x', duration: 5, images: many(10, 'png') }],
    ['lite i2v takes at most 4 reference images', 'images', { model: I2V, prompt: 'x', duration: 5, images: many(5, 'png') }],
    [
      '2.0 takes at most 3 reference videos',
      'video_url',
      { model: V20, prompt: 'x', duration: 5, video_url: 'https://x.test/v.mp4', videos: many(3, 'mp4') },
    ],
    [
      '2.0 takes at most 3 reference audios',
      'audio_url',
      { model: V20, prompt: 'x', duration: 5, images: many(1, 'png'), audio_url: 'https://x.test/a.mp3', audios: many(3, 'mp3') },
    ],
    ['2.0 never takes audio alone', 'audio_url', { model: V20, prompt: 'x', duration: 5, audio_url: 'https://x.test/a.mp3' }],
    [
      'reference audio cannot go with a first frame',
      'audios',
      { model: V20, prompt: 'x', duration: 5, image_url: 'https://x.test/a.png', audios: many(1, 'mp3') },
    ],
    ['web search is 2.0 only', 'web_search', { model: V15, prompt: 'x', duration: 5, web_search: true }],
    ['sound is 2.0 only (spec rule 4)', 'generate_audio', { model: V15, prompt: 'x', duration: 5, generate_audio: true }],
  ];

  test.each(cases)('%s → 400 %s', (_name, param, body) => {
    expect(refusedParam('video', body)).toBe(param);
    if (param === 'generate_audio') return; // 1.5 pro makes sound upstream: the gateway narrows it to the spec's 2.0 only
    const entry = catalogue.find('video', body.model as string)!;
    const unchecked = toVCreateBody(entry, { ...body, kind: 'video' } as GenerationRequest as VVideoRequest, OPTS);
    expect(vSimVerdict(unchecked)).toMatch(/^InvalidParameter/);
  });

  test.each([
    ['1.5 pro at 4 and 12 s', { model: V15, prompt: 'x', duration: 12 }],
    ['2.0 fast at 12 s', { model: V20F, prompt: 'x', duration: 12 }],
    [
      '2.0 reference audio with a reference video',
      { model: V20, prompt: 'x', duration: 5, video_url: 'https://x.test/v.mp4', audio_url: 'https://x.test/a.mp3' },
    ],
    ['2.0 web search', { model: V20, prompt: 'x', duration: 5, web_search: true }],
    ['1.5 pro draft without a resolution', { model: V15, prompt: 'x', duration: 5, service_tier: 'draft' }],
  ])('accepted: %s', (_name, body) => {
    expect(refusedParam('video', body)).toBeUndefined();
  });
});

describe("the offline tier (service_tier flex, deadline_seconds): V's documented range, models that take it, never with draft", () => {
  test.each([
    ['2.0 does not take flex', 'service_tier', { model: V20, prompt: 'x', duration: 5, service_tier: 'flex' }],
    ['2.0 fast does not take flex', 'service_tier', { model: V20F, prompt: 'x', duration: 5, service_tier: 'flex' }],
    ['a deadline under 3600 s', 'deadline_seconds', { model: V15, prompt: 'x', duration: 5, service_tier: 'flex', deadline_seconds: 3599 }],
    [
      'a deadline over 259200 s',
      'deadline_seconds',
      { model: V15, prompt: 'x', duration: 5, service_tier: 'flex', deadline_seconds: 259_201 },
    ],
    [
      'a deadline that is not whole seconds',
      'deadline_seconds',
      { model: V15, prompt: 'x', duration: 5, service_tier: 'flex', deadline_seconds: 4000.5 },
    ],
    ['a deadline without flex', 'deadline_seconds', { model: V15, prompt: 'x', duration: 5, deadline_seconds: 7200 }],
    ['a deadline with draft', 'deadline_seconds', { model: V15, prompt: 'x', duration: 5, service_tier: 'draft', deadline_seconds: 7200 }],
  ])('%s → 400 %s', (_name, param, body) => {
    expect(refusal('video', body)).toMatchObject({ param });
  });

  test('the platform refuses flex on 2.0 too (the simulator, from the same sources)', () => {
    const entry = catalogue.find('video', V20)!;
    const body = toVCreateBody(entry, { model: V20, prompt: 'x', duration: 5, service_tier: 'flex', kind: 'video' } as never, OPTS);
    expect(vSimVerdict(body)).toMatch(/^InvalidParameter/);
  });

  test.each([
    ['1.5 pro at the minimum deadline', { model: V15, prompt: 'x', duration: 5, service_tier: 'flex', deadline_seconds: 3600 }],
    ['1.0 pro at the maximum deadline', { model: V10F, prompt: 'x', duration: 5, service_tier: 'flex', deadline_seconds: 259_200 }],
    ['1.0 lite i2v without a deadline', { model: I2V, image_url: 'https://x.test/a.png', duration: 5, service_tier: 'flex' }],
  ])('accepted: %s', (_name, body) => {
    expect(refusedParam('video', body)).toBeUndefined();
  });
});
