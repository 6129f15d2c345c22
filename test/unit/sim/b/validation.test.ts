/**
 * sim/b/validation.ts, over real HTTP: text-to-video and image-to-video creates checked per model as the shared page
 * documents them, nothing ignored silently.
 */
import { call, sim_, t2v, createT2V, createI2V, IMG, finished, useBSimulator } from '../../../support/sim/b';

useBSimulator();

describe('video creates', () => {
  const outputOf = async (taskId: string) => (await finished(taskId)).videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos[0];

  test.each([
    [
      'Vidu VQ2 t2v',
      'text_to_video',
      'VQ2',
      { prompt: 'a fox', duration: 8, resolution: '1080p', aspectRatio: '9:16', movementAmplitude: 'small' },
      8,
      1080,
      1920,
      false,
    ],
    ['Vidu V20 i2v', 'image_to_video', 'V20', { prompt: 'it moves', image: IMG, duration: 4, resolution: '720P' }, 4, 1280, 720, false],
    [
      'Vidu VQ2P head+tail',
      'image_to_video',
      'VQ2P',
      { headtailImages: { headImage: IMG, tailImage: IMG }, duration: 3 },
      3,
      1280,
      720,
      false,
    ],
    [
      'Veo VE3.1 t2v',
      'text_to_video',
      'VE3.1',
      { prompt: 'a boat', durationSeconds: 6, resolution: '1080p', generateAudio: true, n: 1, negativePrompt: 'blur' },
      6,
      1920,
      1080,
      true,
    ],
    [
      'Veo VE3.1F i2v first+last',
      'image_to_video',
      'VE3.1F',
      { prompt: 'p', image: IMG, lastFrame: IMG, aspectRatio: '9:16', resolution: '4k' },
      8,
      2160,
      3840,
      false,
    ],
    [
      'Veo VE3.1FP references',
      'image_to_video',
      'VE3.1FP',
      { prompt: 'p', referenceImages: [IMG, IMG], durationSeconds: 4 },
      4,
      1280,
      720,
      false,
    ],
    [
      'Kling K26 t2v',
      'text_to_video',
      'K26',
      { prompt: 'a dog', duration: 10, mode: 'pro', sound: 'on', aspectRatio: '1:1', cfgScale: 0.5 },
      10,
      1080,
      1080,
      true,
    ],
    ['Kling K21 i2v', 'image_to_video', 'K21', { prompt: 'walks', image: IMG, imageTail: IMG }, 5, 1280, 720, false],
    ['PixVerse P45 t2v', 'text_to_video', 'P45', { prompt: 'a car', duration: 8, quality: '720p', aspectRatio: '4:3' }, 8, 960, 720, false],
    ['PixVerse P55 i2v', 'image_to_video', 'P55', { image: IMG }, 5, 960, 540, false],
    [
      'Hailuo H23 t2v',
      'text_to_video',
      'H23',
      { prompt: 'rain', duration: 10, resolution: '1080P', promptOptimizer: true },
      10,
      1920,
      1080,
      false,
    ],
    ['Hailuo H23F i2v', 'image_to_video', 'H23F', { prompt: 'rain', firstFrame: IMG }, 6, 1366, 768, false],
  ])('%s', async (_name, endpoint, model, input, duration, width, height, audio) => {
    const r = await call('POST', `/v2/aigc/${endpoint}`, [], t2v(model, input));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ taskId: expect.stringMatching(/^tsk-[a-z0-9]{16}$/) });
    expect(r.headers['x-bce-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const media = await outputOf(r.body.taskId);
    expect(media.sourceMetadata.durationInSecond).toBe(duration);
    expect(media.sourceMetadata.video).toEqual({ widthInPixel: width, heightInPixel: height });
    expect(media.sourceMetadata.audio !== undefined).toBe(audio);
    const job = await sim_.job(r.body.taskId);
    expect(job.model).toBe(model);
    expect(job.meta.fields.ignored).toEqual([]);
  });

  test('a model not listed for the endpoint is refused', async () => {
    for (const [endpoint, model] of [
      ['image_to_video', 'H20'],
      ['text_to_video', 'V20'],
      ['text_to_video', 'VQ1C'],
      ['text_to_video', 'VQ2T'],
      ['text_to_video', 'VQ2PF'],
      ['text_to_video', 'K21'],
      ['text_to_video', 'KO1'],
      ['text_to_video', 'H23F'],
      ['text_to_video', 'NBP'],
      ['text_to_video', 'VE3.1L'],
    ]) {
      const r = await call('POST', `/v2/aigc/${endpoint}`, [], t2v(model!, { prompt: 'x', image: IMG }));
      expect([model, r.status, r.body.code]).toEqual([model, 400, 'InappropriateJSON']);
    }
    // The matching TaskInput is required; the dot is dropped from the key (VE3.1 → modelVE31TaskInput).
    expect((await call('POST', '/v2/aigc/text_to_video', [], { model: 'VE3.1', 'modelVE3.1TaskInput': { prompt: 'x' } })).body.code).toBe(
      'InappropriateJSON',
    );
    expect((await call('POST', '/v2/aigc/text_to_video', [], { modelVQ2TaskInput: { prompt: 'x' } })).body.code).toBe('InappropriateJSON');
    expect((await call('POST', '/v2/aigc/text_to_video', [], [1, 2])).body.code).toBe('InappropriateJSON');
    expect((await sim_.stats()).jobsCreated).toBe(0);
  });

  test('prompt limits per model and endpoint (the stricter doc version where two disagree)', async () => {
    const cases: Array<[string, string, number]> = [
      ['text_to_video', 'VQ1', 1500],
      ['text_to_video', 'VQ2', 2000],
      ['text_to_video', 'VQ3P', 5000],
      ['text_to_video', 'P35', 2048],
      ['text_to_video', 'K26', 2500],
      ['text_to_video', 'H20', 2000],
      ['text_to_video', 'VE3.1P', 2000],
      ['image_to_video', 'VQ2T', 1500],
      ['image_to_video', 'VQ2', 2000],
      ['image_to_video', 'KO1', 2500],
    ];
    for (const [endpoint, model, max] of cases) {
      const input = (n: number) => ({ prompt: '视'.repeat(n), image: IMG });
      const ok = await call('POST', `/v2/aigc/${endpoint}`, [], t2v(model, input(max)));
      const tooLong = await call('POST', `/v2/aigc/${endpoint}`, [], t2v(model, input(max + 1)));
      expect([model, ok.status, tooLong.status, tooLong.body.code]).toEqual([model, 200, 400, 'InappropriateJSON']);
    }
    expect((await createT2V('VQ2', { prompt: '   ' })).body.code).toBe('InappropriateJSON');
  });

  test('value rules: Veo durations/resolutions/aspect ratios and image modes, Vidu and Kling vendor ranges', async () => {
    const refused = async (endpoint: string, model: string, input: Record<string, unknown>) => {
      const r = await call('POST', `/v2/aigc/${endpoint}`, [], t2v(model, input));
      return r.status === 400 && r.body.code === 'InappropriateJSON';
    };
    expect(await refused('text_to_video', 'VE3.1', { prompt: 'p', durationSeconds: 5 })).toBe(true);
    expect(await refused('text_to_video', 'VE3.1', { prompt: 'p', resolution: '1080P' })).toBe(true);
    expect(await refused('text_to_video', 'VE3.1', { prompt: 'p', aspectRatio: '1:1' })).toBe(true);
    expect(await refused('text_to_video', 'VE3.1', { prompt: 'p', n: 2 })).toBe(true);
    expect(await refused('text_to_video', 'VE3.1', { prompt: 'p', generateAudio: 'yes' })).toBe(true);
    expect(await refused('image_to_video', 'VE3.1', { prompt: 'p', lastFrame: IMG })).toBe(true);
    expect(await refused('image_to_video', 'VE3.1', { prompt: 'p', image: IMG, referenceImages: IMG })).toBe(true);
    expect(await refused('image_to_video', 'VE3.1', { prompt: 'p' })).toBe(true);
    expect(await refused('image_to_video', 'VE3.1', { prompt: 'p', image: { imageUrl: 'ftp://x/y.png' } })).toBe(true);
    expect(await refused('image_to_video', 'VE3.1', { prompt: 'p', image: 'https://img.example.com/a.png' })).toBe(true);
    expect(await refused('image_to_video', 'VQ1', { duration: 4, image: IMG })).toBe(true);
    expect(await refused('text_to_video', 'VQ2', { prompt: 'p', duration: 11 })).toBe(true);
    expect(await refused('text_to_video', 'VQ2', { prompt: 'p', duration: 5.5 })).toBe(true);
    expect(await refused('text_to_video', 'VQ2', { prompt: 'p', movementAmplitude: 'huge' })).toBe(true);
    expect(await refused('image_to_video', 'VQ2', { image: IMG, headtailImages: { headImage: IMG, tailImage: IMG } })).toBe(true);
    expect(await refused('image_to_video', 'VQ2', { headtailImages: { headImage: IMG } })).toBe(true);
    expect(await refused('text_to_video', 'K20', { prompt: 'p', duration: 7 })).toBe(true);
    expect(await refused('text_to_video', 'K20', { prompt: 'p', mode: 'ultra' })).toBe(true);
    expect(await refused('image_to_video', 'K20', { prompt: 'p' })).toBe(true);
    expect(await refused('image_to_video', 'P40', { prompt: 'p', quality: '720p', resolution: '1080p', image: IMG })).toBe(true);
    expect((await sim_.stats()).jobsCreated).toBe(0);
    // GUESS-level value lists are not enforced (the platform might take them).
    expect((await createT2V('H20', { prompt: 'p', duration: 7 })).status).toBe(200);
  });

  test('unknown fields are ignored but recorded, and the output follows recognised fields only', async () => {
    // Veo expects durationSeconds and generateAudio: `duration` and `generate_audio` do nothing.
    const body = {
      ...t2v('VE3.1', { prompt: 'a boat', duration: 4, generate_audio: true, resolution: '1080p', image: IMG }),
      callbackUrl: 'http://x',
      modelVQ2TaskInput: { prompt: 'y' },
    };
    const r = await call('POST', '/v2/aigc/text_to_video', [], body);
    expect(r.status).toBe(200);
    const job = await sim_.job(r.body.taskId);
    expect(job.meta.fields.recognised).toEqual([
      'model',
      'modelVE31TaskInput',
      'modelVE31TaskInput.prompt',
      'modelVE31TaskInput.resolution',
    ]);
    // Image fields are not part of the text-to-video TaskInput either.
    expect(job.meta.fields.ignored.sort()).toEqual(
      [
        'callbackUrl',
        'modelVQ2TaskInput',
        'modelVE31TaskInput.duration',
        'modelVE31TaskInput.generate_audio',
        'modelVE31TaskInput.image',
      ].sort(),
    );
    expect(job.meta.output).toMatchObject({ durationInSecond: 8, widthInPixel: 1920, heightInPixel: 1080, audio: false });
    const media = (await finished(r.body.taskId)).videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos[0];
    expect(media.sourceMetadata).toEqual({ durationInSecond: 8, video: { widthInPixel: 1920, heightInPixel: 1080 } });

    // Nested unknown keys are ignored too; Kling's sound is only K2.6's.
    const k = await createI2V('K20', { prompt: 'p', image: { ...IMG, detail: 'high' }, sound: 'on' });
    const kj = await sim_.job(k.body.taskId);
    expect(kj.meta.fields.ignored.sort()).toEqual(['modelK20TaskInput.image.detail', 'modelK20TaskInput.sound']);
    expect(kj.meta.output.audio).toBe(false);
  });
});
