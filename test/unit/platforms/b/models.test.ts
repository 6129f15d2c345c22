/**
 * platforms/b/models.ts, model-spec.ts and models-file.ts: PLATFORM_B_MODELS_FILE correcting the
 * model facts (fields, endpoints, limits) and refused with a ConfigError naming the variable and the entry; the
 * defaults pass the file's own schema.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelRecord } from '../../../../core/catalogue';
import { ConfigError } from '../../../../core/config';
import { buildCatalogue } from '../../../../platforms';
import { B_MODELS_DATA } from '../../../../platforms/b/models';
import { resolveModels } from '../../../../platforms/b/models-file';
import { toBCreate } from '../../../../platforms/b/request-body';
import { validated } from '../../../support/platform-kit';
import { IMG, IMG2 } from '../../../support/platforms/b';

describe('PLATFORM_B_MODELS_FILE', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'b-models-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const withFile = (content: unknown) => {
    const file = join(dir, `m-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return { PLATFORM_B_MODELS_FILE: file };
  };

  test('a field renamed by the file reaches the wire; a model gains a field; limits change; evidence says so', () => {
    const env = withFile({
      families: {
        kling: { fields: { lastFrame: { name: 'tailImage', evidence: 'OFF' } } },
        vidu: { constants: { movementAmplitude: null } },
      },
      models: {
        VQ2: { fields: { bgm: { name: 'bgm' } }, durations: [4, 8] },
        K21: { endpoints: { image_to_video: { promptMax: 100 } } },
        NB: { qualities: ['1K', '2K'] },
      },
    });
    const cat = buildCatalogue(env);
    const k21 = validated('video', { model: 'K21', image_url: IMG, last_frame_url: IMG2, duration: 5 }, cat);
    expect(toBCreate(k21.entry, k21.request).body).toEqual({
      model: 'K21',
      modelK21TaskInput: { duration: 5, image: { imageUrl: IMG }, tailImage: { imageUrl: IMG2 } },
    });
    const vq2 = validated('video', { model: 'VQ2', action: 'text_to_video', prompt: 'p', duration: 8, bgm: 'true' }, cat);
    expect(toBCreate(vq2.entry, vq2.request).body).toEqual({ model: 'VQ2', modelVQ2TaskInput: { prompt: 'p', duration: 8, bgm: true } });
    expect(() => validated('video', { model: 'VQ2', action: 'text_to_video', prompt: 'p', duration: 5 }, cat)).toThrow(
      /duration 5 is not supported/,
    );
    expect(() => validated('video', { model: 'K21', image_url: IMG, prompt: 'x'.repeat(101), duration: 5 }, cat)).toThrow(/at most 100/);
    expect(validated('image', { model: 'NB', prompt: 'p', quality: '2K' }, cat).request.quality).toBe('2K');
    const entry = (id: string) => cat.entries.find((e) => e.id === id && e.platform === 'B') as ModelRecord;
    expect(entry('VQ2').evidence).toMatch(/OPERATOR: durations .*corrected by PLATFORM_B_MODELS_FILE/);
    expect(entry('K20').evidence).toMatch(/corrected by PLATFORM_B_MODELS_FILE/);
    expect(entry('P35').evidence).not.toMatch(/corrected/);
  });

  test('a model’s endpoints can be corrected: K21 gains text-to-video', () => {
    const cat = buildCatalogue(
      withFile({ models: { K21: { endpoints: { text_to_video: { promptMax: 2500 }, image_to_video: { promptMax: 2500 } } } } }),
    );
    const r = validated('video', { model: 'K21', action: 'text_to_video', prompt: 'p', duration: 5 }, cat);
    expect(toBCreate(r.entry, r.request).path).toBe('/v2/aigc/text_to_video');
  });

  test.each<[string, unknown, RegExp]>([
    ['not JSON', '{nope', /PLATFORM_B_MODELS_FILE: .*m-.*\.json: .*JSON/],
    ['an unknown model', { models: { K99: { durations: [5] } } }, /PLATFORM_B_MODELS_FILE: .*: models\.K99: not a platform B model/],
    ['an unknown family', { families: { sora: {} } }, /PLATFORM_B_MODELS_FILE: .*: families: /],
    [
      'a bad field name',
      { models: { VQ2: { fields: { prompt: { name: 'the prompt' } } } } },
      /models\.VQ2\.fields\.prompt\.name: must be an identifier/,
    ],
    ['an unknown key in a model', { models: { VQ2: { duration: [5] } } }, /models\.VQ2: Unrecognized key/],
    ['a ratio the gateway cannot carry', { models: { VQ2: { aspectRatios: ['2:1'] } } }, /models\.VQ2\.aspectRatios\.0/],
    ['removing a field every create needs', { models: { VQ2: { fields: { prompt: null } } } }, /models\.VQ2\.fields\.prompt: required/],
    ['an image model’s n out of range', { models: { NB: { maxImages: 9 } } }, /models\.NB\.maxImages/],
  ])('%s → a ConfigError naming the variable and the entry', (_name, content, message) => {
    const env = withFile(content);
    expect(() => buildCatalogue(env)).toThrow(ConfigError);
    expect(() => buildCatalogue(env)).toThrow(message);
  });

  test('the defaults pass the file’s own schema and checks', () => {
    expect(() => resolveModels(B_MODELS_DATA, {})).not.toThrow();
    expect(buildCatalogue({}).entries.filter((e) => e.platform === 'B')).toHaveLength(34);
  });
});
