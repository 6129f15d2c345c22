/**
 * Platform B (Baidu AI Cloud VOD AIGC): the bce-auth-v1 signer against Baidu's published vector and the official
 * SDK, golden create bodies per family built from the shared page's examples (each also run through the
 * simulator's strict validation: nothing may be ignored), every request rule's 400, status mapping, error
 * classification, the models file, configuration, and the adapter's calls — findSubmitted above all — against a
 * fake HTTP client.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../api/api-error';
import { parseGenerationBody } from '../../api/request-validation';
import { ConfigError } from '../../core/config';
import type { ModelEntry } from '../../core/catalogue';
import { buildCatalogue, platformById } from '../../platforms';
import type { HttpClient, HttpResponse } from '../../platforms/http';
import type { ReconcileContext } from '../../platforms/platform';
import { UpstreamError } from '../../platforms/upstream-error';
import { createPlatformB } from '../../platforms/b/adapter';
import { bceAuthorization, bceTimestamp, canonicalRequest, uriEncode } from '../../platforms/b/signing';
import { bWorker } from '../../platforms/b/config';
import { classifyBError } from '../../platforms/b/replies';
import { B_MODELS_DATA } from '../../platforms/b/models';
import { taskInputKey } from '../../platforms/b/model-spec';
import { resolveModels } from '../../platforms/b/models-file';
import { CLOCK_SKEW_MARGIN_MS, sameRequest } from '../../platforms/b/lost-answer';
import { fromBTaskDetail } from '../../platforms/b/replies';
import { markerSeed, toBCreate } from '../../platforms/b/request-body';
import { SIM_ACCOUNTS } from '../../sim/accounts';
import { validateImageCreate } from '../../sim/b/image';
import { validateVideoCreate } from '../../sim/b/video';

// The official SDK's signer (npm @baiducloud/sdk, src/auth.js): an independent implementation, tests only.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SdkAuth = require('@baiducloud/sdk/src/auth.js') as new (
  ak: string,
  sk: string,
) => {
  generateAuthorization(method: string, resource: string, params: Record<string, string>, headers: Record<string, string>, timestampSeconds?: number, expirationSeconds?: number, headersToSign?: string[]): string;
};

const ENABLED = new Set(['T', 'B', 'V']);
const catalogue = buildCatalogue();
const IMG = 'https://img.test/first.png';
const IMG2 = 'https://img.test/last.png';

function validated(kind: 'video' | 'image', body: Record<string, unknown>, cat = catalogue) {
  return parseGenerationBody(cat, ENABLED, kind, body);
}

/** The 400 a request gets: its param and code (or 'accepted'). */
function refusal(kind: 'video' | 'image', body: Record<string, unknown>): { param: string; code: string } | 'accepted' {
  try {
    validated(kind, body);
    return 'accepted';
  } catch (err) {
    const e = err as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(400);
    return { param: e.opts.param!, code: e.opts.code! };
  }
}

/** The create a request becomes, for submit `dedupKey` (absent: without the reconciliation seed). */
function create(kind: 'video' | 'image', body: Record<string, unknown>, dedupKey?: string) {
  const { entry, request } = validated(kind, body);
  return toBCreate(entry, request, dedupKey === undefined ? undefined : { dedupKey });
}

/** The simulator (written from the shared page, not from our code) takes the body and ignores none of it. */
function expectSimAccepts(c: ReturnType<typeof create>) {
  const report = c.endpoint === 'image' ? validateImageCreate(c.body).fields : validateVideoCreate(c.endpoint, c.body).fields;
  expect(report.ignored).toEqual([]);
}

// ------------------------------------------------------------------------------------------------ signing

describe('bce-auth-v1', () => {
  const creds = { accessKeyId: 'a'.repeat(32), secretAccessKey: 'b'.repeat(32) };

  test("Baidu's published vector: all five headers, and VOD's host;x-bce-date", () => {
    const req = {
      method: 'PUT',
      path: '/v1/test/myfolder/readme.txt',
      query: [
        ['partNumber', '9'],
        ['uploadId', 'a44cc9bab11cbd156984767aad637851'],
      ] as [string, string][],
      headers: { host: 'bj.bcebos.com', 'content-length': '8', 'content-md5': 'NFzcPqhviddjRNnSOGo4rw==', 'content-type': 'text/plain', 'x-bce-date': '2015-04-27T08:23:49Z' },
    };
    const all = bceAuthorization(req, creds, { timestamp: '2015-04-27T08:23:49Z', signedHeaders: ['host', 'content-length', 'content-md5', 'content-type', 'x-bce-date'] });
    expect(all).toBe(
      'bce-auth-v1/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/2015-04-27T08:23:49Z/1800/content-length;content-md5;content-type;host;x-bce-date/d74a04362e6a848f5b39b15421cb449427f419c95a480fd6b8cf9fc783e2999e',
    );
    expect(bceAuthorization(req, creds, { timestamp: '2015-04-27T08:23:49Z' })).toBe(
      'bce-auth-v1/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/2015-04-27T08:23:49Z/1800/host;x-bce-date/1b8de5a23a56eef657c69f94c621e7acd227d049a4ba577f537d5e5cebf0cf32',
    );
  });

  test.each([
    ['POST', '/v2/aigc/text_to_video', [], '7f0c648ad117dd9ef31a0bc98d68283fc02324e92c9b0120bd33ce4343792318'],
    ['POST', '/v2/aigc/image_to_video', [], '8600ae2a7601e7c77791bc3bccf9e4814c7a59e1b8c1f43628f6fb5a618e6b47'],
    ['POST', '/v2/aigc/image', [], 'e966ea79b0c9bc50ad059cf086d38c8b242a3a3730f83a99337b22a796dfbfbb'],
    ['GET', '/v2/tasks/tsk-faikc9dmw8m8saic', [], 'ba291ccf6c021b656cf69e8c83dee41636b000421a795e54af4c7967d08625b0'],
    ['GET', '/v2/tasks', [['status', 'FAILED'], ['maxSize', '10']], 'f7cd6d3ec5ad6a9cca01f441169533151dd3019f2aaec02a8163a603412fd19f'],
    ['PUT', '/v2/callback', [], 'a783ee942da031e6ae51cc5ab0b09ab27aaacbcfeb65743d284babfb5f04c622'],
  ] as [string, string, [string, string][], string][])('the page’s VOD-shaped vector: %s %s', (method, path, query, signature) => {
    const headers = { host: 'vod.bj.baidubce.com', 'x-bce-date': '2024-03-24T13:08:44Z' };
    expect(bceAuthorization({ method, path, query, headers }, creds, { timestamp: '2024-03-24T13:08:44Z' })).toBe(
      `bce-auth-v1/${'a'.repeat(32)}/2024-03-24T13:08:44Z/1800/host;x-bce-date/${signature}`,
    );
  });

  test('agrees with the official SDK’s auth.js on the calls the adapter makes, a port in the host included', () => {
    const sdk = new SdkAuth(creds.accessKeyId, creds.secretAccessKey);
    const ts = Date.UTC(2026, 10, 22, 9, 30, 5);
    const cases: [string, string, [string, string][], string][] = [
      ['POST', '/v2/aigc/image_to_video', [], 'vod.bj.baidubce.com'],
      ['GET', '/v2/tasks', [['beginTime', '2026-11-22T09:29:05Z'], ['maxSize', '100'], ['marker', 'tsk-abc']], '127.0.0.1:8090'],
      ['GET', '/v2/tasks/tsk-faikc9dmw8m8saic', [], '127.0.0.1:8090'],
    ];
    for (const [method, path, query, host] of cases) {
      const headers = { host, 'x-bce-date': bceTimestamp(ts) };
      const ours = bceAuthorization({ method, path, query, headers }, creds, { timestamp: bceTimestamp(ts) });
      const theirs = sdk.generateAuthorization(method, path, Object.fromEntries(query), headers, ts / 1000, 1800, ['host', 'x-bce-date']);
      expect(ours).toBe(theirs);
    }
  });

  test('canonical request: RFC 3986 encoding with upper-case hex, the colon of x-bce-date encoded', () => {
    expect(uriEncode("a b/c!'()*~")).toBe('a%20b%2Fc%21%27%28%29%2A~');
    expect(canonicalRequest({ method: 'get', path: '/v2/tasks', query: [['beginTime', '2026-01-01T00:00:00Z']], headers: { Host: 'h:1', 'X-Bce-Date': '2026-01-01T00:00:00Z' } })).toBe(
      'GET\n/v2/tasks\nbeginTime=2026-01-01T00%3A00%3A00Z\nhost:h%3A1\nx-bce-date:2026-01-01T00%3A00%3A00Z',
    );
    expect(() => bceAuthorization({ method: 'GET', path: '/', headers: { host: 'h' } }, creds, { timestamp: '2026-01-01T00:00:00Z' })).toThrow(/x-bce-date/);
  });
});

