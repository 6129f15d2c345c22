/**
 * What Node's HTTP parser refuses before Koa sees a request still answers in the error
 * envelope (431 oversized headers, 400 a malformed or ambiguous request, 408 headers that never finish), and a
 * client trickling its headers cannot hold a connection open: the API server as api/main.ts starts it, with its
 * production timeouts, over raw sockets.
 */
import { connect, type Socket } from 'node:net';
import { AUTH, startTestApi, type TestApi } from '../../support/test-api';

let api: TestApi;
let port: number;
beforeAll(async () => {
  api = await startTestApi();
  port = Number(new URL(api.base).port);
});
afterAll(() => api.close());

/** Sends raw bytes and collects everything the server writes until it closes the connection. */
function exchange(bytes: string): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closed: false });
    }, 5_000);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closed: true });
    });
    socket.write(bytes);
  });
}

/** Status and JSON body of a raw HTTP/1.1 answer. */
function parseAnswer(text: string): { status: number; headers: string; body: any } {
  const split = text.indexOf('\r\n\r\n');
  const head = text.slice(0, split);
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body: JSON.parse(text.slice(split + 4)) };
}

describe('answers from the HTTP parser carry the error envelope', () => {
  test('a 64 KiB Authorization header is 431 with the envelope, and the connection closes', async () => {
    const { text, closed } = await exchange(`GET /v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'a'.repeat(64 * 1024)}\r\n\r\n`);
    const answer = parseAnswer(text);
    expect(answer.status).toBe(431);
    expect(answer.headers).toMatch(/content-type: application\/json/i);
    expect(answer.body).toEqual({
      error: { type: 'invalid_request_error', code: 'headers_too_large', message: expect.any(String), param: null },
    });
    expect(closed).toBe(true);
  });

  test('Transfer-Encoding with Content-Length is 400 with the envelope, and nothing reaches a route', async () => {
    const body = JSON.stringify({ model: 'vendor-video-1-0-pro-250528', prompt: 'a fox', duration: 5 });
    const { text, closed } = await exchange(
      `POST /v1/async/videos/generations HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH.Authorization}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    const answer = parseAnswer(text);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'malformed_request' });
    expect(closed).toBe(true);
    expect(api.started).toHaveLength(0);
  });

  test('a request line that is not HTTP is 400 with the envelope', async () => {
    const answer = parseAnswer((await exchange('HELLO THERE\r\n\r\n')).text);
    expect([answer.status, answer.body.error.code]).toEqual([400, 'malformed_request']);
  });
});

describe('headers trickled a byte at a time', () => {
  test('the connection is answered 408 and closed within 30 s', async () => {
    const socket: Socket = connect(port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => undefined);
    const t0 = Date.now();
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    // One byte every 250 ms, never finishing the headers.
    const trickle = setInterval(() => {
      if (!socket.destroyed && socket.writable) socket.write('a');
    }, 250);
    // Well under the 65 s the attack run saw it still open (the default settings: 15 s, checked every second).
    const bound = 30_000;
    const closedAfter = await new Promise<number | undefined>((resolve) => {
      const giveUp = setTimeout(() => resolve(undefined), bound);
      socket.once('close', () => {
        clearTimeout(giveUp);
        resolve(Date.now() - t0);
      });
    });
    clearInterval(trickle);
    socket.destroy();
    expect(closedAfter).toBeDefined();
    expect(closedAfter!).toBeLessThan(bound);
    const answer = parseAnswer(Buffer.concat(chunks).toString('utf8'));
    expect([answer.status, answer.body.error.code]).toEqual([408, 'headers_timeout']);
  }, 45_000);
});
