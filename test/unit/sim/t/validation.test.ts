/**
 * sim/t/validation.ts (with request-shape.ts and models.ts), over real HTTP: creates checked strictly per model, as the
 * platform checks them.
 */
import { image, stats, SUB, t, useTSimulator, video } from '../../../support/sim/t';
import { validateVideoCreate } from '../../../../sim/t';

useTSimulator();

describe('create validation', () => {
  const cases: [string, 'CreateAigcVideoTask' | 'CreateAigcImageTask', Record<string, unknown>, string | undefined][] = [
    // envelope of the body
    ['unknown top-level parameter', 'CreateAigcVideoTask', video({ Foo: 1 }), 'UnknownParameter'],
    ['SubAppId missing', 'CreateAigcVideoTask', { ModelName: 'GV', ModelVersion: '3.1', Prompt: 'x' }, 'MissingParameter'],
    ['SubAppId of another account', 'CreateAigcVideoTask', video({ SubAppId: 42 }), 'InvalidParameterValue.SubAppId'],
    ['Duration as a string', 'CreateAigcVideoTask', video({ OutputConfig: { Duration: '8' } }), 'InvalidParameter'],
    ['unknown model', 'CreateAigcVideoTask', video({ ModelName: 'Sora' }), 'InvalidParameterValue'],
    ['unknown version', 'CreateAigcVideoTask', video({ ModelVersion: '3.0' }), 'InvalidParameterValue'],
    ['no prompt and no file', 'CreateAigcVideoTask', video({ Prompt: undefined }), 'MissingParameter'],
    ['InputRegion', 'CreateAigcVideoTask', video({ InputRegion: 'Mars' }), 'InvalidParameterValue'],
    ['InputRegion Oversea', 'CreateAigcVideoTask', video({ InputRegion: 'Oversea' }), undefined],
    ['StorageMode', 'CreateAigcVideoTask', video({ OutputConfig: { StorageMode: 'Forever' } }), 'InvalidParameterValue'],
    ['SessionId of 51 characters', 'CreateAigcVideoTask', video({ SessionId: 'x'.repeat(51) }), 'InvalidParameterValue.SessionIdTooLong'],
    [
      'SessionContext of 1001 characters',
      'CreateAigcVideoTask',
      video({ SessionContext: 'x'.repeat(1001) }),
      'InvalidParameterValue.SessionContextTooLong',
    ],
    ['SessionContext of 1000 characters', 'CreateAigcVideoTask', video({ SessionContext: 'x'.repeat(1000) }), undefined],
    // GV
    [
      'GV 16:9',
      'CreateAigcVideoTask',
      video({ OutputConfig: { AspectRatio: '16:9', Duration: 8, Resolution: '1080P', AudioGeneration: 'Enabled' } }),
      undefined,
    ],
    ['GV 1:1', 'CreateAigcVideoTask', video({ OutputConfig: { AspectRatio: '1:1' } }), 'InvalidParameterValue'],
    ['GV 5 s', 'CreateAigcVideoTask', video({ OutputConfig: { Duration: 5 } }), 'InvalidParameterValue'],
    ['GV 1080p (lower case)', 'CreateAigcVideoTask', video({ OutputConfig: { Resolution: '1080p' } }), 'InvalidParameterValue'],
    [
      'GV 3.1-fast last frame with first',
      'CreateAigcVideoTask',
      video({ ModelVersion: '3.1-fast', FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png' }], LastFrameUrl: 'https://x.test/b.png' }),
      undefined,
    ],
    ['last frame without first', 'CreateAigcVideoTask', video({ LastFrameUrl: 'https://x.test/b.png' }), 'InvalidParameterValue'],
    // Kling
    [
      'Kling 2.1 4:3',
      'CreateAigcVideoTask',
      video({ ModelName: 'Kling', ModelVersion: '2.1', OutputConfig: { AspectRatio: '4:3' } }),
      'InvalidParameterValue',
    ],
    [
      'Kling 2.5 1:1, 10 s, audio',
      'CreateAigcVideoTask',
      video({ ModelName: 'Kling', ModelVersion: '2.5', OutputConfig: { AspectRatio: '1:1', Duration: 10, AudioGeneration: 'Enabled' } }),
      undefined,
    ],
    [
      'Kling 2.1 7 s',
      'CreateAigcVideoTask',
      video({ ModelName: 'Kling', ModelVersion: '2.1', OutputConfig: { Duration: 7 } }),
      'InvalidParameterValue',
    ],
    ['Kling 3.0 7 s', 'CreateAigcVideoTask', video({ ModelName: 'Kling', ModelVersion: '3.0', OutputConfig: { Duration: 7 } }), undefined],
    [
      'Kling 2.1 last frame at 720P',
      'CreateAigcVideoTask',
      video({
        ModelName: 'Kling',
        ModelVersion: '2.1',
        FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png' }],
        LastFrameUrl: 'https://x.test/b.png',
      }),
      'InvalidParameterValue',
    ],
    [
      'Kling 2.1 last frame at 1080P',
      'CreateAigcVideoTask',
      video({
        ModelName: 'Kling',
        ModelVersion: '2.1',
        FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png' }],
        LastFrameUrl: 'https://x.test/b.png',
        OutputConfig: { Resolution: '1080P' },
      }),
      undefined,
    ],
    [
      'Kling 2.5 last frame',
      'CreateAigcVideoTask',
      video({
        ModelName: 'Kling',
        ModelVersion: '2.5',
        FileInfos: [
          { Type: 'Url', Url: 'https://x.test/a.png' },
          { Type: 'Url', Url: 'https://x.test/b.png', Usage: 'LastFrame' },
        ],
        OutputConfig: { Resolution: '1080P' },
      }),
      'InvalidParameterValue',
    ],
    // Vidu
    [
      'Vidu q2 4:3 with audio',
      'CreateAigcVideoTask',
      video({ ModelName: 'Vidu', ModelVersion: 'q2', OutputConfig: { AspectRatio: '4:3', Duration: 4, AudioGeneration: 'Enabled' } }),
      undefined,
    ],
    [
      'Vidu q2-pro 4:3',
      'CreateAigcVideoTask',
      video({ ModelName: 'Vidu', ModelVersion: 'q2-pro', OutputConfig: { AspectRatio: '4:3' } }),
      'InvalidParameterValue',
    ],
    [
      'Vidu 11 s',
      'CreateAigcVideoTask',
      video({ ModelName: 'Vidu', ModelVersion: 'q2', OutputConfig: { Duration: 11 } }),
      'InvalidParameterValue',
    ],
    [
      'Vidu q2 last frame',
      'CreateAigcVideoTask',
      video({
        ModelName: 'Vidu',
        ModelVersion: 'q2',
        FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png' }],
        LastFrameUrl: 'https://x.test/b.png',
      }),
      'InvalidParameterValue',
    ],
    [
      'Vidu q2-pro last frame',
      'CreateAigcVideoTask',
      video({
        ModelName: 'Vidu',
        ModelVersion: 'q2-pro',
        FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png' }],
        LastFrameUrl: 'https://x.test/b.png',
      }),
      undefined,
    ],
    // Hailuo
    [
      'Hailuo any AspectRatio',
      'CreateAigcVideoTask',
      video({ ModelName: 'Hailuo', ModelVersion: '2.3', OutputConfig: { AspectRatio: '16:9' } }),
      'InvalidParameterValue',
    ],
    [
      'Hailuo 720P',
      'CreateAigcVideoTask',
      video({ ModelName: 'Hailuo', ModelVersion: '2.3', OutputConfig: { Resolution: '720P' } }),
      'InvalidParameterValue',
    ],
    [
      'Hailuo 768P 10 s',
      'CreateAigcVideoTask',
      video({ ModelName: 'Hailuo', ModelVersion: '2.3', OutputConfig: { Resolution: '768P', Duration: 10 } }),
      undefined,
    ],
    [
      'Hailuo 1080P 10 s',
      'CreateAigcVideoTask',
      video({ ModelName: 'Hailuo', ModelVersion: '2.3', OutputConfig: { Resolution: '1080P', Duration: 10 } }),
      'InvalidParameterValue',
    ],
    [
      'Hailuo audio',
      'CreateAigcVideoTask',
      video({ ModelName: 'Hailuo', ModelVersion: '2.3', OutputConfig: { AudioGeneration: 'Enabled' } }),
      'InvalidParameterValue',
    ],
    // video files
    [
      'video FileInfos Category Image + Usage Reference + mixed with first frame',
      'CreateAigcVideoTask',
      video({
        FileInfos: [
          { Type: 'Url', Url: 'https://x.test/a.png' },
          { Type: 'Url', Url: 'https://x.test/b.png', Usage: 'Reference' },
        ],
      }),
      'InvalidParameterValue',
    ],
    [
      'video FileInfos unknown field',
      'CreateAigcVideoTask',
      video({ FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png', Role: 'first' }] }),
      'UnknownParameter',
    ],
    ['video FileInfos without Url', 'CreateAigcVideoTask', video({ FileInfos: [{ Type: 'Url' }] }), 'MissingParameter'],
    // images
    [
      'image FileInfos with Category',
      'CreateAigcImageTask',
      image({ FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png', Category: 'Image' }] }),
      'UnknownParameter',
    ],
    [
      'image FileInfos with Usage',
      'CreateAigcImageTask',
      image({ FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png', Usage: 'Reference' }] }),
      'UnknownParameter',
    ],
    [
      'GG 2.5 four reference images',
      'CreateAigcImageTask',
      image({ FileInfos: [1, 2, 3, 4].map((i) => ({ Type: 'Url', Url: `https://x.test/${i}.png` })) }),
      'InvalidParameterValue',
    ],
    ['GG 2.5 4K 21:9', 'CreateAigcImageTask', image({ OutputConfig: { Resolution: '4K', AspectRatio: '21:9' } }), undefined],
    ['GG 2.5 4k (lower case)', 'CreateAigcImageTask', image({ OutputConfig: { Resolution: '4k' } }), 'InvalidParameterValue'],
    ['GG 3.0 1:8', 'CreateAigcImageTask', image({ ModelVersion: '3.0', OutputConfig: { AspectRatio: '1:8' } }), 'InvalidParameterValue'],
    [
      'Kling 2.1 image 2k',
      'CreateAigcImageTask',
      image({ ModelName: 'Kling', ModelVersion: '2.1', OutputConfig: { Resolution: '2k', OutputImageCount: 9 } }),
      undefined,
    ],
    [
      'Kling 2.1 image 2K',
      'CreateAigcImageTask',
      image({ ModelName: 'Kling', ModelVersion: '2.1', OutputConfig: { Resolution: '2K' } }),
      'InvalidParameterValue',
    ],
    [
      'Kling 2.1 image 4k',
      'CreateAigcImageTask',
      image({ ModelName: 'Kling', ModelVersion: '2.1', OutputConfig: { Resolution: '4k' } }),
      'InvalidParameterValue',
    ],
    [
      'Kling 2.1 image 10 outputs',
      'CreateAigcImageTask',
      image({ ModelName: 'Kling', ModelVersion: '2.1', OutputConfig: { OutputImageCount: 10 } }),
      'InvalidParameterValue',
    ],
    [
      'Hunyuan 3.0 Resolution',
      'CreateAigcImageTask',
      image({ ModelName: 'Hunyuan', ModelVersion: '3.0', OutputConfig: { Resolution: '1K' } }),
      'InvalidParameterValue',
    ],
    [
      'Hunyuan 3.0 AspectRatio',
      'CreateAigcImageTask',
      image({ ModelName: 'Hunyuan', ModelVersion: '3.0', OutputConfig: { AspectRatio: '1:1' } }),
      'InvalidParameterValue',
    ],
    ['Hunyuan 3.0 plain', 'CreateAigcImageTask', image({ ModelName: 'Hunyuan', ModelVersion: '3.0' }), undefined],
    ['image model as video', 'CreateAigcVideoTask', video({ ModelName: 'GG', ModelVersion: '2.5' }), 'InvalidParameterValue'],
    ['video-only output field on an image', 'CreateAigcImageTask', image({ OutputConfig: { Duration: 5 } }), 'UnknownParameter'],
  ];

  test.each(cases)('%s', async (_name, action, body, code) => {
    const r = await t(action, body);
    expect(r.Error?.Code).toBe(code);
    if (code === undefined) expect(r.TaskId).toMatch(new RegExp(`^${SUB}-Aigc(Video|Image)Task-`));
    else expect(r.TaskId).toBeUndefined();
  });

  test('refusals create no job and count as rejected', async () => {
    await t('CreateAigcVideoTask', video({ Foo: 1 }));
    const s = await stats();
    expect(s.jobsCreated).toBe(0);
    expect(s.rejected).toBe(1);
    expect(s.submitRequests).toBe(1);
  });
});

describe("Kling's sound, in validation alone", () => {
  const kling = (version: string, audio: string) => ({
    SubAppId: SUB,
    ModelName: 'Kling',
    ModelVersion: version,
    Prompt: 'a cat',
    OutputConfig: { Duration: 5, Resolution: '720P', AudioGeneration: audio },
  });
  test('the Kling versions taken as silent refuse AudioGeneration Enabled, naming the field; others and Disabled pass', () => {
    expect(() => validateVideoCreate(kling('2.1', 'Enabled'), SUB, ['2.1'])).toThrow(
      expect.objectContaining({ code: 'InvalidParameterValue', message: expect.stringContaining('OutputConfig.AudioGeneration') }),
    );
    expect(validateVideoCreate(kling('2.1', 'Disabled'), SUB, ['2.1']).modelVersion).toBe('2.1');
    expect(validateVideoCreate(kling('2.5', 'Enabled'), SUB, ['2.1']).modelVersion).toBe('2.5');
    expect(validateVideoCreate(kling('2.1', 'Enabled'), SUB).modelVersion).toBe('2.1');
  });
});