// ------------------------------------------------------------------------------------------------ golden bodies

describe('create bodies, per family (golden, and accepted by the simulator with nothing ignored)', () => {
  test('Vidu first+last frame: the official VIDEO_GENERATE_COMPLETE example (§7.2), on V20', () => {
    const c = create('video', { model: 'V20', prompt: '两个人拥抱', image_url: 'https://x.test/head.jpeg', last_frame_url: 'https://x.test/tail.jpeg', duration: 4, resolution: '720p' });
    expect(c.path).toBe('/v2/aigc/image_to_video');
    // The example's modelV15TaskInput, with V20 (V15 is retired): byte for byte the same members.
    expect(c.body).toEqual({
      model: 'V20',
      modelV20TaskInput: {
        headtailImages: { headImage: { imageUrl: 'https://x.test/head.jpeg' }, tailImage: { imageUrl: 'https://x.test/tail.jpeg' } },
        prompt: '两个人拥抱',
        duration: 4,
        resolution: '720p',
        movementAmplitude: 'auto',
      },
    });
    expectSimAccepts(c);
  });

  test('Veo text-to-video: the 3P body of §2.4; with a submit, its seed', () => {
    const body = { model: 'VE3.1', action: 'text_to_video', prompt: 'a koi pond at dawn', ratio: '16:9', duration: 4, resolution: '720p', negative_prompt: 'blur', audio: 'true' };
    const c = create('video', body);
    expect(c.path).toBe('/v2/aigc/text_to_video');
    expect(c.body).toEqual({
      model: 'VE3.1',
      modelVE31TaskInput: { prompt: 'a koi pond at dawn', n: 1, aspectRatio: '16:9', durationSeconds: 4, resolution: '720p', negativePrompt: 'blur', generateAudio: true },
    });
    const submitted = create('video', body, 'task-1-run-a');
    expect(submitted.body.modelVE31TaskInput).toEqual({ ...(c.body.modelVE31TaskInput as object), seed: markerSeed('task-1-run-a') });
    expect(markerSeed('task-1-run-a')).not.toBe(markerSeed('task-2-run-a'));
    expect(markerSeed('x')).toBeGreaterThanOrEqual(0);
    expect(markerSeed('x')).toBeLessThanOrEqual(2 ** 32 - 1);
    expectSimAccepts(submitted);
  });

  test.each<[string, Record<string, unknown>, string, Record<string, unknown>]>([
    [
      'Vidu text-to-video',
      { model: 'VQ2', action: 'text_to_video', prompt: 'p', duration: 7, resolution: '1080P', ratio: '4:3' },
      'text_to_video',
      { movementAmplitude: 'auto', prompt: 'p', duration: 7, resolution: '1080p', aspectRatio: '4:3' },
    ],
    [
      'Vidu first frame from B’s own image field, no prompt',
      { model: 'VQ2T', image: { imageUrl: IMG }, duration: 5 },
      'image_to_video',
      { movementAmplitude: 'auto', duration: 5, image: { imageUrl: IMG } },
    ],
    [
      'Veo first + last frame',
      { model: 'VE3.1F', prompt: 'turn', image_url: IMG, last_frame_url: IMG2, duration: 6, resolution: '1080p' },
      'image_to_video',
      { n: 1, prompt: 'turn', durationSeconds: 6, resolution: '1080p', image: { imageUrl: IMG }, lastFrame: { imageUrl: IMG2 } },
    ],
    [
      'Veo one reference image: the 3P object form',
      { model: 'VE3.1P', action: 'image_to_video', prompt: 'r', images: [{ url: IMG, role: 'reference_image' }], duration: 8 },
      'image_to_video',
      { n: 1, prompt: 'r', durationSeconds: 8, referenceImages: { imageUrl: IMG } },
    ],
    [
      'Veo two reference images: a list',
      { model: 'VE3.1FP', action: 'image_to_video', prompt: 'r', images: [{ url: IMG }, { url: IMG2 }], duration: 8, resolution: '4K' },
      'image_to_video',
      { n: 1, prompt: 'r', durationSeconds: 8, resolution: '4k', referenceImages: [{ imageUrl: IMG }, { imageUrl: IMG2 }] },
    ],
    [
      'Kling text-to-video: resolution through mode',
      { model: 'K20', action: 'text_to_video', prompt: 'k', duration: 10, resolution: '1080p', ratio: '9:16', negative_prompt: 'n' },
      'text_to_video',
      { prompt: 'k', negativePrompt: 'n', duration: 10, mode: 'pro', aspectRatio: '9:16' },
    ],
    [
      'Kling 2.6 with sound',
      { model: 'K26', action: 'text_to_video', prompt: 'k', duration: 5, audio: 'true' },
      'text_to_video',
      { prompt: 'k', duration: 5, sound: 'on' },
    ],
    [
      'Kling first + last frame, "false" switches without a field left out',
      { model: 'K21', prompt: 'k', image: { imageUrl: IMG }, image_url: IMG, last_frame_url: IMG2, duration: 5, resolution: '720P', audio: 'false', bgm: 'false' },
      'image_to_video',
      { prompt: 'k', duration: 5, mode: 'std', image: { imageUrl: IMG }, imageTail: { imageUrl: IMG2 } },
    ],
    [
      'PixVerse text-to-video',
      { model: 'P45', action: 'text_to_video', prompt: 'pv', duration: 8, resolution: '540p', ratio: '1:1' },
      'text_to_video',
      { prompt: 'pv', duration: 8, quality: '540p', aspectRatio: '1:1' },
    ],
    [
      'PixVerse image-to-video from images[first_frame]',
      { model: 'P50', images: [{ url: IMG, role: 'first_frame' }], duration: 5 },
      'image_to_video',
      { duration: 5, image: { imageUrl: IMG } },
    ],
    [
      'Hailuo text-to-video',
      { model: 'H20', action: 'text_to_video', prompt: 'h', duration: 6, resolution: '768p' },
      'text_to_video',
      { prompt: 'h', duration: 6, resolution: '768P' },
    ],
    [
      'Hailuo first + last frame',
      { model: 'H23', prompt: 'h', image_url: 'https://img.test/a.webp', last_frame_url: IMG2, duration: 10, resolution: '1080p' },
      'image_to_video',
      { prompt: 'h', duration: 10, resolution: '1080P', firstFrame: { imageUrl: 'https://img.test/a.webp' }, lastFrame: { imageUrl: IMG2 } },
    ],
  ])('%s', (_name, request, endpoint, taskInput) => {
    const c = create('video', request);
    expect(c.path).toBe(`/v2/aigc/${endpoint}`);
    expect(c.body).toEqual({ model: request.model, [taskInputKey(request.model as string)]: taskInput });
    expectSimAccepts(c);
  });

  test.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'NBP: reference images, 2K, a pixel size as its ratio',
      { model: 'NBP', prompt: 'a poster', images: [{ url: IMG }, { url: IMG2 }], quality: '2K', size: '1920x1080' },
      {
        model: 'NBP',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'a poster' }, { type: 'image_url', image_item: { image_url: IMG } }, { type: 'image_url', image_item: { image_url: IMG2 } }] }],
        size: '16:9',
        quality: '2K',
      },
    ],
    ['NBP: hd is 4K', { model: 'NBP', prompt: 'x', quality: 'hd' }, { model: 'NBP', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }], quality: '4K' }],
    [
      'I4YG1: n = 4, standard is 1K, a listed ratio',
      { model: 'I4YG1', prompt: 'four', n: 4, quality: 'standard', size: '21:9' },
      { model: 'I4YG1', messages: [{ role: 'user', content: [{ type: 'text', text: 'four' }] }], n: 4, size: '21:9', quality: '1K' },
    ],
    ['NB: the bare minimum', { model: 'NB', prompt: 'one' }, { model: 'NB', messages: [{ role: 'user', content: [{ type: 'text', text: 'one' }] }] }],
  ])('image: %s', (_name, request, body) => {
    const c = create('image', request);
    expect(c.path).toBe('/v2/aigc/image');
    expect(c.body).toEqual(body);
    expectSimAccepts(c);
  });
});

