/**
 * The copy from a platform's URL into the store, against a real local HTTP server playing the platform's storage:
 * the bytes arrive intact (sha256), and every bad input or fault ends as a CopyFailure with its reason — never a
 * crash, never a hang, never a partial object: non-http URLs, private addresses (directly, by name, by redirect),
 * too many redirects, oversize bodies (declared or counted), wrong content types, idle and total timeouts, and
 * transient errors retried within the bound.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { CopyFailure, ResultCopier, type CopyLimits } from '../../../results/copy';
import { DirectoryResultStore } from '../../../results/directory-store';
import { resultKey, ResultStoreError, type ResultStore } from '../../../results/result-store';
import { sha } from '../../support/sha';

const MP4_HEAD = Buffer.from([0, 0, 0, 0x20, ...Buffer.from('ftypisom'), 0, 0, 2, 0]);
const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, ...Buffer.from('IHDR')]);
const VIDEO = Buffer.concat([MP4_HEAD, Buffer.alloc(300_000, 7)]);

let server: Server;
let origin: string;
let dir: string;
let store: DirectoryResultStore;
const hits = new Map<string, number>();

function route(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?')[0]!;
  hits.set(path, (hits.get(path) ?? 0) + 1);
  const n = hits.get(path)!;
  switch (path) {
    case '/video.mp4':
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': VIDEO.length }).end(VIDEO);
      return;
    case '/chunked.mp4': // no Content-Length: counted as it streams
      res.writeHead(200, { 'content-type': 'video/mp4' });
      for (let i = 0; i < 10; i++) res.write(i === 0 ? MP4_HEAD : Buffer.alloc(50_000, i));
      res.end();
      return;
    case '/image.png':
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([PNG_HEAD, Buffer.alloc(100, 1)]));
      return;
    case '/octet-video':
      res.writeHead(200, { 'content-type': 'binary/octet-stream' }).end(VIDEO);
      return;
    case '/octet-text':
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end('<html>not a video at all</html>');
      return;
    case '/page.html':
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>error</html>');
      return;
    case '/svg':
      res.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg onload="alert(1)"/>');
      return;
    case '/empty.mp4':
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': 0 }).end();
      return;
    case '/declared-huge':
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': 10 * 1024 ** 3 });
      res.write(MP4_HEAD); // and then never the rest: the declared size alone refuses it
      return;
    case '/to-metadata':
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      return;
    case '/to-localhost': // a name, not an address: refused when it resolves
      res.writeHead(302, { location: `http://localhost:${(server.address() as AddressInfo).port}/video.mp4` }).end();
      return;
    case '/to-video':
      res.writeHead(301, { location: '/video.mp4' }).end();
      return;
    case '/loop':
      res.writeHead(302, { location: '/loop' }).end();
      return;
    case '/stall': // headers and the first bytes, then nothing
      res.writeHead(200, { 'content-type': 'video/mp4' });
      res.write(MP4_HEAD);
      return;
    case '/no-answer':
      return; // never answers
    case '/trickle': // a byte every 50 ms: never idle, but never done
      res.writeHead(200, { 'content-type': 'video/mp4' });
      res.write(MP4_HEAD);
      {
        const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write('x')), 50);
      }
      return;
    case '/flaky.mp4': // two 503s, then the video
      if (n <= 2) res.writeHead(503).end('busy');
      else res.writeHead(200, { 'content-type': 'video/mp4' }).end(VIDEO);
      return;
    case '/cut.mp4': // promises more than it sends, then drops the connection
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': VIDEO.length });
      res.write(VIDEO.subarray(0, 1000));
      setTimeout(() => res.destroy(), 20);
      return;
    default:
      res.writeHead(404).end('gone');
  }
}

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  hits.clear();
  dir = mkdtempSync(join(tmpdir(), 'results-copy-'));
  store = new DirectoryResultStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function copier(overrides: Partial<CopyLimits> = {}, into: ResultStore = store): ResultCopier {
  return new ResultCopier(into, {
    maxBytes: 1_000_000,
    connectTimeoutMs: 1_000,
    idleTimeoutMs: 300,
    attemptTimeoutMs: 5_000,
    attempts: 3,
    backoffMs: 10,
    allowPrivateOrigins: new Set([origin]),
    ...overrides,
  });
}

const keyFor = (ct: string) => resultKey('task_T', 0, 'result', ct);

async function failure(promise: Promise<unknown>): Promise<CopyFailure> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CopyFailure);
  return err as CopyFailure;
}

/** Nothing under the task's folder, nothing in progress: no partial object anywhere. */
function expectNothingStored(): void {
  const entries = readdirSync(dir).filter((e) => e !== '.partial');
  expect(entries).toEqual([]);
  expect(existsSync(join(dir, '.partial')) ? readdirSync(join(dir, '.partial')) : []).toEqual([]);
}

