/**
 * Contract: request validation over HTTP (docs/api.md "Video requests", "Image requests", "Models" and the eight
 * "Validation rules"). Every rejection is a 400 in the one envelope with `error.param` naming the field, and never reaches
 * an upstream platform.
 */
import { errorSchema } from '../../api/response-schemas';
import { ApiClient } from '../support/client';
import { startExtraApi } from '../support/extra-api';
import { sharedStack } from '../support/shared-stack';
import type { Proc } from '../support/stack';

const { sim } = sharedStack();

// Requests go through an API process of this file's own, so its started-task counter moves only for them.
let alice: ApiClient;
let gate: { url: string; proc: Proc };

beforeAll(async () => {
  gate = await startExtraApi({});
  alice = new ApiClient(gate.url, 'alice');
}, 90_000);

afterAll(async () => {
  await gate?.proc.stop();
});

let seq = 0;
/** A prompt no other test uses. */
const uniquePrompt = (what: string) => `contract ${what} #${++seq} ${Date.now()}`;

/** Workflows this API process has started (its `mediagate_tasks_started_total`, all labels). */
async function tasksStarted(): Promise<number> {
  const text = await (await fetch(`${gate.url}/metrics`)).text();
  return [...text.matchAll(/^mediagate_tasks_started_total\{[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** The error codes validation gives (tasks/validation.ts, platforms/validation.ts and rules). */
const VALIDATION_CODES = [
  'invalid_value',
  'missing_parameter',
  'unknown_parameter',
  'unsupported_parameter',
  'model_not_found',
  'invalid_body',
];

/**
 * A 400 in the envelope naming `param` (and `code` when given, else one of validation's codes), and nothing
 * started: the gateway's own started-task counter has not moved.
 */
async function expectRejected(path: string, body: Record<string, unknown>, param: string, code?: string) {
  const before = await tasksStarted();
  const r = await alice.post(path, body, { 'X-Async': 'true' });
  expect({ status: r.status, param: r.body?.error?.param }).toEqual({ status: 400, param });
  expect(errorSchema.parse(r.body).error.type).toBe('invalid_request_error');
  if (code) expect(r.body.error.code).toBe(code);
  else expect(VALIDATION_CODES).toContain(r.body.error.code);
  expect(await tasksStarted()).toBe(before);
  return r.body.error;
}

/** A 200 with a pending task, and exactly one workflow started for it. */
async function expectAccepted(path: string, body: Record<string, unknown>) {
  const before = await tasksStarted();
  const r = await alice.post(path, body, { 'X-Async': 'true' });
  expect({ status: r.status, error: r.body?.error }).toEqual({ status: 200, error: undefined });
  expect(r.body.status).toBe('pending');
  expect(await tasksStarted()).toBe(before + 1);
  return r.body.task_id as string;
}

const VIDEO = '/v1/videos/generations';
const IMAGE = '/v1/images/generations';
const V10 = 'vendor-video-1-0-pro-250528';
const V15 = 'vendor-video-1-5-pro-251215';
const V20 = 'vendor-video-2-0-260128';

describe('validation rule 1: platform B text-to-video needs action "text_to_video" and duration', () => {
  test('without duration → 400 duration', () =>
    expectRejected(VIDEO, { model: 'K20', action: 'text_to_video', prompt: uniquePrompt('b-t2v') }, 'duration', 'missing_parameter'));
  test('without action (defaults to image_to_video) and without image → 400 image, naming text_to_video', async () => {
    const err = await expectRejected(VIDEO, { model: 'K20', prompt: uniquePrompt('b-noaction'), duration: 5 }, 'image');
    expect(err.message).toMatch(/text_to_video/);
  });
  test('action text_to_video with an image → 400 action', () =>
    expectRejected(
      VIDEO,
      {
        model: 'K20',
        action: 'text_to_video',
        prompt: uniquePrompt('b-t2v-img'),
        duration: 5,
        image: { imageUrl: 'https://x.test/a.png' },
      },
      'action',
    ));
  test('a complete request is accepted', () =>
    expectAccepted(VIDEO, { model: 'K20', action: 'text_to_video', prompt: uniquePrompt('b-ok'), duration: 5 }));
  test('text-to-video on a model Baidu lists for image-to-video only (K21) → 400 action', () =>
    expectRejected(
      VIDEO,
      { model: 'K21', action: 'text_to_video', prompt: uniquePrompt('b-i2v-only'), duration: 5 },
      'action',
      'unsupported_parameter',
    ));
});

describe('validation rule 2: platform B image-to-video needs image {imageUrl}', () => {
  test('missing → 400 image', () =>
    expectRejected(
      VIDEO,
      { model: 'VQ2P', action: 'image_to_video', prompt: uniquePrompt('b-i2v'), duration: 5 },
      'image',
      'missing_parameter',
    ));
  test('image without imageUrl → 400 image.imageUrl', () =>
    expectRejected(
      VIDEO,
      { model: 'VQ2P', action: 'image_to_video', prompt: uniquePrompt('b-i2v2'), duration: 5, image: {} },
      'image.imageUrl',
    ));
  test('accepted with image.imageUrl', () =>
    expectAccepted(VIDEO, {
      model: 'VQ2P',
      action: 'image_to_video',
      prompt: uniquePrompt('b-i2v-ok'),
      duration: 5,
      image: { imageUrl: 'https://x.test/a.png' },
    }));
});

describe('validation rule 3: every platform V model needs duration, within its range', () => {
  test('missing → 400 duration', () =>
    expectRejected(VIDEO, { model: V10, prompt: uniquePrompt('v-nodur') }, 'duration', 'missing_parameter'));
  test.each([
    [V10, 1],
    [V10, 13],
    [V20, 16],
    [V20, 3],
    ['vendor-video-2-0-fast-260128', 13],
  ])('%s with %i s → 400 duration', (model, duration) =>
    expectRejected(VIDEO, { model, prompt: uniquePrompt('v-range'), duration }, 'duration'),
  );
  test('a fractional duration → 400 duration', () =>
    expectRejected(VIDEO, { model: V10, prompt: uniquePrompt('v-frac'), duration: 5.5 }, 'duration'));
  test('a string duration → 400 duration', () =>
    expectRejected(VIDEO, { model: V10, prompt: uniquePrompt('v-str'), duration: '5' }, 'duration'));
  test('15 s on the 2.0 model is accepted', () => expectAccepted(VIDEO, { model: V20, prompt: uniquePrompt('v20-15'), duration: 15 }));
});

describe('validation rule 4: generate_audio only on platform V 2.0 models', () => {
  test.each([V10, V15, 'vendor-video-1-0-lite-t2v-250428'])('%s → 400 generate_audio', (model) =>
    expectRejected(VIDEO, { model, prompt: uniquePrompt('audio'), duration: 5, generate_audio: true }, 'generate_audio'),
  );
  test('generate_audio false is harmless anywhere on V', () =>
    expectAccepted(VIDEO, { model: V10, prompt: uniquePrompt('audio-false'), duration: 5, generate_audio: false }));
  test('accepted on the 2.0 models', async () => {
    await expectAccepted(VIDEO, { model: V20, prompt: uniquePrompt('audio20'), duration: 5, generate_audio: true });
    await expectAccepted(VIDEO, {
      model: 'vendor-video-2-0-fast-260128',
      prompt: uniquePrompt('audio20f'),
      duration: 5,
      generate_audio: true,
    });
  });
  test('a non-boolean value → 400 generate_audio', () =>
    expectRejected(VIDEO, { model: V20, prompt: uniquePrompt('audio-type'), duration: 5, generate_audio: 'yes' }, 'generate_audio'));
});

describe('validation rule 5: ratio accepts only 16:9, 9:16, 1:1, 4:3, 3:4', () => {
  test.each(['2:1', '21:9', '16x9', ''])('%p → 400 ratio', (ratio) =>
    expectRejected(VIDEO, { model: V10, prompt: uniquePrompt('ratio'), duration: 5, ratio }, 'ratio'),
  );
  test.each(['16:9', '9:16', '1:1', '4:3', '3:4'])('%s accepted', (ratio) =>
    expectAccepted(VIDEO, { model: V10, prompt: uniquePrompt(`ratio-${ratio}`), duration: 5, ratio }),
  );
});

describe('validation rule 6: last_frame_url only with image_url, only on first/last-frame models', () => {
  test('without image_url → 400 last_frame_url', () =>
    expectRejected(
      VIDEO,
      { model: V15, prompt: uniquePrompt('lf-alone'), duration: 5, last_frame_url: 'https://x.test/b.png' },
      'last_frame_url',
    ));
  test('on a model without first/last frame → 400 last_frame_url', () =>
    expectRejected(
      VIDEO,
      {
        model: V10,
        prompt: uniquePrompt('lf-model'),
        duration: 5,
        image_url: 'https://x.test/a.png',
        last_frame_url: 'https://x.test/b.png',
      },
      'last_frame_url',
    ));
  test('first + last frame on 1.5 pro is accepted, and V receives both frames', async () => {
    const prompt = uniquePrompt('lf-ok');
    await expectAccepted(VIDEO, {
      model: V15,
      prompt,
      duration: 5,
      image_url: 'https://x.test/a.png',
      last_frame_url: 'https://x.test/b.png',
    });
    const got = await sim.waitForRequest('V', 'submit', (b) => b?.content?.[0]?.text === prompt);
    expect(got.body.content.slice(1)).toEqual([
      { type: 'image_url', image_url: { url: 'https://x.test/a.png' }, role: 'first_frame' },
      { type: 'image_url', image_url: { url: 'https://x.test/b.png' }, role: 'last_frame' },
    ]);
  });
  test('reference images cannot be mixed with frames', () =>
    expectRejected(
      VIDEO,
      {
        model: 'vendor-video-1-0-lite-i2v-250428',
        prompt: uniquePrompt('mix'),
        duration: 5,
        image_url: 'https://x.test/a.png',
        images: [{ url: 'https://x.test/r.png', role: 'reference_image' }],
      },
      'images',
    ));
});

describe('validation rule 7: video_url only on platform V 2.0 models', () => {
  test.each([V10, V15, 'vendor-video-2-0-fast-260128'])('%s → 400 video_url', (model) =>
    expectRejected(VIDEO, { model, prompt: uniquePrompt('vurl'), duration: 5, video_url: 'https://x.test/v.mp4' }, 'video_url'),
  );
  test('accepted on the 2.0 model (video editing)', () =>
    expectAccepted(VIDEO, { model: V20, prompt: uniquePrompt('vurl-ok'), duration: 5, video_url: 'https://x.test/v.mp4' }));
  test('on a platform B model → 400 video_url', () =>
    expectRejected(
      VIDEO,
      { model: 'K20', action: 'text_to_video', prompt: uniquePrompt('vurl-b'), duration: 5, video_url: 'https://x.test/v.mp4' },
      'video_url',
    ));
});

describe('validation rule 8: platform T models take output_config / file_infos', () => {
  test('output_config on a V model → 400 output_config', () =>
    expectRejected(
      VIDEO,
      { model: V10, prompt: uniquePrompt('oc-v'), duration: 5, output_config: { Resolution: '1080P' } },
      'output_config',
    ));
  test('file_infos on a B model → 400 file_infos', () =>
    expectRejected(
      VIDEO,
      {
        model: 'K20',
        action: 'text_to_video',
        prompt: uniquePrompt('fi-b'),
        duration: 5,
        file_infos: [{ Type: 'Url', Url: 'https://x.test/a.png' }],
      },
      'file_infos',
    ));
  test('output_config keys are checked: unknown key, bad AudioGeneration, bad resolution', async () => {
    await expectRejected(
      VIDEO,
      { model: 'VendorK-2.1', prompt: uniquePrompt('oc-key'), output_config: { Fps: 30 } },
      'output_config.Fps',
      'unknown_parameter',
    );
    await expectRejected(
      VIDEO,
      { model: 'VendorK-2.1', prompt: uniquePrompt('oc-audio'), output_config: { AudioGeneration: 'On' } },
      'output_config.AudioGeneration',
    );
    await expectRejected(
      VIDEO,
      { model: 'VendorK-2.1', prompt: uniquePrompt('oc-res'), output_config: { Resolution: '4K' } },
      'output_config.Resolution',
    );
  });
  test('a T model with output_config and file_infos is accepted', () =>
    expectAccepted(VIDEO, {
      model: 'VendorK-2.1',
      prompt: uniquePrompt('t-ok'),
      output_config: { Duration: 10, Resolution: '1080P', AspectRatio: '16:9' },
      file_infos: [{ Type: 'Url', Url: 'https://x.test/a.png' }],
    }));
  test('a top-level duration on a T model is checked against the model', () =>
    expectRejected(VIDEO, { model: 'VendorK-2.1', prompt: uniquePrompt('t-dur'), duration: 7 }, 'duration'));
});

describe('per-model durations and resolutions', () => {
  test('GV-3.1 is 8 s only', async () => {
    await expectRejected(VIDEO, { model: 'GV-3.1', prompt: uniquePrompt('gv5'), duration: 5 }, 'duration');
    await expectRejected(
      VIDEO,
      { model: 'GV-3.1', prompt: uniquePrompt('gv-oc'), output_config: { Duration: 6 } },
      'output_config.Duration',
    );
    await expectAccepted(VIDEO, { model: 'GV-3.1', prompt: uniquePrompt('gv8'), duration: 8 });
  });
  test('VendorH-2.3 is 6 or 10 s at 768P or 1080P', async () => {
    await expectRejected(VIDEO, { model: 'VendorH-2.3', prompt: uniquePrompt('h8'), duration: 8 }, 'duration');
    await expectRejected(VIDEO, { model: 'VendorH-2.3', prompt: uniquePrompt('h720'), duration: 6, resolution: '720P' }, 'resolution');
    await expectAccepted(VIDEO, { model: 'VendorH-2.3', prompt: uniquePrompt('h768'), duration: 10, resolution: '768p' });
  });
  test('VendorK models are 5 or 10 s; VendorQ 1 to 10 s', async () => {
    await expectRejected(VIDEO, { model: 'VendorK-2.5', prompt: uniquePrompt('k7'), duration: 7 }, 'duration');
    await expectRejected(VIDEO, { model: 'VendorQ-q2', prompt: uniquePrompt('q11'), duration: 11 }, 'duration');
    await expectAccepted(VIDEO, { model: 'VendorQ-q2-pro', prompt: uniquePrompt('q3'), duration: 3 });
  });
  test('resolution letter case is accepted either way and normalised for the platform', async () => {
    const prompt = uniquePrompt('case');
    await expectAccepted(VIDEO, { model: V10, prompt, duration: 5, resolution: '1080P' });
    const got = await sim.waitForRequest('V', 'submit', (b) => b?.content?.[0]?.text === prompt);
    expect(got.body.resolution).toBe('1080p');
  });
  test('a resolution the model lacks → 400 resolution', () =>
    expectRejected(VIDEO, { model: V10, prompt: uniquePrompt('res'), duration: 5, resolution: '360p' }, 'resolution'));
  test('text-only on the image-only model → 400; an image on the text-only model → 400', async () => {
    await expectRejected(VIDEO, { model: 'vendor-video-1-0-lite-i2v-250428', prompt: uniquePrompt('i2v-only'), duration: 5 }, 'image_url');
    await expectRejected(
      VIDEO,
      { model: 'vendor-video-1-0-lite-t2v-250428', prompt: uniquePrompt('t2v-only'), duration: 5, image_url: 'https://x.test/a.png' },
      'image_url',
    );
  });
  test('service_tier draft only where the model has draft mode (1.5 pro; unconfirmed on 2.0 fast)', async () => {
    await expectRejected(VIDEO, { model: V10, prompt: uniquePrompt('draft'), duration: 5, service_tier: 'draft' }, 'service_tier');
    await expectRejected(
      VIDEO,
      { model: 'vendor-video-2-0-fast-260128', prompt: uniquePrompt('draft-fast'), duration: 5, service_tier: 'draft' },
      'service_tier',
    );
    await expectAccepted(VIDEO, { model: V15, prompt: uniquePrompt('draft-ok'), duration: 5, service_tier: 'draft' });
  });
});

describe('image requests and image models', () => {
  test('prompt is required', () => expectRejected(IMAGE, { model: 'NB' }, 'prompt', 'missing_parameter'));
  test.each([
    ['1000x500', 'size'],
    ['5:1', 'size'],
    ['big', 'size'],
    ['0x100', 'size'],
  ])('size %s → 400 %s', (size, param) => expectRejected(IMAGE, { model: 'NB', prompt: uniquePrompt('size'), size }, param));
  test('listed sizes, ratios and reducible sizes are accepted', async () => {
    for (const size of ['1024x1024', '512x512', '1792x1024', '1920x1080', '1024x1792', '1080x1920', '16:9', '9:16', '1:1', '800x600']) {
      await expectAccepted(IMAGE, { model: 'NB', prompt: uniquePrompt(`size-${size}`), size });
    }
  });
  test('quality standard|hd on GEM; 2K on platform B and VendorK-2.1, which has no hd', async () => {
    await expectRejected(IMAGE, { model: 'GEM-3.0', prompt: uniquePrompt('q2k'), quality: '2K' }, 'quality');
    await expectRejected(IMAGE, { model: 'VendorK-2.1', prompt: uniquePrompt('qhd-k'), quality: 'hd' }, 'quality');
    await expectAccepted(IMAGE, { model: 'VendorK-2.1', prompt: uniquePrompt('q2k-k'), quality: '2K' });
    await expectRejected(IMAGE, { model: 'NB', prompt: uniquePrompt('qbad'), quality: 'ultra' }, 'quality');
    await expectAccepted(IMAGE, { model: 'NBP', prompt: uniquePrompt('q2k-b'), quality: '2K' });
    await expectAccepted(IMAGE, { model: 'GEM-3.0', prompt: uniquePrompt('qhd'), quality: 'hd' });
  });
  test('n only on models that make several images (platform B, VendorK-2.1), 1 to 4', async () => {
    await expectRejected(IMAGE, { model: 'GEM-2.5', prompt: uniquePrompt('n-t'), n: 2 }, 'n');
    await expectAccepted(IMAGE, { model: 'VendorK-2.1', prompt: uniquePrompt('n-k'), n: 2 });
    await expectRejected(IMAGE, { model: 'NB', prompt: uniquePrompt('n5'), n: 5 }, 'n');
    await expectRejected(IMAGE, { model: 'NB', prompt: uniquePrompt('n0'), n: 0 }, 'n');
    await expectRejected(IMAGE, { model: 'NB', prompt: uniquePrompt('nfrac'), n: 1.5 }, 'n');
    await expectAccepted(IMAGE, { model: 'I4G1', prompt: uniquePrompt('n4'), n: 4 });
  });
  test('enhance_prompt is Enabled or Disabled (platform T)', async () => {
    await expectRejected(IMAGE, { model: 'VendorY-3.0', prompt: uniquePrompt('ep'), enhance_prompt: 'yes' }, 'enhance_prompt');
    await expectAccepted(IMAGE, { model: 'VendorY-3.0', prompt: uniquePrompt('ep-ok'), enhance_prompt: 'Enabled' });
  });
  test('VendorK-2.1 is resolved by the endpoint: an image model on the image endpoint, a video model on the video one', async () => {
    await expectAccepted(IMAGE, { model: 'VendorK-2.1', prompt: uniquePrompt('k-img') });
    await expectRejected(IMAGE, { model: 'K21', prompt: uniquePrompt('video-on-image') }, 'model', 'model_not_found');
    await expectRejected(VIDEO, { model: 'NB', prompt: uniquePrompt('image-on-video'), duration: 5 }, 'model', 'model_not_found');
  });
});

describe('types, enums and bounds of every field', () => {
  test('unknown model → 400 model_not_found', () =>
    expectRejected(VIDEO, { model: 'no-such-model', prompt: uniquePrompt('m'), duration: 5 }, 'model', 'model_not_found'));
  test('missing model → 400 model', () =>
    expectRejected(VIDEO, { prompt: uniquePrompt('nomodel'), duration: 5 }, 'model', 'missing_parameter'));
  test('an unknown field is named', () =>
    expectRejected(VIDEO, { model: V10, prompt: uniquePrompt('unk'), duration: 5, seeed: 1 }, 'seeed', 'unknown_parameter'));
  test.each([
    ['image_url', 'ftp://x.test/a.png'],
    ['image_url', '/relative.png'],
    ['image_url', 'not a url'],
    ['last_frame_url', 'javascript:alert(1)'],
  ])('%s %p must be an absolute http(s) URL', (param, url) =>
    expectRejected(
      VIDEO,
      {
        model: V15,
        prompt: uniquePrompt('url'),
        duration: 5,
        [param]: url,
        ...(param === 'last_frame_url' ? { image_url: 'https://x.test/a.png' } : {}),
      },
      param,
    ),
  );
  test.each([
    'https://[2002:7f00:1::]/a.png',
    'https://[::ffff:0:7f00:1]/a.png',
    'https://[64:ff9b::a9fe:a9fe]/a.png',
    'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/a.png',
  ])('image_url %p: an IPv6 spelling of a private IPv4 address → 400 image_url, nothing started', (url) =>
    expectRejected(VIDEO, { model: V15, prompt: uniquePrompt('v6'), duration: 5, image_url: url }, 'image_url'),
  );
  test.each([
    ['a noncharacter', '\ufffe'],
    ['combining marks with no base', '\u0301\u0301'],
    ['a private-use character', '\ue000'],
    ['all of them with spaces and a zero-width space', ' \ufffe\u0301\ue000\u200b '],
  ])('a prompt of %s is blank → 400 prompt (negative_prompt too), nothing started', async (_what, text) => {
    const error = await expectRejected(VIDEO, { model: V10, prompt: text, duration: 5 }, 'prompt');
    expect(error.message).toMatch(/blank/);
    await expectRejected(IMAGE, { model: 'VendorK-2.1', prompt: uniquePrompt('neg'), negative_prompt: text }, 'negative_prompt');
  });
  test('a prompt over 5000 characters → 400 prompt', () =>
    expectRejected(VIDEO, { model: V10, prompt: 'x'.repeat(5001), duration: 5 }, 'prompt'));
  test('too many reference images → 400 images', () =>
    expectRejected(
      VIDEO,
      {
        model: 'vendor-video-1-0-lite-i2v-250428',
        prompt: uniquePrompt('refs'),
        duration: 5,
        images: Array.from({ length: 11 }, (_, i) => ({ url: `https://x.test/${i}.png` })),
      },
      'images',
    ));
  test.each([
    ['action', 'sideways'],
    ['service_tier', 'turbo'],
    ['image_role', 'middle_frame'],
    ['watermark', 'no'],
  ])('%s %p → 400', (param, value) =>
    expectRejected(VIDEO, { model: V10, prompt: uniquePrompt(param), duration: 5, [param]: value }, param),
  );
  test('B audio "true" only on models that generate sound', async () => {
    await expectRejected(
      VIDEO,
      { model: 'H23', action: 'text_to_video', prompt: uniquePrompt('h-audio'), duration: 6, audio: 'true' },
      'audio',
    );
    await expectAccepted(VIDEO, { model: 'VE3.1', action: 'text_to_video', prompt: uniquePrompt('veo-audio'), duration: 8, audio: 'true' });
  });
  test('B audio/bgm are the strings "true"/"false"', () =>
    expectRejected(VIDEO, { model: 'K20', action: 'text_to_video', prompt: uniquePrompt('bgm'), duration: 5, bgm: true }, 'bgm'));
  test('a body that is not an object → 400 body', async () => {
    const r = await alice.request('POST', VIDEO, { rawBody: '[1,2]', headers: { 'Content-Type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('body');
  });
});
