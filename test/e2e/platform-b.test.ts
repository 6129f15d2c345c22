/**
 * Platform B (Baidu AI Cloud VOD AIGC) over real HTTP: API → Temporal → worker → B adapter → simulator, and back.
 * The simulator is written from the shared platform page, not from our code: it verifies bce-auth-v1, refuses
 * what B refuses, ignores (and records) fields B would ignore, and has no dedup. Each test checks what the
 * simulator received (signed headers, body) and did (fields recognised, the output it made) as well as what the
 * client got.
 */
import { parseGenerationBody } from '../../tasks/validation';
import { buildCatalogue } from '../../platforms';
import { createPlatformB } from '../../platforms/b/adapter';
import { createHttpClient } from '../../platforms/http';
import { SIM_ACCOUNTS } from '../../sim/accounts';
import { unique } from '../support/prompts';
import { sharedStack } from '../support/shared-stack';
import { temporalClient, upstreamIdOf as upstreamIdOfTask, type TemporalTestClient } from '../support/temporal';

const { api, sim, simUrl, temporalAddress } = sharedStack();
const alice = api('alice');

/** Which upstream job each task followed: the workflow's GenerationUpstreamTaskId search attribute. */
let temporal: TemporalTestClient;
beforeAll(async () => {
  temporal = await temporalClient(temporalAddress);
});
afterAll(() => temporal.close());
const upstreamIdOf = (taskId: string) => upstreamIdOfTask(temporal.client, taskId);

/** A result link (the gateway's stored copy) and what it serves. */
async function content(url: string): Promise<{ type: string | null; bytes: Buffer }> {
  const res = await fetch(new URL(url, alice.baseUrl));
  const bytes = Buffer.from(await res.arrayBuffer());
  expect({ status: res.status, error: res.status === 200 ? undefined : bytes.toString('utf8') }).toEqual({ status: 200, error: undefined });
  return { type: res.headers.get('content-type'), bytes };
}

/** Spec 2.5 (platform B series) and 2.6. */
const SPEC_VIDEO = [
  'V20',
  'VQ1',
  'VQ1C',
  'VQ2',
  'VQ2T',
  'VQ2P',
  'VQ2PF',
  'VQ3P',
  'VQ3T',
  'P35',
  'P40',
  'P45',
  'P50',
  'P55',
  'K16',
  'K20',
  'K21',
  'K21M',
  'K25T',
  'K26',
  'KO1',
  'H20',
  'H23',
  'H23F',
  'VE3.1',
  'VE3.1F',
  'VE3.1P',
  'VE3.1FP',
];
const SPEC_IMAGE = ['NB', 'NBP', 'NB2', 'I4YG1', 'I4FG1', 'I4G1'];

/** A unique prompt (recorded requests can be told apart) whose simulated job takes `ms` (keeps the sweep fast). */
const uniqueFast = (text: string, ms = 300) => unique(`${text} [sim:duration=${ms}]`);
const IMG = 'https://images.test/first.png';
const IMG2 = 'https://images.test/last.png';
const taskInputKey = (code: string) => `model${code.replace(/\./g, '')}TaskInput`;

/** The prompt a recorded B create carries (video TaskInput or image message). */
function promptOf(body: any): string | undefined {
  if (!body || typeof body.model !== 'string') return undefined;
  return body[taskInputKey(body.model)]?.prompt ?? body.messages?.[0]?.content?.find((c: any) => c.type === 'text')?.text;
}

const submitsFor = async (prompt: string) => (await sim.requests('B', 'submit')).filter((r) => promptOf(r.body) === prompt);
const jobsFor = async (prompt: string) => (await sim.jobs('B')).filter((j) => promptOf(j.meta.request) === prompt);