// ------------------------------------------------------------------------------------------------ rules

describe('what each model takes: a 400 naming the field, before anything is paid for', () => {
  const v = (model: string, extra: Record<string, unknown>) => ({ model, duration: model.startsWith('VE') ? 8 : model.startsWith('H') ? 6 : model === 'V20' ? 4 : 5, ...extra });
  test.each<[string, 'video' | 'image', Record<string, unknown>, string, string]>([
    ['rule 1: text-to-video without duration', 'video', { model: 'K20', action: 'text_to_video', prompt: 'p' }, 'duration', 'missing_parameter'],
    ['rule 2: no action (image-to-video) and no image', 'video', v('VQ2', { prompt: 'p' }), 'image', 'missing_parameter'],
    ['text-to-video with an image', 'video', v('VQ2', { action: 'text_to_video', prompt: 'p', image_url: IMG }), 'action', 'invalid_value'],
    ['text-to-video without a prompt', 'video', v('VQ2', { action: 'text_to_video' }), 'prompt', 'missing_parameter'],
    ['text-to-video on an image-to-video-only model (K21)', 'video', v('K21', { action: 'text_to_video', prompt: 'p' }), 'action', 'unsupported_parameter'],
    ['image-to-video on the text-to-video-only H20', 'video', v('H20', { prompt: 'p', image: { imageUrl: IMG } }), 'image.imageUrl', 'unsupported_parameter'],
    ['a prompt over VQ2T’s 1,500 characters', 'video', v('VQ2T', { prompt: '视'.repeat(1501), image_url: IMG }), 'prompt', 'invalid_value'],
    ['a prompt over Kling’s 2,500', 'video', v('K20', { action: 'text_to_video', prompt: 'k'.repeat(2501) }), 'prompt', 'invalid_value'],
    ['a duration V20 lacks (4 s only)', 'video', { model: 'V20', image_url: IMG, duration: 5 }, 'duration', 'invalid_value'],
    ['a duration Veo lacks', 'video', v('VE3.1', { action: 'text_to_video', prompt: 'p', duration: 5 }), 'duration', 'invalid_value'],
    ['a resolution VQ1 lacks', 'video', v('VQ1', { action: 'text_to_video', prompt: 'p', resolution: '720p' }), 'resolution', 'invalid_value'],
    ['a ratio Veo lacks', 'video', v('VE3.1', { action: 'text_to_video', prompt: 'p', ratio: '1:1' }), 'ratio', 'invalid_value'],
    ['a ratio on Kling image-to-video (no field)', 'video', v('K20', { prompt: 'p', image_url: IMG, ratio: '16:9' }), 'ratio', 'unsupported_parameter'],
    ['any ratio on Hailuo (no field)', 'video', v('H23', { action: 'text_to_video', prompt: 'p', ratio: '16:9' }), 'ratio', 'unsupported_parameter'],
    ['audio on Hailuo', 'video', v('H23', { action: 'text_to_video', prompt: 'p', audio: 'true' }), 'audio', 'unsupported_parameter'],
    ['audio on a Kling before 2.6', 'video', v('K25T', { action: 'text_to_video', prompt: 'p', audio: 'true' }), 'audio', 'unsupported_parameter'],
    ['bgm: no model has a known field', 'video', v('VQ2', { action: 'text_to_video', prompt: 'p', bgm: 'true' }), 'bgm', 'unsupported_parameter'],
    ['negative_prompt on Vidu', 'video', v('VQ2', { action: 'text_to_video', prompt: 'p', negative_prompt: 'x' }), 'negative_prompt', 'unsupported_parameter'],
    ['last frame on PixVerse', 'video', v('P40', { image_url: IMG, last_frame_url: IMG2 }), 'last_frame_url', 'unsupported_parameter'],
    ['a last frame without a first', 'video', v('VE3.1', { images: [{ url: IMG2, role: 'last_frame' }] }), 'images[0]', 'invalid_value'],
    ['two different first frames', 'video', v('VQ2', { image: { imageUrl: IMG }, image_url: IMG2 }), 'image_url', 'invalid_value'],
    ['reference images on Vidu', 'video', v('VQ2', { images: [{ url: IMG }] }), 'images', 'unsupported_parameter'],
    ['reference images with a first frame', 'video', v('VE3.1', { image_url: IMG, images: [{ url: IMG2 }] }), 'images', 'invalid_value'],
    ['four reference images on Veo', 'video', v('VE3.1', { images: [1, 2, 3, 4].map((i) => ({ url: `https://img.test/${i}.png` })) }), 'images', 'invalid_value'],
    ['a WebP first frame on Veo (JPG/PNG only)', 'video', v('VE3.1', { image_url: 'https://img.test/a.webp' }), 'image_url', 'invalid_value'],
    ['a GIF last frame on Kling', 'video', v('K21', { image_url: IMG, last_frame_url: 'https://img.test/b.GIF?sig=1' }), 'last_frame_url', 'invalid_value'],
    ['the general generate_audio is not B’s', 'video', v('VE3.1', { action: 'text_to_video', prompt: 'p', generate_audio: true }), 'generate_audio', 'unsupported_parameter'],
    ['NB takes n = 1', 'image', { model: 'NB', prompt: 'p', n: 2 }, 'n', 'invalid_value'],
    ['NBP takes n = 1', 'image', { model: 'NBP', prompt: 'p', n: 2 }, 'n', 'invalid_value'],
    ['2K only on NBP', 'image', { model: 'NB', prompt: 'p', quality: '2K' }, 'quality', 'invalid_value'],
    ['hd (4K) only on NBP', 'image', { model: 'I4FG1', prompt: 'p', quality: 'hd' }, 'quality', 'invalid_value'],
    ['a size B has no ratio for', 'image', { model: 'NB', prompt: 'p', size: '2:1' }, 'size', 'invalid_value'],
    ['four reference images on NB (3 at most)', 'image', { model: 'NB', prompt: 'p', images: [1, 2, 3, 4].map((i) => ({ url: `https://img.test/${i}.png` })) }, 'images', 'invalid_value'],
    ['reference images on I4G1 (no image-to-image)', 'image', { model: 'I4G1', prompt: 'p', images: [{ url: IMG }] }, 'images', 'unsupported_parameter'],
    ['no negative prompt on B images', 'image', { model: 'NBP', prompt: 'p', negative_prompt: 'x' }, 'negative_prompt', 'unsupported_parameter'],
  ])('%s → 400 %s', (_name, kind, body, param, code) => {
    expect(refusal(kind, body)).toEqual({ param, code });
  });

  test('limits that hold: 2,500 characters on Kling, 14 references on NBP, an extension-less URL, Hailuo’s WebP', () => {
    expect(refusal('video', { model: 'K20', action: 'text_to_video', prompt: 'k'.repeat(2500), duration: 5 })).toBe('accepted');
    expect(refusal('image', { model: 'NBP', prompt: 'p', images: Array.from({ length: 14 }, (_, i) => ({ url: `https://img.test/${i}.png` })) })).toBe('accepted');
    expect(refusal('video', { model: 'VE3.1', image_url: 'https://img.test/render?id=7', duration: 8 })).toBe('accepted');
    expect(refusal('video', { model: 'H23F', image_url: 'https://img.test/a.webp', duration: 6 })).toBe('accepted');
  });

  test('the catalogue says which model takes what (image-to-video only: V20 VQ1C VQ2T VQ2P VQ2PF K21 KO1 H23F)', () => {
    const b = catalogue.entries.filter((e) => e.platform === 'B');
    const i2vOnly = b.filter((e) => e.capabilities.includes('image_to_video') && !e.capabilities.includes('text_to_video')).map((e) => e.id);
    expect(i2vOnly.sort()).toEqual(['H23F', 'K21', 'KO1', 'V20', 'VQ1C', 'VQ2P', 'VQ2PF', 'VQ2T'].sort());
    expect(b.filter((e) => e.kind === 'video' && !e.capabilities.includes('image_to_video')).map((e) => e.id)).toEqual(['H20']);
    const limits = Object.fromEntries(b.map((e) => [e.id, e.maxPromptLength]));
    expect(limits).toMatchObject({ V20: 1500, VQ1: 1500, VQ2: 2000, VQ2T: 1500, P35: 2048, K26: 2500, H23: 2000, 'VE3.1': 2000 });
    const images = Object.fromEntries(b.filter((e) => e.kind === 'image').map((e) => [e.id, [e.maxImages, e.maxReferenceImages, e.qualities]]));
    expect(images).toEqual({
      NB: [1, 3, ['standard', '1K']],
      NBP: [1, 14, ['standard', 'hd', '1K', '2K', '4K']],
      NB2: [1, 3, ['standard', '1K']],
      I4YG1: [4, 0, ['standard', '1K']],
      I4FG1: [4, 0, ['standard', '1K']],
      I4G1: [4, 0, ['standard', '1K']],
    });
    for (const e of b) expect(e.evidence).toMatch(/OFF|3P|INF|GUESS/);
  });
});