describe('ResultCopier: good copies', () => {
  test('streams the bytes into the store; sha256 and size match the source', async () => {
    const c = copier();
    let progress = 0;
    const res = await c.copy({ url: `${origin}/video.mp4?X-Sig=abc`, expected: 'video', keyFor, onBytes: (n) => (progress += n) });
    expect(res).toEqual({ key: 'task_T/0-result.mp4', contentType: 'video/mp4', bytes: VIDEO.length, sha256: sha(VIDEO), attempts: 1 });
    expect(progress).toBe(VIDEO.length);
    const got = await store.get(res.key);
    expect(sha(Buffer.from(await text(got!.body), 'latin1'))).toBe(sha(VIDEO));
    await c.close();
  });

  test('chunked bodies (no Content-Length) and redirects within the allowed origin', async () => {
    const c = copier();
    expect((await c.copy({ url: `${origin}/chunked.mp4`, expected: 'video', keyFor })).bytes).toBe(MP4_HEAD.length + 9 * 50_000);
    expect((await c.copy({ url: `${origin}/to-video`, expected: 'video', keyFor })).sha256).toBe(sha(VIDEO));
    await c.close();
  });

  test("application/octet-stream (or S3's binary/octet-stream) is judged by its first bytes", async () => {
    const c = copier();
    const res = await c.copy({ url: `${origin}/octet-video`, expected: 'video', keyFor });
    expect(res.contentType).toBe('video/mp4');
    const f = await failure(c.copy({ url: `${origin}/octet-text`, expected: 'video', keyFor }));
    expect(f.reason).toBe('content_type');
    await c.close();
  });

  test('transient upstream errors are retried within the bound', async () => {
    const c = copier();
    const res = await c.copy({ url: `${origin}/flaky.mp4`, expected: 'video', keyFor });
    expect(res.attempts).toBe(3);
    expect(hits.get('/flaky.mp4')).toBe(3);
    await c.close();
  });
});

