/**
 * The operator's models file, one mechanism for T, V and B (platforms/models-file.ts): what it sets reaches
 * validation, `GET /v1/models` and the create body the adapter sends; anything wrong in it is a start-up
 * ConfigError naming the variable and the entry; V's and B's first file forms are still read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Catalogue } from '../../../core/catalogue';
import { ConfigError } from '../../../core/config';
import { buildCatalogue } from '../../../platforms';
import { toBCreate } from '../../../platforms/b/request-body';
import { toTCreateCall } from '../../../platforms/t/request-body';
import { toVCreateBody } from '../../../platforms/v/request-body';
import type { VVideoRequest } from '../../../platforms/v/rules';
import { startTestApi } from '../../support/test-api';
import { normalised, refusedParam } from '../../support/platform-kit';

const IMG = 'https://x.test/a.png';
const IMG2 = 'https://x.test/b.png';
const T_OPTS = { subAppId: 1, dedupKey: 'task_k' };
const V_OPTS = { dedupKey: 'task_k', deadlineAt: 0, now: 0 };
const V20 = 'vendor-video-2-0-260128';
const V10 = 'vendor-video-1-0-pro-250528';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'models-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An env naming a models file with `content` for `variable`. */
function withFile(variable: string, content: unknown): NodeJS.ProcessEnv {
  const file = join(dir, `m-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return { [variable]: file };
}

describe('PLATFORM_T_MODELS_FILE', () => {
  const T = 'PLATFORM_T_MODELS_FILE';

  test('durations set by the file are what validation accepts, /v1/models lists and the create call carries', async () => {
    const defaults = buildCatalogue();
    expect(refusedParam('video', { model: 'GV-3.1', prompt: 'p', duration: 4 }, defaults)).toBe('duration');

    const cat = buildCatalogue(withFile(T, { models: { 'GV-3.1': { durations: [4, 8] } } }));
    const r = normalised('video', { model: 'GV-3.1', prompt: 'p', duration: 4 }, cat);
    expect(toTCreateCall(r.entry, r.request, T_OPTS).body).toMatchObject({
      ModelName: 'GV',
      ModelVersion: '3.1',
      OutputConfig: { Duration: 4 },
    });
    expect(refusedParam('video', { model: 'GV-3.1', prompt: 'p', duration: 5 }, cat)).toBe('duration');
    // Other models keep their defaults.
    expect(refusedParam('video', { model: 'GV-3.1-fast', prompt: 'p', duration: 4 }, cat)).toBe('duration');

    const api = await startTestApi({ deps: { catalogue: cat } });
    try {
      const gv = (await api.get('/v1/models/GV-3.1')).body;
      expect(gv).toMatchObject({ durations: { values: [4, 8] }, source: expect.stringMatching(/durations set by PLATFORM_T_MODELS_FILE/) });
      expect((await api.post('/v1/async/videos/generations', { model: 'GV-3.1', prompt: 'p', duration: 4 })).status).toBe(200);
      expect((await api.post('/v1/async/videos/generations', { model: 'GV-3.1-fast', prompt: 'p', duration: 4 })).body.error).toMatchObject(
        { param: 'duration' },
      );
    } finally {
      await api.close();
    }
  });

  test('null withdraws a model; "video:<id>" names one kind of an id offered for both', async () => {
    const cat = buildCatalogue(withFile(T, { models: { 'VendorH-2.3': null, 'video:VendorK-2.1': null } }));
    expect(cat.find('video', 'VendorH-2.3')).toBeUndefined();
    expect(cat.find('video', 'VendorK-2.1')).toBeUndefined();
    expect(cat.find('image', 'VendorK-2.1')).toBeDefined();
    const api = await startTestApi({ deps: { catalogue: cat } });
    try {
      expect((await api.get('/v1/models/VendorH-2.3')).status).toBe(404);
      expect((await api.get('/v1/models/VendorK-2.1')).body).toMatchObject({ kinds: ['image'] });
    } finally {
      await api.close();
    }
  });

  test("upstream ids and T's extras: a cleared last-frame limit, a new quality → Resolution", () => {
    const cat = buildCatalogue(
      withFile(T, {
        models: {
          'VendorK-2.5': { upstream: { modelName: 'Kling', modelVersion: '2.5-turbo' } },
          'video:VendorK-2.1': { extras: { lastFrameOnlyAt: null } },
          'image:VendorK-2.1': { extras: { imageQuality: { standard: '1k', '2K': '2k', hd: '4k' } } },
        },
      }),
    );
    const k25 = normalised('video', { model: 'VendorK-2.5', prompt: 'p', duration: 5 }, cat);
    expect(toTCreateCall(k25.entry, k25.request, T_OPTS).body).toMatchObject({ ModelName: 'Kling', ModelVersion: '2.5-turbo' });
    expect(
      refusedParam('video', { model: 'VendorK-2.1', image_url: IMG, last_frame_url: IMG2, resolution: '720P', duration: 5 }, cat),
    ).toBeUndefined();
    const hd = normalised('image', { model: 'VendorK-2.1', prompt: 'p', quality: 'hd' }, cat);
    expect(toTCreateCall(hd.entry, hd.request, T_OPTS).body).toMatchObject({ OutputConfig: { Resolution: '4k' } });
  });

  test.each<[string, unknown, RegExp]>([
    ['not JSON', '{"models":', /PLATFORM_T_MODELS_FILE: .*\.json: the file is not JSON/],
    [
      'an unknown model',
      { models: { 'GV-9': { durations: [8] } } },
      /PLATFORM_T_MODELS_FILE: .*: models\.GV-9: not a platform T model; the models are GV-3\.1, /,
    ],
    [
      'durations on an image model',
      { models: { 'GEM-2.5': { durations: [8] } } },
      /models\.GEM-2\.5\.durations: GEM-2\.5 is an image model/,
    ],
    [
      'durations on an id offered for both kinds',
      { models: { 'VendorK-2.1': { durations: [5] } } },
      /models\.VendorK-2\.1\.durations: .*name one kind with "video:VendorK-2\.1"/,
    ],
    ['a duration that is no whole number', { models: { 'GV-3.1': { durations: [4.5] } } }, /models\.GV-3\.1\.durations/],
    ['an unknown key', { models: { 'GV-3.1': { duration: [4] } } }, /models\.GV-3\.1: Unrecognized key: "duration"/],
    ['an unknown capability', { models: { 'GV-3.1': { capabilities: ['teleport'] } } }, /models\.GV-3\.1\.capabilities\.0/],
    [
      'an unknown extras key',
      { models: { 'GV-3.1': { extras: { lastFrame: '1080P' } } } },
      /models\.GV-3\.1\.extras: Unrecognized key: "lastFrame"/,
    ],
    [
      'an image extra on a video model',
      { models: { 'GV-3.1': { extras: { imageQuality: { hd: '4K' } } } } },
      /models\.GV-3\.1\.extras\.imageQuality: GV-3\.1 is a video model/,
    ],
    ['an upstream id of the wrong shape', { models: { 'GV-3.1': { upstream: { model: 'gv' } } } }, /models\.GV-3\.1\.upstream/],
  ])('%s → a start-up ConfigError naming the variable and the entry', (_name, content, message) => {
    const env = withFile(T, content);
    expect(() => buildCatalogue(env)).toThrow(ConfigError);
    expect(() => buildCatalogue(env)).toThrow(message);
  });
});

describe('PLATFORM_V_MODELS_FILE', () => {
  const V = 'PLATFORM_V_MODELS_FILE';
  const body = (cat: Catalogue, model: string, extra: Record<string, unknown> = {}) => {
    const { entry, request } = normalised('video', { model, prompt: 'p', duration: 5, ...extra }, cat);
    return toVCreateBody(entry, request as VVideoRequest, V_OPTS);
  };

  test('the sound default is read from the record: the file turns it on or off, and the create body follows', () => {
    const cat = buildCatalogue(withFile(V, { models: { [V10]: { defaults: { sound: true } }, [V20]: { defaults: { sound: false } } } }));
    expect(cat.find('video', V10)!.defaults).toEqual({ sound: true });
    expect(body(cat, V10).generate_audio).toBe(false);
    expect(body(cat, V20)).not.toHaveProperty('generate_audio');
    expect(body(cat, V20, { generate_audio: true }).generate_audio).toBe(true);
  });

  test('the shared form sets the upstream id and limits; the first form ({"<id>": "<upstream id>" | null}) still works', () => {
    const shared = buildCatalogue(
      withFile(V, { models: { [V20]: { upstream: { model: 'dreamina-seedance-2-0-260128' }, durations: { min: 4, max: 10 } } } }),
    );
    expect(body(shared, V20).model).toBe('dreamina-seedance-2-0-260128');
    expect(refusedParam('video', { model: V20, prompt: 'p', duration: 12 }, shared)).toBe('duration');

    const first = buildCatalogue(withFile(V, { [V20]: 'dreamina-seedance-2-0-260128', [V10]: null }));
    expect(body(first, V20).model).toBe('dreamina-seedance-2-0-260128');
    expect(first.find('video', V10)).toBeUndefined();
  });

  test.each<[string, unknown, RegExp]>([
    [
      'an extras key V does not know',
      { models: { [V20]: { extras: { frameRate: 24 } } } },
      /models\.vendor-video-2-0-260128\.extras: Unrecognized key: "frameRate"/,
    ],
    [
      'a reference video count over 10',
      { models: { [V20]: { extras: { maxReferenceVideos: 11 } } } },
      /models\.vendor-video-2-0-260128\.extras\.maxReferenceVideos: Too big/,
    ],
    [
      'an upstream id with spaces, in the first form',
      { [V20]: 'has spaces' },
      /models\.vendor-video-2-0-260128\.upstream\.model: must be a model or endpoint id/,
    ],
  ])('%s → a start-up ConfigError naming the variable and the entry', (_name, content, message) => {
    const env = withFile(V, content);
    expect(() => buildCatalogue(env)).toThrow(ConfigError);
    expect(() => buildCatalogue(env)).toThrow(/PLATFORM_V_MODELS_FILE/);
    expect(() => buildCatalogue(env)).toThrow(message);
  });
});

describe('PLATFORM_B_MODELS_FILE', () => {
  const B = 'PLATFORM_B_MODELS_FILE';
  const k21Body = (cat: Catalogue) => {
    const r = normalised('video', { model: 'K21', image_url: IMG, last_frame_url: IMG2, duration: 5 }, cat);
    return toBCreate(r.entry, r.request).body;
  };

  test('the shared form: a family field renamed reaches the create body; common limits and extras change the model', () => {
    const cat = buildCatalogue(
      withFile(B, {
        platform: { families: { kling: { fields: { lastFrame: { name: 'tailImage', evidence: 'OFF' } } } } },
        models: {
          VQ2: { durations: [4, 8], extras: { fields: { bgm: { name: 'bgm' } } } },
          NB: { extras: { qualities: ['1K', '2K'] } },
          H20: null,
        },
      }),
    );
    expect(k21Body(cat)).toEqual({
      model: 'K21',
      modelK21TaskInput: { duration: 5, image: { imageUrl: IMG }, tailImage: { imageUrl: IMG2 } },
    });
    const vq2 = normalised('video', { model: 'VQ2', action: 'text_to_video', prompt: 'p', duration: 8, bgm: 'true' }, cat);
    expect(toBCreate(vq2.entry, vq2.request).body).toEqual({
      model: 'VQ2',
      modelVQ2TaskInput: { prompt: 'p', duration: 8, bgm: true, movementAmplitude: 'auto' },
    });
    expect(refusedParam('video', { model: 'VQ2', action: 'text_to_video', prompt: 'p', duration: 5 }, cat)).toBe('duration');
    expect(normalised('image', { model: 'NB', prompt: 'p', quality: '2K' }, cat).request.quality).toBe('2K');
    expect(cat.find('video', 'H20')).toBeUndefined();
    expect(cat.find('video', 'VQ2')!.evidence).toMatch(/OPERATOR: durations .*corrected by PLATFORM_B_MODELS_FILE/);
  });

  test("B's first form ({families, models} with B's keys) is still read", () => {
    expect(k21Body(buildCatalogue())).toMatchObject({ modelK21TaskInput: { imageTail: { imageUrl: IMG2 } } });
    const cat = buildCatalogue(
      withFile(B, {
        families: { kling: { fields: { lastFrame: { name: 'tailImage' } } } },
        models: { VQ2: { aspectRatios: ['16:9'] }, NB: null },
      }),
    );
    expect(k21Body(cat)).toMatchObject({ modelK21TaskInput: { tailImage: { imageUrl: IMG2 } } });
    expect(cat.find('image', 'NB')).toBeUndefined();
    expect(refusedParam('video', { model: 'VQ2', action: 'text_to_video', prompt: 'p', duration: 5, ratio: '1:1' }, cat)).toBe('ratio');
  });

  test.each<[string, unknown, RegExp]>([
    [
      'a common field B derives from its fields',
      { models: { K21: { capabilities: ['sound'] } } },
      /models\.K21: Unrecognized key: "capabilities"/,
    ],
    [
      'a video ratio the gateway cannot carry',
      { models: { VQ2: { ratios: ['2:1'], extras: {} } } },
      /models\.VQ2\.ratios: '2:1' is not a video ratio/,
    ],
    ['an unknown family in the platform part', { platform: { families: { sora: {} } } }, /platform\.families/],
    [
      'a bad field name in extras',
      { models: { VQ2: { extras: { fields: { prompt: { name: 'the prompt' } } } } } },
      /models\.VQ2\.extras\.fields\.prompt\.name: must be an identifier/,
    ],
  ])('%s → a start-up ConfigError naming the variable and the entry', (_name, content, message) => {
    const env = withFile(B, content);
    expect(() => buildCatalogue(env)).toThrow(ConfigError);
    expect(() => buildCatalogue(env)).toThrow(/PLATFORM_B_MODELS_FILE/);
    expect(() => buildCatalogue(env)).toThrow(message);
  });
});