// ------------------------------------------------------------------------------------------------ task detail

describe('task detail → status', () => {
  const detail = (status: string, inner: string, extra: Record<string, unknown> = {}, urls: string[] = []) => ({
    taskId: 'tsk-aaaaaaaaaaaaaaaa',
    type: 'VIDEO_GENERATE',
    status,
    createTime: '2025-01-09T02:04:53Z',
    videoGenerateTaskInfo: {
      status: inner,
      videoGenerateTaskInput: { type: '文生视频', textToVideoRequest: { model: 'VQ2' } },
      ...(urls.length > 0 ? { videoGenerateTaskOutput: { mediaBasicInfos: urls.map((u, i) => ({ mediaId: `mda-${i}`, source: { sourceType: 'GENERATE', sourceUrl: u } })) } } : {}),
      ...extra,
    },
  });
  test.each<[string, unknown, unknown]>([
    ['PENDING', detail('PENDING', 'pending'), { state: 'pending' }],
    ['RUNNING: no progress figure is invented', detail('RUNNING', 'running'), { state: 'running' }],
    ['an unknown top status reads as running', detail('PROCESSING', ''), { state: 'running' }],
    ['SUCCESS, one video', detail('SUCCESS', 'success', {}, ['https://v/a.mp4']), { state: 'success', outputs: [{ url: 'https://v/a.mp4' }] }],
    ['FINISHED', detail('FINISHED', 'success', {}, ['https://v/a.mp4']), { state: 'success', outputs: [{ url: 'https://v/a.mp4' }] }],
    ['n images, in order', detail('SUCCESS', 'success', {}, ['https://i/0.png', 'https://i/1.png', 'https://i/2.png']), { state: 'success', outputs: [{ url: 'https://i/0.png' }, { url: 'https://i/1.png' }, { url: 'https://i/2.png' }] }],
    ['inner "succeeded" with media before the top flips (3P)', detail('RUNNING', 'succeeded', {}, ['https://v/a.mp4']), { state: 'success', outputs: [{ url: 'https://v/a.mp4' }] }],
    ['inner "succeeded" without media: still running', detail('RUNNING', 'succeeded'), { state: 'running' }],
    ['SUCCESS without any link: still running (the deadline decides)', detail('SUCCESS', 'success'), { state: 'running' }],
    [
      'FAILED with errMsg',
      detail('FAILED', 'failed', { errMsg: 'Video generation failed: the model returned no result.' }),
      { state: 'failed', failure: { reason: 'upstream_failed', message: 'Video generation failed: the model returned no result.', code: 'FAILED' } },
    ],
    [
      'inner failed first, moderation',
      detail('RUNNING', 'failed', { errMsg: 'Content moderation failed: the input violates the content security policy.' }),
      { state: 'failed', failure: { reason: 'content_policy', message: 'Content moderation failed: the input violates the content security policy.', code: 'RUNNING' } },
    ],
    ['a Chinese moderation message', detail('FAILED', 'failed', { errMsg: '输入内容审核不通过' }), { state: 'failed', failure: expect.objectContaining({ reason: 'content_policy' }) }],
    [
      'Veo’s "Internal error. Please try again later.": a new job is worth it (not billed)',
      detail('FAILED', 'failed', { errMsg: 'Internal error. Please try again later.' }),
      { state: 'failed', failure: { reason: 'upstream_unavailable', resubmit: true, message: 'Internal error. Please try again later.', code: 'FAILED' } },
    ],
    ['CANCELLED', detail('CANCELLED', 'cancelled'), { state: 'failed', failure: expect.objectContaining({ reason: 'upstream_failed', code: 'CANCELLED' }) }],
  ])('%s', (_name, d, expected) => {
    expect(fromBTaskDetail(d)).toEqual(expected);
  });

  test('an answer without a task is a retryable malformed reply', () => {
    expect(() => fromBTaskDetail({ code: 'x' })).toThrow(UpstreamError);
    expect(() => fromBTaskDetail('<html>')).toThrow(expect.objectContaining({ retryable: true }));
  });
});

