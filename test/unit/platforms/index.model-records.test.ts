/**
 * One record type for every platform's models (core/catalogue.ts ModelRecord): named fields, upstream defaults
 * and the platform's own extras, read by validation and the wire; and the `GET /v1/models` view of it, with the
 * platform's name and, for image models, the sizes `size` takes.
 */
import type { ModelRecord } from '../../../core/catalogue';
import { PLATFORM_DEFINITIONS } from '../../../platforms';
import { bModelOf } from '../../../platforms/b/models';
import { toBCreate } from '../../../platforms/b/request-body';
import { toTCreateCall } from '../../../platforms/t/request-body';
import { renderModelTables } from '../../../scripts/model-docs';
import { toVCreateBody } from '../../../platforms/v/request-body';
import type { VVideoRequest } from '../../../platforms/v/rules';
import { startTestApi, type TestApi } from '../../support/test-api';
import { catalogue, normalised } from '../../support/platform-kit';

const IMG = 'https://x.test/a.png';
const IMG2 = 'https://x.test/b.png';

const record = (platform: string, kind: 'video' | 'image', id: string): ModelRecord => {
  const r = catalogue.entries.find((e) => e.platform === platform && e.kind === kind && e.id === id);
  if (!r) throw new Error(`no ${platform} ${kind} ${id}`);
  return r;
};

describe('one record type for T, V and B', () => {
  test.each(PLATFORM_DEFINITIONS.map((p) => p.id))('platform %s: every model is a record with the named common fields', (platform) => {
    const records = catalogue.entries.filter((e) => e.platform === platform);
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) {
      expect(r).toEqual(
        expect.objectContaining({
          id: expect.any(String),
          platform,
          kind: expect.stringMatching(/^(video|image)$/),
          upstream: expect.any(Object),
          ratios: expect.any(Array),
          capabilities: expect.any(Array),
        }),
      );
      if (r.kind === 'video') expect(r.durations).toBeDefined();
    }
  });

  test("T's own limits are the record's extras: the last frame only at 1080P, 1080P at 6 s, quality → Resolution", () => {
    expect(record('T', 'video', 'VendorK-2.1').extras).toEqual({ lastFrameOnlyAt: '1080P' });
    expect(record('T', 'video', 'VendorH-2.3').extras).toEqual({ durationsAt: { resolution: '1080P', durations: [6] } });
    expect(record('T', 'image', 'VendorK-2.1')).toMatchObject({
      qualities: ['standard', '2K'],
      extras: { imageQuality: { standard: '1k', '2K': '2k' } },
    });
    expect(record('T', 'image', 'VendorY-3.0').extras).toEqual({ imageQuality: { standard: null } });

    // …and what validation and the wire do with them.
    expect(() =>
      normalised('video', { model: 'VendorK-2.1', image_url: IMG, last_frame_url: IMG2, resolution: '720P', duration: 5 }),
    ).toThrow(/only at 1080P/);
    const img = normalised('image', { model: 'VendorK-2.1', prompt: 'p', quality: '2K' });
    expect(toTCreateCall(img.entry, img.request, { subAppId: 1, dedupKey: 'k' }).body).toMatchObject({
      OutputConfig: { Resolution: '2k' },
    });
    const hunyuan = normalised('image', { model: 'VendorY-3.0', prompt: 'p', quality: 'standard' });
    expect(toTCreateCall(hunyuan.entry, hunyuan.request, { subAppId: 1, dedupKey: 'k' }).body).not.toHaveProperty(
      'OutputConfig.Resolution',
    );
  });

  test("V's sound default is a record field, and the create body follows it", () => {
    const soundOn = catalogue.entries.filter((e) => e.platform === 'V' && e.defaults?.sound === true).map((e) => e.id);
    expect(soundOn).toEqual(['vendor-video-2-0-260128', 'vendor-video-2-0-fast-260128', 'vendor-video-1-5-pro-251215']);
    const body = (id: string) => {
      const { entry, request } = normalised('video', { model: id, prompt: 'p', duration: 5 });
      return toVCreateBody(entry, request as VVideoRequest, { dedupKey: 'k', deadlineAt: 0, now: 0 });
    };
    expect(body('vendor-video-2-0-260128').generate_audio).toBe(false);
    expect(body('vendor-video-1-0-pro-250528')).not.toHaveProperty('generate_audio');
  });

  test("B's records carry their resolved B model as extras: code, family, TaskInput fields with evidence tags", () => {
    const k21 = record('B', 'video', 'K21');
    expect(k21.extras).toMatchObject({
      kind: 'video',
      code: 'K21',
      family: 'kling',
      fields: { lastFrame: { name: 'imageTail', evidence: 'GUESS' } },
    });
    expect(bModelOf(k21)).toBe(k21.extras);
    expect(k21.evidence).toMatch(/field names: .*GUESS/);
    const r = normalised('video', { model: 'K21', image_url: IMG, last_frame_url: IMG2, duration: 5 });
    expect(toBCreate(r.entry, r.request).body).toEqual({
      model: 'K21',
      modelK21TaskInput: { duration: 5, image: { imageUrl: IMG }, imageTail: { imageUrl: IMG2 } },
    });
  });
});