describe('ResultCopier: refused, never crashing, never storing a part', () => {
  test('not http(s)', async () => {
    const c = copier();
    for (const url of ['ftp://example.com/v.mp4', 'file:///etc/passwd', 'data:video/mp4;base64,AAAA', 'not a url']) {
      expect((await failure(c.copy({ url, expected: 'video', keyFor }))).reason).toBe('bad_url');
    }
    expect((await failure(c.copy({ url: 'http://user:pw@example.com/v.mp4', expected: 'video', keyFor }))).reason).toBe('bad_url');
    expectNothingStored();
    await c.close();
  });

  test('a private address, directly, by DNS name or by redirect, unless its origin is allowed', async () => {
    const strict = copier({ allowPrivateOrigins: new Set() });
    for (const url of [`${origin}/video.mp4`, 'http://10.1.2.3/v.mp4', 'http://[::1]:9/v.mp4', 'http://[::ffff:127.0.0.1]/v.mp4']) {
      const f = await failure(strict.copy({ url, expected: 'video', keyFor }));
      expect([f.reason, f.retryable]).toEqual(['private_address', false]);
    }
    // By name: localhost resolves to loopback, checked at connect time.
    const byName = await failure(
      strict.copy({ url: `http://localhost:${(server.address() as AddressInfo).port}/video.mp4`, expected: 'video', keyFor }),
    );
    expect(byName.reason).toBe('private_address');
    expect(hits.get('/video.mp4')).toBeUndefined(); // no request ever reached the server

    // The allowed origin may not redirect elsewhere into the private network.
    const allowed = copier();
    expect((await failure(allowed.copy({ url: `${origin}/to-metadata`, expected: 'video', keyFor }))).reason).toBe('private_address');
    expect((await failure(allowed.copy({ url: `${origin}/to-localhost`, expected: 'video', keyFor }))).reason).toBe('private_address');
    expect(hits.get('/video.mp4')).toBeUndefined();
    expectNothingStored();
    await Promise.all([strict.close(), allowed.close()]);
  });

  test('too many redirects', async () => {
    const c = copier();
    expect((await failure(c.copy({ url: `${origin}/loop`, expected: 'video', keyFor }))).reason).toBe('too_many_redirects');
    expect(hits.get('/loop')).toBe(6);
    await c.close();
  });

  test('larger than the cap: by Content-Length before reading, or by counting while streaming', async () => {
    const c = copier({ maxBytes: 100_000 });
    const declared = await failure(c.copy({ url: `${origin}/declared-huge`, expected: 'video', keyFor }));
    expect([declared.reason, declared.retryable]).toEqual(['too_large', false]);
    const counted = await failure(c.copy({ url: `${origin}/chunked.mp4`, expected: 'video', keyFor }));
    expect([counted.reason, counted.retryable]).toEqual(['too_large', false]);
    expect(hits.get('/chunked.mp4')).toBe(1); // final: not retried
    expectNothingStored();
    await c.close();
  });

  test('the wrong content type: HTML, SVG (scriptable), a video where an image is expected, nothing at all', async () => {
    const c = copier();
    expect((await failure(c.copy({ url: `${origin}/page.html`, expected: 'video', keyFor }))).reason).toBe('content_type');
    expect((await failure(c.copy({ url: `${origin}/svg`, expected: 'image', keyFor }))).reason).toBe('content_type');
    expect((await failure(c.copy({ url: `${origin}/video.mp4`, expected: 'image', keyFor }))).reason).toBe('content_type');
    expect(
      (await c.copy({ url: `${origin}/image.png`, expected: 'image', keyFor: (ct) => resultKey('task_T', 0, 'last_frame', ct) })).key,
    ).toBe('task_T/0-last-frame.png');
    expect((await failure(copier({ attempts: 1 }).copy({ url: `${origin}/empty.mp4`, expected: 'video', keyFor }))).reason).toBe('empty');
    await c.close();
  });

  test('a final HTTP error is not retried; a body cut short is', async () => {
    const c = copier();
    const gone = await failure(c.copy({ url: `${origin}/expired-link.mp4`, expected: 'video', keyFor }));
    expect([gone.reason, gone.retryable]).toEqual(['upstream_status', false]);
    expect(hits.get('/expired-link.mp4')).toBe(1);
    const cut = await failure(c.copy({ url: `${origin}/cut.mp4`, expected: 'video', keyFor }));
    expect(cut.retryable).toBe(true);
    expect(hits.get('/cut.mp4')).toBe(3);
    expectNothingStored();
    await c.close();
  });

  test('timeouts: idle body, no answer at all, and a trickle past the attempt budget; bounded retries', async () => {
    const c = copier({ attempts: 2 });
    const started = Date.now();
    const idle = await failure(c.copy({ url: `${origin}/stall`, expected: 'video', keyFor }));
    expect(idle.reason).toBe('timeout');
    expect(hits.get('/stall')).toBe(2);
    const silent = await failure(c.copy({ url: `${origin}/no-answer`, expected: 'video', keyFor }));
    expect(silent.reason).toBe('timeout');
    const trickle = await failure(
      copier({ attempts: 1, attemptTimeoutMs: 400 }).copy({ url: `${origin}/trickle`, expected: 'video', keyFor }),
    );
    expect(trickle.reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5_000);
    expectNothingStored();
    await c.close();
  });

  test("the caller's deadline bounds every attempt together", async () => {
    const c = copier({ attempts: 10, backoffMs: 200 });
    const started = Date.now();
    const f = await failure(c.copy({ url: `${origin}/stall`, expected: 'video', keyFor, deadline: Date.now() + 800 }));
    expect(['timeout', 'out_of_time']).toContain(f.reason);
    expect(Date.now() - started).toBeLessThan(4_000);
    await c.close();
  });

  test('an attempt out of time while the store writes is a timeout, even when the store write fails first', async () => {
    // A store that gives up the moment the attempt is aborted, before the source's own error can arrive (the
    // order a loaded machine produces): the failure is still the attempt's timeout, retried, then out of time.
    const quitting: ResultStore = {
      kind: 'directory',
      put: (_key, body, { signal }) =>
        new Promise((_resolve, reject) => {
          body.on('error', () => undefined).resume();
          signal?.addEventListener(
            'abort',
            () => {
              reject(new ResultStoreError('writing failed: aborted'));
              body.destroy();
            },
            { once: true },
          );
        }),
      head: async () => undefined,
      get: async () => undefined,
      delete: async () => undefined,
      deleteOlderThan: async () => ({ deleted: 0, bytes: 0 }),
    };
    const c = copier({ idleTimeoutMs: 10_000, attemptTimeoutMs: 200, attempts: 2 }, quitting);
    const f = await failure(c.copy({ url: `${origin}/stall`, expected: 'video', keyFor }));
    expect({ reason: f.reason, message: f.message }).toEqual({
      reason: 'timeout',
      message: expect.stringMatching(/^writing .*\/stall took longer than 200 ms$/),
    });
    expect(hits.get('/stall')).toBe(2);
    await c.close();
  });

  test('cancellation stops the copy at once, as an abort (the activity is retried elsewhere), not as a failure', async () => {
    const c = copier();
    const abort = new AbortController();
    setTimeout(() => abort.abort(new Error('activity cancelled')), 100);
    const err = await c.copy({ url: `${origin}/trickle`, expected: 'video', keyFor, signal: abort.signal }).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(CopyFailure);
    expect((err as Error).message).toMatch(/cancelled|abort/i);
    expectNothingStored();
    await c.close();
  });
});
