/**
 * The platform-B simulator (sim/b) against its documentation (shared/platforms/b-baidu-vod.md): bce-auth-v1 with
 * the published vectors and the official JS SDK's signer as an independent oracle; every endpoint over real HTTP
 * with requests signed per §1.2; model/endpoint lists, prompt limits, Veo image modes, image limits; unknown
 * fields ignored yet recorded, the output following recognised fields only; task detail at each state; list
 * filters and paging; no idempotency; the lost-answer (drop) fault and how the task is found again; callbacks
 * with their signature and faults.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIM_ACCOUNTS } from '../../sim/accounts';
import { bceSign, bceTimestamp, canonicalQueryString, parseBceAuthorization, uriEncode } from '../../sim/b/bce-auth';
import { startSimulator, type Simulator } from '../../sim/server';
import { startReceiver, type Received, type Receiver } from '../support/receiver';
import { waitFor } from '../support/wait-for';

// The official SDK's signer (npm @baiducloud/sdk, src/auth.js): an independent reference implementation only.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SdkAuth = require('@baiducloud/sdk/src/auth.js') as new (
  ak: string,
  sk: string,
) => {
  generateAuthorization(
    method: string,
    resource: string,
    params: Record<string, string>,
    headers: Record<string, string>,
    timestampSeconds?: number,
    expirationSeconds?: number,
    headersToSign?: string[],
  ): string;
};

const AK = SIM_ACCOUNTS.B.accessKeyId;
const SK = SIM_ACCOUNTS.B.secretAccessKey;

// ------------------------------------------------------------------------------------------------ HTTP helpers

interface Res {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: any;
}

let sim: Simulator;
let port: number;

function raw(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: `text` has it
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

interface CallOptions {
  /** 'none' = no Authorization header; any other string is sent as is. */
  auth?: string;
  ak?: string;
  sk?: string;
  at?: number;
  expirationSeconds?: number;
  signedHeaders?: string[];
  headers?: Record<string, string>;
  contentType?: string;
  /** Send these bytes instead of JSON.stringify(body). */
  rawBody?: string;
}

/** A request signed with bce-auth-v1 (host;x-bce-date unless told otherwise), as the VOD docs' examples sign. */
async function call(method: string, path: string, query: Array<[string, string]> = [], body?: unknown, o: CallOptions = {}): Promise<Res> {
  const ts = bceTimestamp(o.at ?? Date.now());
  const payload = o.rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
  const headers: Record<string, string> = { host: `127.0.0.1:${port}`, 'x-bce-date': ts, ...o.headers };
  if (payload !== undefined) {
    headers['content-type'] = o.contentType ?? 'application/json; charset=utf-8';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  if (o.auth === undefined) {
    headers.authorization = bceSign(
      { method, path, query, headers },
      { accessKeyId: o.ak ?? AK, secretAccessKey: o.sk ?? SK, timestamp: ts, expirationSeconds: o.expirationSeconds, signedHeaders: o.signedHeaders ?? ['host', 'x-bce-date'] },
    ).authorization;
  } else if (o.auth !== 'none') {
    headers.authorization = o.auth;
  }
  const qs = query.map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`).join('&');
  return raw(method, qs ? `${path}?${qs}` : path, headers, payload);
}

/** The simulator's control surface (/_sim), read as loose JSON. */
const getJson = async (path: string): Promise<any> => (await fetch(`${sim.url}${path}`)).json();
const sim_ = {
  jobs: (): Promise<any[]> => getJson('/_sim/jobs?platform=B'),
  job: async (id: string): Promise<any> => (await sim_.jobs()).find((j) => j.id === id),
  stats: async (): Promise<any> => (await getJson('/_sim/stats')).B,
  post: (path: string, body: unknown) => fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  callbacks: (): Promise<any[]> => getJson('/_sim/callbacks?platform=B'),
};


const t2v = (model: string, input: Record<string, unknown>) => ({ model, [`model${model.replace(/\./g, '')}TaskInput`]: input });
const createT2V = (model: string, input: Record<string, unknown>) => call('POST', '/v2/aigc/text_to_video', [], t2v(model, input));
const createI2V = (model: string, input: Record<string, unknown>) => call('POST', '/v2/aigc/image_to_video', [], t2v(model, input));
const IMG = { imageUrl: 'https://img.example.com/cat.png' };
const imageBody = (model: string, extra: Record<string, unknown> = {}, refs = 0, prompt = 'a red fox in snow') => ({
  model,
  messages: [
    {
      role: 'user',
      content: [{ type: 'text', text: prompt }, ...Array.from({ length: refs }, (_, i) => ({ type: 'image_url', image_item: { image_url: `https://img.example.com/${i}.png` } }))],
    },
  ],
  ...extra,
});
const getTask = (id: string) => call('GET', `/v2/tasks/${id}`);
const finished = (id: string) => waitFor(async () => {
  const r = await getTask(id);
  return ['SUCCESS', 'FAILED'].includes(r.body?.status) ? r.body : undefined;
});

beforeAll(async () => {
  sim = await startSimulator({ port: 0, jobDurationMs: 300 });
  port = Number(new URL(sim.url).port);
});
afterAll(async () => {
  await sim.close();
});
beforeEach(async () => {
  await sim_.post('/_sim/reset', {});
});

// ------------------------------------------------------------------------------------------------ bce-auth-v1

