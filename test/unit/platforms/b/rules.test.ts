/**
 * platforms/b/rules.ts: what each model takes, a 400 naming the field and its code before anything is paid for,
 * and the limits that hold; the catalogue's view of what each B model takes.
 */
import { catalogue, refusal } from '../../../support/platform-kit';
import { IMG, IMG2 } from '../../../support/platforms/b';

describe('what each model takes: a 400 naming the field, before anything is paid for', () => {
  const v = (model: string, extra: Record<string, unknown>) => ({
    model,
    duration: model.startsWith('VE') ? 8 : model.startsWith('H') ? 6 : model === 'V20' ? 4 : 5,
    ...extra,
  });
  test.each<[string, 'video' | 'image', Record<string, unknown>, string, string]>([
    [
      'rule 1: text-to-video without duration',
      'video',
      { model: 'K20', action: 'text_to_video', prompt: 'p' },
      'duration',
      'missing_parameter',
    ],
    ['rule 2: no action (image-to-video) and no image', 'video', v('VQ2', { prompt: 'p' }), 'image', 'missing_parameter'],
    ['text-to-video with an image', 'video', v('VQ2', { action: 'text_to_video', prompt: 'p', image_url: IMG }), 'action', 'invalid_value'],
    ['text-to-video without a prompt', 'video', v('VQ2', { action: 'text_to_video' }), 'prompt', 'missing_parameter'],
    [
      'text-to-video on an image-to-video-only model (K21)',
      'video',
      v('K21', { action: 'text_to_video', prompt: 'p' }),
      'action',
      'unsupported_parameter',
    ],
    [
      'image-to-video on the text-to-video-only H20',
      'video',
      v('H20', { prompt: 'p', image: { imageUrl: IMG } }),
      'image.imageUrl',
      'unsupported_parameter',
    ],
    ['a prompt over VQ2T’s 1,500 characters', 'video', v('VQ2T', { prompt: '视'.repeat(1501), image_url: IMG }), 'prompt', 'invalid_value'],
    ['a prompt over Kling’s 2,500', 'video', v('K20', { action: 'text_to_video', prompt: 'k'.repeat(2501) }), 'prompt', 'invalid_value'],
    ['a duration V20 lacks (4 s only)', 'video', { model: 'V20', image_url: IMG, duration: 5 }, 'duration', 'invalid_value'],
    ['a duration Veo lacks', 'video', v('VE3.1', { action: 'text_to_video', prompt: 'p', duration: 5 }), 'duration', 'invalid_value'],
    [
      'a resolution VQ1 lacks',
      'video',
      v('VQ1', { action: 'text_to_video', prompt: 'p', resolution: '720p' }),
      'resolution',
      'invalid_value',
    ],
    ['a ratio Veo lacks', 'video', v('VE3.1', { action: 'text_to_video', prompt: 'p', ratio: '1:1' }), 'ratio', 'invalid_value'],
    [
      'a ratio on Kling image-to-video (no field)',
      'video',
      v('K20', { prompt: 'p', image_url: IMG, ratio: '16:9' }),
      'ratio',
      'unsupported_parameter',
    ],
    [
      'any ratio on Hailuo (no field)',
      'video',
      v('H23', { action: 'text_to_video', prompt: 'p', ratio: '16:9' }),
      'ratio',
      'unsupported_parameter',
    ],
    ['audio on Hailuo', 'video', v('H23', { action: 'text_to_video', prompt: 'p', audio: 'true' }), 'audio', 'unsupported_parameter'],
    [
      'audio on a Kling before 2.6',
      'video',
      v('K25T', { action: 'text_to_video', prompt: 'p', audio: 'true' }),
      'audio',
      'unsupported_parameter',
    ],
    [
      'bgm: no model has a known field',
      'video',
      v('VQ2', { action: 'text_to_video', prompt: 'p', bgm: 'true' }),
      'bgm',
      'unsupported_parameter',
    ],
    [
      'negative_prompt on Vidu',
      'video',
      v('VQ2', { action: 'text_to_video', prompt: 'p', negative_prompt: 'x' }),
      'negative_prompt',
      'unsupported_parameter',
    ],
    ['last frame on PixVerse', 'video', v('P40', { image_url: IMG, last_frame_url: IMG2 }), 'last_frame_url', 'unsupported_parameter'],
    ['a last frame without a first', 'video', v('VE3.1', { images: [{ url: IMG2, role: 'last_frame' }] }), 'images[0]', 'invalid_value'],
    ['two different first frames', 'video', v('VQ2', { image: { imageUrl: IMG }, image_url: IMG2 }), 'image_url', 'invalid_value'],
    ['reference images on Vidu', 'video', v('VQ2', { images: [{ url: IMG }] }), 'images', 'unsupported_parameter'],
    ['reference images with a first frame', 'video', v('VE3.1', { image_url: IMG, images: [{ url: IMG2 }] }), 'images', 'invalid_value'],
    [
      'four reference images on Veo',
      'video',
      v('VE3.1', { images: [1, 2, 3, 4].map((i) => ({ url: `https://img.test/${i}.png` })) }),
      'images',
      'invalid_value',
    ],
    [
      'a WebP first frame on Veo (JPG/PNG only)',
      'video',
      v('VE3.1', { image_url: 'https://img.test/a.webp' }),
      'image_url',
      'invalid_value',
    ],
    [
      'a GIF last frame on Kling',
      'video',
      v('K21', { image_url: IMG, last_frame_url: 'https://img.test/b.GIF?sig=1' }),
      'last_frame_url',
      'invalid_value',
    ],
    [
      'the general generate_audio is not B’s',
      'video',
      v('VE3.1', { action: 'text_to_video', prompt: 'p', generate_audio: true }),
      'generate_audio',
      'unsupported_parameter',
    ],
    ['NB takes n = 1', 'image', { model: 'NB', prompt: 'p', n: 2 }, 'n', 'invalid_value'],
    ['NBP takes n = 1', 'image', { model: 'NBP', prompt: 'p', n: 2 }, 'n', 'invalid_value'],
    ['2K only on NBP', 'image', { model: 'NB', prompt: 'p', quality: '2K' }, 'quality', 'invalid_value'],
    ['hd (4K) only on NBP', 'image', { model: 'I4FG1', prompt: 'p', quality: 'hd' }, 'quality', 'invalid_value'],
    ['a size B has no ratio for', 'image', { model: 'NB', prompt: 'p', size: '2:1' }, 'size', 'invalid_value'],
    [
      'four reference images on NB (3 at most)',
      'image',
      { model: 'NB', prompt: 'p', images: [1, 2, 3, 4].map((i) => ({ url: `https://img.test/${i}.png` })) },
      'images',
      'invalid_value',
    ],
    [
      'reference images on I4G1 (no image-to-image)',
      'image',
      { model: 'I4G1', prompt: 'p', images: [{ url: IMG }] },
      'images',
      'unsupported_parameter',
    ],
    [
      'no negative prompt on B images',
      'image',
      { model: 'NBP', prompt: 'p', negative_prompt: 'x' },
      'negative_prompt',
      'unsupported_parameter',
    ],
  ])('%s → 400 %s', (_name, kind, body, param, code) => {
    expect(refusal(kind, body)).toEqual({ param, code });
  });

  test('limits that hold: 2,500 characters on Kling, 14 references on NBP, an extension-less URL, Hailuo’s WebP', () => {
    expect(refusal('video', { model: 'K20', action: 'text_to_video', prompt: 'k'.repeat(2500), duration: 5 })).toBe('accepted');
    expect(
      refusal('image', { model: 'NBP', prompt: 'p', images: Array.from({ length: 14 }, (_, i) => ({ url: `https://img.test/${i}.png` })) }),
    ).toBe('accepted');
    expect(refusal('video', { model: 'VE3.1', image_url: 'https://img.test/render?id=7', duration: 8 })).toBe('accepted');
    expect(refusal('video', { model: 'H23F', image_url: 'https://img.test/a.webp', duration: 6 })).toBe('accepted');
  });

  test('the catalogue says which model takes what (image-to-video only: V20 VQ1C VQ2T VQ2P VQ2PF K21 KO1 H23F)', () => {
    const b = catalogue.entries.filter((e) => e.platform === 'B');
    const i2vOnly = b
      .filter((e) => e.capabilities.includes('image_to_video') && !e.capabilities.includes('text_to_video'))
      .map((e) => e.id);
    expect(i2vOnly.sort()).toEqual(['H23F', 'K21', 'KO1', 'V20', 'VQ1C', 'VQ2P', 'VQ2PF', 'VQ2T'].sort());
    expect(b.filter((e) => e.kind === 'video' && !e.capabilities.includes('image_to_video')).map((e) => e.id)).toEqual(['H20']);
    const limits = Object.fromEntries(b.map((e) => [e.id, e.maxPromptLength]));
    expect(limits).toMatchObject({ V20: 1500, VQ1: 1500, VQ2: 2000, VQ2T: 1500, P35: 2048, K26: 2500, H23: 2000, 'VE3.1': 2000 });
    const images = Object.fromEntries(
      b.filter((e) => e.kind === 'image').map((e) => [e.id, [e.maxImages, e.maxReferenceImages, e.qualities]]),
    );
    expect(images).toEqual({
      NB: [1, 3, ['standard', '1K']],
      NBP: [1, 14, ['standard', 'hd', '1K', '2K', '4K']],
      NB2: [1, 3, ['standard', '1K']],
      I4YG1: [4, 0, ['standard', '1K']],
      I4FG1: [4, 0, ['standard', '1K']],
      I4G1: [4, 0, ['standard', '1K']],
    });
    for (const e of b) expect(e.evidence).toMatch(/OFF|3P|INF|GUESS/);
  });
});
