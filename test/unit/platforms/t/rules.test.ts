/**
 * platforms/t/rules.ts: the per-model rules, a 400 naming the field for a request the model cannot take, and a body
 * a strict platform T (the simulator) refuses too when the rule is bypassed.
 */
import type { GenerationRequest } from '../../../../core/task';
import { imageRequestSchema } from '../../../../platforms';
import { toTCreateCall } from '../../../../platforms/t/request-body';
import { catalogue, refusedParam } from '../../../support/platform-kit';
import { IMG, IMG2, OPTS, SUB, tSimVerdict } from '../../../support/platforms/t';

describe('per-model rules: a request the model cannot take is a 400 naming the field, and T would refuse it too', () => {
  const cases: [string, 'video' | 'image', Record<string, unknown>, string][] = [
    ['GV takes 16:9 and 9:16 only', 'video', { model: 'GV-3.1', prompt: 'x', ratio: '1:1' }, 'ratio'],
    [
      'GV: an explicit AspectRatio too',
      'video',
      { model: 'GV-3.1-fast', prompt: 'x', output_config: { AspectRatio: '4:3' } },
      'output_config.AspectRatio',
    ],
    ['Hailuo takes no ratio', 'video', { model: 'VendorH-2.3', prompt: 'x', ratio: '16:9' }, 'ratio'],
    ['Kling takes 16:9, 9:16, 1:1', 'video', { model: 'VendorK-2.5', prompt: 'x', ratio: '4:3' }, 'ratio'],
    ['4:3 is Vidu q2 only', 'video', { model: 'VendorQ-q2-pro', prompt: 'x', ratio: '3:4' }, 'ratio'],
    [
      'Kling 2.5 takes no last frame',
      'video',
      { model: 'VendorK-2.5', prompt: 'x', image_url: IMG, last_frame_url: IMG2 },
      'last_frame_url',
    ],
    [
      'Kling 2.1 takes a last frame only at 1080P',
      'video',
      { model: 'VendorK-2.1', prompt: 'x', image_url: IMG, last_frame_url: IMG2, resolution: '720P' },
      'resolution',
    ],
    ['Vidu q2 takes no last frame', 'video', { model: 'VendorQ-q2', prompt: 'x', image_url: IMG, last_frame_url: IMG2 }, 'last_frame_url'],
    [
      'Hailuo makes no sound',
      'video',
      { model: 'VendorH-2.3', prompt: 'x', output_config: { AudioGeneration: 'Enabled' } },
      'output_config.AudioGeneration',
    ],
    ['Hailuo renders 1080P at 6 s only', 'video', { model: 'VendorH-2.3', prompt: 'x', resolution: '1080P', duration: 10 }, 'duration'],
    [
      'Hailuo takes no reference images',
      'video',
      { model: 'VendorH-2.3', prompt: 'x', file_infos: [{ Type: 'Url', Url: IMG, Usage: 'Reference' }] },
      'file_infos',
    ],
    ['a T video prompt is at most 1000 characters', 'video', { model: 'GV-3.1', prompt: 'p'.repeat(1001) }, 'prompt'],
    ['Kling 2.1 images have no 4K: quality hd is refused', 'image', { model: 'VendorK-2.1', prompt: 'x', quality: 'hd' }, 'quality'],
    [
      'Kling image resolutions are 1k and 2k',
      'image',
      { model: 'VendorK-2.1', prompt: 'x', output_config: { Resolution: '4K' } },
      'output_config.Resolution',
    ],
    ['Hunyuan 3.0 takes no size (aspect ratio)', 'image', { model: 'VendorY-3.0', prompt: 'x', size: '16:9' }, 'size'],
    [
      'Hunyuan 3.0 takes no resolution',
      'image',
      { model: 'VendorY-3.0', prompt: 'x', output_config: { Resolution: '1K' } },
      'output_config.Resolution',
    ],
    ['Hunyuan 3.0 takes no hd', 'image', { model: 'VendorY-3.0', prompt: 'x', quality: 'hd' }, 'quality'],
    [
      'GG 2.5 takes at most 3 reference images',
      'image',
      { model: 'GEM-2.5', prompt: 'x', file_infos: [1, 2, 3, 4].map((i) => ({ Type: 'Url', Url: `https://x.test/${i}.png` })) },
      'file_infos',
    ],
    ['n > 1 only where OutputImageCount has an effect (Kling)', 'image', { model: 'GEM-3.0', prompt: 'x', n: 2 }, 'n'],
  ];

  test.each(cases.map(([name, kind, body, param]) => [name, param, kind, body] as const))('%s → 400 %s', (_name, param, kind, body) => {
    expect(refusedParam(kind, body)).toBe(param);
    // Without our rules, the body we would have built is refused by a strict platform T: the rule is real.
    const entry = catalogue.find(kind, body.model as string)!;
    const unchecked = { ...body, kind } as GenerationRequest;
    if (kind === 'image' && typeof body.size === 'string') (unchecked as Record<string, unknown>).ratio = body.size;
    if (param === 'n' || param === 'quality') {
      // Nothing T could refuse: OutputImageCount is not sent where it has no effect, and a quality the model has
      // no resolution for cannot even be built.
      if (param === 'quality') expect(() => toTCreateCall(entry, unchecked, OPTS)).toThrow(/has no platform T resolution/);
      return;
    }
    expect(tSimVerdict(kind, toTCreateCall(entry, unchecked, OPTS).body)).toMatch(
      /^(InvalidParameterValue|UnknownParameter|InvalidParameter|MissingParameter)/,
    );
  });

  test('image FileInfos items take no Category or Usage (the schema refuses them)', () => {
    const r = imageRequestSchema.safeParse({ model: 'GEM-3.0', prompt: 'x', file_infos: [{ Type: 'Url', Url: IMG, Category: 'Image' }] });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['file_infos', 0]);
    // And platform T refuses such an item as an unknown parameter.
    expect(
      tSimVerdict('image', {
        SubAppId: SUB,
        ModelName: 'GG',
        ModelVersion: '3.0',
        Prompt: 'x',
        FileInfos: [{ Type: 'Url', Url: IMG, Category: 'Image' }],
      }),
    ).toMatch(/^UnknownParameter/);
  });

  test.each([
    ['Kling makes sound', { model: 'VendorK-2.1', prompt: 'x', generate_audio: true, duration: 5 }],
    ['Vidu makes sound', { model: 'VendorQ-q2-pro', prompt: 'x', generate_audio: true, duration: 5 }],
    [
      'Kling 2.1 takes a last frame at 1080P',
      { model: 'VendorK-2.1', prompt: 'x', image_url: IMG, last_frame_url: IMG2, resolution: '1080p' },
    ],
    ['Hailuo renders 1080P at 6 s', { model: 'VendorH-2.3', prompt: 'x', resolution: '1080P', duration: 6 }],
    ['Vidu q2 takes 3:4', { model: 'VendorQ-q2', prompt: 'x', ratio: '3:4' }],
  ])('accepted: %s', (_name, body) => {
    expect(refusedParam('video', body)).toBeUndefined();
  });
});