const HEX64 = /^[0-9a-f]{64}$/;
/** What every /v2 call must carry: bce-auth-v1 with the test account, signing exactly host;x-bce-date. */
function expectSigned(headers: Record<string, string>) {
  const host = new URL(simUrl).host;
  expect(headers.host).toBe(host);
  expect(headers['x-bce-date']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const [version, ak, ts, exp, signed, signature] = headers.authorization!.split('/');
  expect({ version, ak, ts, exp, signed }).toEqual({
    version: 'bce-auth-v1',
    ak: SIM_ACCOUNTS.B.accessKeyId,
    ts: headers['x-bce-date'],
    exp: '1800',
    signed: 'host;x-bce-date',
  });
  expect(signature).toMatch(HEX64);
}

/** A request's first duration the model takes, the largest of a list or one above the minimum of a range. */
function durationFor(model: any): number {
  return model.durations.values ? model.durations.values.at(-1) : model.durations.min + 1;
}

async function run(path: string, body: Record<string, unknown>, sync: boolean): Promise<any> {
  if (sync) {
    const r = await alice.post(path, body);
    expect({ status: r.status, error: r.body?.error }).toEqual({ status: 200, error: undefined });
    return r.body;
  }
  const r = await alice.post(path, body, { 'X-Async': 'true' });
  expect({ status: r.status, state: r.body?.status }).toEqual({ status: 200, state: 'pending' });
  return alice.waitForTask(r.body.task_id, 60_000);
}

describe('every platform B model, end to end', () => {
  let models: any[];
  beforeAll(async () => {
    models = (await alice.get('/v1/models')).body.data.filter((m: any) => m.owned_by === 'B');
  });

  test('GET /v1/models lists exactly the spec’s B models', () => {
    expect(
      models
        .filter((m) => m.type === 'video')
        .map((m) => m.id)
        .sort(),
    ).toEqual([...SPEC_VIDEO].sort());
    expect(
      models
        .filter((m) => m.type === 'image')
        .map((m) => m.id)
        .sort(),
    ).toEqual([...SPEC_IMAGE].sort());
  });

  test('video: text-to-video and image-to-video where each model has them, sync and async; signed, nothing ignored, the output follows the request', async () => {
    const cases = models
      .filter((m) => m.type === 'video')
      .flatMap((m) =>
        (['text_to_video', 'image_to_video'] as const).filter((e) => m.capabilities.includes(e)).map((endpoint) => ({ m, endpoint })),
      );
    // Models with both endpoints run one sync and one async; single-endpoint models alternate.
    const results = await Promise.all(
      cases.map(async ({ m, endpoint }, i) => {
        const prompt = uniqueFast(`${m.id} ${endpoint}`);
        const duration = durationFor(m);
        const body =
          endpoint === 'text_to_video'
            ? { model: m.id, action: 'text_to_video', prompt, duration }
            : { model: m.id, prompt, duration, image: { imageUrl: IMG } };
        const sync = i % 2 === 0;
        const result = await run('/v1/videos/generations', body, sync);
        return { m, endpoint, prompt, duration, sync, result };
      }),
    );
    expect(new Set(results.map((r) => r.sync))).toEqual(new Set([true, false]));
    const pollsSeen = await sim.requests('B', 'poll');
    for (const { m, endpoint, prompt, duration, sync, result } of results) {
      const label = `${m.id} ${endpoint} ${sync ? 'sync' : 'async'}`;
      if (!sync) expect([label, result.status]).toEqual([label, 'success']);
      expect([label, result.data]).toEqual([label, [{ url: expect.any(String) }]]);

      const submits = await submitsFor(prompt);
      expect([label, submits.length]).toEqual([label, 1]);
      const [submit] = submits;
      expect(submit).toMatchObject({
        method: 'POST',
        path: `/v2/aigc/${endpoint}`,
        status: 200,
        response: { taskId: expect.stringMatching(/^tsk-[a-z0-9]{16}$/) },
      });
      expectSigned(submit!.headers);
      expect(submit!.headers['content-type']).toBe('application/json');
      expect(Object.keys(submit!.body).sort()).toEqual(['model', taskInputKey(m.id)].sort());
      expect(submit!.body.model).toBe(m.id);
      expect(submit!.body[taskInputKey(m.id)].prompt).toBe(prompt);

      const [job] = await jobsFor(prompt);
      expect([label, job!.meta.fields.ignored]).toEqual([label, []]);
      expect([label, job!.meta.output.durationInSecond]).toEqual([label, duration]);
      expect([label, job!.meta.mode]).toEqual([label, endpoint === 'text_to_video' ? 'text' : 'first-frame']);
      expect([label, await upstreamIdOf(result.task_id)]).toEqual([label, job!.id]);
      const polls = pollsSeen.filter((p) => p.path === `/v2/tasks/${job!.id}`);
      expect([label, polls.length > 0]).toEqual([label, true]);
      for (const p of polls) expectSigned(p.headers);
    }
  });

  test('images: every model with n and quality where allowed, reference images where allowed, sync and async', async () => {
    const cases = models
      .filter((m) => m.type === 'image')
      .map((m, i) => {
        const prompt = uniqueFast(`${m.id} image`);
        const n = m.max_images;
        const quality = m.qualities.includes('2K') ? '2K' : 'standard';
        const images = m.max_reference_images > 0 ? [{ url: IMG }, { url: IMG2 }].slice(0, m.max_reference_images) : undefined;
        return { m, prompt, n, quality, images, sync: i % 2 === 1 };
      });
    const results = await Promise.all(
      cases.map(async (c) => ({
        ...c,
        result: await run(
          '/v1/images/generations',
          { model: c.m.id, prompt: c.prompt, n: c.n, quality: c.quality, size: '1920x1080', ...(c.images ? { images: c.images } : {}) },
          c.sync,
        ),
      })),
    );
    expect(results.filter((r) => r.n > 1).length).toBeGreaterThan(0);
    for (const { m, prompt, n, quality, images, result } of results) {
      expect([m.id, result.data.length]).toEqual([m.id, n]);
      expect((await content(result.data.at(-1).url)).type).toBe('image/png');
      const [submit, ...more] = await submitsFor(prompt);
      expect(more).toHaveLength(0);
      expect(submit).toMatchObject({ method: 'POST', path: '/v2/aigc/image', status: 200 });
      expectSigned(submit!.headers);
      expect(submit!.body).toEqual({
        model: m.id,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: prompt },
              ...(images ?? []).map((i) => ({ type: 'image_url', image_item: { image_url: i.url } })),
            ],
          },
        ],
        ...(n !== undefined ? { n } : {}),
        size: '16:9',
        quality: quality === 'standard' ? '1K' : quality,
      });
      const [job] = await jobsFor(prompt);
      expect([m.id, job!.meta.fields.ignored]).toEqual([m.id, []]);
      expect(job!.meta.output).toMatchObject({ n, size: '16:9', quality: quality === 'standard' ? '1K' : quality });
      expect(await upstreamIdOf(result.task_id)).toBe(job!.id);
    }
  });
});

