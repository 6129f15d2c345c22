/**
 * sim/b/validation.ts (image creates), over real HTTP: the OpenAI-compatible image create, checked per model.
 */
import { call, sim_, imageBody, finished, useBSimulator } from '../../../support/sim/b';

useBSimulator();

describe('image creates', () => {
  test('NBP with reference images, 2K; I4YG1 with n=4; the outputs follow', async () => {
    const a = await call(
      'POST',
      '/v2/aigc/image',
      [],
      imageBody(
        'NBP',
        { n: 1, size: '16:9', quality: '2K', response_modalities: ['TEXT', 'IMAGE'], tools: [{ type: 'google_search' }] },
        14,
      ),
    );
    expect(a.status).toBe(200);
    const da = await finished(a.body.taskId);
    const infos = da.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos;
    expect(infos).toHaveLength(1);
    expect(infos[0]).toMatchObject({
      mediaType: 'image',
      source: { sourceType: 'GENERATE', sourceUrl: expect.stringMatching(/\.png$/) },
      sourceMetadata: { image: { widthInPixel: 2728, heightInPixel: 1536 } },
    });
    expect(da.videoGenerateTaskInfo.videoGenerateTaskInput).toEqual({
      type: '图生图',
      imageGenerateRequest: JSON.parse(
        JSON.stringify(
          imageBody(
            'NBP',
            { n: 1, size: '16:9', quality: '2K', response_modalities: ['TEXT', 'IMAGE'], tools: [{ type: 'google_search' }] },
            14,
          ),
        ),
      ),
    });

    const b = await call('POST', '/v2/aigc/image', [], imageBody('I4YG1', { n: 4, aspect_ratio: '16:9' }));
    const db = await finished(b.body.taskId);
    const urls = db.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos.map((m: any) => m.source.sourceUrl);
    expect(urls).toHaveLength(4);
    expect(new Set(db.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos.map((m: any) => m.mediaId)).size).toBe(4);
    // aspect_ratio is not B's name (size is): ignored, the image is the default 1:1.
    expect(db.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos[0].sourceMetadata.image).toEqual({
      widthInPixel: 1024,
      heightInPixel: 1024,
    });
    expect((await sim_.job(b.body.taskId)).meta.fields.ignored).toEqual(['aspect_ratio']);
    expect(db.videoGenerateTaskInfo.videoGenerateTaskInput.type).toBe('文生图');
    // The files are served.
    const file = await fetch(urls[3]);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
  });

  test('n, quality, reference-image, tools and message rules', async () => {
    const refused = async (body: unknown) => {
      const r = await call('POST', '/v2/aigc/image', [], body);
      return r.status === 400 && r.body.code === 'InappropriateJSON';
    };
    expect(await refused(imageBody('NB', { n: 2 }))).toBe(true);
    expect(await refused(imageBody('NBP', { n: 2 }))).toBe(true);
    expect(await refused(imageBody('I4YG1', { n: 5 }))).toBe(true);
    expect(await refused(imageBody('I4YG1', { n: 0 }))).toBe(true);
    expect(await refused(imageBody('I4FG1', { quality: '2K' }))).toBe(true);
    expect(await refused(imageBody('NB', { quality: '4K' }))).toBe(true);
    expect(await refused(imageBody('NBP', { quality: '8K' }))).toBe(true);
    expect(await refused(imageBody('NB', {}, 4))).toBe(true);
    expect(await refused(imageBody('NBP', {}, 15))).toBe(true);
    expect(await refused(imageBody('I4FG1', {}, 1))).toBe(true);
    expect(await refused(imageBody('I4G1', {}, 1))).toBe(true);
    expect(await refused(imageBody('NB', { tools: [{ type: 'google_search' }] }))).toBe(true);
    expect(await refused(imageBody('NBP', { response_modalities: ['TEXT'] }))).toBe(true);
    expect(await refused(imageBody('NBP', { size: '7:5' }))).toBe(true);
    expect(await refused(imageBody('VQ2'))).toBe(true);
    expect(await refused({ ...imageBody('NB'), messages: [imageBody('NB').messages[0], imageBody('NB').messages[0]] })).toBe(true);
    expect(
      await refused({
        model: 'NB',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_item: { image_url: 'https://x/y.png' } }] }],
      }),
    ).toBe(true);
    expect(
      await refused({
        model: 'NB',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'x' },
              { type: 'image_url', image_item: { image_url: 'file:///etc/passwd' } },
            ],
          },
        ],
      }),
    ).toBe(true);
    expect(await refused({ model: 'NB', messages: [{ role: 'user', content: [{ type: 'video_url', video_item: {} }] }] })).toBe(true);
    expect((await sim_.stats()).jobsCreated).toBe(0);
    for (const body of [
      imageBody('NB', {}, 3),
      imageBody('NB2', { size: '21:9' }, 3),
      imageBody('NBP', { quality: '4K' }),
      imageBody('I4G1', { n: 3 }),
      imageBody('I4FG1', { n: 1, quality: '1K' }),
    ]) {
      expect((await call('POST', '/v2/aigc/image', [], body)).status).toBe(200);
    }
  });
});
