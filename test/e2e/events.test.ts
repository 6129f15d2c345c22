/**
 * The live event stream GET /v1/generations/:id/events on the shared stack: the task's record on
 * every status or progress change, ending after the final one; heartbeats; a resume with Last-Event-ID; the
 * same ownership as reads. (Two clients on two API processes: test/system/webhooks.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { makeKey } from '../support/admin-api';
import type { ApiClient } from '../support/client';
import { startExtraApi } from '../support/extra-api';
import { sharedStack } from '../support/shared-stack';
import { openEvents } from '../support/sse';
import { TEST_KEYS, type Proc } from '../support/stack';
import { waitFor } from '../support/wait-for';

const { api, apiUrl } = sharedStack();
const alice = api('alice');
const V_MODEL = 'vendor-video-1-0-pro-250528';
const eventsUrl = (taskId: string) => `${apiUrl}/v1/generations/${taskId}/events`;

async function startTask(prompt: string): Promise<string> {
  const r = await alice.post('/v1/async/videos/generations', { model: V_MODEL, prompt, duration: 5 });
  expect(r.status).toBe(200);
  return r.body.task_id as string;
}

describe('GET /v1/generations/:id/events', () => {
  test('pending → running (with progress) → success, then the stream ends; heartbeats meanwhile', async () => {
    const taskId = await startTask('a glacier calving [sim:duration=3000]');
    const stream = await openEvents(eventsUrl(taskId), TEST_KEYS.alice.secret);
    expect(stream.status).toBe(200);
    await stream.ended;
    const statuses = stream.messages.map((m) => m.data.status);
    expect(statuses[0]).toBe('pending');
    expect(statuses).toContain('running');
    expect(statuses.at(-1)).toBe('success');
    for (const m of stream.messages.filter((x) => x.data.status === 'running')) expect(m.data.progress).toMatch(/^\d{1,3}%$/);
    // Every message is a change: no two consecutive ones alike.
    const ids = stream.messages.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    const last = stream.messages.at(-1)!;
    expect(last.data).toMatchObject({ task_id: taskId, status: 'success', data: [{ url: expect.any(String) }] });
    // SSE_HEARTBEAT_MS is 500 ms on this stack and the job took 3 s.
    expect(stream.comments.filter((c) => c.text === 'heartbeat').length).toBeGreaterThan(0);
  });

  test('a reconnect with Last-Event-ID is not sent what it already has, only what follows', async () => {
    const taskId = await startTask('a slow tide [sim:duration=2500]');
    const first = await openEvents(eventsUrl(taskId), TEST_KEYS.alice.secret);
    await waitFor(async () => first.messages.find((m) => m.data.status === 'running'), 20_000);
    first.close();
    const seen = first.messages.at(-1)!;
    const resumed = await openEvents(eventsUrl(taskId), TEST_KEYS.alice.secret, seen.id);
    await resumed.ended;
    expect(resumed.messages.map((m) => m.id)).not.toContain(seen.id);
    expect(resumed.messages.at(-1)!.data.status).toBe('success');

    // After the end, a reconnect naming the final event gets nothing more and ends at once.
    const after = await openEvents(eventsUrl(taskId), TEST_KEYS.alice.secret, resumed.messages.at(-1)!.id);
    await after.ended;
    expect(after.messages).toEqual([]);
  });

  test("another key's task, or an unknown one, is 404 in the error envelope", async () => {
    const taskId = await startTask('a lantern [sim:duration=500]');
    const bob = await fetch(eventsUrl(taskId), {
      headers: { Authorization: `Bearer ${TEST_KEYS.bob.secret}`, Accept: 'text/event-stream' },
    });
    expect(bob.status).toBe(404);
    expect(((await bob.json()) as { error: unknown }).error).toMatchObject({ type: 'not_found_error' });
    const none = await fetch(eventsUrl('task_nope'), { headers: { Authorization: `Bearer ${TEST_KEYS.alice.secret}` } });
    expect(none.status).toBe(404);
    const anonymous = await fetch(eventsUrl(taskId));
    expect(anonymous.status).toBe(401);
  });
});

describe('bounds on open streams, and clients leaving them', () => {
  // An API of this file's own: small bounds to reach, and its debug lines to read.
  const BOUNDS = { KEY_MAX_STREAMS: 2, API_MAX_STREAMS: 5 };
  let gate: { url: string; proc: Proc };
  const started: { client: ApiClient; taskId: string }[] = [];
  beforeAll(async () => {
    gate = await startExtraApi({ ...Object.fromEntries(Object.entries(BOUNDS).map(([k, v]) => [k, String(v)])), LOG_LEVEL: 'debug' });
  }, 90_000);
  afterAll(async () => {
    // The long tasks end here, so no other test sees them running.
    await Promise.all(started.map(({ client, taskId }) => client.post(`/v1/generations/${taskId}/cancel`, {})));
    await gate?.proc.stop();
  });

  /** A task of `client`'s that runs for the whole test (cancelled after). */
  async function longTask(client: ApiClient): Promise<string> {
    const r = await client.post('/v1/async/videos/generations', {
      model: V_MODEL,
      prompt: `a long take [sim:duration=600000] ${Math.random()}`,
      duration: 5,
    });
    expect(r.status).toBe(200);
    started.push({ client, taskId: r.body.task_id });
    return r.body.task_id as string;
  }

  const open = (taskId: string, secret: string) => openEvents(`${gate.url}/v1/generations/${taskId}/events`, secret);

  /** A refused stream's answer: status, Retry-After and the error envelope. */
  async function refused(taskId: string, secret: string) {
    const r = await fetch(`${gate.url}/v1/generations/${taskId}/events`, {
      headers: { Authorization: `Bearer ${secret}`, Accept: 'text/event-stream' },
    });
    return {
      status: r.status,
      retryAfter: r.headers.get('retry-after'),
      error: ((await r.json()) as { error: Record<string, unknown> }).error,
    };
  }

  test("per key (KEY_MAX_STREAMS, a key's max_streams in API_KEYS_FILE or the admin API) and per process (API_MAX_STREAMS); a slot comes back when its client leaves; leaving costs at most a debug line", async () => {
    const erin = api('erin');
    const streamer = await makeKey(apiUrl, { id: `streamer-${Date.now()}`, max_streams: 3 });
    const streamerSecret = streamer.key!;
    // This API reads the admin API's keys every KEYS_REFRESH_MS: until it has, the new key is unknown to it.
    await waitFor(
      async () => (await fetch(`${gate.url}/v1/models`, { headers: { Authorization: `Bearer ${streamerSecret}` } })).status === 200,
      20_000,
    );
    const [aliceTask, erinTask, streamerTask] = [await longTask(alice), await longTask(erin), await longTask(streamer)];

    // alice: the default bound (2 here), then 429 in the envelope, nothing asked of Temporal for it.
    const aliceStreams = [await open(aliceTask, TEST_KEYS.alice.secret), await open(aliceTask, TEST_KEYS.alice.secret)];
    expect(aliceStreams.map((s) => s.status)).toEqual([200, 200]);
    expect(await refused(aliceTask, TEST_KEYS.alice.secret)).toEqual({
      status: 429,
      retryAfter: '5',
      error: expect.objectContaining({
        type: 'rate_limit_error',
        code: 'too_many_streams',
        message: expect.stringContaining('2 event streams'),
      }),
    });
    // erin: its keys-file max_streams (1).
    const erinStream = await open(erinTask, TEST_KEYS.erin.secret);
    expect(erinStream.status).toBe(200);
    expect(await refused(erinTask, TEST_KEYS.erin.secret)).toMatchObject({ status: 429, error: { code: 'too_many_streams' } });
    // The admin API's key: max_streams 3, but the process holds its 5 after two of them: 503 for the third.
    const streamerStreams = [await open(streamerTask, streamerSecret), await open(streamerTask, streamerSecret)];
    expect(streamerStreams.map((s) => s.status)).toEqual([200, 200]);
    expect(await refused(streamerTask, streamerSecret)).toEqual({
      status: 503,
      retryAfter: '5',
      error: expect.objectContaining({ type: 'service_unavailable_error', code: 'streams_at_capacity' }),
    });

    // A client leaves: its slot is given back, and the refused key's next stream is served.
    aliceStreams[0]!.close();
    const third = await waitFor(async () => {
      const s = await open(streamerTask, streamerSecret);
      if (s.status === 200) return s;
      s.close();
      return undefined;
    }, 20_000);
    expect(third.status).toBe(200);

    // Every client leaves. Every line the API wrote is a JSON log line (no stack on stderr), no warning or error
    // among them, and at most one debug line per stream left.
    for (const s of [...aliceStreams, erinStream, ...streamerStreams, third]) s.close();
    await waitFor(
      async () =>
        (await fetch(`${gate.url}/metrics`).then((r) => r.text())).match(/^mediagate_event_streams_open (\d+)/m)?.[1] === '0' || undefined,
      20_000,
    );
    const lines = readFileSync(gate.proc.logFile, 'utf8').split('\n').filter(Boolean);
    const parsed = lines.map((l) => {
      try {
        return JSON.parse(l) as { level: number; msg: string };
      } catch {
        return { level: 60, msg: `not a log line: ${l}` };
      }
    });
    expect(parsed.filter((l) => l.level >= 40)).toEqual([]);
    const left = parsed.filter((l) => /client left/.test(l.msg));
    expect(left.every((l) => l.level === 20)).toBe(true);
    expect(left.length).toBeLessThanOrEqual(6);
  });
});