// ------------------------------------------------------------------------------------------------ errors

describe('error classification', () => {
  const res = (status: number, code: string, message = 'm', headers: Record<string, string> = {}) => ({ status, headers, body: { requestId: 'req-1', code, message } });
  test.each<[string, ReturnType<typeof res>, boolean, string]>([
    ['InvalidAccessKeyId', res(403, 'InvalidAccessKeyId'), false, 'upstream_auth'],
    ['SignatureDoesNotMatch', res(400, 'SignatureDoesNotMatch'), false, 'upstream_auth'],
    ['AccessDenied', res(403, 'AccessDenied'), false, 'upstream_auth'],
    ['QualifyNotPass (no real-name verification)', res(403, 'QualifyNotPass', 'The User has not pass qualify.'), false, 'upstream_auth'],
    ['OptInRequired', res(403, 'OptInRequired'), false, 'upstream_auth'],
    ['InvalidHTTPAuthHeader', res(400, 'InvalidHTTPAuthHeader'), false, 'upstream_auth'],
    ['a v3 API key refused', res(401, 'InvalidAccessKeyId'), false, 'upstream_auth'],
    ['an account in arrears [GUESS]', res(403, 'AccessDenied', 'The account is in arrears'), false, 'insufficient_balance'],
    ['InternalError', res(500, 'InternalError'), true, 'upstream_unavailable'],
    ['Veo throttling, whatever the code', res(500, 'InternalError', 'Internal error. Please try again later.'), true, 'upstream_unavailable'],
    ['Veo throttling as a 400', res(400, 'SomethingElse', 'Internal error. Please try again later.'), true, 'upstream_unavailable'],
    ['RequestExpired: re-signed on retry', res(400, 'RequestExpired', 'Request has expired. Timestamp date is 2024-03-24T13:08:44Z'), true, 'upstream_unavailable'],
    ['429', res(429, 'TooManyRequests'), true, 'upstream_unavailable'],
    ['503', res(503, 'ServiceUnavailable'), true, 'upstream_unavailable'],
    ['InappropriateJSON', res(400, 'InappropriateJSON'), false, 'invalid_request'],
    ['MalformedJSON', res(400, 'MalformedJSON'), false, 'invalid_request'],
    ['a refusal that says moderation', res(400, 'InvalidParameter', 'prompt failed content moderation'), false, 'content_policy'],
    ['a 404 (the poll decides whether it names the task: isUnknownTask)', res(404, 'TaskNotFound'), false, 'upstream_failed'],
    ['an unknown endpoint', res(404, 'NotFound'), false, 'upstream_failed'],
  ])('%s', (_name, r, isRetryable, reason) => {
    const err = classifyBError(r);
    expect({ retryable: err.retryable, reason: err.opts.reason, code: err.opts.code }).toEqual({ retryable: isRetryable, reason, code: r.body.code });
    expect(err.message).toContain('request req-1');
  });

  test('Retry-After is honoured; a body that is not B’s shape is classified by status', () => {
    expect(classifyBError(res(429, 'TooManyRequests', 'slow down', { 'retry-after': '7' })).opts.retryAfterMs).toBe(7000);
    const proxy = classifyBError({ status: 502, headers: { 'x-bce-request-id': 'hdr-9' }, body: undefined });
    expect({ retryable: proxy.retryable, code: proxy.opts.code, message: proxy.message }).toEqual({ retryable: true, code: 'HTTP_502', message: expect.stringContaining('request hdr-9') });
  });
});