describe('bce-auth-v1 signer', () => {
  const a32 = 'a'.repeat(32);
  const b32 = 'b'.repeat(32);
  const official = {
    method: 'PUT',
    path: '/v1/test/myfolder/readme.txt',
    query: [
      ['partNumber', '9'],
      ['uploadId', 'a44cc9bab11cbd156984767aad637851'],
    ] as Array<[string, string]>,
    headers: {
      host: 'bj.bcebos.com',
      'content-length': '8',
      'content-md5': 'NFzcPqhviddjRNnSOGo4rw==',
      'content-type': 'text/plain',
      'x-bce-date': '2015-04-27T08:23:49Z',
    },
  };
  const opts = { accessKeyId: a32, secretAccessKey: b32, timestamp: '2015-04-27T08:23:49Z' };

  test('reproduces the official vector (signing key, all five headers, host;x-bce-date)', () => {
    const all = bceSign(official, { ...opts, signedHeaders: ['host', 'content-length', 'content-md5', 'content-type', 'x-bce-date'] });
    expect(all.signingKey).toBe('1d5ce5f464064cbee060330d973218821825ac6952368a482a592e6615aef479');
    expect(all.canonicalRequest).toBe(
      'PUT\n/v1/test/myfolder/readme.txt\npartNumber=9&uploadId=a44cc9bab11cbd156984767aad637851\n' +
        'content-length:8\ncontent-md5:NFzcPqhviddjRNnSOGo4rw%3D%3D\ncontent-type:text%2Fplain\nhost:bj.bcebos.com\nx-bce-date:2015-04-27T08%3A23%3A49Z',
    );
    expect(all.signature).toBe('d74a04362e6a848f5b39b15421cb449427f419c95a480fd6b8cf9fc783e2999e');
    expect(bceSign(official, { ...opts, signedHeaders: ['host', 'x-bce-date'] }).signature).toBe('1b8de5a23a56eef657c69f94c621e7acd227d049a4ba577f537d5e5cebf0cf32');
    // An empty signedHeaders list means the default set, which here is the same five headers.
    const dflt = bceSign(official, opts);
    expect(dflt.signature).toBe(all.signature);
    expect(dflt.authorization).toBe(`bce-auth-v1/${a32}/2015-04-27T08:23:49Z/1800//${all.signature}`);
  });

  test.each([
    ['POST', '/v2/aigc/text_to_video', [], '7f0c648ad117dd9ef31a0bc98d68283fc02324e92c9b0120bd33ce4343792318'],
    ['POST', '/v2/aigc/image_to_video', [], '8600ae2a7601e7c77791bc3bccf9e4814c7a59e1b8c1f43628f6fb5a618e6b47'],
    ['POST', '/v2/aigc/image', [], 'e966ea79b0c9bc50ad059cf086d38c8b242a3a3730f83a99337b22a796dfbfbb'],
    ['GET', '/v2/tasks/tsk-faikc9dmw8m8saic', [], 'ba291ccf6c021b656cf69e8c83dee41636b000421a795e54af4c7967d08625b0'],
    ['GET', '/v2/tasks', [['maxSize', '10'], ['status', 'FAILED']], 'f7cd6d3ec5ad6a9cca01f441169533151dd3019f2aaec02a8163a603412fd19f'],
    ['PUT', '/v2/callback', [], 'a783ee942da031e6ae51cc5ab0b09ab27aaacbcfeb65743d284babfb5f04c622'],
  ] as Array<[string, string, Array<[string, string]>, string]>)('VOD-shaped vector %s %s', (method, path, query, signature) => {
    const headers = { host: 'vod.bj.baidubce.com', 'x-bce-date': '2024-03-24T13:08:44Z' };
    const s = bceSign({ method, path, query, headers }, { accessKeyId: a32, secretAccessKey: b32, timestamp: '2024-03-24T13:08:44Z', signedHeaders: ['host', 'x-bce-date'] });
    expect(s.signature).toBe(signature);
    expect(s.authorization).toBe(`bce-auth-v1/${a32}/2024-03-24T13:08:44Z/1800/host;x-bce-date/${signature}`);
  });

  test('agrees with the official SDK signer (vectors and awkward queries/headers)', () => {
    const sdk = new SdkAuth(a32, b32);
    const ts = Date.parse('2015-04-27T08:23:49Z') / 1000;
    const params = Object.fromEntries(official.query);
    expect(sdk.generateAuthorization('PUT', official.path, params, official.headers, ts, 1800, ['host', 'content-length', 'content-md5', 'content-type'])).toBe(
      bceSign(official, { ...opts, signedHeaders: ['host', 'content-length', 'content-md5', 'content-type', 'x-bce-date'] }).authorization,
    );
    const cases: Array<{ query: Record<string, string>; headers: Record<string, string> }> = [
      { query: { status: 'FAILED', maxSize: '10' }, headers: { host: '127.0.0.1:8090', 'x-bce-date': '2026-01-02T03:04:05Z' } },
      { query: { beginTime: '2026-01-01T00:00:00Z', marker: 'tsk-abc', q: "a b*(x)!'~" }, headers: { host: 'vod.bj.baidubce.com', 'x-bce-date': '2026-01-02T03:04:05Z', 'x-bce-request-id': 'f00d' } },
      { query: { taskId: '', unicode: '视频' }, headers: { host: 'h', 'content-type': 'application/json; charset=utf-8', 'x-bce-date': '2026-01-02T03:04:05Z' } },
    ];
    for (const c of cases) {
      const t = Date.parse('2026-01-02T03:04:05Z') / 1000;
      const ours = bceSign(
        { method: 'GET', path: '/v2/tasks', query: Object.entries(c.query), headers: c.headers },
        { accessKeyId: a32, secretAccessKey: b32, timestamp: '2026-01-02T03:04:05Z', signedHeaders: Object.keys(c.headers) },
      );
      expect(sdk.generateAuthorization('GET', '/v2/tasks', c.query, c.headers, t, 1800, Object.keys(c.headers))).toBe(ours.authorization);
    }
    expect(canonicalQueryString([['authorization', 'x'], ['b', ''], ['a', '1']])).toBe('a=1&b=');
  });

  test('parses Authorization strings strictly', () => {
    const good = `bce-auth-v1/${a32}/2024-03-24T13:08:44Z/1800/host;x-bce-date/${'0'.repeat(64)}`;
    expect(parseBceAuthorization(good)?.signedHeaders).toEqual(['host', 'x-bce-date']);
    expect(parseBceAuthorization(good.replace('/host;x-bce-date/', '//'))?.signedHeaders).toEqual([]);
    for (const bad of [
      good.replace('bce-auth-v1', 'BCE-AUTH-V1'),
      good.replace('2024-03-24T13:08:44Z', '2024-03-24 13:08:44'),
      good.replace('2024-03-24T13:08:44Z', '2024-02-30T13:08:44Z'),
      good.replace('/1800/', '/-1/'),
      good.replace('0'.repeat(64), 'xyz'),
      `${good}/extra`,
      'Bearer bce-v3/ALTAK-x/y',
    ]) {
      expect(parseBceAuthorization(bad)).toBeUndefined();
    }
  });
});

