/**
 * The AI SDK provider driven by the SDK's own functions (`ai` 7: experimental_generateVideo, experimental_startVideo,
 * experimental_getVideoStatus, generateImage) against the e2e project's shared stack: API → Temporal → worker →
 * simulator and back. What the platforms received is read from the simulator.
 */
import {
  APICallError,
  UnsupportedFunctionalityError,
  experimental_generateVideo as generateVideo,
  experimental_getVideoStatus as getVideoStatus,
  experimental_startVideo as startVideo,
  generateImage,
} from 'ai';
import { createMediagate, mediagateRefusal } from '../src/index.js';
import { outcomeOf } from '../src/tasks.js';
import { WEBHOOK_RECEIVER_PORT_ENV } from '../../../test/support/global-setup.js';
import { startReceiver, type Receiver } from '../../../test/support/receiver.js';
import { sharedStack } from '../../../test/support/shared-stack.js';
import { TEST_KEYS } from '../../../test/support/stack.js';
import { waitFor } from '../../../test/support/wait-for.js';

const { apiUrl, sim } = sharedStack();
const settings = { baseURL: `${apiUrl}/v1`, apiKey: TEST_KEYS.alice.secret, pollIntervalMs: { video: 300, image: 300 } };
const mediagate = createMediagate({ ...settings, results: 'bytes' });
const unique = (text: string) => `ai sdk: ${text} ${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const isMp4 = (bytes: Uint8Array) => Buffer.from(bytes.subarray(4, 8)).toString('latin1') === 'ftyp';
/** Every request the simulator's platform received whose body carries `text` (the prompt, somewhere in it). */
const submitsWith = async (platform: string, text: string) =>
  (await sim.requests(platform, 'submit')).filter((r) => JSON.stringify(r.body).includes(text));

describe('experimental_generateVideo: a playable video from each platform and from a route', () => {
  test('platform V: prompt, duration, aspectRatio and resolution reach the platform as its fields; the video comes back as bytes', async () => {
    const prompt = unique('a kite over dunes');
    const { video, providerMetadata } = await generateVideo({
      model: mediagate.video('vendor-video-1-0-pro-250528'),
      prompt,
      duration: 5,
      aspectRatio: '9:16',
      resolution: '1280x720',
    });
    expect(isMp4(video.uint8Array)).toBe(true);
    expect(video.mediaType).toBe('video/mp4');
    expect(providerMetadata.mediagate).toMatchObject({ status: 'success', model: 'vendor-video-1-0-pro-250528' });
    const [submit] = await submitsWith('V', prompt);
    expect(submit?.body).toMatchObject({ model: 'doubao-seedance-1-0-pro-250528', ratio: '9:16', resolution: '720p', duration: 5 });
  });

  test('platform T: generateAudio and the ratio reach T as its output settings', async () => {
    const prompt = unique('a heron at dawn');
    const { video } = await generateVideo({
      model: mediagate.video('GV-3.1'),
      prompt,
      duration: 8,
      aspectRatio: '16:9',
      generateAudio: true,
    });
    expect(isMp4(video.uint8Array)).toBe(true);
    const [submit] = await submitsWith('T', prompt);
    expect(submit?.body).toMatchObject({ OutputConfig: { Duration: 8, AspectRatio: '16:9', AudioGeneration: 'Enabled' } });
  });

  test('platform B: providerOptions.mediagate.action picks text-to-video', async () => {
    const prompt = unique('a paper boat');
    const { video, providerMetadata } = await generateVideo({
      model: mediagate.video('H23'),
      prompt,
      duration: 6,
      providerOptions: { mediagate: { action: 'text_to_video' } },
    });
    expect(isMp4(video.uint8Array)).toBe(true);
    expect(providerMetadata.mediagate).toMatchObject({ status: 'success', model: 'H23' });
    expect(await submitsWith('B', prompt)).toHaveLength(1);
  });

  test('a route, results as the gateway’s stored links: the SDK downloads them (with the download function it is given)', async () => {
    const prompt = unique('a lighthouse by route');
    const links = createMediagate({ ...settings, results: 'url' });
    const fetched: string[] = [];
    const { video, providerMetadata } = await generateVideo({
      model: links.video('kling-2.1'),
      prompt,
      duration: 5,
      providerOptions: { mediagate: { action: 'text_to_video' } },
      // The SDK's default download refuses private hosts (this stack is on 127.0.0.1); a public gateway needs none.
      download: async ({ url }) => {
        fetched.push(url.toString());
        const res = await fetch(url);
        return { data: new Uint8Array(await res.arrayBuffer()), mediaType: res.headers.get('content-type') ?? undefined };
      },
    });
    expect(isMp4(video.uint8Array)).toBe(true);
    const meta = providerMetadata.mediagate as { taskId: string; model: string };
    expect(meta).toMatchObject({ model: 'kling-2.1', servedBy: { model: expect.any(String), platform: expect.stringMatching(/^[TB]$/) } });
    expect(fetched).toEqual([expect.stringContaining(`${apiUrl}/v1/generations/${meta.taskId}/content?index=0&token=`)]);
  });

  test('the first and last frames (frameImages) reach the platform as the request’s image_url and last_frame_url', async () => {
    const prompt = unique('from head to tail');
    const { video } = await generateVideo({
      model: mediagate.video('V20'),
      prompt,
      duration: 4,
      resolution: '1280x720',
      frameImages: [
        { image: 'https://x.test/head.jpeg', frameType: 'first_frame' },
        { image: 'https://x.test/tail.jpeg', frameType: 'last_frame' },
      ],
    });
    expect(isMp4(video.uint8Array)).toBe(true);
    const [submit] = await submitsWith('B', prompt);
    expect(JSON.stringify(submit?.body)).toContain('https://x.test/head.jpeg');
    expect(JSON.stringify(submit?.body)).toContain('https://x.test/tail.jpeg');
  });
});

describe('the rest of the mapping', () => {
  const model = mediagate.video('vendor-video-1-0-pro-250528');
  const started = async (prompt: string, extra: Partial<Parameters<typeof startVideo>[0]> = {}) =>
    (await startVideo({ model, prompt, duration: 5, ...extra })).operation as { taskId: string };

  test('n: one task per video (maxVideosPerCall is 1), each under its own Idempotency-Key', async () => {
    const prompt = unique('twins');
    const { videos } = await generateVideo({ model, prompt, duration: 5, n: 2 });
    expect(videos).toHaveLength(2);
    expect(videos.every((v) => isMp4(v.uint8Array))).toBe(true);
    expect(await submitsWith('V', prompt)).toHaveLength(2);
  });

  test('the prompt’s image is the request’s image_url', async () => {
    const prompt = unique('from one frame');
    await started(prompt, { prompt: { text: prompt, image: 'https://x.test/first.jpeg' } });
    const submit = await sim.waitForRequest('V', 'submit', (b) => JSON.stringify(b).includes(prompt));
    expect(JSON.stringify(submit.body)).toContain('https://x.test/first.jpeg');
  });

  test('providerOptions.mediagate: route names the request’s model; its other fields go as given, unchecked (the gateway’s to refuse, naming the field)', async () => {
    const prompt = unique('by a named route');
    const { operation } = await startVideo({
      model: mediagate.video('not-this-model'),
      prompt,
      duration: 6,
      providerOptions: { mediagate: { route: 'hailuo-2.3', action: 'text_to_video' } },
    });
    expect((await getVideoStatus(model, { operation })).providerMetadata).toMatchObject({ mediagate: { model: 'hailuo-2.3' } });

    const watermarked = unique('watermarked');
    await started(watermarked, { providerOptions: { mediagate: { watermark: true } } });
    const submit = await sim.waitForRequest('V', 'submit', (b) => JSON.stringify(b).includes(watermarked));
    expect(submit.body).toMatchObject({ watermark: true });

    // Unchecked by the provider: the gateway decides, and its refusal names the field.
    const error = await startVideo({
      model,
      prompt: unique('unknown'),
      duration: 5,
      maxRetries: 0,
      providerOptions: { mediagate: { no_such_field: 1 } },
    }).catch((e: unknown) => e);
    expect(mediagateRefusal(error)).toMatchObject({ param: 'no_such_field', status: 400 });
  });
});

describe('refusals', () => {
  test('the gateway’s refusal is the SDK’s APICallError with the gateway’s field, code and message; nothing reaches a platform', async () => {
    const prompt = unique('too long');
    const error = await generateVideo({
      model: mediagate.video('vendor-video-1-0-pro-250528'),
      prompt,
      duration: 999,
      maxRetries: 0,
    }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(400);
    expect((error as APICallError).isRetryable).toBe(false);
    expect(mediagateRefusal(error)).toMatchObject({ param: 'duration', status: 400, message: expect.stringContaining('duration') });
    expect(await submitsWith('V', prompt)).toEqual([]);
  });

  test('options the gateway cannot honour are refused before any request: seed, fps, bytes as an input image', async () => {
    const prompt = unique('never sent');
    const model = mediagate.video('vendor-video-1-0-pro-250528');
    for (const extra of [{ seed: 7 }, { fps: 60 }, { prompt: { image: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), text: prompt } }]) {
      const error = await generateVideo({ model, prompt, duration: 5, maxRetries: 0, ...extra }).catch((e: unknown) => e);
      expect(UnsupportedFunctionalityError.isInstance(error)).toBe(true);
    }
    expect(await submitsWith('V', prompt)).toEqual([]);
  });
});

describe('task states', () => {
  const task = (status: string, error?: { message: string; code?: string; upstream_code?: string }) => ({
    task_id: 'task_x',
    model: 'm',
    status,
    error,
  });

  test('only pending and running read as pending; every other state, known or not, is final', () => {
    expect(outcomeOf(task('pending')).state).toBe('pending');
    expect(outcomeOf(task('running')).state).toBe('pending');
    expect(outcomeOf({ ...task('success'), data: [{ url: 'https://g.example/c' }] })).toEqual({
      state: 'succeeded',
      urls: ['https://g.example/c'],
    });
    expect(outcomeOf(task('success')).state).toBe('failed');
    expect(outcomeOf(task('cancelled_by_someone_new')).state).toBe('failed');
  });

  test('the reason a failure reads with: cancelled, expired (the deadline, or the platform’s window), else the gateway’s code', () => {
    const reason = (error: { message: string; code?: string; upstream_code?: string }) => {
      const o = outcomeOf(task('failed', error));
      return o.state === 'failed' ? o.reason : o.state;
    };
    expect(reason({ message: 'The task was cancelled at the client’s request', code: 'cancelled' })).toBe('cancelled');
    expect(reason({ message: 'past its deadline', code: 'deadline_exceeded' })).toBe('expired');
    expect(reason({ message: 'stopped (expired)', code: 'upstream_failed', upstream_code: 'expired' })).toBe('expired');
    for (const code of [
      'content_policy',
      'invalid_request',
      'upstream_failed',
      'upstream_lost',
      'upstream_unavailable',
      'upstream_auth',
      'insufficient_balance',
      'terminated',
    ]) {
      expect(reason({ message: 'why', code })).toBe(code);
    }
  });
});

describe('experimental_startVideo / experimental_getVideoStatus', () => {
  test('a start sends the SDK’s Idempotency-Key; a start retried after a lost answer reuses it and gets the same task, one upstream job', async () => {
    const prompt = unique('a lost answer');
    const sent: string[] = [];
    let dropped = false;
    const lossy = createMediagate({
      ...settings,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (init?.method === 'POST') {
          sent.push(new Headers(init.headers).get('idempotency-key') ?? '');
          // The first answer is lost on its way back: the task exists, the client does not know it.
          if (!dropped) {
            dropped = true;
            throw new TypeError('fetch failed: the connection was reset');
          }
        }
        return res;
      },
    });
    const { operation } = await startVideo({ model: lossy.video('vendor-video-1-0-pro-250528'), prompt, duration: 5 });
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^aisdk_vid_/);
    expect(sent[1]).toBe(sent[0]);
    const { taskId } = operation as { taskId: string };
    const done = await waitFor(async () => {
      const s = await getVideoStatus(mediagate.video('vendor-video-1-0-pro-250528'), { operation });
      return s.status === 'pending' ? undefined : s;
    }, 60_000);
    expect(done).toMatchObject({ status: 'completed', providerMetadata: { mediagate: { taskId, status: 'success' } } });
    expect(await submitsWith('V', prompt)).toHaveLength(1);
  });

  test('a cancelled task reads as an error naming the cancellation, never as pending', async () => {
    const prompt = unique('cancelled [sim:duration=60000]');
    const model = mediagate.video('vendor-video-1-0-pro-250528');
    const { operation } = await startVideo({ model, prompt, duration: 5 });
    expect((await getVideoStatus(model, { operation })).status).toBe('pending');
    await mediagate.cancel(operation as { taskId: string });
    // The cancel answers once the task closed (200), or while it is closing (202): read until it is final.
    const status = await waitFor(async () => {
      const s = await getVideoStatus(model, { operation });
      return s.status === 'pending' ? undefined : s;
    }, 60_000);
    expect(status).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/^cancelled: /),
      providerMetadata: { mediagate: { errorCode: 'cancelled' } },
    });
  });

  test('a job the platform let expire reads as an error naming the expiry', async () => {
    const prompt = unique('expires upstream [sim:expires=500] [sim:duration=60000]');
    const model = mediagate.video('vendor-video-1-0-pro-250528');
    const { operation } = await startVideo({ model, prompt, duration: 5 });
    const status = await waitFor(async () => {
      const s = await getVideoStatus(model, { operation });
      return s.status === 'pending' ? undefined : s;
    }, 60_000);
    expect(status).toMatchObject({ status: 'error', error: expect.stringMatching(/^expired: /) });
  });
});

describe('webhooks', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver('/ai-sdk-hooks', Number(process.env[WEBHOOK_RECEIVER_PORT_ENV]));
  });
  afterAll(() => receiver.close());

  test('experimental_generateVideo with a webhook: the task’s signed notification ends the wait, without polling', async () => {
    const prompt = unique('finished by its webhook');
    let reads = 0;
    const counting = createMediagate({
      ...settings,
      results: 'bytes',
      pollIntervalMs: { video: 60_000 },
      fetch: (input, init) => {
        if ((init?.method ?? 'GET') === 'GET' && String(input).includes('/v1/generations/task_') && !String(input).includes('/content'))
          reads++;
        return fetch(input, init);
      },
    });
    // A URL of this call's own: the receiver's port is shared with other files' webhooks, which may still arrive.
    const url = `${receiver.url}/${encodeURIComponent(prompt)}`;
    const { video, providerMetadata } = await generateVideo({
      model: counting.video('vendor-video-1-0-pro-250528'),
      prompt,
      duration: 5,
      webhook: async () => ({
        url,
        received: waitFor(async () => {
          const got = receiver.got.find((g) => url.endsWith(g.path));
          return got ? { headers: got.headers as Record<string, string>, body: got.raw } : undefined;
        }, 60_000),
      }),
    });
    expect(isMp4(video.uint8Array)).toBe(true);
    const taskId = (providerMetadata.mediagate as { taskId: string }).taskId;
    expect(receiver.got.some((g) => g.body?.data?.task_id === taskId)).toBe(true);
    // One read, after the notification (the SDK's status check), however long the task ran.
    expect(reads).toBe(1);
  });

  test('experimental_startVideo with webhookUrl: the gateway posts the task’s signed final event there', async () => {
    const prompt = unique('announced');
    const { operation } = await startVideo({
      model: mediagate.video('vendor-video-1-0-pro-250528'),
      prompt,
      duration: 5,
      webhookUrl: receiver.url,
    });
    const { taskId } = operation as { taskId: string };
    const event = await waitFor(async () => receiver.got.find((g) => g.body?.data?.task_id === taskId), 60_000);
    expect(event.body).toMatchObject({ type: 'generation.succeeded', data: { task_id: taskId, status: 'success' } });
    expect(event.headers['webhook-signature']).toMatch(/^v1,/);
  });

  test('a notification whose signature does not verify is not trusted: the call fails', async () => {
    const prompt = unique('a forged notification');
    const error = await generateVideo({
      model: mediagate.video('vendor-video-1-0-pro-250528'),
      prompt,
      duration: 5,
      webhook: async () => ({
        url: receiver.url,
        received: Promise.resolve({
          headers: {
            'webhook-id': 'msg_forged',
            'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
            'webhook-signature': 'v1,AAAA',
          },
          body: JSON.stringify({ type: 'generation.succeeded', data: { task_id: 'task_forged', status: 'success' } }),
        }),
      }),
    }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('WebhookVerificationError');
  });
});

describe('generateImage', () => {
  test('platform B: n images as bytes, their stored links in the metadata', async () => {
    const prompt = unique('a lighthouse, two ways');
    const { images, providerMetadata } = await generateImage({ model: mediagate.image('I4YG1'), prompt, n: 2, size: '1024x1024' });
    expect(images).toHaveLength(2);
    for (const image of images) expect(image.mediaType).toMatch(/^image\//);
    const meta = providerMetadata.mediagate as unknown as { images: Array<{ url: string; taskId: string }> };
    expect(meta.images).toHaveLength(2);
    expect(meta.images[0]!.url).toContain(`/v1/generations/${meta.images[0]!.taskId}/content`);
  });

  test('platform T: the aspect ratio is the request’s size', async () => {
    const prompt = unique('a red kite');
    const { image } = await generateImage({ model: mediagate.image('GEM-2.5'), prompt, aspectRatio: '16:9' });
    expect(image.mediaType).toMatch(/^image\//);
    const [submit] = await submitsWith('T', prompt);
    expect(JSON.stringify(submit?.body)).toContain('16:9');
  });
});
