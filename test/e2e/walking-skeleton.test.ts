/**
 * The walking skeleton over real HTTP: API → Temporal → worker → platform V adapter → simulator, and back.
 */
import { keptLink, withoutTokens } from '../support/result-links';
import { sharedStack } from '../support/shared-stack';

const { api, sim } = sharedStack();
const alice = api('alice');
const V_MODEL = 'vendor-video-1-0-pro-250528';

describe('platform V video, end to end', () => {
  test('sync: returns the result URL with V raw extras, and the URL serves a real MP4', async () => {
    const r = await alice.post('/v1/videos/generations', { model: V_MODEL, prompt: 'a red fox in snow', duration: 5, ratio: '9:16' });
    expect(r.status).toBe(200);
    expect(r.body.created).toEqual(expect.any(Number));
    expect(r.body.data).toHaveLength(1);
    expect(r.body.data[0].url).toMatch(keptLink(r.body.task_id));
    expect(r.body).toMatchObject({ video_url: r.body.data[0].url, duration: 5, ratio: '9:16' });
    // V's own token usage (docs/api.md "Generation results"), with the gateway's units beside it; no public V price, so no cost.
    expect(r.body.usage).toEqual({
      completion_tokens: expect.any(Number),
      total_tokens: expect.any(Number),
      seconds: 5,
      tokens: r.body.usage.completion_tokens,
    });
    expect(r.body.cost).toBeNull();

    const file = await fetch(r.body.data[0].url);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');

    // What platform V received is its own wire format.
    const submits = await sim.requests('V', 'submit');
    const mine = submits.find((s) => s.body?.content?.[0]?.text === 'a red fox in snow');
    expect(mine?.body).toEqual({
      model: 'doubao-seedance-1-0-pro-250528',
      content: [{ type: 'text', text: 'a red fox in snow' }],
      ratio: '9:16',
      duration: 5,
      // The lost-answer marker (platforms/v/request-body.ts) and the deadline's remainder, floored at Ark's 1 h.
      seed: expect.any(Number),
      execution_expires_after: 3600,
    });
    expect(mine?.headers.authorization).toBe('Bearer sim-v-key');
  });

  test('async with X-Async: pending at once, then running, then success on both query paths', async () => {
    const r = await alice.post(
      '/v1/videos/generations',
      { model: V_MODEL, prompt: 'a slow river [sim:duration=2500]', duration: 5 },
      { 'X-Async': 'true' },
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      task_id: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
      status: 'pending',
      model: V_MODEL,
      message: expect.stringContaining(`GET /v1/generations/${r.body.task_id}`),
    });
    const taskId = r.body.task_id;

    // While the job runs upstream, the task says so (with a progress string).
    const { record, seen } = await alice.watchTask(taskId);
    // It was seen running, and every running read carried a progress string.
    const running = seen.filter((s) => s.startsWith('running'));
    expect(running.length).toBeGreaterThan(0);
    for (const s of running) expect(s).toMatch(/^running \d{1,3}%$/);
    expect(record).toMatchObject({ task_id: taskId, status: 'success', model: V_MODEL, created: expect.any(Number) });
    expect(record.data[0].url).toMatch(keptLink(taskId));

    const legacy = await alice.get(`/v1/videos/generations/${taskId}`);
    expect(legacy.status).toBe(200);
    expect(withoutTokens(legacy.body)).toEqual(withoutTokens(record));
  });

  test('always-async endpoint returns a pending task record', async () => {
    const r = await alice.post('/v1/async/videos/generations', { model: V_MODEL, prompt: 'a kite', duration: 4 });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('pending');
    const done = await alice.waitForTask(r.body.task_id);
    expect(done.status).toBe('success');
  });

  test('a content-policy failure is a failed task with its message (async) and a 4xx naming the task (sync)', async () => {
    const a = await alice.post('/v1/async/videos/generations', {
      model: V_MODEL,
      prompt: 'forbidden [sim:fail=content_policy]',
      duration: 5,
    });
    const done = await alice.waitForTask(a.body.task_id);
    expect(done.status).toBe('failed');
    expect(done.error.message).toMatch(/sensitive/i);
    expect(done.error.code).toBe('content_policy');
    expect(done.data).toBeUndefined();

    const s = await alice.post('/v1/videos/generations', {
      model: V_MODEL,
      prompt: 'forbidden again [sim:fail=content_policy]',
      duration: 5,
    });
    expect(s.status).toBe(422);
    expect(s.body.error).toMatchObject({ code: 'content_policy', task_id: expect.any(String) });
    expect(s.body.error.message).toMatch(/sensitive/i);
  });

  test('a generic upstream failure is a failed task and a 502 in sync mode', async () => {
    const s = await alice.post('/v1/videos/generations', { model: V_MODEL, prompt: 'broken [sim:fail=error]', duration: 5 });
    expect(s.status).toBe(502);
    expect(s.body.error.task_id).toEqual(expect.any(String));
    const record = await alice.get(`/v1/generations/${s.body.error.task_id}`);
    expect(record.body).toMatchObject({ status: 'failed', error: { message: expect.any(String) } });
  });
});

describe('authentication and ownership', () => {
  test('401 without a key, with a wrong key, and with a malformed header', async () => {
    for (const client of [api(null), api('sk-not-a-real-key-000000000000')]) {
      const r = await client.get('/v1/models');
      expect(r.status).toBe(401);
      expect(r.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    }
    const r = await api(null).get('/v1/models', { Authorization: 'Basic abc' });
    expect(r.status).toBe(401);
    const post = await api(null).post('/v1/videos/generations', { model: V_MODEL, prompt: 'x', duration: 5 });
    expect(post.status).toBe(401);
  });

  test("another key's task is 404, exactly like a missing one", async () => {
    const r = await alice.post('/v1/async/videos/generations', { model: V_MODEL, prompt: 'private', duration: 5 });
    const asBob = await api('bob').get(`/v1/generations/${r.body.task_id}`);
    const missing = await api('bob').get('/v1/generations/task_doesnotexist0000000000');
    expect(asBob.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(asBob.body.error.type).toBe(missing.body.error.type);
    expect(asBob.body.error.code).toBe('task_not_found');
    const legacy = await api('bob').get(`/v1/videos/generations/${r.body.task_id}`);
    expect(legacy.status).toBe(404);
  });

  test('an unknown task is 404 on both query paths', async () => {
    for (const path of ['/v1/generations/task_nope', '/v1/videos/generations/task_nope']) {
      const r = await alice.get(path);
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'task_not_found', param: 'task_id' });
    }
  });
});
