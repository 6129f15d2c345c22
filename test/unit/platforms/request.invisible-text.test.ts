/**
 * A prompt that shows nothing — Unicode spaces, zero-width and other format characters — is
 * blank, like one of ASCII spaces (docs/api.md: a prompt must contain more than whitespace); NUL and lone
 * surrogates are refused in every string of a body, nested ones included, naming the field. Nothing starts.
 */
import { promptText } from '../../../platforms/request';
import { postJson, useTestApi } from '../../support/test-api';

const app = useTestApi();

const VIDEO = '/v1/async/videos/generations';
const IMAGE = '/v1/async/images/generations';
const V_BODY = { model: 'vendor-video-1-0-pro-250528', prompt: 'a fox', duration: 5 };

describe('invisible prompts are blank', () => {
  test.each([
    ['zero-width spaces', '\u200b\u200b\u200b'],
    ['a byte-order mark', '\ufeff'],
    ['joiners and a word joiner', '\u200c\u200d\u2060'],
    ['no-break and ideographic spaces', '\u00a0\u3000\u2007'],
    ['a soft hyphen and a Hangul filler', '\u00ad\u3164'],
    ['a mix with ASCII white space', ' \u200b\n\u2028\t\u180e '],
    ['the blank Braille pattern', '\u2800\u2800'],
    ['a noncharacter', '\ufffe'],
    ['noncharacters of the U+FDD0 block and of another plane', '\ufdd0\ufdef \u{1fffe}\u{10ffff}'],
    ['combining marks with no base', '\u0301\u0301'],
    ['an enclosing mark and a spacing mark alone', '\u20dd\u0903'],
    ['private-use characters, in the BMP and a supplementary plane', '\ue000\uf8ff\u{f0000}'],
    ['a mix of all of them', ' \u0301\ufffe\ue000\u200b\u0007 '],
  ])('%s: 400 naming prompt, on video and image', async (_what, prompt) => {
    const video = await postJson(app.api.base, VIDEO, { ...V_BODY, prompt });
    expect([video.status, video.body.error.param]).toEqual([400, 'prompt']);
    expect(video.body.error.message).toMatch(/blank/);
    const image = await postJson(app.api.base, IMAGE, { model: 'GEM-2.5', prompt });
    expect([image.status, image.body.error.param]).toEqual([400, 'prompt']);
    expect(app.api.started).toHaveLength(0);
  });

  test('negative_prompt too', async () => {
    const r = await postJson(app.api.base, IMAGE, { model: 'VendorK-2.1', prompt: 'a cat', negative_prompt: '\u200b' });
    expect([r.status, r.body.error.param]).toEqual([400, 'negative_prompt']);
    expect(r.body.error.message).toMatch(/blank/);
  });

  test('visible text with invisible characters around it, emoji and combining marks are prompts', async () => {
    const prompts = ['\u200ba fox\u200b', '🦊', 'e\u0301', '狐狸', 'a fox \ue000', '\u0301a'];
    for (const prompt of prompts) {
      const r = await postJson(app.api.base, VIDEO, { ...V_BODY, prompt });
      expect([prompt, r.status]).toEqual([prompt, 200]);
    }
    expect(app.api.started.map((s) => s.prompt)).toEqual(prompts);
  });
});

test('the prompt fields refuse NUL and lone surrogates themselves, however the text arrived (a form field too)', () => {
  for (const text of ['a fox\u0000', 'a fox \ud800', '\udfff']) {
    const parsed = promptText.safeParse(text);
    expect([text, parsed.success]).toEqual([text, false]);
    expect(parsed.error!.issues[0]!.message).toMatch(/NUL|surrogate/);
  }
});

describe('NUL and lone surrogates are refused in any string, naming the field', () => {
  // Written as JSON text: the escapes are what a client sends, and valid JSON.
  test.each([
    ['prompt', VIDEO, '{"model":"vendor-video-1-0-pro-250528","duration":5,"prompt":"a fox\\u0000 and more"}'],
    ['prompt', VIDEO, '{"model":"vendor-video-1-0-pro-250528","duration":5,"prompt":"a fox \\ud800"}'],
    ['prompt', VIDEO, '{"model":"vendor-video-1-0-pro-250528","duration":5,"prompt":"\\udfff a fox"}'],
    [
      'images.0.url',
      VIDEO,
      '{"model":"vendor-video-1-0-lite-i2v-250428","duration":5,"prompt":"a fox","images":[{"url":"https://a.test/x.png\\u0000"}]}',
    ],
    [
      'images.1.url',
      VIDEO,
      '{"model":"vendor-video-1-0-lite-i2v-250428","duration":5,"prompt":"a fox","images":[{"url":"https://a.test/x.png"},{"url":"https://a.test/\\udc00.png"}]}',
    ],
    ['output_config.Resolution', IMAGE, '{"model":"GG","prompt":"a cat","output_config":{"Resolution":"1K\\u0000"}}'],
    ['model', IMAGE, '{"model":"GEM-2.5\\u0000","prompt":"a cat"}'],
  ])('%s (%s)', async (param, path, body) => {
    const r = await postJson(app.api.base, path, body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ param, code: 'invalid_value', message: expect.stringMatching(/NUL|surrogate/) });
    expect(app.api.started).toHaveLength(0);
  });

  test('a surrogate pair (an emoji written as escapes) is text, and goes through', async () => {
    const r = await postJson(app.api.base, VIDEO, '{"model":"vendor-video-1-0-pro-250528","duration":5,"prompt":"a fox \\ud83e\\udd8a"}');
    expect(r.status).toBe(200);
    expect(app.api.started[0]!.prompt).toBe('a fox 🦊');
  });
});