describe('authentication over HTTP', () => {
  const expectError = (r: Res, status: number, code: string) => {
    expect(r.status).toBe(status);
    expect(r.body).toEqual({ requestId: expect.any(String), code, message: expect.any(String) });
    expect(r.headers['x-bce-request-id']).toBe(r.body.requestId);
  };

  test('accepts host;x-bce-date, content-type too, the default set, and the SDK signer; echoes x-bce-request-id', async () => {
    const body = t2v('VQ2', { prompt: 'a cat' });
    expect((await call('POST', '/v2/aigc/text_to_video', [], body)).status).toBe(200);
    expect((await call('POST', '/v2/aigc/text_to_video', [], body, { signedHeaders: ['host', 'content-type', 'x-bce-date'] })).status).toBe(200);
    const dflt = await call('POST', '/v2/aigc/text_to_video', [], body, { signedHeaders: [], headers: { 'x-bce-request-id': 'b0e4a7b4-35a3-4f5e-9a0e-6e7a8c1c2d3e' } });
    expect(dflt.status).toBe(200);
    expect(dflt.headers['x-bce-request-id']).toBe('b0e4a7b4-35a3-4f5e-9a0e-6e7a8c1c2d3e');

    const sdk = new SdkAuth(AK, SK);
    const headers = { host: `127.0.0.1:${port}`, 'x-bce-date': bceTimestamp(Date.now()) };
    const authorization = sdk.generateAuthorization('GET', '/v2/tasks', { maxSize: '5', taskId: 'tsk-none' }, headers, Math.floor(Date.now() / 1000), 1800, ['host']);
    const r = await raw('GET', '/v2/tasks?maxSize=5&taskId=tsk-none', { ...headers, authorization });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ isTruncated: false, marker: '', data: [] });
  });

  test('each failure answers its documented code', async () => {
    const body = t2v('VQ2', { prompt: 'a cat' });
    const post = (o: CallOptions) => call('POST', '/v2/aigc/text_to_video', [], body, o);
    expectError(await post({ auth: 'none' }), 400, 'InvalidHTTPAuthHeader');
    expectError(await post({ auth: 'bce-auth-v1/garbled' }), 400, 'InvalidHTTPAuthHeader');
    expectError(await post({ auth: `Bearer ${SIM_ACCOUNTS.B.apiKey}` }), 400, 'InvalidHTTPAuthHeader'); // v2 takes AK/SK only
    expectError(await post({ ak: 'f'.repeat(32) }), 403, 'InvalidAccessKeyId');
    expectError(await post({ sk: 'wrong-secret' }), 400, 'SignatureDoesNotMatch');
    expectError(await post({ at: Date.now() - 1801_000 }), 400, 'RequestExpired');
    expect((await post({ at: Date.now() - 600_000, expirationSeconds: 3600 })).status).toBe(200);
    expectError(await post({ at: Date.now() + 20 * 60_000 }), 400, 'RequestExpired');
    expect((await post({ at: Date.now() + 5 * 60_000 })).status).toBe(200);
    // A signed header whose value differs from what was signed.
    const ts = bceTimestamp(Date.now());
    const signed = bceSign(
      { method: 'POST', path: '/v2/aigc/text_to_video', headers: { host: `127.0.0.1:${port}`, 'x-bce-date': ts } },
      { accessKeyId: AK, secretAccessKey: SK, timestamp: ts, signedHeaders: ['host', 'x-bce-date'] },
    );
    const payload = JSON.stringify(body);
    expectError(
      await raw('POST', '/v2/aigc/text_to_video', { host: 'vod.bj.baidubce.com', 'x-bce-date': ts, authorization: signed.authorization, 'content-type': 'application/json', 'content-length': String(payload.length) }, payload),
      400,
      'SignatureDoesNotMatch',
    );
    // Host signed without its port while the client sends it with one: the host header as received is what counts.
    const noPort = bceSign(
      { method: 'GET', path: '/v2/tasks', headers: { host: '127.0.0.1', 'x-bce-date': ts } },
      { accessKeyId: AK, secretAccessKey: SK, timestamp: ts, signedHeaders: ['host', 'x-bce-date'] },
    );
    expectError(await raw('GET', '/v2/tasks', { host: `127.0.0.1:${port}`, 'x-bce-date': ts, authorization: noPort.authorization }), 400, 'SignatureDoesNotMatch');
    const s = await sim_.stats();
    expect(s.rejected).toBeGreaterThanOrEqual(8);
    expect(s.jobsCreated).toBe(2);
  });

  test('v3: Bearer API key where the page shows v3, 404 elsewhere', async () => {
    const bearer = { auth: `Bearer ${SIM_ACCOUNTS.B.apiKey}` };
    const created = await call('POST', '/v3/aigc/text_to_video', [], t2v('VE3.1', { prompt: 'a boat' }), bearer);
    expect(created.status).toBe(200);
    expect((await call('GET', `/v3/tasks/${created.body.taskId}`, [], undefined, bearer)).body.taskId).toBe(created.body.taskId);
    expect((await call('POST', '/v3/aigc/image', [], imageBody('NB'), bearer)).status).toBe(200);
    expectError(await call('POST', '/v3/aigc/text_to_video', [], t2v('VQ2', { prompt: 'x' }), { auth: 'Bearer bce-v3/ALTAK-unknown/secret' }), 401, 'InvalidAccessKeyId');
    expectError(await call('POST', '/v3/aigc/text_to_video', [], t2v('VQ2', { prompt: 'x' }), { auth: 'Bearer sk-123' }), 400, 'InvalidHTTPAuthHeader');
    expectError(await call('POST', '/v3/aigc/image_to_video', [], t2v('VE3.1', { prompt: 'x', image: IMG }), bearer), 404, 'NotFound');
    expectError(await call('GET', '/v3/tasks', [], undefined, bearer), 404, 'NotFound');
  });
});

// ------------------------------------------------------------------------------------------------ creates

