/**
 * platforms/t/request-body.ts: golden create bodies per model family, each also accepted by the simulator's strict
 * validators (sim/t, written from the same SDK), and the SessionId derived from the dedup key.
 */
import { toSessionId, toTCreateCall, type TCreateOptions } from '../../../../platforms/t/request-body';
import { normalised } from '../../../support/platform-kit';
import { IMG, IMG2, OPTS, SUB, tSimVerdict } from '../../../support/platforms/t';

describe('toTCreateCall: golden bodies per model family (and a strict platform T accepts each)', () => {
  const session = { SessionId: OPTS.dedupKey, SessionContext: 'task_abc' };
  const cases: [string, 'video' | 'image', Record<string, unknown>, Partial<TCreateOptions>, Record<string, unknown>][] = [
    [
      'GV text-to-video: general fields mapped into OutputConfig, 9:16, sound',
      'video',
      {
        model: 'GV-3.1',
        prompt: 'a fox',
        negative_prompt: 'blur',
        enhance_prompt: 'Enabled',
        duration: 8,
        resolution: '1080p',
        ratio: '9:16',
        generate_audio: true,
      },
      {},
      {
        SubAppId: SUB,
        ModelName: 'GV',
        ModelVersion: '3.1',
        Prompt: 'a fox',
        NegativePrompt: 'blur',
        EnhancePrompt: 'Enabled',
        OutputConfig: { Duration: 8, Resolution: '1080P', AspectRatio: '9:16', AudioGeneration: 'Enabled' },
        ...session,
      },
    ],
    [
      'GV fast first + last frame, no sound',
      'video',
      { model: 'GV-3.1-fast', prompt: 'morph', image_url: IMG, last_frame_url: IMG2, generate_audio: false },
      {},
      {
        SubAppId: SUB,
        ModelName: 'GV',
        ModelVersion: '3.1-fast',
        Prompt: 'morph',
        FileInfos: [{ Type: 'Url', Url: IMG, Category: 'Image', Usage: 'FirstFrame' }],
        LastFrameUrl: IMG2,
        OutputConfig: { AudioGeneration: 'Disabled' },
        ...session,
      },
    ],
    [
      'Kling 2.1 first + last frame at 1080P, with sound, input URLs abroad',
      'video',
      {
        model: 'VendorK-2.1',
        prompt: 'turn',
        image_url: IMG,
        last_frame_url: IMG2,
        resolution: '1080P',
        duration: 5,
        generate_audio: true,
        input_region: 'Oversea',
      },
      {},
      {
        SubAppId: SUB,
        ModelName: 'Kling',
        ModelVersion: '2.1',
        Prompt: 'turn',
        FileInfos: [{ Type: 'Url', Url: IMG, Category: 'Image', Usage: 'FirstFrame' }],
        LastFrameUrl: IMG2,
        OutputConfig: { Duration: 5, Resolution: '1080P', AudioGeneration: 'Enabled' },
        InputRegion: 'Oversea',
        ...session,
      },
    ],
    [
      'Kling 2.5 image-to-video, 1:1, permanent storage (deployment setting)',
      'video',
      { model: 'VendorK-2.5', image_url: IMG, duration: 10, ratio: '1:1' },
      { storageMode: 'Permanent' },
      {
        SubAppId: SUB,
        ModelName: 'Kling',
        ModelVersion: '2.5',
        FileInfos: [{ Type: 'Url', Url: IMG, Category: 'Image', Usage: 'FirstFrame' }],
        OutputConfig: { StorageMode: 'Permanent', Duration: 10, AspectRatio: '1:1' },
        ...session,
      },
    ],
    [
      'Vidu q2 reference images through file_infos, 4:3 (q2 only), sound; output_config beside the general fields it agrees with',
      'video',
      {
        model: 'VendorQ-q2',
        prompt: 'these two, dancing',
        duration: 7,
        generate_audio: true,
        file_infos: [
          { Type: 'Url', Url: 'https://x.test/r1.png', Category: 'Image', Usage: 'Reference' },
          { Type: 'Url', Url: 'https://x.test/r2.png', Usage: 'Reference' },
        ],
        output_config: { Duration: 7, AspectRatio: '4:3', Resolution: '720p' },
      },
      {},
      {
        SubAppId: SUB,
        ModelName: 'Vidu',
        ModelVersion: 'q2',
        Prompt: 'these two, dancing',
        FileInfos: [
          { Type: 'Url', Url: 'https://x.test/r1.png', Category: 'Image', Usage: 'Reference' },
          { Type: 'Url', Url: 'https://x.test/r2.png', Usage: 'Reference' },
        ],
        OutputConfig: { Duration: 7, AspectRatio: '4:3', Resolution: '720P', AudioGeneration: 'Enabled' },
        ...session,
      },
    ],
    [
      'Vidu q2-pro first + last frame',
      'video',
      { model: 'VendorQ-q2-pro', prompt: 'bloom', image_url: IMG, last_frame_url: IMG2, duration: 6 },
      {},
      {
        SubAppId: SUB,
        ModelName: 'Vidu',
        ModelVersion: 'q2-pro',
        Prompt: 'bloom',
        FileInfos: [{ Type: 'Url', Url: IMG, Category: 'Image', Usage: 'FirstFrame' }],
        LastFrameUrl: IMG2,
        OutputConfig: { Duration: 6 },
        ...session,
      },
    ],
    [
      'Hailuo text-to-video at 768P, 10 s: no AspectRatio',
      'video',
      { model: 'VendorH-2.3', prompt: 'rain', duration: 10, resolution: '768P' },
      {},
      {
        SubAppId: SUB,
        ModelName: 'Hailuo',
        ModelVersion: '2.3',
        Prompt: 'rain',
        OutputConfig: { Duration: 10, Resolution: '768P' },
        ...session,
      },
    ],
    [
      'GG image: size → AspectRatio, quality hd → 4K (public id GEM, upstream GG)',
      'image',
      { model: 'GEM-3.0', prompt: 'a lighthouse', size: '1792x1024', quality: 'hd', negative_prompt: 'people' },
      {},
      {
        SubAppId: SUB,
        ModelName: 'GG',
        ModelVersion: '3.0',
        Prompt: 'a lighthouse',
        NegativePrompt: 'people',
        OutputConfig: { AspectRatio: '16:9', Resolution: '4K' },
        ...session,
      },
    ],
    [
      'GG 2.5 image-to-image: FileInfos items without Category or Usage, an explicit Resolution (priced as the quality hd)',
      'image',
      { model: 'GEM-2.5', prompt: 'in oils', file_infos: [{ Type: 'Url', Url: IMG }], output_config: { Resolution: '4k' } },
      {},
      {
        SubAppId: SUB,
        ModelName: 'GG',
        ModelVersion: '2.5',
        Prompt: 'in oils',
        FileInfos: [{ Type: 'Url', Url: IMG }],
        OutputConfig: { Resolution: '4K' },
        ...session,
      },
    ],
    [
      'Hunyuan image: quality standard is its default, so neither Resolution nor AspectRatio is sent',
      'image',
      {
        model: 'VendorY-3.0',
        prompt: 'tea',
        quality: 'standard',
        enhance_prompt: 'Disabled',
        input_region: 'Oversea',
        file_infos: [{ Type: 'Url', Url: IMG }],
      },
      {},
      {
        SubAppId: SUB,
        ModelName: 'Hunyuan',
        ModelVersion: '3.0',
        Prompt: 'tea',
        EnhancePrompt: 'Disabled',
        InputRegion: 'Oversea',
        FileInfos: [{ Type: 'Url', Url: IMG }],
        ...session,
      },
    ],
    [
      'Kling image: n → OutputImageCount, quality 2K → 2k (its spelling), 3:2, permanent storage',
      'image',
      { model: 'VendorK-2.1', prompt: 'cats', n: 3, quality: '2K', size: '3:2' },
      { storageMode: 'Permanent' },
      {
        SubAppId: SUB,
        ModelName: 'Kling',
        ModelVersion: '2.1',
        Prompt: 'cats',
        OutputConfig: { StorageMode: 'Permanent', AspectRatio: '3:2', Resolution: '2k', OutputImageCount: 3 },
        ...session,
      },
    ],
  ];

  test.each(cases)('%s', (_name, kind, body, opts, expected) => {
    const { entry, request } = normalised(kind, body);
    const call = toTCreateCall(entry, request, { ...OPTS, ...opts });
    expect(call.action).toBe(kind === 'video' ? 'CreateAigcVideoTask' : 'CreateAigcImageTask');
    expect(JSON.parse(JSON.stringify(call.body))).toEqual(expected);
    expect(tSimVerdict(kind, call.body)).toBeUndefined();
  });

  test('SessionId is the dedup key itself, or a stable 50-character digest of a longer key; SessionContext the task id', () => {
    expect(toSessionId('task_abc')).toBe('task_abc');
    const long = 'k'.repeat(80);
    expect(toSessionId(long)).toHaveLength(50);
    expect(toSessionId(long)).toBe(toSessionId(long));
    expect(toSessionId(long)).not.toBe(toSessionId(`${long}x`));
    const { entry, request } = normalised('video', { model: 'GV-3.1', prompt: 'x' });
    expect(toTCreateCall(entry, request, { ...OPTS, dedupKey: long, taskId: 't'.repeat(1001) }).body).toEqual({
      SubAppId: SUB,
      ModelName: 'GV',
      ModelVersion: '3.1',
      Prompt: 'x',
      SessionId: toSessionId(long),
    });
  });
});