// ------------------------------------------------------------------------------------------------ models file

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
      families: { kling: { fields: { lastFrame: { name: 'tailImage', evidence: 'OFF' } } }, vidu: { constants: { movementAmplitude: null } } },
      models: {
        VQ2: { fields: { bgm: { name: 'bgm' } }, durations: [4, 8] },
        K21: { endpoints: { image_to_video: { promptMax: 100 } } },
        NB: { qualities: ['1K', '2K'] },
      },
    });
    const cat = buildCatalogue(env);
    const k21 = validated('video', { model: 'K21', image_url: IMG, last_frame_url: IMG2, duration: 5 }, cat);
    expect(toBCreate(k21.entry, k21.request).body).toEqual({ model: 'K21', modelK21TaskInput: { duration: 5, image: { imageUrl: IMG }, tailImage: { imageUrl: IMG2 } } });
    const vq2 = validated('video', { model: 'VQ2', action: 'text_to_video', prompt: 'p', duration: 8, bgm: 'true' }, cat);
    expect(toBCreate(vq2.entry, vq2.request).body).toEqual({ model: 'VQ2', modelVQ2TaskInput: { prompt: 'p', duration: 8, bgm: true } });
    expect(() => validated('video', { model: 'VQ2', action: 'text_to_video', prompt: 'p', duration: 5 }, cat)).toThrow(/duration 5 is not supported/);
    expect(() => validated('video', { model: 'K21', image_url: IMG, prompt: 'x'.repeat(101), duration: 5 }, cat)).toThrow(/at most 100/);
    expect(validated('image', { model: 'NB', prompt: 'p', quality: '2K' }, cat).request.quality).toBe('2K');
    const entry = (id: string) => cat.entries.find((e) => e.id === id && e.platform === 'B') as ModelEntry;
    expect(entry('VQ2').evidence).toMatch(/OPERATOR: durations .*corrected by PLATFORM_B_MODELS_FILE/);
    expect(entry('K20').evidence).toMatch(/corrected by PLATFORM_B_MODELS_FILE/);
    expect(entry('P35').evidence).not.toMatch(/corrected/);
  });

  test('a model’s endpoints can be corrected: K21 gains text-to-video', () => {
    const cat = buildCatalogue(withFile({ models: { K21: { endpoints: { text_to_video: { promptMax: 2500 }, image_to_video: { promptMax: 2500 } } } } }));
    const r = validated('video', { model: 'K21', action: 'text_to_video', prompt: 'p', duration: 5 }, cat);
    expect(toBCreate(r.entry, r.request).path).toBe('/v2/aigc/text_to_video');
  });

  test.each<[string, unknown, RegExp]>([
    ['not JSON', '{nope', /PLATFORM_B_MODELS_FILE: .*m-.*\.json: .*JSON/],
    ['an unknown model', { models: { K99: { durations: [5] } } }, /PLATFORM_B_MODELS_FILE: .*: models\.K99: not a platform B model/],
    ['an unknown family', { families: { sora: {} } }, /PLATFORM_B_MODELS_FILE: .*: families: /],
    ['a bad field name', { models: { VQ2: { fields: { prompt: { name: 'the prompt' } } } } }, /models\.VQ2\.fields\.prompt\.name: must be an identifier/],
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

// ------------------------------------------------------------------------------------------------ config

describe('configuration', () => {
  const sim = { simulate: true, simBaseUrl: 'http://127.0.0.1:8090' };
  test('AK/SK configure the real endpoint; the simulator’s test account when nothing is set', () => {
    expect(bWorker({ PLATFORM_B_ACCESS_KEY_ID: 'ak', PLATFORM_B_SECRET_ACCESS_KEY: 'sk' }, sim)).toMatchObject({ simulated: false, endpoint: 'https://vod.bj.baidubce.com' });
    expect(bWorker({}, sim)).toMatchObject({ simulated: true, endpoint: 'http://127.0.0.1:8090' });
  });
  test.each<[string, NodeJS.ProcessEnv, RegExp]>([
    ['AK without SK', { PLATFORM_B_ACCESS_KEY_ID: 'ak' }, /PLATFORM_B_SECRET_ACCESS_KEY: required/],
    ['SK without AK', { PLATFORM_B_SECRET_ACCESS_KEY: 'sk' }, /PLATFORM_B_ACCESS_KEY_ID: required/],
    ['an API key alone', { PLATFORM_B_API_KEY: 'bce-v3/ALTAK-x/y' }, /PLATFORM_B_ACCESS_KEY_ID: required with PLATFORM_B_API_KEY/],
    ['an API key of the wrong form', { PLATFORM_B_ACCESS_KEY_ID: 'a', PLATFORM_B_SECRET_ACCESS_KEY: 's', PLATFORM_B_API_KEY: 'ALTAK-x' }, /PLATFORM_B_API_KEY: a VOD API key starts with bce-v3\//],
    ['a bad endpoint', { PLATFORM_B_ENDPOINT: 'vod.bj.baidubce.com', PLATFORM_B_ACCESS_KEY_ID: 'a', PLATFORM_B_SECRET_ACCESS_KEY: 's' }, /PLATFORM_B_ENDPOINT/],
  ])('%s → a start-up error naming the variable', (_name, env, message) => {
    expect(() => bWorker(env, sim)).toThrow(message);
  });
  test('production without configuration names the variable to set', () => {
    expect(() => bWorker({}, { simulate: false, simBaseUrl: '' })).toThrow(/PLATFORM_B_ACCESS_KEY_ID: platform B is enabled/);
  });
  test('the simulated defaults sign with the simulator’s test account (copied as literals, never imported)', async () => {
    const http = fakeHttp(() => ({ status: 200, body: { taskId: 'tsk-1', status: 'PENDING' } }));
    expect(await bWorker({}, sim).createAdapter({ http, now: () => NOW }).poll('video', 'tsk-1')).toEqual({ state: 'pending' });
    expect(http.calls[0]!.headers!.authorization).toMatch(new RegExp(`^bce-auth-v1/${SIM_ACCOUNTS.B.accessKeyId}/`));
    expect(platformById('B').publicEnv.shape).toHaveProperty('PLATFORM_B_MODELS_FILE');
  });
});

// ------------------------------------------------------------------------------------------------ the adapter's calls

interface Recorded {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

function fakeHttp(answer: (call: Recorded) => { status: number; body?: unknown; headers?: Record<string, string> }): HttpClient & { calls: Recorded[] } {
  const calls: Recorded[] = [];
  return {
    calls,
    async send(method, url, opts = {}) {
      const call = { method, url, headers: opts.headers, body: opts.body };
      calls.push(call);
      const a = answer(call);
      const res: HttpResponse = { status: a.status, headers: a.headers ?? {}, body: a.body, text: a.body === undefined ? '' : JSON.stringify(a.body) };
      return res;
    },
  };
}

const NOW = Date.UTC(2026, 10, 22, 9, 30, 5);
const SETTINGS = { endpoint: 'http://127.0.0.1:8090', accessKeyId: SIM_ACCOUNTS.B.accessKeyId, secretAccessKey: SIM_ACCOUNTS.B.secretAccessKey };
const ctx = (dedupKey: string, since = NOW - 5_000): ReconcileContext => ({ taskId: 'task_x', dedupKey, deadlineAt: NOW + 3_600_000, since });

describe('adapter calls', () => {
  test('submit: signed host;x-bce-date with the port in the host, JSON body, the task id back; no cancel', async () => {
    const http = fakeHttp(() => ({ status: 200, body: { taskId: 'tsk-faikc9dmw8m8saic' } }));
    const adapter = createPlatformB(SETTINGS, { http, now: () => NOW });
    const { entry, request } = validated('video', { model: 'VQ2', action: 'text_to_video', prompt: 'p', duration: 5 });
    expect(await adapter.submit(entry, request, ctx('k1'))).toEqual({ upstreamTaskId: 'tsk-faikc9dmw8m8saic' });
    const [call] = http.calls;
    expect(call).toMatchObject({ method: 'POST', url: 'http://127.0.0.1:8090/v2/aigc/text_to_video' });
    expect(JSON.parse(call!.body!)).toEqual({ model: 'VQ2', modelVQ2TaskInput: { movementAmplitude: 'auto', prompt: 'p', duration: 5 } });
    const h = call!.headers!;
    expect(h).toMatchObject({ host: '127.0.0.1:8090', 'content-type': 'application/json', 'x-bce-date': '2026-11-22T09:30:05Z', 'x-bce-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(h.authorization).toBe(
      bceAuthorization({ method: 'POST', path: '/v2/aigc/text_to_video', headers: { host: '127.0.0.1:8090', 'x-bce-date': '2026-11-22T09:30:05Z' } }, SETTINGS, { timestamp: '2026-11-22T09:30:05Z' }),
    );
    expect(adapter.cancel).toBeUndefined();
  });

  test('with an API key, text-to-video goes to /v3 with Bearer; image-to-video, images and polls stay on signed /v2', async () => {
    const http = fakeHttp((c) => (c.method === 'POST' ? { status: 200, body: { taskId: 'tsk-1' } } : { status: 200, body: { taskId: 'tsk-1', status: 'RUNNING', videoGenerateTaskInfo: { status: 'running' } } }));
    const adapter = createPlatformB({ ...SETTINGS, endpoint: 'https://vod.bj.baidubce.com', apiKey: SIM_ACCOUNTS.B.apiKey }, { http, now: () => NOW });
    const t2v = validated('video', { model: 'K20', action: 'text_to_video', prompt: 'p', duration: 5 });
    const i2v = validated('video', { model: 'K20', image_url: IMG, duration: 5 });
    const img = validated('image', { model: 'NB', prompt: 'p' });
    await adapter.submit(t2v.entry, t2v.request, ctx('a'));
    await adapter.submit(i2v.entry, i2v.request, ctx('b'));
    await adapter.submit(img.entry, img.request, ctx('c'));
    expect(await adapter.poll('video', 'tsk-1')).toEqual({ state: 'running' });
    expect(http.calls.map((c) => [c.url, c.headers!.authorization!.split('/')[0], c.headers!.host])).toEqual([
      ['https://vod.bj.baidubce.com/v3/aigc/text_to_video', 'Bearer bce-v3', 'vod.bj.baidubce.com'],
      ['https://vod.bj.baidubce.com/v2/aigc/image_to_video', 'bce-auth-v1', 'vod.bj.baidubce.com'],
      ['https://vod.bj.baidubce.com/v2/aigc/image', 'bce-auth-v1', 'vod.bj.baidubce.com'],
      ['https://vod.bj.baidubce.com/v2/tasks/tsk-1', 'bce-auth-v1', 'vod.bj.baidubce.com'],
    ]);
    expect(http.calls[0]!.headers!.authorization).toBe(`Bearer ${SIM_ACCOUNTS.B.apiKey}`);
  });

  test('a 2xx without a task id is retryable (findSubmitted will look for the job); an error answer is classified', async () => {
    const { entry, request } = validated('image', { model: 'NB', prompt: 'p' });
    const empty = createPlatformB(SETTINGS, { http: fakeHttp(() => ({ status: 200, body: {} })), now: () => NOW });
    await expect(empty.submit(entry, request, ctx('k'))).rejects.toMatchObject({ retryable: true, opts: { code: 'MALFORMED_REPLY' } });
    const denied = createPlatformB(SETTINGS, { http: fakeHttp(() => ({ status: 403, body: { requestId: 'r', code: 'QualifyNotPass', message: 'The User has not pass qualify.' } })), now: () => NOW });
    await expect(denied.submit(entry, request, ctx('k'))).rejects.toMatchObject({ retryable: false, opts: { reason: 'upstream_auth', code: 'QualifyNotPass' } });
  });

  test('a poll answered 404 means B no longer knows the job (upstream_lost); InvalidVersion names our URI, not the job', async () => {
    const answering = (code: string) => createPlatformB(SETTINGS, { http: fakeHttp(() => ({ status: 404, body: { requestId: 'r', code, message: 'not found' } })), now: () => NOW });
    await expect(answering('TaskNotFound').poll('video', 'tsk-old')).rejects.toMatchObject({
      retryable: false,
      message: expect.stringContaining('no longer knows job tsk-old'),
      opts: { reason: 'upstream_lost', code: 'TaskNotFound', httpStatus: 404 },
    });
    await expect(answering('InvalidVersion').poll('video', 'tsk-old')).rejects.toMatchObject({ retryable: false, opts: { reason: 'upstream_failed', code: 'InvalidVersion' } });
    // A create answered 404 is an endpoint B does not have: never "lost".
    const { entry, request } = validated('image', { model: 'NB', prompt: 'p' });
    await expect(answering('NotFound').submit(entry, request, ctx('k'))).rejects.toMatchObject({ retryable: false, opts: { reason: 'upstream_failed' } });
  });
});

// ------------------------------------------------------------------------------------------------ reconciliation

describe('findSubmitted: the job a lost answer created', () => {
  const kling = () => validated('video', { model: 'K20', action: 'text_to_video', prompt: 'a fox in the snow', duration: 5 });
  const bodyOf = (r: ReturnType<typeof kling>, dedupKey = 'k1') => toBCreate(r.entry, r.request, { dedupKey }).body;
  const detail = (taskId: string, request: unknown, key = 'textToVideoRequest') => ({
    taskId,
    status: 'RUNNING',
    videoGenerateTaskInfo: { status: 'running', videoGenerateTaskInput: { type: '文生视频', [key]: request } },
  });

  /** A B account holding `tasks` (newest first), listing `pageSize` per page. */
  function account(tasks: { id: string; request: unknown }[], pageSize = 100) {
    return fakeHttp((c) => {
      const url = new URL(c.url);
      if (url.pathname === '/v2/tasks') {
        const start = url.searchParams.get('marker') ? tasks.findIndex((t) => t.id === url.searchParams.get('marker')) : 0;
        const page = tasks.slice(start, start + pageSize);
        const more = start + pageSize < tasks.length;
        return { status: 200, body: { isTruncated: more, marker: url.searchParams.get('marker') ?? '', ...(more ? { nextMarker: tasks[start + pageSize]!.id } : {}), data: page.map((t) => ({ taskId: t.id, type: 'VIDEO_GENERATE', status: 'RUNNING' })) } };
      }
      const id = url.pathname.split('/').pop()!;
      const t = tasks.find((x) => x.id === id);
      return t ? { status: 200, body: detail(t.id, t.request) } : { status: 404, body: { requestId: 'r', code: 'TaskNotFound', message: 'Task not found' } };
    });
  }

  test('lists from the first attempt less the clock-skew margin, pages with the marker, and adopts the one exact match', async () => {
    const r = kling();
    const others = Array.from({ length: 150 }, (_, i) => ({ id: `tsk-other${i}`, request: { model: 'K20', modelK20TaskInput: { prompt: `another ${i}`, duration: 5 } } }));
    const http = account([...others.slice(0, 120), { id: 'tsk-mine', request: bodyOf(r) }, ...others.slice(120)]);
    const adapter = createPlatformB(SETTINGS, { http, now: () => NOW });
    expect(await adapter.findSubmitted!(r.entry, r.request, ctx('k1', NOW - 10_000))).toEqual({ upstreamTaskId: 'tsk-mine' });
    const lists = http.calls.filter((c) => new URL(c.url).pathname === '/v2/tasks').map((c) => Object.fromEntries(new URL(c.url).searchParams));
    const begin = bceTimestamp(Math.floor((NOW - 10_000 - CLOCK_SKEW_MARGIN_MS) / 1000) * 1000);
    expect(lists).toEqual([
      { beginTime: begin, maxSize: '100' },
      { beginTime: begin, maxSize: '100', marker: 'tsk-other100' },
    ]);
    // Every list and detail call is signed, the query included.
    for (const c of http.calls) expect(c.headers!.authorization).toMatch(/^bce-auth-v1\/.+\/host;x-bce-date\/[0-9a-f]{64}$/);
    expect(http.calls.find((c) => c.url.includes('marker'))!.url).toContain(`beginTime=${begin.replace(/:/g, '%3A')}`);
  });

  test.each<[string, (body: Record<string, unknown>) => unknown]>([
    ['another prompt', (b) => ({ ...b, modelK20TaskInput: { ...(b.modelK20TaskInput as object), prompt: 'a fox in the rain' } })],
    ['another duration', (b) => ({ ...b, modelK20TaskInput: { ...(b.modelK20TaskInput as object), duration: 10 } })],
    ['one more field', (b) => ({ ...b, modelK20TaskInput: { ...(b.modelK20TaskInput as object), mode: 'pro' } })],
    ['one field less', (b) => ({ ...b, modelK20TaskInput: { prompt: 'a fox in the snow' } })],
    ['another model', (b) => ({ model: 'K16', modelK16TaskInput: b.modelK20TaskInput })],
  ])('no adoption when the echoed request differs: %s', async (_name, change) => {
    const r = kling();
    const http = account([{ id: 'tsk-near', request: change(bodyOf(r) as Record<string, unknown>) }]);
    expect(await createPlatformB(SETTINGS, { http, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k1'))).toBeUndefined();
  });

  test('key order and null members do not matter', () => {
    expect(sameRequest({ model: 'K20', modelK20TaskInput: { prompt: 'p', duration: 5 } }, { modelK20TaskInput: { duration: 5, prompt: 'p', seed: null }, model: 'K20' })).toBe(true);
    expect(sameRequest({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
  });

  test('two identical bodies nobody claims are ambiguous: none is adopted (a new job rather than another task’s result)', async () => {
    const r = kling();
    const http = account([
      { id: 'tsk-twin1', request: bodyOf(r) },
      { id: 'tsk-twin2', request: bodyOf(r) },
    ]);
    expect(await createPlatformB(SETTINGS, { http, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k1'))).toBeUndefined();
  });

  test('on one worker, a twin submitted by another task is never adopted; the lost one is', async () => {
    const r = kling();
    // Task A's create is lost (tsk-lost exists upstream, A never heard of it); task B, same body, got its answer.
    const tasks = [{ id: 'tsk-lost', request: bodyOf(r) }];
    const http = fakeHttp((c) => {
      const url = new URL(c.url);
      if (c.method === 'POST') {
        // Newest first, as B lists them [GUESS]: the twin comes before the lost job.
        tasks.unshift({ id: 'tsk-twin-of-b', request: JSON.parse(c.body!) });
        return { status: 200, body: { taskId: 'tsk-twin-of-b' } };
      }
      if (url.pathname === '/v2/tasks') return { status: 200, body: { isTruncated: false, data: tasks.map((t) => ({ taskId: t.id })) } };
      const t = tasks.find((x) => url.pathname.endsWith(x.id))!;
      return { status: 200, body: detail(t.id, t.request) };
    });
    const adapter = createPlatformB(SETTINGS, { http, now: () => NOW });
    await adapter.submit(r.entry, r.request, ctx('task-b'));
    expect(await adapter.findSubmitted!(r.entry, r.request, ctx('task-a'))).toEqual({ upstreamTaskId: 'tsk-lost' });
    // B's own retry (say its activity timed out after the answer) finds its own job, not A's.
    expect(await adapter.findSubmitted!(r.entry, r.request, ctx('task-b'))).toEqual({ upstreamTaskId: 'tsk-twin-of-b' });
  });

  test('Veo: each submit’s seed makes its body unique, so identical requests never match each other', async () => {
    const r = validated('video', { model: 'VE3.1', action: 'text_to_video', prompt: 'same', duration: 8 });
    const http = account([
      { id: 'tsk-a', request: toBCreate(r.entry, r.request, { dedupKey: 'task-a' }).body },
      { id: 'tsk-b', request: toBCreate(r.entry, r.request, { dedupKey: 'task-b' }).body },
    ]);
    const adapter = createPlatformB(SETTINGS, { http, now: () => NOW });
    expect(await adapter.findSubmitted!(r.entry, r.request, ctx('task-b'))).toEqual({ upstreamTaskId: 'tsk-b' });
    expect(await adapter.findSubmitted!(r.entry, r.request, ctx('task-c'))).toBeUndefined();
  });

  test('images are matched on their whole body too (the echo key is not relied on)', async () => {
    const r = validated('image', { model: 'I4YG1', prompt: 'cranes', n: 3 });
    const body = toBCreate(r.entry, r.request).body;
    const http = fakeHttp((c) =>
      new URL(c.url).pathname === '/v2/tasks'
        ? { status: 200, body: { isTruncated: false, data: [{ taskId: 'tsk-img' }, { taskId: 'tsk-img2' }] } }
        : { status: 200, body: c.url.endsWith('tsk-img') ? detail('tsk-img', body, 'imageGenerateRequest') : detail('tsk-img2', { ...body, n: 2 }, 'imageGenerateRequest') },
    );
    expect(await createPlatformB(SETTINGS, { http, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k'))).toEqual({ upstreamTaskId: 'tsk-img' });
  });

  test('a task gone between list and detail is skipped; a failing list fails the lookup (retried, never a blind re-send)', async () => {
    const r = kling();
    const gone = fakeHttp((c) => (new URL(c.url).pathname === '/v2/tasks' ? { status: 200, body: { data: [{ taskId: 'tsk-gone' }] } } : { status: 404, body: { code: 'TaskNotFound' } }));
    expect(await createPlatformB(SETTINGS, { http: gone, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k'))).toBeUndefined();
    const down = fakeHttp(() => ({ status: 500, body: { code: 'InternalError', message: 'We encountered an internal error. Please try again.' } }));
    await expect(createPlatformB(SETTINGS, { http: down, now: () => NOW }).findSubmitted!(r.entry, r.request, ctx('k'))).rejects.toMatchObject({ retryable: true });
  });
});

