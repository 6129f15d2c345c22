/**
 * The shared request validation (platforms/validation.ts), directly: model lookup, fields another platform owns,
 * and the general rules every platform shares, before the platform's own rules (tested in platform-*.test.ts).
 * Each refusal names its field, so a client knows what to change, and nothing a client sends is dropped silently.
 */
import { buildCatalogue } from '../../../platforms';
import { RequestRuleError, validateGeneration } from '../../../platforms/validation';

const catalogue = buildCatalogue({});
const ALL = new Set(['T', 'B', 'V']);
const V_MODEL = 'vendor-video-1-0-pro-250528';

function refusal(fn: () => unknown): { param: string; code: string; message: string } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RequestRuleError);
    const e = err as RequestRuleError;
    return { param: e.param, code: e.code, message: e.message };
  }
  throw new Error('expected a refusal');
}

describe('model lookup', () => {
  test('an unknown model, a model of the other kind, and a model of a platform not enabled are all model_not_found', () => {
    for (const [kind, model, enabled] of [
      ['video', 'no-such-model', ALL],
      ['image', V_MODEL, ALL],
      ['video', V_MODEL, new Set(['T', 'B'])],
    ] as const) {
      expect(refusal(() => validateGeneration(catalogue, enabled, kind, { model, prompt: 'p' }))).toMatchObject({
        param: 'model',
        code: 'model_not_found',
      });
    }
  });
});

describe('fields a platform cannot carry', () => {
  test('a V-only field on a B model is refused, naming the field and the platforms that take it', () => {
    const r = refusal(() =>
      validateGeneration(catalogue, ALL, 'video', {
        model: 'VQ2',
        action: 'text_to_video',
        prompt: 'p',
        duration: 5,
        service_tier: 'default',
      }),
    );
    expect(r).toMatchObject({ param: 'service_tier', code: 'unsupported_parameter' });
    expect(r.message).toBe('service_tier is only supported by platform V models; VQ2 is a platform B model');
  });
});

describe('general video rules', () => {
  test('a prompt longer than the model takes is refused with its length', () => {
    const entry = catalogue.find('video', 'VQ2')!;
    expect(entry.maxPromptLength).toBeDefined();
    const prompt = 'x'.repeat(entry.maxPromptLength! + 1);
    expect(
      refusal(() => validateGeneration(catalogue, ALL, 'video', { model: 'VQ2', action: 'text_to_video', prompt, duration: 5 })),
    ).toMatchObject({
      param: 'prompt',
      message: expect.stringContaining(`${prompt.length} characters`),
    });
  });

  test('sound on a model without it is refused naming generate_audio', () => {
    expect(refusal(() => validateGeneration(catalogue, ALL, 'video', { model: V_MODEL, prompt: 'p', generate_audio: true }))).toMatchObject(
      { param: 'generate_audio' },
    );
  });

  test("a resolution in another letter case is taken as the model's own spelling", () => {
    const { request } = validateGeneration(catalogue, ALL, 'video', { model: V_MODEL, prompt: 'p', duration: 5, resolution: '720P' });
    expect(request.resolution).toBe('720p');
  });
});

describe('general image rules', () => {
  test('response_format "url" is accepted (the OpenAI SDK sends it) and not passed on; "b64_json" is refused', () => {
    const { request } = validateGeneration(catalogue, ALL, 'image', { model: 'I4YG1', prompt: 'p', response_format: 'url' });
    expect(request).not.toHaveProperty('response_format');
    expect(
      refusal(() => validateGeneration(catalogue, ALL, 'image', { model: 'I4YG1', prompt: 'p', response_format: 'b64_json' })),
    ).toMatchObject({
      param: 'response_format',
      code: 'unsupported_parameter',
    });
  });

  test("a quality the model does not take is refused, listing only the model's own qualities", () => {
    const entry = catalogue.find('image', 'I4YG1')!;
    const r = refusal(() => validateGeneration(catalogue, ALL, 'image', { model: 'I4YG1', prompt: 'p', quality: 'ultra' }));
    expect(r.param).toBe('quality');
    expect(r.message).toContain(`use one of ${entry.qualities!.join(', ')}`);
  });

  test('n above the model’s maximum is refused naming n; within it, accepted', () => {
    const max = catalogue.find('image', 'I4YG1')!.maxImages!;
    expect(validateGeneration(catalogue, ALL, 'image', { model: 'I4YG1', prompt: 'p', n: max }).request.n).toBe(max);
    expect(refusal(() => validateGeneration(catalogue, ALL, 'image', { model: 'I4YG1', prompt: 'p', n: max + 1 }))).toMatchObject({
      param: 'n',
    });
  });

  test('size becomes the ratio the platform takes; a size of no supported ratio is refused naming size', () => {
    expect(validateGeneration(catalogue, ALL, 'image', { model: 'I4YG1', prompt: 'p', size: '1920x1080' }).request.ratio).toBe('16:9');
    expect(refusal(() => validateGeneration(catalogue, ALL, 'image', { model: 'I4YG1', prompt: 'p', size: '1000x37' }))).toMatchObject({
      param: 'size',
    });
  });
});
