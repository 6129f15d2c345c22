/**
 * Bad input and rough edges found by trying the API as an attacker and as a new user would: each a
 * clean 4xx naming what failed, nothing started upstream. The real Koa app over real HTTP; the task service is
 * a scripted stand-in that records what the API asked of it (Temporal is not under test here; the e2e project
 * runs the same routes against a real stack).
 */
import { gzipSync } from 'node:zlib';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { requestFingerprint } from '../../../tasks/idempotency';
import { buildOpenApiDocument } from '../../../api/openapi';
import { buildCatalogue } from '../../../platforms';
import type { TaskRecord } from '../../../tasks/record';
import type { GenerationRequest } from '../../../core/task';
import { AUTH, rawRequest, useTestApi } from '../../support/test-api';

/** What the API asked the task service to do. */
const started: GenerationRequest[] = [];
const listed: unknown[] = [];
let replay: TaskRecord | undefined;
const app = useTestApi({
  deps: { bodyTimeoutMs: 400 },
  tasks: {
    async start(_owner: string, entry: { id: string }, request: GenerationRequest, opts: { taskId?: string }) {
      if (replay) throw new WorkflowExecutionAlreadyStartedError('exists', opts.taskId ?? 'x', 'generationWorkflow');
      started.push(request);
      return { taskId: opts.taskId ?? 'task_new', model: entry.id };
    },
    async readWithFingerprint() {
      // The same request as the test sends: a faithful retry, not a reused key.
      return replay && { record: replay, requestHash: requestFingerprint('video', V_BODY) };
    },
    async list(_owner: string, page: number, pageSize: number, filter: unknown) {
      listed.push({ page, pageSize, filter });
      return { total: 0, records: [] };
    },
  },
});

beforeEach(() => {
  started.length = 0;
  listed.length = 0;
  replay = undefined;
});

