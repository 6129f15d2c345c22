/**
 * sim/v/tasks.ts, over real HTTP: the task object as the SDK defines it (no request echo), generate_audio's default
 * on 2.0, drafts, failures and expiry.
 */
import { advanceJob } from '../../../support/simulator';
import { sim, create, get, list, text, img, M, statusIs, useVSimulator } from '../../../support/sim/v';

useVSimulator();

test('create → {id}; the task object as the SDK defines it, with no echo of the request content', async () => {
  // Held queued until moved on (sim:hold): the first read is of a queued job however slow the machine.
  const r = await create({
    model: M.v15,
    content: [text('a secret prompt [sim:hold]'), img('first_frame', 7)],
    ratio: '4:3',
    duration: 6,
    resolution: '1080p',
    seed: 11,
    return_last_frame: true,
    safety_identifier: 'user-42',
  });
  expect(r.status).toBe(200);
  expect(Object.keys(r.json)).toEqual(['id']);
  expect(r.json.id).toMatch(/^cgt-/);
  const queued = (await get(r.json.id)).json;
  expect(queued).toMatchObject({
    id: r.json.id,
    model: M.v15,
    status: 'queued',
    error: null,
    seed: 11,
    ratio: '4:3',
    resolution: '1080p',
    duration: 6,
    framespersecond: 24,
  });
  expect(queued.content).toBeUndefined();
  await advanceJob(sim, r.json.id, 'done');
  const done = await statusIs(r.json.id, 'succeeded');
  expect(done.content.video_url).toMatch(/\.mp4$/);
  expect(done.content.last_frame_url).toMatch(/\.png$/);
  expect(done.usage.completion_tokens).toBeGreaterThan(0);
  expect(done).toMatchObject({
    service_tier: 'default',
    execution_expires_after: 172800,
    priority: 0,
    generate_audio: true,
    draft: false,
    safety_identifier: 'user-42',
  });
  expect(done.updated_at).toBeGreaterThanOrEqual(done.created_at);
  const serialised = JSON.stringify(done);
  expect(serialised).not.toContain('a secret prompt');
  expect(serialised).not.toContain('https://x.test/7.png');
  expect((await fetch(done.content.video_url)).status).toBe(200);
});

test('null values count as absent (the official SDK sends every unset parameter as null)', async () => {
  const r = await create({
    model: M.pro,
    content: [text()],
    callback_url: null,
    seed: null,
    tools: null,
    service_tier: null,
    execution_expires_after: null,
    draft: null,
  });
  expect(r.status).toBe(200);
});

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
  const task = await statusIs(id, 'expired');
  expect(task).toMatchObject({ error: null, execution_expires_after: 3600 });
  expect(task.content).toBeUndefined();
  const l = await list('filter.status=expired');
  expect(l.json.items.map((x: any) => x.id)).toEqual([id]);
});