describe('GET /v1/models', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ deps: { catalogue } });
  });
  afterAll(() => api.close());

  test('owned_by stays the platform id; platform_name says which platform in words', async () => {
    const { body } = await api.get('/v1/models');
    for (const p of PLATFORM_DEFINITIONS) {
      const mine = body.data.filter((m: any) => m.owned_by === p.id);
      expect(mine.length).toBeGreaterThan(0);
      for (const m of mine) expect(m.platform_name).toBe(p.name);
    }
    expect((await api.get('/v1/models/GV-3.1')).body).toMatchObject({ owned_by: 'T', platform_name: 'platform T' });
  });

  test('an image model lists the WxH sizes it takes (1920x1080 on I4YG1 among them); a model without ratios none', async () => {
    const i4 = (await api.get('/v1/models/I4YG1')).body;
    expect(i4.sizes).toEqual(['1024x1024', '512x512', '1792x1024', '1920x1080', '1024x1792', '1080x1920']);
    expect((await api.get('/v1/models/VendorY-3.0')).body.sizes).toEqual([]);
    const both = (await api.get('/v1/models/VendorK-2.1')).body;
    expect(both.image.sizes).toEqual(expect.arrayContaining(['1920x1080', '1080x1920', '1024x1024']));
    expect(both.video).not.toHaveProperty('sizes');
  });

  test("docs/api.md's model table lists the same sizes", () => {
    const row = renderModelTables(catalogue)
      .split('\n')
      .find((l) => l.startsWith('| `I4YG1` |'));
    expect(row).toContain('| 1024x1024, 512x512, 1792x1024, 1920x1080, 1024x1792, 1080x1920 |');
  });

  test('every size an image model lists is one its generation request takes', async () => {
    const { body } = await api.get('/v1/models');
    const images = body.data.flatMap((m: any) =>
      m.kinds.includes('image') ? [{ id: m.id, sizes: (m.image ?? m).sizes as string[] }] : [],
    );
    expect(images.length).toBeGreaterThan(5);
    for (const { id, sizes } of images) {
      for (const size of sizes) {
        const r = await api.post('/v1/async/images/generations', { model: id, prompt: 'a lighthouse', size });
        expect([id, size, r.status, r.body.status]).toEqual([id, size, 200, 'pending']);
      }
    }
  });

  test("B's evidence tags surface as the model's source", async () => {
    const k21 = (await api.get('/v1/models/K21')).body;
    expect(k21.source).toBe(record('B', 'video', 'K21').evidence);
    expect(k21.source).toMatch(/OFF: /);
  });
});
