/**
 * platforms/b/request-body.ts: golden create bodies per family, built from the shared page's examples, each also
 * run through the simulator's strict validation (nothing may be ignored); the reconciliation seed.
 */
import { taskInputKey } from '../../../../platforms/b/model-spec';
import { markerSeed } from '../../../../platforms/b/request-body';
import { create, expectSimAccepts, IMG, IMG2 } from '../../../support/platforms/b';

describe('create bodies, per family (golden, and accepted by the simulator with nothing ignored)', () => {
  test('Vidu first+last frame: the official VIDEO_GENERATE_COMPLETE example (docs/platforms/b.md#callbacks), on V20', () => {
    const c = create('video', {
      model: 'V20',
      prompt: '两个人拥抱',
      image_url: 'https://x.test/head.jpeg',
      last_frame_url: 'https://x.test/tail.jpeg',
      duration: 4,
      resolution: '720p',
    });
    expect(c.path).toBe('/v2/aigc/image_to_video');
    // The example's modelV15TaskInput, with V20 (V15 is retired): byte for byte the same members.
    expect(c.body).toEqual({
      model: 'V20',
      modelV20TaskInput: {
        headtailImages: { headImage: { imageUrl: 'https://x.test/head.jpeg' }, tailImage: { imageUrl: 'https://x.test/tail.jpeg' } },
        prompt: '两个人拥抱',
        duration: 4,
        resolution: '720p',
        movementAmplitude: 'auto',
      },
    });
    expectSimAccepts(c);
  });

  test('Veo text-to-video: the third-party body; with a submit, its seed', () => {
    const body = {
      model: 'VE3.1',
      action: 'text_to_video',
      prompt: 'a koi pond at dawn',
      ratio: '16:9',
      duration: 4,
      resolution: '720p',
      negative_prompt: 'blur',
      audio: 'true',
    };
    const c = create('video', body);
    expect(c.path).toBe('/v2/aigc/text_to_video');
    expect(c.body).toEqual({
      model: 'VE3.1',
      modelVE31TaskInput: {
        prompt: 'a koi pond at dawn',
        n: 1,
        aspectRatio: '16:9',
        durationSeconds: 4,
        resolution: '720p',
        negativePrompt: 'blur',
        generateAudio: true,
      },
    });
    const submitted = create('video', body, 'task-1-run-a');
    expect(submitted.body.modelVE31TaskInput).toEqual({ ...(c.body.modelVE31TaskInput as object), seed: markerSeed('task-1-run-a') });
    expect(markerSeed('task-1-run-a')).not.toBe(markerSeed('task-2-run-a'));
    expect(markerSeed('x')).toBeGreaterThanOrEqual(0);
    expect(markerSeed('x')).toBeLessThanOrEqual(2 ** 32 - 1);
    expectSimAccepts(submitted);
  });

  test.each<[string, Record<string, unknown>, string, Record<string, unknown>]>([
    [
      'Vidu text-to-video',
      { model: 'VQ2', action: 'text_to_video', prompt: 'p', duration: 7, resolution: '1080P', ratio: '4:3' },
      'text_to_video',
      { movementAmplitude: 'auto', prompt: 'p', duration: 7, resolution: '1080p', aspectRatio: '4:3' },
    ],
    [
      'Vidu first frame from B’s own image field, no prompt',
      { model: 'VQ2T', image: { imageUrl: IMG }, duration: 5 },
      'image_to_video',
      { movementAmplitude: 'auto', duration: 5, image: { imageUrl: IMG } },
    ],
    [
      'Veo first + last frame',
      { model: 'VE3.1F', prompt: 'turn', image_url: IMG, last_frame_url: IMG2, duration: 6, resolution: '1080p' },
      'image_to_video',
      { n: 1, prompt: 'turn', durationSeconds: 6, resolution: '1080p', image: { imageUrl: IMG }, lastFrame: { imageUrl: IMG2 } },
    ],
    [
      'Veo one reference image: the 3P object form',
      { model: 'VE3.1P', action: 'image_to_video', prompt: 'r', images: [{ url: IMG, role: 'reference_image' }], duration: 8 },
      'image_to_video',
      { n: 1, prompt: 'r', durationSeconds: 8, referenceImages: { imageUrl: IMG } },
    ],
    [
      'Veo two reference images: a list',
      { model: 'VE3.1FP', action: 'image_to_video', prompt: 'r', images: [{ url: IMG }, { url: IMG2 }], duration: 8, resolution: '4K' },
      'image_to_video',
      { n: 1, prompt: 'r', durationSeconds: 8, resolution: '4k', referenceImages: [{ imageUrl: IMG }, { imageUrl: IMG2 }] },
    ],
    [
      'Kling text-to-video: resolution through mode',
      { model: 'K20', action: 'text_to_video', prompt: 'k', duration: 10, resolution: '1080p', ratio: '9:16', negative_prompt: 'n' },
      'text_to_video',
      { prompt: 'k', negativePrompt: 'n', duration: 10, mode: 'pro', aspectRatio: '9:16' },
    ],
    [
      'Kling 2.6 with sound',
      { model: 'K26', action: 'text_to_video', prompt: 'k', duration: 5, audio: 'true' },
      'text_to_video',
      { prompt: 'k', duration: 5, sound: 'on' },
    ],
    [
      'Kling first + last frame, "false" switches without a field left out',
      {
        model: 'K21',
        prompt: 'k',
        image: { imageUrl: IMG },
        image_url: IMG,
        last_frame_url: IMG2,
        duration: 5,
        resolution: '720P',
        audio: 'false',
        bgm: 'false',
      },
      'image_to_video',
      { prompt: 'k', duration: 5, mode: 'std', image: { imageUrl: IMG }, imageTail: { imageUrl: IMG2 } },
    ],
    [
      'PixVerse text-to-video',
      { model: 'P45', action: 'text_to_video', prompt: 'pv', duration: 8, resolution: '540p', ratio: '1:1' },
      'text_to_video',
      { prompt: 'pv', duration: 8, quality: '540p', aspectRatio: '1:1' },
    ],
    [
      'PixVerse image-to-video from images[first_frame]',
      { model: 'P50', images: [{ url: IMG, role: 'first_frame' }], duration: 5 },
      'image_to_video',
      { duration: 5, image: { imageUrl: IMG } },
    ],
    [
      'Hailuo text-to-video',
      { model: 'H20', action: 'text_to_video', prompt: 'h', duration: 6, resolution: '768p' },
      'text_to_video',
      { prompt: 'h', duration: 6, resolution: '768P' },
    ],
    [
      'Hailuo first + last frame',
      { model: 'H23', prompt: 'h', image_url: 'https://img.test/a.webp', last_frame_url: IMG2, duration: 10, resolution: '1080p' },
      'image_to_video',
      {
        prompt: 'h',
        duration: 10,
        resolution: '1080P',
        firstFrame: { imageUrl: 'https://img.test/a.webp' },
        lastFrame: { imageUrl: IMG2 },
      },
    ],
  ])('%s', (_name, request, endpoint, taskInput) => {
    const c = create('video', request);
    expect(c.path).toBe(`/v2/aigc/${endpoint}`);
    expect(c.body).toEqual({ model: request.model, [taskInputKey(request.model as string)]: taskInput });
    expectSimAccepts(c);
  });

  test.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'NBP: reference images, 2K, a pixel size as its ratio',
      { model: 'NBP', prompt: 'a poster', images: [{ url: IMG }, { url: IMG2 }], quality: '2K', size: '1920x1080' },
      {
        model: 'NBP',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'a poster' },
              { type: 'image_url', image_item: { image_url: IMG } },
              { type: 'image_url', image_item: { image_url: IMG2 } },
            ],
          },
        ],
        size: '16:9',
        quality: '2K',
      },
    ],
    [
      'NBP: hd is 4K',
      { model: 'NBP', prompt: 'x', quality: 'hd' },
      { model: 'NBP', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }], quality: '4K' },
    ],
    [
      'I4YG1: n = 4, standard is 1K, a listed ratio',
      { model: 'I4YG1', prompt: 'four', n: 4, quality: 'standard', size: '21:9' },
      { model: 'I4YG1', messages: [{ role: 'user', content: [{ type: 'text', text: 'four' }] }], n: 4, size: '21:9', quality: '1K' },
    ],
    [
      'NB: the bare minimum',
      { model: 'NB', prompt: 'one' },
      { model: 'NB', messages: [{ role: 'user', content: [{ type: 'text', text: 'one' }] }] },
    ],
  ])('image: %s', (_name, request, body) => {
    const c = create('image', request);
    expect(c.path).toBe('/v2/aigc/image');
    expect(c.body).toEqual(body);
    expectSimAccepts(c);
  });
});
