/**
 * Platform B over real HTTP: API → Temporal → worker → platform B adapter → simulator, and back. Each test checks
 * what the simulator received on the wire (body, Bearer key, Idempotency-Key) as well as what the client got.
 */
import { sharedStack } from '../support/shared-stack';

const { api, sim, simUrl } = sharedStack();
const alice = api('alice');

/** Prompts are unique per test so recorded requests can be told apart on the shared simulator. */
const unique = (text: string) => `${text} #${Math.random().toString(36).slice(2, 10)}`;

async function submitsFor(prompt: string) {
  return (await sim.requests('B', 'submit')).filter((r) => r.body?.prompt === prompt);
}

/**
 * The dedup key the workflow hands the adapter: stable across one submit's retries, at most 50 URL-safe
 * characters (its exact derivation belongs to workflows/dedup-key.ts, not to this test).
 */
const DEDUP_KEY = /^[A-Za-z0-9_-]{1,50}$/;

async function fetchBytes(url: string): Promise<{ type: string | null; bytes: Buffer }> {
  const res = await fetch(url);
  return { type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('platform B video, end to end', () => {
  test('sync text-to-video: B receives its own wire format with an Idempotency-Key, and the result is a real MP4', async () => {
    const prompt = unique('a lighthouse at dusk');
    const r = await alice.post('/v1/videos/generations', { model: 'K21', action: 'text_to_video', prompt, duration: 5, resolution: '1080p', audio: 'true' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ created: expect.any(Number), data: [{ url: expect.stringMatching(/^http:\/\/.+\.mp4$/) }], task_id: expect.any(String) });

    const [submit, ...more] = await submitsFor(prompt);
    expect(more).toHaveLength(0);
    expect(submit).toMatchObject({ method: 'POST', path: '/v1/video/generations' });
    expect(submit!.body).toEqual({ model: 'K21', action: 'text_to_video', prompt, duration: 5, resolution: '1080P', audio: 'true' });
    expect(submit!.headers).toMatchObject({ authorization: 'Bearer sim-b-key', 'content-type': 'application/json', 'idempotency-key': expect.stringMatching(DEDUP_KEY) });

    const file = await fetchBytes(r.body.data[0].url);
    expect(file.type).toBe('video/mp4');
    expect(file.bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });

  test('async image-to-video from the general image_url: pending, running with progress, then success; polls go to /v1/tasks', async () => {
    const prompt = unique('slow zoom [sim:duration=2500]');
    const r = await alice.post(
      '/v1/videos/generations',
      { model: 'VE3.1F', prompt, image_url: 'https://images.test/first.png', duration: 6, resolution: '720P' },
      { 'X-Async': 'true' },
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ task_id: expect.any(String), status: 'pending', model: 'VE3.1F' });
    const taskId = r.body.task_id;

    const { record, seen } = await alice.watchTask(taskId);
    // It was seen running, and every running read carried a progress string.
    const running = seen.filter((s) => s.startsWith('running'));
    expect(running.length).toBeGreaterThan(0);
    for (const s of running) expect(s).toMatch(/^running \d{1,3}%$/);
    expect(record).toMatchObject({ task_id: taskId, status: 'success', model: 'VE3.1F', created: expect.any(Number) });
    expect(record.data).toEqual([{ url: expect.stringMatching(/\.mp4$/) }]);

    const [submit] = await submitsFor(prompt);
    expect(submit!.body).toEqual({
      model: 'VE3.1F',
      action: 'image_to_video',
      prompt,
      duration: 6,
      resolution: '720p',
      image: { imageUrl: 'https://images.test/first.png' },
    });
    expect(submit!.headers['idempotency-key']).toMatch(DEDUP_KEY);

    // The upstream task id is the one the simulator issued; every poll of it carried B's key.
    const upstreamId = /\/files\/(btask-[A-Za-z0-9]+)-0\.mp4$/.exec(record.data[0].url)?.[1];
    expect(upstreamId).toBeDefined();
    const polls = (await sim.requests('B', 'poll')).filter((p) => p.path === `/v1/tasks/${upstreamId}`);
    expect(polls.length).toBeGreaterThan(0);
    for (const p of polls) expect(p).toMatchObject({ method: 'GET', headers: { authorization: 'Bearer sim-b-key' } });
  });

  test('a content-policy failure is a failed task with the moderation message (async) and a 422 naming the task (sync)', async () => {
    const a = await alice.post('/v1/async/videos/generations', {
      model: 'H23',
      prompt: unique('forbidden [sim:fail=content_policy]'),
      image: { imageUrl: 'https://images.test/x.png' },
      duration: 6,
    });
    expect(a.status).toBe(200);
    const done = await alice.waitForTask(a.body.task_id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'content_policy', message: expect.stringMatching(/moderation/i) } });
    expect(done.data).toBeUndefined();

    const s = await alice.post('/v1/videos/generations', { model: 'P40', action: 'text_to_video', prompt: unique('forbidden [sim:fail=content_policy]'), duration: 5 });
    expect(s.status).toBe(422);
    expect(s.body.error).toMatchObject({ code: 'content_policy', task_id: expect.any(String) });
  });

  test('a 429 storm on submit: the task succeeds with exactly one upstream job, every retry carrying the same Idempotency-Key', async () => {
    const prompt = unique('storm [sim:submit=429x3]');
    const before = (await sim.stats()).B;
    const r = await alice.post('/v1/async/videos/generations', { model: 'VQ2', action: 'text_to_video', prompt, duration: 3 });
    expect(r.status).toBe(200);
    const done = await alice.waitForTask(r.body.task_id, 90_000);
    expect(done.status).toBe('success');

    const after = (await sim.stats()).B;
    expect(after.jobsCreated - before.jobsCreated).toBe(1);
    expect(after.faultsInjected - before.faultsInjected).toBe(3);
    const submits = await submitsFor(prompt);
    expect(submits).toHaveLength(4);
    const keys = new Set(submits.map((s) => s.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(DEDUP_KEY);
    // ...and it is this task's own key: no other submit the simulator saw carried it.
    const others = (await sim.requests('B', 'submit')).filter((s) => s.body?.prompt !== prompt).map((s) => s.headers['idempotency-key']);
    expect(others).not.toContain([...keys][0]);
    for (const s of submits) expect(s.body).toEqual({ model: 'VQ2', action: 'text_to_video', prompt, duration: 3 });
  });
});

describe('platform B images, end to end', () => {
  test('sync n = 3 with quality 2K and a pixel size: three PNGs as data[0..2], in the order B listed them', async () => {
    const prompt = unique('three paper cranes');
    const r = await alice.post('/v1/images/generations', { model: 'NB2', prompt, n: 3, quality: '2K', size: '1920x1080', negative_prompt: 'text' });
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(3);
    r.body.data.forEach((d: { url: string }, i: number) => expect(d.url).toMatch(new RegExp(`-${i}\\.png$`)));

    const [submit] = await submitsFor(prompt);
    expect(submit).toMatchObject({ method: 'POST', path: '/v1/image/generations' });
    expect(submit!.body).toEqual({ model: 'NB2', prompt, negativePrompt: 'text', aspectRatio: '16:9', quality: '2K', n: 3 });
    expect(submit!.headers['idempotency-key']).toMatch(DEDUP_KEY);

    const file = await fetchBytes(r.body.data[2].url);
    expect(file.type).toBe('image/png');
    expect(file.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  test('async image with hd quality: one image, quality sent as 4K', async () => {
    const prompt = unique('a map of nowhere');
    const r = await alice.post('/v1/async/images/generations', { model: 'I4YG1', prompt, quality: 'hd' });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('pending');
    const done = await alice.waitForTask(r.body.task_id);
    expect(done).toMatchObject({ status: 'success', data: [{ url: expect.stringMatching(/-0\.png$/) }] });
    expect((await submitsFor(prompt))[0]!.body).toEqual({ model: 'I4YG1', prompt, quality: '4K' });
  });
});

describe('spec rules 1 and 2 are enforced by the gateway, before anything reaches platform B', () => {
  test.each([
    ['rule 1: text_to_video without duration', { model: 'K21', action: 'text_to_video', prompt: 'no duration' }, 'duration'],
    ['rule 2: image-to-video (the default) without image', { model: 'K21', prompt: 'no image', duration: 5 }, 'image'],
  ])('%s → 400', async (_name, body, param) => {
    const before = (await sim.stats()).B.submitRequests;
    const r = await alice.post('/v1/videos/generations', body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect((await sim.stats()).B.submitRequests).toBe(before);
  });
});

describe('the platform B simulator speaks its protocol strictly', () => {
  const submit = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${simUrl}/v1/video/generations`, {
      method: 'POST',
      headers: { authorization: 'Bearer sim-b-key', 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  const body = (prompt: string) => ({ model: 'K20', action: 'text_to_video', prompt, duration: 5 });

  test('the same Idempotency-Key returns the first job; a different body under it is refused', async () => {
    const key = `idem-${Math.random().toString(36).slice(2)}`;
    const prompt = unique('dedup [sim:duration=60000]');
    const before = (await sim.stats()).B;
    const first = await submit(body(prompt), { 'Idempotency-Key': key });
    const second = await submit(body(prompt), { 'Idempotency-Key': key });
    expect(first).toEqual({ status: 200, body: { code: 0, message: 'ok', data: { taskId: expect.stringMatching(/^btask-/) } } });
    expect(second.body.data.taskId).toBe(first.body.data.taskId);
    const after = (await sim.stats()).B;
    expect(after.jobsCreated - before.jobsCreated).toBe(1);
    expect(after.dedupRefusals - before.dedupRefusals).toBe(1);

    const conflicting = await submit(body(`${prompt} changed`), { 'Idempotency-Key': key });
    expect(conflicting).toEqual({ status: 400, body: { code: 40005, message: expect.any(String) } });
  });

  test('a wrong key is 401 in B’s error shape', async () => {
    const r = await submit(body('x'), { authorization: 'Bearer wrong' });
    expect(r).toEqual({ status: 401, body: { code: 40100, message: expect.any(String) } });
  });

  test('cancel works only while queued', async () => {
    const queued = await submit(body(unique('cancel me [sim:never] [sim:duration=600000]')));
    const cancel = (id: string) =>
      fetch(`${simUrl}/v1/tasks/${id}/cancel`, { method: 'POST', headers: { authorization: 'Bearer sim-b-key' } }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as any,
      }));
    const id = queued.body.data.taskId;
    expect(await cancel(id)).toEqual({ status: 200, body: { code: 0, message: 'ok', data: { taskId: id, status: 'CANCELLED' } } });
    const view = await fetch(`${simUrl}/v1/tasks/${id}`, { headers: { authorization: 'Bearer sim-b-key' } }).then((res) => res.json() as Promise<any>);
    expect(view.data).toEqual({ taskId: id, status: 'CANCELLED', progress: 0, outputs: [], error: null });

    const running = await submit(body(unique('running [sim:never] [sim:duration=4]')));
    // A job of 4 ms is past its queued quarter at once and never finishes: it is running for good.
    await new Promise((res) => setTimeout(res, 20));
    expect(await cancel(running.body.data.taskId)).toEqual({ status: 400, body: { code: 40006, message: expect.any(String) } });
  });
});