describe('video creates', () => {
  const outputOf = async (taskId: string) => (await finished(taskId)).videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos[0];

  test.each([
    ['Vidu VQ2 t2v', 'text_to_video', 'VQ2', { prompt: 'a fox', duration: 8, resolution: '1080p', aspectRatio: '9:16', movementAmplitude: 'small' }, 8, 1080, 1920, false],
    ['Vidu V20 i2v', 'image_to_video', 'V20', { prompt: 'it moves', image: IMG, duration: 4, resolution: '720P' }, 4, 1280, 720, false],
    ['Vidu VQ2P head+tail', 'image_to_video', 'VQ2P', { headtailImages: { headImage: IMG, tailImage: IMG }, duration: 3 }, 3, 1280, 720, false],
    ['Veo VE3.1 t2v', 'text_to_video', 'VE3.1', { prompt: 'a boat', durationSeconds: 6, resolution: '1080p', generateAudio: true, n: 1, negativePrompt: 'blur' }, 6, 1920, 1080, true],
    ['Veo VE3.1F i2v first+last', 'image_to_video', 'VE3.1F', { prompt: 'p', image: IMG, lastFrame: IMG, aspectRatio: '9:16', resolution: '4k' }, 8, 2160, 3840, false],
    ['Veo VE3.1FP references', 'image_to_video', 'VE3.1FP', { prompt: 'p', referenceImages: [IMG, IMG], durationSeconds: 4 }, 4, 1280, 720, false],
    ['Kling K26 t2v', 'text_to_video', 'K26', { prompt: 'a dog', duration: 10, mode: 'pro', sound: 'on', aspectRatio: '1:1', cfgScale: 0.5 }, 10, 1080, 1080, true],
    ['Kling K21 i2v', 'image_to_video', 'K21', { prompt: 'walks', image: IMG, imageTail: IMG }, 5, 1280, 720, false],
    ['PixVerse P45 t2v', 'text_to_video', 'P45', { prompt: 'a car', duration: 8, quality: '720p', aspectRatio: '4:3' }, 8, 960, 720, false],
    ['PixVerse P55 i2v', 'image_to_video', 'P55', { image: IMG }, 5, 960, 540, false],
    ['Hailuo H23 t2v', 'text_to_video', 'H23', { prompt: 'rain', duration: 10, resolution: '1080P', promptOptimizer: true }, 10, 1920, 1080, false],
    ['Hailuo H23F i2v', 'image_to_video', 'H23F', { prompt: 'rain', firstFrame: IMG }, 6, 1366, 768, false],
  ])('%s', async (_name, endpoint, model, input, duration, width, height, audio) => {
    const r = await call('POST', `/v2/aigc/${endpoint}`, [], t2v(model, input));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ taskId: expect.stringMatching(/^tsk-[a-z0-9]{16}$/) });
    expect(r.headers['x-bce-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const media = await outputOf(r.body.taskId);
    expect(media.sourceMetadata.durationInSecond).toBe(duration);
    expect(media.sourceMetadata.video).toEqual({ widthInPixel: width, heightInPixel: height });
    expect(media.sourceMetadata.audio !== undefined).toBe(audio);
    const job = await sim_.job(r.body.taskId);
    expect(job.model).toBe(model);
    expect(job.meta.fields.ignored).toEqual([]);
  });

  test('a model not listed for the endpoint is refused', async () => {
    for (const [endpoint, model] of [
      ['image_to_video', 'H20'],
      ['text_to_video', 'V20'],
      ['text_to_video', 'VQ1C'],
      ['text_to_video', 'VQ2T'],
      ['text_to_video', 'VQ2PF'],
      ['text_to_video', 'K21'],
      ['text_to_video', 'KO1'],
      ['text_to_video', 'H23F'],
      ['text_to_video', 'NBP'],
      ['text_to_video', 'VE3.1L'],
    ]) {
      const r = await call('POST', `/v2/aigc/${endpoint}`, [], t2v(model!, { prompt: 'x', image: IMG }));
      expect([model, r.status, r.body.code]).toEqual([model, 400, 'InappropriateJSON']);
    }
    // The matching TaskInput is required; the dot is dropped from the key (VE3.1 → modelVE31TaskInput).
    expect((await call('POST', '/v2/aigc/text_to_video', [], { model: 'VE3.1', 'modelVE3.1TaskInput': { prompt: 'x' } })).body.code).toBe('InappropriateJSON');
    expect((await call('POST', '/v2/aigc/text_to_video', [], { modelVQ2TaskInput: { prompt: 'x' } })).body.code).toBe('InappropriateJSON');
    expect((await call('POST', '/v2/aigc/text_to_video', [], [1, 2])).body.code).toBe('InappropriateJSON');
    expect((await sim_.stats()).jobsCreated).toBe(0);
  });

  test('prompt limits per model and endpoint (the stricter doc version where two disagree)', async () => {
    const cases: Array<[string, string, number]> = [
      ['text_to_video', 'VQ1', 1500],
      ['text_to_video', 'VQ2', 2000],
      ['text_to_video', 'VQ3P', 5000],
      ['text_to_video', 'P35', 2048],
      ['text_to_video', 'K26', 2500],
      ['text_to_video', 'H20', 2000],
      ['text_to_video', 'VE3.1P', 2000],
      ['image_to_video', 'VQ2T', 1500],
      ['image_to_video', 'VQ2', 2000],
      ['image_to_video', 'KO1', 2500],
    ];
    for (const [endpoint, model, max] of cases) {
      const input = (n: number) => ({ prompt: '视'.repeat(n), image: IMG });
      const ok = await call('POST', `/v2/aigc/${endpoint}`, [], t2v(model, input(max)));
      const tooLong = await call('POST', `/v2/aigc/${endpoint}`, [], t2v(model, input(max + 1)));
      expect([model, ok.status, tooLong.status, tooLong.body.code]).toEqual([model, 200, 400, 'InappropriateJSON']);
    }
    expect((await createT2V('VQ2', { prompt: '   ' })).body.code).toBe('InappropriateJSON');
  });

  test('value rules: Veo durations/resolutions/aspect ratios and image modes, Vidu and Kling vendor ranges', async () => {
    const refused = async (endpoint: string, model: string, input: Record<string, unknown>) => {
      const r = await call('POST', `/v2/aigc/${endpoint}`, [], t2v(model, input));
      return r.status === 400 && r.body.code === 'InappropriateJSON';
    };
    expect(await refused('text_to_video', 'VE3.1', { prompt: 'p', durationSeconds: 5 })).toBe(true);
    expect(await refused('text_to_video', 'VE3.1', { prompt: 'p', resolution: '1080P' })).toBe(true);
    expect(await refused('text_to_video', 'VE3.1', { prompt: 'p', aspectRatio: '1:1' })).toBe(true);
    expect(await refused('text_to_video', 'VE3.1', { prompt: 'p', n: 2 })).toBe(true);
    expect(await refused('text_to_video', 'VE3.1', { prompt: 'p', generateAudio: 'yes' })).toBe(true);
    expect(await refused('image_to_video', 'VE3.1', { prompt: 'p', lastFrame: IMG })).toBe(true);
    expect(await refused('image_to_video', 'VE3.1', { prompt: 'p', image: IMG, referenceImages: IMG })).toBe(true);
    expect(await refused('image_to_video', 'VE3.1', { prompt: 'p' })).toBe(true);
    expect(await refused('image_to_video', 'VE3.1', { prompt: 'p', image: { imageUrl: 'ftp://x/y.png' } })).toBe(true);
    expect(await refused('image_to_video', 'VE3.1', { prompt: 'p', image: 'https://img.example.com/a.png' })).toBe(true);
    expect(await refused('image_to_video', 'VQ1', { duration: 4, image: IMG })).toBe(true);
    expect(await refused('text_to_video', 'VQ2', { prompt: 'p', duration: 11 })).toBe(true);
    expect(await refused('text_to_video', 'VQ2', { prompt: 'p', duration: 5.5 })).toBe(true);
    expect(await refused('text_to_video', 'VQ2', { prompt: 'p', movementAmplitude: 'huge' })).toBe(true);
    expect(await refused('image_to_video', 'VQ2', { image: IMG, headtailImages: { headImage: IMG, tailImage: IMG } })).toBe(true);
    expect(await refused('image_to_video', 'VQ2', { headtailImages: { headImage: IMG } })).toBe(true);
    expect(await refused('text_to_video', 'K20', { prompt: 'p', duration: 7 })).toBe(true);
    expect(await refused('text_to_video', 'K20', { prompt: 'p', mode: 'ultra' })).toBe(true);
    expect(await refused('image_to_video', 'K20', { prompt: 'p' })).toBe(true);
    expect(await refused('image_to_video', 'P40', { prompt: 'p', quality: '720p', resolution: '1080p', image: IMG })).toBe(true);
    expect((await sim_.stats()).jobsCreated).toBe(0);
    // GUESS-level value lists are not enforced (the platform might take them).
    expect((await createT2V('H20', { prompt: 'p', duration: 7 })).status).toBe(200);
  });

  test('unknown fields are ignored but recorded, and the output follows recognised fields only', async () => {
    // Veo expects durationSeconds and generateAudio: `duration` and `generate_audio` do nothing.
    const body = { ...t2v('VE3.1', { prompt: 'a boat', duration: 4, generate_audio: true, resolution: '1080p', image: IMG }), callbackUrl: 'http://x', modelVQ2TaskInput: { prompt: 'y' } };
    const r = await call('POST', '/v2/aigc/text_to_video', [], body);
    expect(r.status).toBe(200);
    const job = await sim_.job(r.body.taskId);
    expect(job.meta.fields.recognised).toEqual(['model', 'modelVE31TaskInput', 'modelVE31TaskInput.prompt', 'modelVE31TaskInput.resolution']);
    // Image fields are not part of the text-to-video TaskInput either.
    expect(job.meta.fields.ignored.sort()).toEqual(
      ['callbackUrl', 'modelVQ2TaskInput', 'modelVE31TaskInput.duration', 'modelVE31TaskInput.generate_audio', 'modelVE31TaskInput.image'].sort(),
    );
    expect(job.meta.output).toMatchObject({ durationInSecond: 8, widthInPixel: 1920, heightInPixel: 1080, audio: false });
    const media = (await finished(r.body.taskId)).videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos[0];
    expect(media.sourceMetadata).toEqual({ durationInSecond: 8, video: { widthInPixel: 1920, heightInPixel: 1080 } });

    // Nested unknown keys are ignored too; Kling's sound is only K2.6's.
    const k = await createI2V('K20', { prompt: 'p', image: { ...IMG, detail: 'high' }, sound: 'on' });
    const kj = await sim_.job(k.body.taskId);
    expect(kj.meta.fields.ignored.sort()).toEqual(['modelK20TaskInput.image.detail', 'modelK20TaskInput.sound']);
    expect(kj.meta.output.audio).toBe(false);
  });
});