/** A raw HTTP request to the app (test/support/test-api.ts rawRequest). */
const raw = (
  method: string,
  path: string,
  headers: Record<string, string | number>,
  body?: Buffer | string,
  opts: { endBody?: boolean } = {},
) => rawRequest(app.api.base, method, path, headers, body, opts);

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${app.api.base}${path}`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  }).then(async (r) => ({
    status: r.status,
    headers: r.headers,
    body: (await r.json()) as any,
  }));

const V_BODY = { model: 'vendor-video-1-0-pro-250528', prompt: 'a fox', duration: 5 };

describe('methods and routes', () => {
  test.each(['TRACE', 'PROPFIND', 'PURGE', 'LOCK', 'COPY', 'QUERY', 'DELETE', 'PUT'])(
    '%s on a /v1 path is 405 with Allow, in the envelope',
    async (method) => {
      const r = await raw(method, '/v1/models', AUTH);
      expect(r.status).toBe(405);
      expect(r.headers.allow).toMatch(/GET/);
      expect(r.body.error).toMatchObject({ code: 'method_not_allowed', type: 'invalid_request_error' });
    },
  );

  test('without a key too: the method is refused before anything else', async () => {
    const r = await raw('PROPFIND', '/v1/generations/task_x/cancel', {});
    expect([r.status, r.headers.allow]).toEqual([405, 'POST']);
  });

  test('an unknown path is 404 route_not_found; OPTIONS lists the methods', async () => {
    expect((await raw('GET', '/v1/nope', AUTH)).body.error.code).toBe('route_not_found');
    const o = await raw('OPTIONS', '/v1/tasks', {});
    expect([o.status, o.headers.allow]).toEqual([204, 'HEAD, GET']);
  });
});

describe('bodies', () => {
  test('a corrupt gzip or deflate body is 400 saying it could not be decompressed', async () => {
    for (const encoding of ['gzip', 'deflate']) {
      const r = await raw(
        'POST',
        '/v1/async/videos/generations',
        { ...AUTH, 'Content-Type': 'application/json', 'Content-Encoding': encoding },
        Buffer.from('not compressed at all'),
      );
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({
        code: 'invalid_encoding',
        message: expect.stringContaining(`could not be decompressed (${encoding})`),
      });
    }
    expect(started).toHaveLength(0);
  });

  test('an unknown Content-Encoding is 415 naming it; a gzip body is read', async () => {
    const bad = await raw(
      'POST',
      '/v1/async/videos/generations',
      { ...AUTH, 'Content-Type': 'application/json', 'Content-Encoding': 'zstd-x' },
      '{}',
    );
    expect(bad.status).toBe(415);
    expect(bad.body.error).toMatchObject({ param: 'Content-Encoding', message: expect.stringContaining("'zstd-x'") });
    const ok = await raw(
      'POST',
      '/v1/async/videos/generations',
      { ...AUTH, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      gzipSync(JSON.stringify(V_BODY)),
    );
    expect(ok.status).toBe(200);
    expect(started).toHaveLength(1);
  });

  test('an empty POST needs no Content-Type (cancel from fetch or requests.post)', async () => {
    const r = await raw('POST', '/v1/generations/task_abc/cancel', { ...AUTH, 'Content-Length': 0 });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('task_not_found');
    const viaFetch = await fetch(`${app.api.base}/v1/generations/task_abc/cancel`, { method: 'POST', headers: AUTH });
    expect(viaFetch.status).toBe(404);
  });

  test('a non-empty body that is not JSON is 415', async () => {
    const r = await raw('POST', '/v1/async/videos/generations', { ...AUTH, 'Content-Type': 'text/plain' }, 'hello');
    expect([r.status, r.body.error.code]).toEqual([415, 'unsupported_media_type']);
  });

  test('invalid UTF-8 is 400 invalid_json, not replaced and forwarded', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"model":"vendor-video-1-0-pro-250528","duration":5,"prompt":"a '),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const r = await raw('POST', '/v1/async/videos/generations', { ...AUTH, 'Content-Type': 'application/json' }, bytes);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_json', message: expect.stringMatching(/UTF-8/) });
    expect(started).toHaveLength(0);
  });

  test('__proto__ and constructor keys are refused naming the key', async () => {
    const r1 = await raw(
      'POST',
      '/v1/async/videos/generations',
      { ...AUTH, 'Content-Type': 'application/json' },
      '{"model":"x","__proto__":{"admin":true}}',
    );
    expect(r1.body.error).toMatchObject({ code: 'invalid_json', param: '__proto__' });
    const r2 = await post('/v1/async/videos/generations', {
      ...V_BODY,
      images: [{ url: 'https://a.test/x.png', constructor: { prototype: 1 } }],
    });
    expect(r2.body.error).toMatchObject({ param: 'images.0.constructor' });
  });

  test('malformed JSON says why', async () => {
    const r = await raw('POST', '/v1/async/videos/generations', { ...AUTH, 'Content-Type': 'application/json' }, '{"model":');
    expect(r.body.error).toMatchObject({ code: 'invalid_json', message: expect.stringMatching(/not valid JSON: /) });
  });
});

describe('authentication before the body', () => {
  test('an anonymous client is refused at once, however large and slow its body', async () => {
    const r = await raw(
      'POST',
      '/v1/async/videos/generations',
      { 'Content-Type': 'application/json', 'Content-Length': 1_000_000 },
      'x'.repeat(10),
      { endBody: false },
    );
    expect(r.status).toBe(401);
    expect(r.ms).toBeLessThan(2_000); // and 401, not the 408 its unfinished body would earn after bodyTimeoutMs
  });

  test('a declared Content-Length over the limit is 413 at once, even 2^31 and more', async () => {
    for (const length of [1024 * 1024 + 1, 2 ** 31, 2 ** 40]) {
      const r = await raw(
        'POST',
        '/v1/async/videos/generations',
        { ...AUTH, 'Content-Type': 'application/json', 'Content-Length': length },
        '{',
        { endBody: false },
      );
      expect([r.status, r.body.error.code]).toEqual([413, 'body_too_large']);
    }
  });

  test('a body larger than the limit after decompression is 413', async () => {
    const bomb = gzipSync(Buffer.alloc(3 * 1024 * 1024, 32));
    const r = await raw(
      'POST',
      '/v1/async/videos/generations',
      { ...AUTH, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      bomb,
    );
    expect(r.status).toBe(413);
  });

  test('a body that does not arrive in time is 408', async () => {
    const r = await raw(
      'POST',
      '/v1/async/videos/generations',
      { ...AUTH, 'Content-Type': 'application/json', 'Content-Length': 100 },
      '{"model":',
      { endBody: false },
    );
    expect([r.status, r.body.error.code]).toEqual([408, 'body_timeout']);
  });
});

describe('validation', () => {
  test('URLs are validated and forwarded in the same canonical form', async () => {
    const r = await post('/v1/async/videos/generations', {
      model: 'vendor-video-1-0-pro-250528',
      duration: 5,
      image_url: 'HTTP://Images.TEST/a/../b.png',
    });
    expect(r.status).toBe(200);
    expect(started[0]!.image_url).toBe('http://images.test/b.png');
  });

  test.each([
    ['CR/LF inside', 'https://a.test/x.png\r\nX-Injected: 1'],
    ['a tab around', '\thttps://a.test/x.png'],
    ['a space around', 'https://a.test/x.png '],
    ['not http', 'ftp://a.test/x.png'],
  ])('a URL with %s is 400 naming the field, nothing started', async (_what, url) => {
    const r = await post('/v1/async/videos/generations', { ...V_BODY, image_url: url });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('image_url');
    expect(started).toHaveLength(0);
  });

  test('a whitespace-only prompt is 400 naming prompt; nothing started', async () => {
    for (const [path, body] of [
      ['/v1/async/videos/generations', { ...V_BODY, prompt: ' \n\t ' }],
      ['/v1/async/images/generations', { model: 'GEM-2.5', prompt: '   ' }],
    ] as const) {
      const r = await post(path, body);
      expect([r.status, r.body.error.param]).toEqual([400, 'prompt']);
    }
    expect(started).toHaveLength(0);
  });

  test('quality a model does not take lists only what that model takes', async () => {
    const r = await post('/v1/async/images/generations', { model: 'GEM-2.5', prompt: 'a cat', quality: 'ultra' });
    expect(r.body.error).toMatchObject({ param: 'quality', message: expect.stringContaining('GEM-2.5') });
  });
});

describe('X-Async', () => {
  test.each([
    ['/v1/async/videos/generations', 'banana', 400],
    ['/v1/async/videos/generations', 'false', 400],
    ['/v1/async/videos/generations', 'TRUE', 200],
    ['/v1/videos/generations', 'banana', 400],
    ['/v1/videos/generations', '1', 200],
  ])('%s with X-Async: %s → %i', async (path, value, status) => {
    const r = await post(path, V_BODY, { 'X-Async': value });
    expect(r.status).toBe(status);
    if (status === 400)
      expect(r.body.error).toMatchObject({
        param: 'X-Async',
        message: expect.stringMatching(/"true" or "false" \(or 1 or 0\)|always asynchronous/),
      });
  });
});

describe('task list query', () => {
  test.each([
    ['page=0x10'],
    ['page=1.0'],
    ['page_size=1e2'],
    ['page=-1'],
    ['page_size=101'],
    ['color=red'],
    ['status=done'],
    ['page=1&page=2'],
  ])('%s is 400 naming the parameter', async (query) => {
    const r = await fetch(`${app.api.base}/v1/tasks?${query}`, { headers: AUTH });
    expect(r.status).toBe(400);
    const body = (await r.json()) as any;
    expect(query).toContain(body.error.param);
    expect(listed).toHaveLength(0);
  });

  test('status and model filter the list', async () => {
    const r = await fetch(`${app.api.base}/v1/tasks?status=failed&model=K21&page=2&page_size=5`, { headers: AUTH });
    expect(r.status).toBe(200);
    expect(listed).toEqual([{ page: 2, pageSize: 5, filter: { status: 'failed', model: 'K21' } }]);
  });
});

describe('OpenAI SDK compatibility', () => {
  test('response_format url is accepted; b64_json is refused saying why', async () => {
    expect((await post('/v1/async/images/generations', { model: 'GEM-2.5', prompt: 'a cat', response_format: 'url' })).status).toBe(200);
    const r = await post('/v1/async/images/generations', { model: 'GEM-2.5', prompt: 'a cat', response_format: 'b64_json' });
    expect(r.body.error).toMatchObject({ param: 'response_format', message: expect.stringMatching(/URLs/) });
  });

  test('GET /v1/models lists each id once with its kinds; GET /v1/models/:id retrieves one', async () => {
    const list = (await (await fetch(`${app.api.base}/v1/models`, { headers: AUTH })).json()) as any;
    const ids = list.data.map((m: any) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    const k = list.data.find((m: any) => m.id === 'VendorK-2.1');
    expect(k).toMatchObject({
      kinds: ['video', 'image'],
      video: { durations: expect.any(Object) },
      image: { qualities: expect.any(Array) },
    });
    const one = await fetch(`${app.api.base}/v1/models/VendorK-2.1`, { headers: AUTH });
    expect(await one.json()).toEqual(k);
    expect((await fetch(`${app.api.base}/v1/models/nope`, { headers: AUTH })).status).toBe(404);
  });
});

describe('idempotent replays', () => {
  test('a replay of a finished task says so in its message', async () => {
    replay = { task_id: 'task_done', status: 'success', model: V_BODY.model, created: 1, data: [{ url: 'https://x.test/a.mp4' }] };
    const r = await post('/v1/async/videos/generations', V_BODY, { 'Idempotency-Key': 'k-1' });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('success');
    expect(r.body.message).toMatch(/already finished/);
    expect(r.body.message).not.toMatch(/accepted/);
  });
});

describe('client disconnects', () => {
  test('a sync client that goes away is recorded as 499, not 404', async () => {
    const abort = new AbortController();
    const pending = fetch(`${app.api.base}/v1/videos/generations`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify(V_BODY),
      signal: abort.signal,
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    abort.abort();
    await pending;
    await new Promise((r) => setTimeout(r, 200));
    const metrics = await (await fetch(`${app.api.base}/metrics`)).text();
    expect(metrics).toMatch(
      /mediagate_http_request_duration_seconds_count\{method="POST",route="\/v1\/videos\/generations",status="499"\} 1/,
    );
    expect(metrics).not.toMatch(/route="\/v1\/videos\/generations",status="404"/);
  });
});

describe('OpenAPI document', () => {
  test('health, metrics and the document itself need no key; model is an enum of the catalogue', () => {
    const doc = buildOpenApiDocument({ catalogue: buildCatalogue() }) as any;
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json']) expect(doc.paths[path].get.security).toEqual([]);
    const video = doc.components.schemas.VideoGenerationRequest;
    expect(video.properties.model.enum).toEqual(expect.arrayContaining(['V20', 'vendor-video-1-0-pro-250528']));
    expect(video.properties.model.enum).not.toContain('NB');
    expect(doc.paths['/v1/generations/{task_id}/cancel'].post.responses).toHaveProperty('202');
    expect(doc.paths['/v1/generations/{task_id}/cancel'].post.responses).toHaveProperty('415');
    expect(doc.paths['/v1/models/{model_id}'].get).toBeDefined();
  });
});
