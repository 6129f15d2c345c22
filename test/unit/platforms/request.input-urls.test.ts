/**
 * Input URLs naming a private host are refused after the schema, under a policy given as an argument
 * (privateInputUrl): every field read as httpUrl is checked, the general ones and each platform's own, nested
 * in objects and lists, and an origin the policy allows passes.
 */
import { imageRequestSchema, videoRequestSchema } from '../../../platforms';
import { privateInputUrl, STRICT_INPUT_URLS } from '../../../platforms/request';

const PRIVATE = 'http://10.0.0.7/a.png';
const allowing = { allowPrivateOrigins: new Set(['http://10.0.0.7']) };

describe('privateInputUrl', () => {
  test.each([
    ['image_url', { model: 'm', image_url: PRIVATE }, ['image_url']],
    ['images[].url', { model: 'm', images: [{ url: 'https://example.com/a.png' }, { url: PRIVATE }] }, ['images', 1, 'url']],
    ["platform V's video_url", { model: 'm', video_url: PRIVATE }, ['video_url']],
    ["platform B's image.imageUrl", { model: 'm', image: { imageUrl: PRIVATE } }, ['image', 'imageUrl']],
    ["platform T's file_infos[].Url", { model: 'm', file_infos: [{ Type: 'Url', Url: PRIVATE }] }, ['file_infos', 0, 'Url']],
  ])('%s is found under the strict policy and allowed by an allowing one', (_name, body, path) => {
    const parsed = videoRequestSchema.parse(body);
    expect(privateInputUrl(videoRequestSchema, parsed, STRICT_INPUT_URLS)).toEqual({
      path,
      message: expect.stringContaining('must be a public address: 10.0.0.7') as unknown,
    });
    expect(privateInputUrl(videoRequestSchema, parsed, allowing)).toBeUndefined();
  });

  test('public URLs, prompts that look like URLs and absent fields pass', () => {
    const parsed = videoRequestSchema.parse({ model: 'm', prompt: PRIVATE, image_url: 'https://example.com/a.png' });
    expect(privateInputUrl(videoRequestSchema, parsed, STRICT_INPUT_URLS)).toBeUndefined();
    expect(privateInputUrl(imageRequestSchema, imageRequestSchema.parse({ model: 'm', prompt: 'x' }), STRICT_INPUT_URLS)).toBeUndefined();
  });
});