describe('image creates', () => {
  test('NBP with reference images, 2K; I4YG1 with n=4; the outputs follow', async () => {
    const a = await call('POST', '/v2/aigc/image', [], imageBody('NBP', { n: 1, size: '16:9', quality: '2K', response_modalities: ['TEXT', 'IMAGE'], tools: [{ type: 'google_search' }] }, 14));
    expect(a.status).toBe(200);
    const da = await finished(a.body.taskId);
    const infos = da.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos;
    expect(infos).toHaveLength(1);
    expect(infos[0]).toMatchObject({ mediaType: 'image', source: { sourceType: 'GENERATE', sourceUrl: expect.stringMatching(/\.png$/) }, sourceMetadata: { image: { widthInPixel: 2728, heightInPixel: 1536 } } });
    expect(da.videoGenerateTaskInfo.videoGenerateTaskInput).toEqual({ type: '图生图', imageGenerateRequest: JSON.parse(JSON.stringify(imageBody('NBP', { n: 1, size: '16:9', quality: '2K', response_modalities: ['TEXT', 'IMAGE'], tools: [{ type: 'google_search' }] }, 14))) });

    const b = await call('POST', '/v2/aigc/image', [], imageBody('I4YG1', { n: 4, aspect_ratio: '16:9' }));
    const db = await finished(b.body.taskId);
    const urls = db.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos.map((m: any) => m.source.sourceUrl);
    expect(urls).toHaveLength(4);
    expect(new Set(db.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos.map((m: any) => m.mediaId)).size).toBe(4);
    // aspect_ratio is not B's name (size is): ignored, the image is the default 1:1.
    expect(db.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos[0].sourceMetadata.image).toEqual({ widthInPixel: 1024, heightInPixel: 1024 });
    expect((await sim_.job(b.body.taskId)).meta.fields.ignored).toEqual(['aspect_ratio']);
    expect(db.videoGenerateTaskInfo.videoGenerateTaskInput.type).toBe('文生图');
    // The files are served.
    const file = await fetch(urls[3]);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
  });

  test('n, quality, reference-image, tools and message rules', async () => {
    const refused = async (body: unknown) => {
      const r = await call('POST', '/v2/aigc/image', [], body);
      return r.status === 400 && r.body.code === 'InappropriateJSON';
    };
    expect(await refused(imageBody('NB', { n: 2 }))).toBe(true);
    expect(await refused(imageBody('NBP', { n: 2 }))).toBe(true);
    expect(await refused(imageBody('I4YG1', { n: 5 }))).toBe(true);
    expect(await refused(imageBody('I4YG1', { n: 0 }))).toBe(true);
    expect(await refused(imageBody('I4FG1', { quality: '2K' }))).toBe(true);
    expect(await refused(imageBody('NB', { quality: '4K' }))).toBe(true);
    expect(await refused(imageBody('NBP', { quality: '8K' }))).toBe(true);
    expect(await refused(imageBody('NB', {}, 4))).toBe(true);
    expect(await refused(imageBody('NBP', {}, 15))).toBe(true);
    expect(await refused(imageBody('I4FG1', {}, 1))).toBe(true);
    expect(await refused(imageBody('I4G1', {}, 1))).toBe(true);
    expect(await refused(imageBody('NB', { tools: [{ type: 'google_search' }] }))).toBe(true);
    expect(await refused(imageBody('NBP', { response_modalities: ['TEXT'] }))).toBe(true);
    expect(await refused(imageBody('NBP', { size: '7:5' }))).toBe(true);
    expect(await refused(imageBody('VQ2'))).toBe(true);
    expect(await refused({ ...imageBody('NB'), messages: [imageBody('NB').messages[0], imageBody('NB').messages[0]] })).toBe(true);
    expect(await refused({ model: 'NB', messages: [{ role: 'user', content: [{ type: 'image_url', image_item: { image_url: 'https://x/y.png' } }] }] })).toBe(true);
    expect(await refused({ model: 'NB', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'image_url', image_item: { image_url: 'file:///etc/passwd' } }] }] })).toBe(true);
    expect(await refused({ model: 'NB', messages: [{ role: 'user', content: [{ type: 'video_url', video_item: {} }] }] })).toBe(true);
    expect((await sim_.stats()).jobsCreated).toBe(0);
    for (const body of [imageBody('NB', {}, 3), imageBody('NB2', { size: '21:9' }, 3), imageBody('NBP', { quality: '4K' }), imageBody('I4G1', { n: 3 }), imageBody('I4FG1', { n: 1, quality: '1K' })]) {
      expect((await call('POST', '/v2/aigc/image', [], body)).status).toBe(200);
    }
  });
});

// ------------------------------------------------------------------------------------------------ tasks

