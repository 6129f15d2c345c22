/**
 * Input URLs no platform can fetch — loopback, private, link-local and metadata addresses in any
 * spelling, local names — and URLs carrying credentials are refused naming the field, before anything is paid
 * for; an operator's allowlist (INPUT_URL_ALLOW_PRIVATE_ORIGINS) lets a test setup name its own hosts.
 */
import { loadApiConfig } from '../../../api/api-config';
import { postJson, startTestApi, type TestApi } from '../../support/test-api';

let api: TestApi;
let allowing: TestApi;
beforeAll(async () => {
  api = await startTestApi();
  allowing = await startTestApi({ starter: { inputUrlAllowPrivateOrigins: new Set(['http://127.0.0.1:9000', 'http://images.internal']) } });
});
afterAll(async () => {
  await api.close();
  await allowing.close();
});
beforeEach(() => {
  api.started.length = 0;
  allowing.started.length = 0;
});

const VIDEO = '/v1/async/videos/generations';
const IMAGE = '/v1/async/images/generations';
/** V 1.0 pro: first frame (image_url), and its own video_url is not needed here. */
const V_PRO = { model: 'vendor-video-1-0-pro-250528', prompt: 'a fox', duration: 5 };
/** V lite i2v: reference images (images[].url). */
const V_REFS = { model: 'vendor-video-1-0-lite-i2v-250428', prompt: 'a fox', duration: 5 };

const UNFETCHABLE = [
  'http://127.0.0.1/a.png',
  'http://127.1/a.png',
  'http://2130706433/a.png',
  'http://0x7f000001/a.png',
  'http://0x7f.1/a.png',
  'http://017700000001/a.png',
  'http://[::1]/a.png',
  'http://[::ffff:127.0.0.1]/a.png',
  'http://[::]/a.png',
  'http://10.0.0.1/a.png',
  'http://172.16.5.4/a.png',
  'http://192.168.1.1/a.png',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fe80::1]/a.png',
  'http://[fd00::1]/a.png',
  'http://0.0.0.0/a.png',
  'http://localhost/a.png',
  'http://LOCALHOST./a.png',
  'http://api.localhost/a.png',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://metadata/a.png',
  'http://printer.local/a.png',
];

describe('input URLs no platform can fetch', () => {
  test.each(UNFETCHABLE)('image_url %s is 400 naming image_url; nothing started', async (url) => {
    const r = await postJson(api.base, VIDEO, { ...V_PRO, image_url: url });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ param: 'image_url', code: 'invalid_value', message: expect.stringMatching(/public address/) });
    expect(api.started).toHaveLength(0);
  });

  test.each([
    ['images.0.url', VIDEO, { ...V_REFS, images: [{ url: 'http://10.0.0.1/r.png' }] }],
    ['images.1.url', VIDEO, { ...V_REFS, images: [{ url: 'https://a.test/r.png' }, { url: 'http://169.254.169.254/r.png' }] }],
    [
      'last_frame_url',
      VIDEO,
      {
        model: 'vendor-video-1-0-lite-i2v-250428',
        prompt: 'a fox',
        duration: 5,
        image_url: 'https://a.test/a.png',
        last_frame_url: 'http://127.1/b.png',
      },
    ],
    ['video_url', VIDEO, { ...V_PRO, video_url: 'http://[::1]:8080/v.mp4' }],
    ['file_infos.0.Url', IMAGE, { model: 'GG', prompt: 'a cat', file_infos: [{ Type: 'Url', Url: 'http://localhost/a.png' }] }],
    ['images.0.url', IMAGE, { model: 'NB', prompt: 'a cat', images: [{ url: 'http://192.168.0.10/a.png' }] }],
  ])('every URL field: %s', async (param, path, body) => {
    const r = await postJson(api.base, path, body);
    expect([r.status, r.body.error.param]).toEqual([400, param]);
    // Refused for its host by the URL check, not later by a rule of the model.
    expect(r.body.error.message).toMatch(/public address/);
    expect(api.started).toHaveLength(0);
  });

  test('a URL with a user name or password is refused, never forwarded with its credentials', async () => {
    for (const url of ['http://user:pass@images.test/a.png', 'https://token@images.test/a.png']) {
      const r = await postJson(api.base, VIDEO, { ...V_PRO, image_url: url });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ param: 'image_url', message: expect.stringMatching(/user name or password/) });
    }
    expect(api.started).toHaveLength(0);
  });

  test('public hosts go through, canonical', async () => {
    for (const url of [
      'https://images.test/a.png',
      'http://8.8.8.8/a.png',
      'https://[2606:4700::1111]/a.png',
      'https://cdn.example.com:8443/a.png?x=1',
    ]) {
      const r = await postJson(api.base, VIDEO, { ...V_PRO, image_url: url });
      expect([url, r.status]).toEqual([url, 200]);
    }
    expect(api.started.map((s) => s.image_url)).toEqual([
      'https://images.test/a.png',
      'http://8.8.8.8/a.png',
      'https://[2606:4700::1111]/a.png',
      'https://cdn.example.com:8443/a.png?x=1',
    ]);
  });
});

describe('the operator allowlist (INPUT_URL_ALLOW_PRIVATE_ORIGINS)', () => {
  test('a listed origin is forwarded, in any spelling of its address', async () => {
    for (const url of ['http://127.0.0.1:9000/a.png', 'http://127.1:9000/a.png', 'http://images.internal/a.png']) {
      const r = await postJson(allowing.base, VIDEO, { ...V_PRO, image_url: url });
      expect([url, r.status]).toEqual([url, 200]);
    }
    expect(allowing.started.map((s) => s.image_url)).toEqual([
      'http://127.0.0.1:9000/a.png',
      'http://127.0.0.1:9000/a.png',
      'http://images.internal/a.png',
    ]);
  });

  test('only the listed origin: another port, scheme or host is still refused', async () => {
    for (const url of [
      'http://127.0.0.1:9001/a.png',
      'https://127.0.0.1:9000/a.png',
      'http://10.0.0.1/a.png',
      'http://metadata.google.internal/',
    ]) {
      const r = await postJson(allowing.base, VIDEO, { ...V_PRO, image_url: url });
      expect([url, r.status]).toEqual([url, 400]);
    }
    expect(allowing.started).toHaveLength(0);
  });

  test('the variable is read as origins; a malformed entry fails at start naming it', () => {
    const env = { API_KEYS: 'a:0123456789abcdef' };
    expect([
      ...loadApiConfig({ ...env, INPUT_URL_ALLOW_PRIVATE_ORIGINS: ' http://127.0.0.1:9000/ , https://files.internal ' })
        .inputUrlAllowPrivateOrigins,
    ]).toEqual(['http://127.0.0.1:9000', 'https://files.internal']);
    expect(loadApiConfig(env).inputUrlAllowPrivateOrigins.size).toBe(0);
    expect(() => loadApiConfig({ ...env, INPUT_URL_ALLOW_PRIVATE_ORIGINS: 'not an origin' })).toThrow(/INPUT_URL_ALLOW_PRIVATE_ORIGINS/);
    expect(() => loadApiConfig({ ...env, INPUT_URL_ALLOW_PRIVATE_ORIGINS: 'ftp://10.0.0.1' })).toThrow(/INPUT_URL_ALLOW_PRIVATE_ORIGINS/);
  });
});