describe('golden requests on the wire (the shared page’s examples)', () => {
  test('Vidu first + last frame, sync: the official callback example’s TaskInput, and a real MP4', async () => {
    const prompt = uniqueFast('两个人拥抱');
    const r = await alice.post('/v1/videos/generations', {
      model: 'V20',
      prompt,
      image_url: 'https://x.test/head.jpeg',
      last_frame_url: 'https://x.test/tail.jpeg',
      duration: 4,
      resolution: '720p',
    });
    expect(r.status).toBe(200);
    const [submit] = await submitsFor(prompt);
    expect(submit!.body).toEqual({
      model: 'V20',
      modelV20TaskInput: {
        headtailImages: { headImage: { imageUrl: 'https://x.test/head.jpeg' }, tailImage: { imageUrl: 'https://x.test/tail.jpeg' } },
        prompt,
        duration: 4,
        resolution: '720p',
        movementAmplitude: 'auto',
      },
    });
    const [job] = await jobsFor(prompt);
    expect(job!.meta).toMatchObject({ mode: 'first-last', fields: { ignored: [] }, output: { durationInSecond: 4, resolution: '720p' } });
    const file = await content(r.body.data[0].url);
    expect(file.type).toBe('video/mp4');
    expect(file.bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });

  test('Veo text-to-video, async: the third-party body plus the submit’s seed; pending → running → success, no progress invented', async () => {
    const prompt = uniqueFast('a koi pond at dawn', 1500);
    const r = await alice.post('/v1/async/videos/generations', {
      model: 'VE3.1',
      action: 'text_to_video',
      prompt,
      ratio: '9:16',
      duration: 6,
      resolution: '1080P',
      negative_prompt: 'blur',
      audio: 'true',
    });
    expect(r.body).toMatchObject({ status: 'pending', model: 'VE3.1' });
    const { record, seen } = await alice.watchTask(r.body.task_id);
    expect(record).toMatchObject({ status: 'success', data: [{ url: expect.any(String) }] });
    expect(seen[0]).toBe('pending');
    for (const s of seen.filter((x) => x.startsWith('running'))) expect(s).toBe('running 0%');
    const [submit] = await submitsFor(prompt);
    expect(submit).toMatchObject({ path: '/v2/aigc/text_to_video' });
    expect(submit!.body).toEqual({
      model: 'VE3.1',
      modelVE31TaskInput: {
        prompt,
        n: 1,
        aspectRatio: '9:16',
        durationSeconds: 6,
        resolution: '1080p',
        negativePrompt: 'blur',
        generateAudio: true,
        seed: expect.any(Number),
      },
    });
    const [job] = await jobsFor(prompt);
    expect(job!.meta.output).toMatchObject({
      durationInSecond: 6,
      aspectRatio: '9:16',
      resolution: '1080p',
      audio: true,
      widthInPixel: 1080,
      heightInPixel: 1920,
    });
  });

  test('Veo reference images and Kling 2.6 with sound: each field recognised', async () => {
    const refPrompt = uniqueFast('reference');
    const kPrompt = uniqueFast('kling sound');
    await Promise.all([
      run(
        '/v1/videos/generations',
        { model: 'VE3.1P', action: 'image_to_video', prompt: refPrompt, images: [{ url: IMG }, { url: IMG2 }], duration: 8 },
        true,
      ),
      run(
        '/v1/videos/generations',
        { model: 'K26', action: 'text_to_video', prompt: kPrompt, duration: 10, resolution: '1080p', audio: 'true' },
        false,
      ),
    ]);
    const [ref] = await jobsFor(refPrompt);
    expect(ref!.meta).toMatchObject({ mode: 'reference', fields: { ignored: [] } });
    expect(ref!.meta.request.modelVE31PTaskInput.referenceImages).toEqual([{ imageUrl: IMG }, { imageUrl: IMG2 }]);
    const [k] = await jobsFor(kPrompt);
    expect(k!.meta.request.modelK26TaskInput).toEqual({ prompt: kPrompt, duration: 10, mode: 'pro', sound: 'on' });
    expect(k!.meta).toMatchObject({ fields: { ignored: [] }, output: { durationInSecond: 10, resolution: '1080p', audio: true } });
  });
});

describe('a create whose answer is lost (B has no idempotency key)', () => {
  // Each waits out the submit's settling time (activities/submit.ts): run side by side.
  test.concurrent(
    'the job is found through the task list and adopted: one upstream job, a successful task (Kling by its body, Veo by its seed)',
    async () => {
      const cases = [
        { model: 'K20', action: 'text_to_video', prompt: uniqueFast('lost kling [sim:submit=drop]'), duration: 5 },
        { model: 'VE3.1F', prompt: uniqueFast('lost veo [sim:submit=drop]'), image_url: IMG, duration: 4 },
      ];
      const before = (await sim.stats()).B;
      const done = await Promise.all(
        cases.map(async (body) => {
          const r = await alice.post('/v1/async/videos/generations', body);
          return alice.waitForTask(r.body.task_id, 90_000);
        }),
      );
      const after = (await sim.stats()).B;
      expect(after.answersDropped - before.answersDropped).toBeGreaterThanOrEqual(2);
      for (const [i, body] of cases.entries()) {
        expect(done[i]).toMatchObject({ status: 'success', data: [{ url: expect.any(String) }] });
        const jobs = await jobsFor(body.prompt);
        expect([body.model, jobs.length]).toEqual([body.model, 1]);
        expect(await upstreamIdOf(done[i].task_id)).toBe(jobs[0]!.id);
        // One create (its answer dropped), then the list instead of a second create.
        const submits = await submitsFor(body.prompt);
        expect(submits.map((s) => s.status)).toEqual([0]);
      }
      const droppedAt = Math.min(
        ...(await sim.requests('B', 'submit')).filter((s) => cases.some((c) => promptOf(s.body) === c.prompt)).map((s) => s.at!),
      );
      const lists = (await sim.requests('B', 'list')).filter((l) => l.at! >= droppedAt);
      expect(lists.length).toBeGreaterThan(0);
      for (const l of lists) {
        expectSigned(l.headers);
        expect(l.query).toMatch(/^beginTime=\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A\d\dZ&maxSize=100/);
      }
    },
  );

  test.concurrent(
    'two tasks send the very same request and one answer is lost: each ends with its own job, none is paid twice',
    async () => {
      const prompt = uniqueFast('twins [sim:submit=drop]');
      const body = { model: 'K21M', action: 'text_to_video', prompt, duration: 5 };
      const [a, b] = await Promise.all([
        alice.post('/v1/async/videos/generations', body),
        alice.post('/v1/async/videos/generations', body),
      ]);
      const [doneA, doneB] = await Promise.all([alice.waitForTask(a.body.task_id, 90_000), alice.waitForTask(b.body.task_id, 90_000)]);
      expect([doneA.status, doneB.status]).toEqual(['success', 'success']);
      const jobs = await jobsFor(prompt);
      expect(jobs).toHaveLength(2);
      // Each task followed its own job: neither adopted the other's.
      expect((await Promise.all([upstreamIdOf(a.body.task_id), upstreamIdOf(b.body.task_id)])).sort()).toEqual(
        jobs.map((j) => j.id).sort(),
      );
      expect((await submitsFor(prompt)).map((s) => s.status).sort()).toEqual([0, 200]);
    },
  );
});

describe('failures and what B does not have', () => {
  test('a moderation failure is a failed task (async) and a 422 naming the task (sync)', async () => {
    const a = await alice.post('/v1/async/videos/generations', {
      model: 'H23',
      prompt: uniqueFast('forbidden [sim:fail=content_policy]'),
      image: { imageUrl: IMG },
      duration: 6,
    });
    const done = await alice.waitForTask(a.body.task_id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'content_policy', message: expect.stringMatching(/moderation/i) } });
    const s = await alice.post('/v1/images/generations', { model: 'NB', prompt: uniqueFast('forbidden [sim:fail=content_policy]') });
    expect(s.status).toBe(422);
    expect(s.body.error).toMatchObject({ code: 'content_policy', task_id: expect.any(String) });
  });

  test('cancel: the task ends cancelled and nothing is sent to B (it has no cancel)', async () => {
    const prompt = uniqueFast('cancel me [sim:never]');
    const r = await alice.post('/v1/async/videos/generations', { model: 'P35', action: 'text_to_video', prompt, duration: 5 });
    await sim.waitForRequest('B', 'submit', (b) => promptOf(b) === prompt);
    const before = (await sim.stats()).B.cancels;
    await new Promise((res) => setTimeout(res, 500));
    const c = await alice.post(`/v1/generations/${r.body.task_id}/cancel`, {});
    expect([200, 202]).toContain(c.status);
    expect(await alice.waitForTask(r.body.task_id)).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    expect((await sim.stats()).B.cancels).toBe(before);
  });

  test.each([
    ['rule 1: text-to-video without duration', { model: 'K20', action: 'text_to_video', prompt: 'no duration' }, 'duration'],
    ['rule 2: image-to-video (the default) without image', { model: 'K20', prompt: 'no image', duration: 5 }, 'image'],
    ['text-to-video on an image-to-video-only model', { model: 'KO1', action: 'text_to_video', prompt: 'x', duration: 5 }, 'action'],
    ['bgm: no B model has a known field for it', { model: 'VQ2', action: 'text_to_video', prompt: 'x', duration: 5, bgm: 'true' }, 'bgm'],
  ])('%s → 400 before anything reaches B', async (_name, body, param) => {
    const before = (await sim.stats()).B.submitRequests;
    const r = await alice.post('/v1/videos/generations', body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect((await sim.stats()).B.submitRequests).toBe(before);
  });
});