describe('task detail', () => {
  test('PENDING → RUNNING → SUCCESS, inner lower-case mirror, request echoed, no progress', async () => {
    const body = t2v('VQ2', { prompt: 'a cat [sim:duration=1200]', duration: 2, extra: 1 });
    const { taskId } = (await call('POST', '/v2/aigc/text_to_video', [], body)).body;
    const pending = (await getTask(taskId)).body;
    expect(pending).toEqual({
      taskId,
      type: 'VIDEO_GENERATE',
      status: 'PENDING',
      createTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      videoGenerateTaskInfo: { status: 'pending', unitPrice: 0, videoGenerateTaskInput: { type: '文生视频', textToVideoRequest: body } },
    });
    const running = await waitFor(async () => ((await getTask(taskId)).body.status === 'RUNNING' ? (await getTask(taskId)).body : undefined));
    expect(running.videoGenerateTaskInfo.status).toBe('running');
    expect(running.finishTime).toBeUndefined();
    expect(running.videoGenerateTaskInfo.videoGenerateTaskOutput).toBeUndefined();
    const done = await finished(taskId);
    expect(done.status).toBe('SUCCESS');
    expect(done.videoGenerateTaskInfo.status).toBe('success');
    expect(done.finishTime).toMatch(/Z$/);
    expect(done.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos).toEqual([
      {
        mediaId: expect.stringMatching(/^mda-[a-z0-9]{16}$/),
        name: `文生视频_${taskId}`,
        description: '',
        mediaType: 'video',
        banStatus: 'NORMAL',
        createTime: done.finishTime,
        categoryId: 'system',
        tags: [],
        source: { sourceType: 'GENERATE', sourceUrl: `${sim.url}/files/${taskId}-0.mp4` },
        sourceMetadata: { durationInSecond: 2, video: { widthInPixel: 1280, heightInPixel: 720 } },
      },
    ]);
    expect(JSON.stringify(done)).not.toMatch(/progress/i);
    expect((await fetch(done.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos[0].source.sourceUrl)).headers.get('content-type')).toBe('video/mp4');
  });

  test('failures: content policy, error, transient — FAILED with errMsg, no output', async () => {
    const msgs: string[] = [];
    for (const kind of ['content_policy', 'error', 'transient']) {
      const { taskId } = (await createI2V('VE3.1', { prompt: `p [sim:fail=${kind}]`, image: IMG })).body;
      const d = await finished(taskId);
      expect(d.status).toBe('FAILED');
      expect(d.videoGenerateTaskInfo.status).toBe('failed');
      expect(d.videoGenerateTaskInfo.videoGenerateTaskOutput).toBeUndefined();
      expect(d.videoGenerateTaskInfo.videoGenerateTaskInput.type).toBe('图生视频');
      expect(d.videoGenerateTaskInfo.videoGenerateTaskInput.imageToVideoRequest.modelVE31TaskInput.image).toEqual(IMG);
      msgs.push(d.videoGenerateTaskInfo.errMsg);
    }
    expect(msgs[0]).toMatch(/moderation/i);
    expect(msgs[2]).toBe('Internal error. Please try again later.');
    expect(new Set(msgs).size).toBe(3);
  });

  test('inner-status-first quirk: off by default, on by control switch or directive', async () => {
    // Duration 4000: the inner status leads from 3000 on; all three are read at about 3400.
    const plain = (await createT2V('VE3.1', { prompt: 'p [sim:duration=4000]' })).body.taskId;
    const directive = (await createT2V('VE3.1', { prompt: 'p [sim:duration=4000][sim:b-inner-first]' })).body.taskId;
    const switched = (await createT2V('VE3.1', { prompt: 'q [sim:duration=4000]' })).body.taskId;
    await new Promise((r) => setTimeout(r, 3400));
    const a = (await getTask(plain)).body;
    const b = (await getTask(directive)).body;
    expect(await (await sim_.post('/_sim/b/quirks', { innerStatusLeads: true })).json()).toEqual({ innerStatusLeads: true });
    const c = (await getTask(switched)).body;
    expect([a.status, a.videoGenerateTaskInfo.status, a.videoGenerateTaskInfo.videoGenerateTaskOutput]).toEqual(['RUNNING', 'running', undefined]);
    for (const d of [b, c]) {
      expect([d.status, d.videoGenerateTaskInfo.status, d.finishTime]).toEqual(['RUNNING', 'succeeded', undefined]);
      expect(d.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos[0].source.sourceUrl).toMatch(/\.mp4$/);
    }
    await sim_.post('/_sim/reset', {});
    expect(await getJson('/_sim/b/quirks')).toEqual({ innerStatusLeads: false });
  });

  test('unknown task, another platform\'s id, and tasks past the 7-day window are 404 TaskNotFound', async () => {
    const r = await getTask('tsk-0000000000000000');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ requestId: expect.any(String), code: 'TaskNotFound', message: expect.stringContaining('tsk-0000000000000000') });

    const dir = mkdtempSync(join(tmpdir(), 'sim-b-'));
    const file = join(dir, 'jobs.json');
    const now = Date.now();
    const job = (id: string, ageMs: number) => ({
      id,
      platform: 'B',
      kind: 'video',
      model: 'VQ2',
      createdAt: now - ageMs,
      durationMs: 1000,
      directives: {},
      outputs: 1,
      pollFaultsLeft: 0,
      meta: {
        endpoint: 'text_to_video',
        apiVersion: 'v2',
        inputType: '文生视频',
        requestKey: 'textToVideoRequest',
        request: t2v('VQ2', { prompt: 'old' }),
        fields: { recognised: [], ignored: [] },
        output: { mediaType: 'video', durationInSecond: 5, resolution: '720p', aspectRatio: '16:9', widthInPixel: 1280, heightInPixel: 720, audio: false },
        baseUrl: 'http://127.0.0.1:1',
      },
    });
    const otherPlatform = { ...job('tsk-tplat0tplat0tpl', 60_000), platform: 'T' };
    writeFileSync(file, JSON.stringify({ version: 1, jobs: [job('tsk-old0old0old0old0', 7.5 * 24 * 3600_000), job('tsk-six0six0six0six0', 6 * 24 * 3600_000), otherPlatform] }));
    const other = await startSimulator({ port: 0, dataFile: file });
    const saved = port;
    try {
      port = Number(new URL(other.url).port);
      expect((await getTask('tsk-old0old0old0old0')).status).toBe(404);
      expect((await getTask('tsk-tplat0tplat0tpl')).status).toBe(404);
      expect((await getTask('tsk-six0six0six0six0')).body.status).toBe('SUCCESS');
      expect((await call('GET', '/v2/tasks')).body.data.map((d: any) => d.taskId)).toEqual(['tsk-six0six0six0six0']);
    } finally {
      port = saved;
      await other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('task list', () => {
  test('filters, paging with markers, newest first, limits', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const prompt = i === 1 ? 'x [sim:fail=error][sim:duration=100]' : `x ${i} [sim:duration=100]`;
      ids.push((await createT2V('VQ2', { prompt })).body.taskId);
      await new Promise((r) => setTimeout(r, 1100)); // distinct creation seconds
    }
    await Promise.all(ids.map(finished));
    const newestFirst = [...ids].reverse();

    const seen: string[] = [];
    let marker: string | undefined;
    const markers: Array<string | undefined> = [];
    for (;;) {
      const q: Array<[string, string]> = [['maxSize', '2']];
      if (marker) q.push(['marker', marker]);
      const page = (await call('GET', '/v2/tasks', q)).body;
      expect(page.marker).toBe(marker ?? '');
      seen.push(...page.data.map((d: any) => d.taskId));
      markers.push(marker);
      if (!page.isTruncated) {
        expect(page.nextMarker).toBeUndefined();
        break;
      }
      marker = page.nextMarker;
    }
    expect(seen).toEqual(newestFirst);
    expect(markers).toHaveLength(3);

    const all = (await call('GET', '/v2/tasks')).body;
    expect(all.data[0]).toEqual({ taskId: ids[4], type: 'VIDEO_GENERATE', status: 'SUCCESS', createTime: expect.any(String), finishTime: expect.any(String) });
    expect((await call('GET', '/v2/tasks', [['status', 'FAILED']])).body.data.map((d: any) => d.taskId)).toEqual([ids[1]]);
    expect((await call('GET', '/v2/tasks', [['taskId', ids[2]!]])).body.data).toHaveLength(1);
    expect((await call('GET', '/v2/tasks', [['type', 'VIDEO_GENERATE']])).body.data).toHaveLength(5);
    expect((await call('GET', '/v2/tasks', [['type', 'WORKFLOW']])).body.data).toHaveLength(0);
    const created = all.data.map((d: any) => d.createTime);
    const window = (await call('GET', '/v2/tasks', [['beginTime', created[3]], ['endTime', created[1]]])).body.data.map((d: any) => d.taskId);
    expect(window).toEqual([ids[3], ids[2], ids[1]]);
    const detail = await finished(ids[0]!);
    const mediaId = detail.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos[0].mediaId;
    expect((await call('GET', '/v2/tasks', [['mediaId', mediaId]])).body.data.map((d: any) => d.taskId)).toEqual([ids[0]]);

    for (const q of [[['maxSize', '0']], [['maxSize', '101']], [['beginTime', 'yesterday']], [['marker', 'tsk-nope']]] as Array<Array<[string, string]>>) {
      const r = await call('GET', '/v2/tasks', q);
      expect([r.status, r.body.code]).toEqual([400, 'InvalidParameter']);
    }
    expect((await call('GET', '/v2/tasks', [['maxSize', '100']])).body.data).toHaveLength(5);
    expect((await sim_.stats()).lists).toBeGreaterThan(5);
  }, 30_000);
});

// ------------------------------------------------------------------------------------------------ duplicates, lost answers, faults

describe('no idempotency, lost answers, faults', () => {
  test('two identical creates are two billed tasks', async () => {
    const body = t2v('K26', { prompt: 'same' });
    const a = await call('POST', '/v2/aigc/text_to_video', [], body, { headers: { 'x-bce-request-id': '11111111-1111-4111-8111-111111111111' } });
    const b = await call('POST', '/v2/aigc/text_to_video', [], body, { headers: { 'x-bce-request-id': '11111111-1111-4111-8111-111111111111' } });
    expect(a.body.taskId).not.toBe(b.body.taskId);
    const s = await sim_.stats();
    expect([s.submitRequests, s.jobsCreated, s.dedupRefusals]).toEqual([2, 2, 0]);
  });

  test('drop: the task is created and billed, the answer is lost, and the list + detail echo find it again', async () => {
    const before = bceTimestamp(Date.now() - 1000);
    const body = t2v('VE3.1', { prompt: 'lost answer [sim:submit=drop]', durationSeconds: 4 });
    await expect(call('POST', '/v2/aigc/text_to_video', [], body)).rejects.toThrow();
    const s = await sim_.stats();
    expect([s.jobsCreated, s.answersDropped]).toEqual([1, 1]);
    // Reconcile: list the window, then read each candidate's echoed request.
    const list = (await call('GET', '/v2/tasks', [['beginTime', before], ['type', 'VIDEO_GENERATE']])).body.data;
    expect(list).toHaveLength(1);
    const detail = (await getTask(list[0].taskId)).body;
    expect(detail.videoGenerateTaskInfo.videoGenerateTaskInput.textToVideoRequest).toEqual(body);
    // The directive faults the first create only: a retry goes through (and is a second task).
    expect((await call('POST', '/v2/aigc/text_to_video', [], body)).status).toBe(200);
    expect((await sim_.stats()).jobsCreated).toBe(2);
  });

  test('injected 500/503/429 in B\'s error shape; 429 on VE3.1 is its documented 500 throttling answer', async () => {
    const fault = (status: number | string, op = 'submit') => sim_.post('/_sim/faults', { platform: 'B', op, status, count: 1 });
    await fault(500);
    let r = await createT2V('VQ2', { prompt: 'p' });
    expect([r.status, r.body.code, r.body.message]).toEqual([500, 'InternalError', 'We encountered an internal error. Please try again.']);
    expect(r.headers['x-bce-request-id']).toBe(r.body.requestId);
    await fault(503);
    r = await createT2V('VQ2', { prompt: 'p' });
    expect([r.status, r.body.code]).toEqual([503, 'ServiceUnavailable']);
    await fault(429);
    r = await createT2V('VE3.1F', { prompt: 'p' });
    expect([r.status, r.body.code, r.body.message]).toEqual([500, 'InternalError', 'Internal error. Please try again later.']);
    await fault(429);
    r = await createT2V('VQ2', { prompt: 'p' });
    expect([r.status, r.body.code]).toEqual([429, 'TooManyRequests']);
    expect((await sim_.stats()).jobsCreated).toBe(0);
    // Poll faults by directive.
    const { taskId } = (await createT2V('VQ2', { prompt: 'p [sim:poll=500x2]' })).body;
    expect((await getTask(taskId)).status).toBe(500);
    expect((await getTask(taskId)).status).toBe(500);
    expect((await getTask(taskId)).status).toBe(200);
  });

  test('no cancel endpoint: cancel-like URIs are unknown URIs (404 NotFound), recorded as cancel attempts', async () => {
    const { taskId } = (await createT2V('VQ2', { prompt: 'p [sim:never]' })).body;
    for (const [method, path] of [
      ['POST', `/v2/tasks/${taskId}/cancel`],
      ['DELETE', `/v2/tasks/${taskId}`],
      ['POST', `/v2/aigc/task/${taskId}/stop`],
    ]) {
      const r = await call(method!, path!, [], method === 'POST' ? {} : undefined);
      expect([r.status, r.body.code]).toEqual([404, 'NotFound']);
    }
    expect((await sim_.stats()).cancels).toBe(3);
    expect((await getTask(taskId)).body.status).not.toBe('CANCELLED');
    expect((await call('GET', '/v2/nothing/here')).status).toBe(404);
  });

  test('non-JSON bodies: MalformedJSON (after authentication); JSON under another content type is taken', async () => {
    let r = await call('POST', '/v2/aigc/text_to_video', [], undefined, { rawBody: '{"model": "VQ2",' });
    expect([r.status, r.body.code]).toEqual([400, 'MalformedJSON']);
    expect(r.headers['x-bce-request-id']).toBe(r.body.requestId);
    r = await call('POST', '/v2/aigc/text_to_video', [], undefined, { rawBody: '{"model": "VQ2",', auth: 'none' });
    expect([r.status, r.body.code]).toEqual([400, 'InvalidHTTPAuthHeader']);
    r = await call('POST', '/v2/aigc/image', [], undefined, { rawBody: 'model=NB', contentType: 'text/plain' });
    expect([r.status, r.body.code]).toEqual([400, 'MalformedJSON']);
    r = await call('POST', '/v2/aigc/image', [], undefined, { rawBody: JSON.stringify(imageBody('NB')), contentType: 'text/plain' });
    expect(r.status).toBe(200);
    const s = await sim_.stats();
    expect([s.submitRequests, s.jobsCreated]).toEqual([4, 1]);
  });

  test('recorded requests show what B received and answered', async () => {
    await createT2V('VQ2', { prompt: 'rec' });
    const recs: any[] = await getJson('/_sim/requests?platform=B&op=submit');
    expect(recs).toHaveLength(1);
    expect(recs[0]).toMatchObject({ path: '/v2/aigc/text_to_video', status: 200, response: { taskId: expect.any(String) } });
    expect(recs[0].headers.authorization).toMatch(/^bce-auth-v1\/simbaccesskeyid0+a\/\S+\/1800\/host;x-bce-date\/[0-9a-f]{64}$/);
  });
});

// ------------------------------------------------------------------------------------------------ callbacks

describe('callbacks', () => {
  let rx: Receiver;
  let receiverUrl: string;
  let got: Received[];

  beforeAll(async () => {
    rx = await startReceiver('/vod/callback');
    receiverUrl = rx.url;
    got = rx.got;
  });
  afterAll(() => rx.close());
  beforeEach(() => {
    rx.got.length = 0;
    rx.answers.length = 0;
  });

  const SIGN_KEY = 'my_random_token';
  const configure = (extra: Record<string, unknown> = {}) =>
    call('PUT', '/v2/callback', [], { callbackUrl: receiverUrl, enableSign: true, signKey: SIGN_KEY, enableVideoGenerateCompleteEvent: true, ...extra });
  /** The receiver's check, written from §7.3 (not from the simulator's code). */
  const verifies = (h: IncomingHttpHeaders, body: string) => {
    const content = `POST;${receiverUrl};${body};${h['vod-callback-auth-timestamp']};${h['vod-callback-auth-user']}`;
    return createHmac('sha256', SIGN_KEY).update(content).digest('hex') === h['vod-callback-auth-token'];
  };

  test('configuration: partial PUT, GET, validation', async () => {
    let r = await call('PUT', '/v2/callback', [], { callbackUrl: receiverUrl });
    expect([r.status, r.text]).toEqual([200, '']);
    r = await call('PUT', '/v2/callback', [], { enableSign: true, signKey: 'k', enableVideoGenerateCompleteEvent: true, unknownSwitch: true });
    expect(r.status).toBe(200);
    r = await call('GET', '/v2/callback');
    expect(r.body).toMatchObject({ callbackUrl: receiverUrl, enableSign: true, signKey: 'k', enableVideoGenerateCompleteEvent: true, enableMediaTranscodeCompleteEvent: false });
    expect(r.body.unknownSwitch).toBeUndefined();
    for (const bad of [{ callbackUrl: 'not a url' }, { enableSign: 'yes' }, { enableSign: true, signKey: '' }]) {
      expect((await call('PUT', '/v2/callback', [], bad)).body.code).toBe('InappropriateJSON');
    }
    await sim_.post('/_sim/reset', {});
    expect((await call('GET', '/v2/callback')).body.callbackUrl).toBe('');
  });

  test('VIDEO_GENERATE_COMPLETE on success and failure, signed per §7.3; images too', async () => {
    await configure();
    const ok = (await createI2V('VQ2', { prompt: 'ok', image: IMG })).body.taskId;
    const bad = (await createT2V('H23', { prompt: 'bad [sim:fail=content_policy]' })).body.taskId;
    const img = (await call('POST', '/v2/aigc/image', [], imageBody('I4YG1', { n: 2 }))).body.taskId;
    await waitFor(async () => got.length >= 3);
    const byTask = new Map(got.map((g) => [g.body.videoGenerateCompleteEvent.taskId, g]));
    for (const g of got) {
      expect(g.headers['user-agent']).toBe('AHC/2.0');
      expect(g.headers['vod-callback-auth-user']).toBe(SIM_ACCOUNTS.B.userId);
      expect(g.headers['vod-callback-auth-timestamp']).toMatch(/^\d{13}$/);
      expect(verifies(g.headers, g.raw)).toBe(true);
    }
    const okEvent = byTask.get(ok)!.body;
    expect(okEvent).toEqual({
      eventId: expect.stringMatching(/^evt-[a-z0-9]{16}$/),
      eventType: 'VIDEO_GENERATE_COMPLETE',
      eventTime: expect.any(String),
      videoGenerateCompleteEvent: {
        taskId: ok,
        status: 'SUCCESS',
        createTime: expect.any(String),
        finishTime: okEvent.eventTime,
        videoGenerateTaskInfo: expect.objectContaining({ status: 'success', videoGenerateTaskInput: { type: '图生视频', imageToVideoRequest: t2v('VQ2', { prompt: 'ok', image: IMG }) } }),
      },
    });
    expect(okEvent.videoGenerateCompleteEvent.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos[0].source.sourceUrl).toBe(`${sim.url}/files/${ok}-0.mp4`);
    const badEvent = byTask.get(bad)!.body.videoGenerateCompleteEvent;
    expect([badEvent.status, badEvent.videoGenerateTaskInfo.status, badEvent.videoGenerateTaskInfo.errMsg]).toEqual(['FAILED', 'failed', expect.stringMatching(/moderation/i)]);
    expect(byTask.get(img)!.body.videoGenerateCompleteEvent.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos).toHaveLength(2);
  });

  test('no event without the switch; no signature headers without enableSign', async () => {
    await call('PUT', '/v2/callback', [], { callbackUrl: receiverUrl });
    await finished((await createT2V('VQ2', { prompt: 'quiet' })).body.taskId);
    await new Promise((r) => setTimeout(r, 300));
    expect(got).toHaveLength(0);
    await call('PUT', '/v2/callback', [], { enableVideoGenerateCompleteEvent: true });
    await createT2V('VQ2', { prompt: 'loud' });
    await waitFor(async () => got.length === 1);
    expect(got[0]!.headers['vod-callback-auth-token']).toBeUndefined();
  });

  test('a non-200 answer is retried', async () => {
    await configure();
    rx.answers.push(500, 503);
    await createT2V('VQ2', { prompt: 'retry me' });
    await waitFor(async () => got.length >= 3, 8_000);
    const deliveries = await waitFor(async () => {
      const d = await sim_.callbacks();
      return d[0]?.attempts.length === 3 ? d : undefined;
    });
    expect(deliveries[0].attempts).toEqual([500, 503, 200]);
    expect(new Set(got.map((g) => g.raw)).size).toBe(1);
  });

  test('callback faults: drop, duplicate, late, bad-signature', async () => {
    await configure();
    const run = async (fault: string, extra: Record<string, unknown> = {}) => {
      got.length = 0;
      await sim_.post('/_sim/callback-faults', { platform: 'B', fault, ...extra });
      const started = Date.now();
      const taskId = (await createT2V('VQ2', { prompt: `fault ${fault}` })).body.taskId;
      await finished(taskId);
      return { taskId, started };
    };

    const dropped = await run('drop');
    await new Promise((r) => setTimeout(r, 400));
    expect(got).toHaveLength(0);
    expect((await sim_.callbacks()).find((d) => d.jobId === dropped.taskId)).toMatchObject({ fault: 'drop', attempts: [] });

    await run('duplicate');
    await waitFor(async () => got.length === 2);
    expect(got[0]!.raw).toBe(got[1]!.raw);
    expect(verifies(got[1]!.headers, got[1]!.raw)).toBe(true);

    const late = await run('late', { delayMs: 800 });
    await waitFor(async () => got.length === 1, 4_000);
    expect(got[0]!.at - late.started).toBeGreaterThanOrEqual(800);

    await run('bad-signature');
    await waitFor(async () => got.length === 1);
    expect(got[0]!.headers['vod-callback-auth-token']).toMatch(/^[0-9a-f]{64}$/);
    expect(verifies(got[0]!.headers, got[0]!.raw)).toBe(false);
  });
});