describe('a client that leaves at once gives its slot back', () => {
  /** Sends the stream's request on a raw socket and destroys it `afterMs` after the request is written. */
  function openAndLeave(taskId: string, secret: string, afterMs: number): Promise<void> {
    const { hostname, port } = new URL(apiUrl);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `GET /v1/generations/${taskId}/events HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${secret}\r\nAccept: text/event-stream\r\n\r\n`,
          () => setTimeout(() => socket.destroy(), afterMs),
        );
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
  }

  test("10 streams closed 5 ms after sending (and 20 more at 0 to 9 ms), then all 20 of the key's streams (KEY_MAX_STREAMS) open again", async () => {
    const key = await makeKey(apiUrl, { id: `leaver-${Date.now()}` });
    const r = await key.post('/v1/async/videos/generations', {
      model: V_MODEL,
      prompt: `left early [sim:duration=600000] ${Math.random()}`,
      duration: 5,
    });
    expect(r.status).toBe(200);
    const taskId = r.body.task_id as string;
    try {
      // Closed while the server reads the task, before the stream's first byte: 5 ms after sending; then at every
      // delay from 0 to 9 ms, so that some close inside the read however fast this machine reads.
      await Promise.all(Array.from({ length: 10 }, () => openAndLeave(taskId, key.key!, 5)));
      await Promise.all(Array.from({ length: 20 }, (_, i) => openAndLeave(taskId, key.key!, i % 10)));
      // Bounded by the slots coming back, not by a sync timeout (10 minutes): 20 at once, all served.
      const twenty = await waitFor(async () => {
        const streams = await Promise.all(Array.from({ length: 20 }, () => openEvents(eventsUrl(taskId), key.key!)));
        if (streams.every((s) => s.status === 200)) return streams;
        for (const s of streams) s.close();
        return undefined;
      }, 30_000);
      expect(twenty.map((s) => s.status)).toEqual(Array(20).fill(200));
      for (const s of twenty) s.close();
    } finally {
      await key.post(`/v1/generations/${taskId}/cancel`, {});
    }
  });
});
