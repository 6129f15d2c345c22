/**
 * The platform V simulator (sim/v), over real HTTP: Bearer auth, strict per-model validation (Seedance 1.0 / 1.5 /
 * 2.0), the task object (no request echo), generate_audio's default on 2.0, the list and its filters,
 * cancel-or-delete, expiry, account-level refusals, injected faults, and per-task callbacks with their faults.
 */
import { SIM_ACCOUNTS } from '../../sim/accounts';
import { startSimulator, type Simulator } from '../../sim/server';
import { startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait-for';

let sim: Simulator;
const AUTH = { Authorization: `Bearer ${SIM_ACCOUNTS.V.apiKey}`, 'Content-Type': 'application/json' };

beforeAll(async () => {
  sim = await startSimulator({ port: 0, jobDurationMs: 400 });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(async () => {
  sim.reset();
  await fetch(`${sim.url}/_sim/v/account-faults`, { method: 'DELETE' });
});

const TASKS = '/api/v3/contents/generations/tasks';

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(`${sim.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, headers: res.headers };
}
const create = (body: unknown) => call('POST', TASKS, body);
const get = (id: string) => call('GET', `${TASKS}/${id}`);
const list = (query = '') => call('GET', `${TASKS}${query ? `?${query}` : ''}`);

const text = (t = 'a cat') => ({ type: 'text', text: t });
const img = (role?: string, n = 1) => ({ type: 'image_url', image_url: { url: `https://x.test/${n}.png` }, ...(role ? { role } : {}) });
const vid = (n = 1) => ({ type: 'video_url', video_url: { url: `https://x.test/${n}.mp4` }, role: 'reference_video' });
const aud = (n = 1) => ({ type: 'audio_url', audio_url: { url: `https://x.test/${n}.mp3` }, role: 'reference_audio' });

const M = {
  pro: 'doubao-seedance-1-0-pro-250528',
  proFast: 'doubao-seedance-1-0-pro-fast-251015',
  liteT2v: 'doubao-seedance-1-0-lite-t2v-250428',
  liteI2v: 'doubao-seedance-1-0-lite-i2v-250428',
  v15: 'doubao-seedance-1-5-pro-251215',
  v20: 'doubao-seedance-2-0-260128',
  v20fast: 'doubao-seedance-2-0-fast-260128',
};

const statusIs = (id: string, status: string) =>
  waitFor(async () => {
    const r = await get(id);
    return r.json.status === status ? r.json : undefined;
  });
const stats = async () => ((await (await fetch(`${sim.url}/_sim/stats`)).json()) as Record<string, Record<string, number>>).V!;

const receiver = () => startReceiver('/ark-callback');

// ================================================================== auth and the task object
test('a missing or wrong API key → 401 AuthenticationError', async () => {
  const r = await call('POST', TASKS, { model: M.pro, content: [text()] }, { 'Content-Type': 'application/json', Authorization: 'Bearer nope' });
  expect(r.status).toBe(401);
  expect(r.json.error).toMatchObject({ code: 'AuthenticationError', type: 'Unauthorized' });
  expect((await call('GET', `${TASKS}/cgt-x`, undefined, {})).status).toBe(401);
});

test('create → {id}; the task object as the SDK defines it, with no echo of the request content', async () => {
  const r = await create({ model: M.v15, content: [text('a secret prompt'), img('first_frame', 7)], ratio: '4:3', duration: 6, resolution: '1080p', seed: 11, return_last_frame: true, safety_identifier: 'user-42' });
  expect(r.status).toBe(200);
  expect(Object.keys(r.json)).toEqual(['id']);
  expect(r.json.id).toMatch(/^cgt-/);
  const queued = (await get(r.json.id)).json;
  expect(queued).toMatchObject({ id: r.json.id, model: M.v15, status: 'queued', error: null, seed: 11, ratio: '4:3', resolution: '1080p', duration: 6, framespersecond: 24 });
  expect(queued.content).toBeUndefined();
  const done = await statusIs(r.json.id, 'succeeded');
  expect(done.content.video_url).toMatch(/\.mp4$/);
  expect(done.content.last_frame_url).toMatch(/\.png$/);
  expect(done.usage.completion_tokens).toBeGreaterThan(0);
  expect(done).toMatchObject({ service_tier: 'default', execution_expires_after: 172800, priority: 0, generate_audio: true, draft: false, safety_identifier: 'user-42' });
  expect(done.updated_at).toBeGreaterThanOrEqual(done.created_at);
  const serialised = JSON.stringify(done);
  expect(serialised).not.toContain('a secret prompt');
  expect(serialised).not.toContain('https://x.test/7.png');
  expect((await fetch(done.content.video_url)).status).toBe(200);
});

test('null values count as absent (the official SDK sends every unset parameter as null)', async () => {
  const r = await create({ model: M.pro, content: [text()], callback_url: null, seed: null, tools: null, service_tier: null, execution_expires_after: null, draft: null });
  expect(r.status).toBe(200);
});

// ================================================================== validation
describe('create validation', () => {
  const cases: [string, Record<string, unknown>, number, string | undefined][] = [
    ['unknown parameter', { model: M.pro, content: [text()], fps: 24 }, 400, 'InvalidParameter'],
    ['no model', { content: [text()] }, 400, 'MissingParameter'],
    ['unknown model', { model: 'doubao-seedance-9-0', content: [text()] }, 404, 'InvalidEndpointOrModel.NotFound'],
    ['BytePlus model id on Volcengine', { model: 'dreamina-seedance-2-0-260128', content: [text()] }, 404, 'InvalidEndpointOrModel.NotFound'],
    ['no content', { model: M.pro }, 400, 'MissingParameter'],
    ['two texts', { model: M.pro, content: [text(), text()] }, 400, 'InvalidParameter'],
    ['unknown item field', { model: M.pro, content: [{ type: 'text', text: 'x', role: 'prompt' }] }, 400, 'InvalidParameter'],
    ['ratio 5:4', { model: M.pro, content: [text()], ratio: '5:4' }, 400, 'InvalidParameter'],
    ['ratio 21:9', { model: M.pro, content: [text()], ratio: '21:9' }, 200, undefined],
    ['ratio adaptive, 1.0 text only', { model: M.pro, content: [text()], ratio: 'adaptive' }, 400, 'InvalidParameter'],
    ['ratio adaptive, 1.5 text only', { model: M.v15, content: [text()], ratio: 'adaptive' }, 200, undefined],
    ['resolution 1080P (upper case)', { model: M.pro, content: [text()], resolution: '1080P' }, 400, 'InvalidParameter'],
    ['1.0 pro 2 s', { model: M.pro, content: [text()], duration: 2 }, 200, undefined],
    ['1.0 pro 13 s', { model: M.pro, content: [text()], duration: 13 }, 400, 'InvalidParameter'],
    ['1.0 pro first+last', { model: M.pro, content: [text(), img('first_frame'), img('last_frame', 2)] }, 200, undefined],
    ['1.0 pro reference image', { model: M.pro, content: [text(), img('reference_image')] }, 400, 'InvalidParameter'],
    ['pro-fast first frame', { model: M.proFast, content: [text(), img()] }, 200, undefined],
    ['pro-fast first+last', { model: M.proFast, content: [text(), img('first_frame'), img('last_frame', 2)] }, 400, 'InvalidParameter'],
    ['last frame alone', { model: M.pro, content: [text(), img('last_frame')] }, 400, 'InvalidParameter'],
    ['lite t2v with an image', { model: M.liteT2v, content: [text(), img()] }, 400, 'InvalidParameter'],
    ['lite i2v text only', { model: M.liteI2v, content: [text()] }, 400, 'InvalidParameter'],
    ['lite i2v 4 reference images', { model: M.liteI2v, content: [text(), ...[1, 2, 3, 4].map((n) => img('reference_image', n))] }, 200, undefined],
    ['lite i2v 5 reference images', { model: M.liteI2v, content: [text(), ...[1, 2, 3, 4, 5].map((n) => img('reference_image', n))] }, 400, 'InvalidParameter'],
    ['1.5 pro 3 s', { model: M.v15, content: [text()], duration: 3 }, 400, 'InvalidParameter'],
    ['1.5 pro 12 s', { model: M.v15, content: [text()], duration: 12 }, 200, undefined],
    ['1.5 pro 13 s', { model: M.v15, content: [text()], duration: 13 }, 400, 'InvalidParameter'],
    ['1.5 pro auto (-1)', { model: M.v15, content: [text()], duration: -1 }, 200, undefined],
    ['1.0 pro auto (-1)', { model: M.pro, content: [text()], duration: -1 }, 400, 'InvalidParameter'],
    ['1.5 pro draft at 480p', { model: M.v15, content: [text()], draft: true, resolution: '480p' }, 200, undefined],
    ['1.5 pro draft at 720p', { model: M.v15, content: [text()], draft: true, resolution: '720p' }, 400, 'InvalidParameter'],
    ['2.0 draft', { model: M.v20, content: [text()], draft: true }, 400, 'InvalidParameter'],
    ['2.0-fast draft', { model: M.v20fast, content: [text()], draft: true }, 400, 'InvalidParameter'],
    ['2.0-fast 1080p', { model: M.v20fast, content: [text()], resolution: '1080p' }, 400, 'InvalidParameter'],
    ['2.0 1080p 15 s', { model: M.v20, content: [text()], resolution: '1080p', duration: 15 }, 200, undefined],
    ['2.0 16 s', { model: M.v20, content: [text()], duration: 16 }, 400, 'InvalidParameter'],
    ['2.0 9 images, 3 videos, 3 audios', { model: M.v20, content: [text(), ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => img('reference_image', n)), vid(1), vid(2), vid(3), aud(1), aud(2), aud(3)] }, 200, undefined],
    ['2.0 10 reference images', { model: M.v20, content: [text(), ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => img('reference_image', n))] }, 400, 'InvalidParameter'],
    ['2.0 4 reference videos', { model: M.v20, content: [text(), vid(1), vid(2), vid(3), vid(4)] }, 400, 'InvalidParameter'],
    ['2.0 4 reference audios', { model: M.v20, content: [text(), img('reference_image'), aud(1), aud(2), aud(3), aud(4)] }, 400, 'InvalidParameter'],
    ['2.0 audio alone', { model: M.v20, content: [text(), aud()] }, 400, 'InvalidParameter'],
    ['2.0 audio with a video', { model: M.v20, content: [text(), vid(), aud()] }, 200, undefined],
    ['2.0 first frame + reference video', { model: M.v20, content: [text(), img('first_frame'), vid()] }, 400, 'InvalidParameter'],
    ['1.5 pro reference video', { model: M.v15, content: [text(), vid()] }, 400, 'InvalidParameter'],
    ['web search on 2.0', { model: M.v20, content: [text()], tools: [{ type: 'web_search' }] }, 200, undefined],
    ['web search on 1.5 pro', { model: M.v15, content: [text()], tools: [{ type: 'web_search' }] }, 400, 'InvalidParameter'],
    ['unknown tool', { model: M.v20, content: [text()], tools: [{ type: 'code_interpreter' }] }, 400, 'InvalidParameter'],
    ['execution_expires_after 100', { model: M.pro, content: [text()], execution_expires_after: 100 }, 400, 'InvalidParameter'],
    ['execution_expires_after 3600', { model: M.pro, content: [text()], execution_expires_after: 3600 }, 200, undefined],
    ['service_tier flex', { model: M.pro, content: [text()], service_tier: 'flex' }, 200, undefined],
    ['service_tier priority', { model: M.pro, content: [text()], service_tier: 'priority' }, 400, 'InvalidParameter'],
    ['seed too large', { model: M.pro, content: [text()], seed: 2 ** 32 }, 400, 'InvalidParameter'],
    ['generate_audio as a string', { model: M.v20, content: [text()], generate_audio: 'true' }, 400, 'InvalidParameter'],
    ['callback_url not a URL', { model: M.pro, content: [text()], callback_url: 'ftp://x' }, 400, 'InvalidParameter'],
    ['duration and frames', { model: M.pro, content: [text()], duration: 5, frames: 121 }, 400, 'InvalidParameter'],
    ['frames 121 on 1.0 pro', { model: M.pro, content: [text()], frames: 121 }, 200, undefined],
    ['frames 120', { model: M.pro, content: [text()], frames: 120 }, 400, 'InvalidParameter'],
    ['camera_fixed with reference images', { model: M.liteI2v, content: [text(), img('reference_image')], camera_fixed: true }, 400, 'InvalidParameter'],
  ];

  test.each(cases)('%s', async (_name, body, status, code) => {
    const r = await create(body);
    expect(r.status).toBe(status);
    if (code) {
      expect(r.json.error.code).toBe(code);
      expect(r.json.error.type).toBe(status === 404 ? 'NotFound' : 'BadRequest');
      expect(typeof r.json.error.message).toBe('string');
      expect(typeof r.json.error.param).toBe('string');
    } else {
      expect(r.json.id).toMatch(/^cgt-/);
    }
  });

  test('refusals create nothing', async () => {
    await create({ model: M.v20, content: [text(), aud()] });
    const s = await stats();
    expect(s).toMatchObject({ submitRequests: 1, jobsCreated: 0, rejected: 1 });
  });
});

// ================================================================== generate_audio
test('generate_audio defaults to true on 2.0 (billed with audio), follows an explicit false, is absent on 1.0', async () => {
  const dflt = (await create({ model: M.v20, content: [text()] })).json.id;
  const off = (await create({ model: M.v20, content: [text()], generate_audio: false })).json.id;
  const v1 = (await create({ model: M.pro, content: [text()], generate_audio: true })).json.id;
  expect((await get(dflt)).json.generate_audio).toBe(true);
  expect((await get(off)).json.generate_audio).toBe(false);
  expect((await get(v1)).json).not.toHaveProperty('generate_audio');
  const jobs = (await (await fetch(`${sim.url}/_sim/jobs?platform=V`)).json()) as any[];
  expect(jobs.find((j) => j.id === dflt).meta.generateAudio).toBe(true);
});

test('draft: a 1.5 pro draft, then a final render from its draft_task', async () => {
  const draft = (await create({ model: M.v15, content: [text()], draft: true })).json.id;
  expect((await get(draft)).json).toMatchObject({ draft: true, resolution: '480p' });
  const early = await create({ model: M.v15, content: [{ type: 'draft_task', draft_task: { id: draft } }] });
  expect(early.status).toBe(400);
  await statusIs(draft, 'succeeded');
  const final = await create({ model: M.v15, content: [{ type: 'draft_task', draft_task: { id: draft } }], resolution: '1080p' });
  expect(final.status).toBe(200);
  expect((await get(final.json.id)).json).toMatchObject({ draft: false, draft_task_id: draft, resolution: '1080p' });
});

// ================================================================== failures, expiry
test.each<[string, string]>([
  ['[sim:fail=content_policy]', 'OutputVideoSensitiveContentDetected'],
  ['[sim:fail=error]', 'InternalServiceError'],
  ['[sim:task-error=InputImageSensitiveContentDetected]', 'InputImageSensitiveContentDetected'],
])('%s → failed with error.code %s', async (directive, code) => {
  const id = (await create({ model: M.pro, content: [text(`a cat ${directive}`)] })).json.id;
  const task = await statusIs(id, 'failed');
  expect(task.error.code).toBe(code);
  expect(task.content).toBeUndefined();
});

test('expired: a job still running past execution_expires_after becomes expired (terminal)', async () => {
  const id = (await create({ model: M.v20, content: [text('slow [sim:never][sim:expires=300]')], execution_expires_after: 3600 })).json.id;
  expect((await get(id)).json.status).toBe('queued');
  const task = await statusIs(id, 'expired');
  expect(task).toMatchObject({ error: null, execution_expires_after: 3600 });
  expect(task.content).toBeUndefined();
  const l = await list('filter.status=expired');
  expect(l.json.items.map((x: any) => x.id)).toEqual([id]);
});

// ================================================================== list
test('list: {total, items}; filter.status, filter.task_ids (repeated), filter.model, filter.service_tier; page_num/page_size', async () => {
  const a = (await create({ model: M.pro, content: [text('a [sim:duration=50]')] })).json.id;
  await new Promise((r) => setTimeout(r, 5));
  const b = (await create({ model: M.v20, content: [text('b [sim:never]')], service_tier: 'flex' })).json.id;
  await new Promise((r) => setTimeout(r, 5));
  const c = (await create({ model: M.v20, content: [text('c [sim:never]')] })).json.id;
  await statusIs(a, 'succeeded');

  const all = await list();
  expect(all.status).toBe(200);
  expect(all.json.total).toBe(3);
  expect(all.json.items.map((x: any) => x.id)).toEqual([c, b, a]);
  expect(all.json.items[2].status).toBe('succeeded');

  expect((await list('filter.status=succeeded')).json.items.map((x: any) => x.id)).toEqual([a]);
  expect((await list(`filter.task_ids=${a}&filter.task_ids=${c}`)).json.items.map((x: any) => x.id)).toEqual([c, a]);
  expect((await list(`filter.model=${M.v20}`)).json.total).toBe(2);
  expect((await list('filter.service_tier=flex')).json.items.map((x: any) => x.id)).toEqual([b]);
  const p2 = await list('page_num=2&page_size=2');
  expect(p2.json).toMatchObject({ total: 3 });
  expect(p2.json.items.map((x: any) => x.id)).toEqual([a]);

  expect((await list('filter.status=done')).status).toBe(400);
  expect((await list('page_size=0')).status).toBe(400);
  expect((await list('filter.prompt=b')).status).toBe(400);
  expect((await stats()).lists).toBeGreaterThan(0);
});

// ================================================================== cancel or delete
test('DELETE: queued → cancelled; running → refused; succeeded → record deleted', async () => {
  const q = (await create({ model: M.pro, content: [text('q [sim:duration=60000]')] })).json.id;
  const del = await call('DELETE', `${TASKS}/${q}`);
  expect(del.status).toBe(200);
  expect(del.json).toEqual({});
  expect((await get(q)).json.status).toBe('cancelled');
  expect((await call('DELETE', `${TASKS}/${q}`)).status).toBe(400);

  const r = (await create({ model: M.pro, content: [text('r [sim:never]')] })).json.id;
  await statusIs(r, 'running');
  const refused = await call('DELETE', `${TASKS}/${r}`);
  expect(refused.status).toBe(400);
  expect(refused.json.error.code).toBe('InvalidParameter');

  const s = (await create({ model: M.pro, content: [text('s')] })).json.id;
  await statusIs(s, 'succeeded');
  expect((await call('DELETE', `${TASKS}/${s}`)).status).toBe(200);
  const gone = await get(s);
  expect(gone.status).toBe(404);
  expect(gone.json.error.code).toBe('ResourceNotFound');
  expect((await list()).json.items.map((x: any) => x.id)).not.toContain(s);
  expect((await call('DELETE', `${TASKS}/cgt-unknown`)).status).toBe(404);
});

// ================================================================== account refusals and faults
test.each<[string, number]>([
  ['QuotaExceeded', 429],
  ['SetLimitExceeded', 429],
  ['InvalidEndpoint.ClosedEndpoint', 400],
  ['AccountOverdueError', 403],
  ['ModelNotOpen', 404],
])('[sim:reject=%s] → HTTP %i with that code, nothing created', async (code, status) => {
  const r = await create({ model: M.pro, content: [text(`cat [sim:reject=${code}]`)] });
  expect(r.status).toBe(status);
  expect(r.json.error.code).toBe(code);
  expect((await stats()).jobsCreated).toBe(0);
});

test('/_sim/v/account-faults: the next N requests of an op answer the code', async () => {
  await call('POST', '/_sim/v/account-faults', { code: 'AccountOverdueError', count: 1 });
  const r1 = await create({ model: M.pro, content: [text()] });
  expect(r1.status).toBe(403);
  expect(r1.json.error).toMatchObject({ code: 'AccountOverdueError', type: 'Forbidden' });
  expect((await create({ model: M.pro, content: [text()] })).status).toBe(200);
  await call('POST', '/_sim/v/account-faults', { code: 'QuotaExceeded', op: 'list' });
  expect((await list()).json.error.code).toBe('QuotaExceeded');
  expect((await list()).json.error.code).toBe('QuotaExceeded');
  await call('DELETE', '/_sim/v/account-faults');
  expect((await list()).status).toBe(200);
});

test("the simulator's reset (POST /_sim/reset) clears V's account faults too", async () => {
  await call('POST', '/_sim/v/account-faults', { code: 'QuotaExceeded', op: 'list' });
  expect((await list()).json.error.code).toBe('QuotaExceeded');
  await call('POST', '/_sim/reset');
  expect((await list()).status).toBe(200);
});

test('injected 429 is a true rate limit (RateLimitExceeded.*, Retry-After); 500 InternalServiceError', async () => {
  await call('POST', '/_sim/faults', { platform: 'V', op: 'submit', status: 429, count: 1, retryAfterSeconds: 3 });
  const r = await create({ model: M.pro, content: [text()] });
  expect(r.status).toBe(429);
  expect(r.json.error.code).toBe('RateLimitExceeded.EndpointRPMExceeded');
  expect(r.headers.get('retry-after')).toBe('3');
  const e = await create({ model: M.pro, content: [text('x [sim:submit=500]')] });
  expect(e.status).toBe(500);
  expect(e.json.error.code).toBe('InternalServiceError');
});

test('drop fault: the job is created, the answer is lost; the list finds it', async () => {
  await expect(create({ model: M.pro, content: [text('dropped [sim:submit=drop]')] })).rejects.toThrow();
  const s = await stats();
  expect(s).toMatchObject({ jobsCreated: 1, answersDropped: 1 });
  expect((await list()).json.total).toBe(1);
});

// ================================================================== callbacks
describe('callbacks', () => {
  const deliveries = async () => (await (await fetch(`${sim.url}/_sim/callbacks?platform=V`)).json()) as any[];

  test('the task object is POSTed on each status change: queued, running, succeeded', async () => {
    const rx = await receiver();
    try {
      const id = (await create({ model: M.pro, content: [text()], callback_url: rx.url })).json.id;
      await waitFor(async () => (rx.got.some((g) => g.body.status === 'succeeded') ? true : undefined));
      expect(rx.got.map((g) => g.body.status)).toEqual(['queued', 'running', 'succeeded']);
      expect(rx.got[2]!.body).toMatchObject({ id, model: M.pro, content: { video_url: expect.stringMatching(/\.mp4$/) } });
    } finally {
      await rx.close();
    }
  });

  test('cancelled and expired are pushed too', async () => {
    const rx = await receiver();
    try {
      const c = (await create({ model: M.pro, content: [text('c [sim:duration=60000]')], callback_url: rx.url })).json.id;
      await call('DELETE', `${TASKS}/${c}`);
      const e = (await create({ model: M.pro, content: [text('e [sim:never][sim:expires=250]')], callback_url: rx.url })).json.id;
      await waitFor(async () => (rx.got.some((g) => g.body.id === e && g.body.status === 'expired') ? true : undefined));
      expect(rx.got.filter((g) => g.body.id === c).map((g) => g.body.status)).toEqual(['queued', 'cancelled']);
      expect(rx.got.filter((g) => g.body.id === e).map((g) => g.body.status)).toEqual(['queued', 'running', 'expired']);
    } finally {
      await rx.close();
    }
  });

  test.each<[string, Record<string, unknown>]>([
    ['drop', { fault: 'drop' }],
    ['duplicate', { fault: 'duplicate' }],
    ['late', { fault: 'late', delayMs: 400 }],
    ['bad-signature', { fault: 'bad-signature' }],
  ])('fault %s on the first callback', async (name, fault) => {
    const rx = await receiver();
    try {
      await call('POST', '/_sim/callback-faults', { platform: 'V', count: 1, ...fault });
      const started = Date.now();
      await create({ model: M.pro, content: [text('cb [sim:duration=60000]')], callback_url: rx.url });
      const [first] = await waitFor(async () => {
        const d = await deliveries();
        return d.length ? d : undefined;
      });
      expect(first.fault).toBe(name);
      if (name === 'drop') {
        await new Promise((r) => setTimeout(r, 300));
        expect(rx.got).toHaveLength(0);
      } else if (name === 'duplicate') {
        await waitFor(async () => (rx.got.length >= 2 ? true : undefined));
        expect(rx.got[0]!.body).toEqual(rx.got[1]!.body);
      } else if (name === 'late') {
        const got = await waitFor(async () => rx.got[0]);
        expect(got.at - started).toBeGreaterThanOrEqual(350);
      } else {
        // Ark does not sign callbacks: nothing to corrupt, the body arrives as the task object.
        const got = await waitFor(async () => rx.got[0]);
        expect(got.body.status).toBe('queued');
      }
    } finally {
      await rx.close();
    }
  });
});