test('with an API key, text-to-video goes to /v3 with Bearer, and its task is read on /v2 with AK/SK (the adapter against the simulator)', async () => {
  const http = createHttpClient({ connectTimeoutMs: 5_000, responseTimeoutMs: 10_000 });
  try {
    const adapter = createPlatformB(
      {
        endpoint: simUrl,
        accessKeyId: SIM_ACCOUNTS.B.accessKeyId,
        secretAccessKey: SIM_ACCOUNTS.B.secretAccessKey,
        apiKey: SIM_ACCOUNTS.B.apiKey,
      },
      { http },
    );
    const prompt = uniqueFast('v3 route');
    const { entry, request } = parseGenerationBody(buildCatalogue(), new Set(['B']), 'video', {
      model: 'VQ2',
      action: 'text_to_video',
      prompt,
      duration: 3,
    });
    const { upstreamTaskId } = await adapter.submit(entry, request, {
      taskId: 'task_v3',
      dedupKey: 'v3-key',
      deadlineAt: Date.now() + 60_000,
    });
    const [submit] = await submitsFor(prompt);
    expect(submit).toMatchObject({
      method: 'POST',
      path: '/v3/aigc/text_to_video',
      status: 200,
      headers: { authorization: `Bearer ${SIM_ACCOUNTS.B.apiKey}` },
    });
    let status = await adapter.poll('video', upstreamTaskId);
    for (let i = 0; i < 50 && status.state !== 'success'; i++) {
      await new Promise((res) => setTimeout(res, 100));
      status = await adapter.poll('video', upstreamTaskId);
    }
    // The adapter's own view: B's media link, straight from the task detail, and the seconds B reports it made.
    expect(status).toEqual({
      state: 'success',
      outputs: [{ url: expect.stringContaining(`/files/${upstreamTaskId}-0.mp4`) }],
      usage: { seconds: expect.any(Number) },
    });
    const [poll] = (await sim.requests('B', 'poll')).filter((p) => p.path === `/v2/tasks/${upstreamTaskId}`);
    expectSigned(poll!.headers);
  } finally {
    await http.close();
  }
});
