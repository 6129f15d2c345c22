/**
 * sim/capacity.ts through platform V, over real HTTP: an account over its concurrency gets Ark's 429
 * InflightBatchsizeExceeded and nothing is created; a job frees its slot when it ends (done, cancelled, expired);
 * limits per account and by default; the counters, the intervals and their reset; the control surface's refusals;
 * a job kept across a restart of the simulator keeps its slot.
 * T's and B's own answers are in capacity.t.test.ts and capacity.b.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIM_ACCOUNTS } from '../../../sim/accounts';
import { startSimulator } from '../../../sim/server';
import { advanceJob, capacityControl } from '../../support/simulator';
import { AUTH, call, create, M, sim, stats, statusIs, TASKS, text, useVSimulator } from '../../support/sim/v';

useVSimulator();

const capacity = capacityControl(sim, 'V');
const DEFAULT_KEY = SIM_ACCOUNTS.V.apiKey;
const asKey = (key: string) => ({ ...AUTH, Authorization: `Bearer ${key}` });
const createAs = (key: string, prompt: string) => call('POST', TASKS, { model: M.pro, content: [text(prompt)] }, asKey(key));
const held = (prompt = 'a cat') => create({ model: M.pro, content: [text(`${prompt} [sim:hold]`)] });

test('V is unlimited by default: every create is taken', async () => {
  expect((await capacity.view()).default_max_concurrent).toBeNull();
  for (let i = 0; i < 5; i++) expect((await held(`cat ${i}`)).status).toBe(200);
  expect(await capacity.account(DEFAULT_KEY)).toMatchObject({ max_concurrent: null, running: 5, peak_running: 5, created_jobs: 5 });
});

test('over its limit a V account answers 429 InflightBatchsizeExceeded and creates nothing; a job that ends frees its slot', async () => {
  expect((await capacity.set({ max_concurrent: 2 })).status).toBe(200);
  const first = (await held('one')).json.id as string;
  expect((await held('two')).status).toBe(200);
  const refused = await held('three');
  expect(refused.status).toBe(429);
  expect(refused.json.error).toMatchObject({ code: 'InflightBatchsizeExceeded', type: 'TooManyRequests' });
  expect(refused.json.error.message).toContain('maximum concurrency for the current recharge amount');
  expect((await stats()).jobsCreated).toBe(2);

  await advanceJob(sim, first, 'done');
  await statusIs(first, 'succeeded');
  expect((await held('four')).status).toBe(200);
  expect(await capacity.account(DEFAULT_KEY)).toMatchObject({
    max_concurrent: 2,
    running: 2,
    peak_running: 2,
    created_jobs: 3,
    refused_creates: 1,
    over_limit_jobs: 0,
  });
});

test('a cancelled job and an expired job free their slots', async () => {
  await capacity.set({ max_concurrent: 1 });
  const queued = (await held('to cancel')).json.id as string;
  expect((await held('refused')).status).toBe(429);
  expect((await call('DELETE', `${TASKS}/${queued}`)).status).toBe(200);
  const expiring = (await create({ model: M.pro, content: [text('never ends [sim:never] [sim:expires=200]')] })).json.id as string;
  expect((await held('refused again')).status).toBe(429);
  await statusIs(expiring, 'expired');
  expect((await held('after the expiry')).status).toBe(200);
});

test("one account's limit leaves the platform's other accounts alone", async () => {
  const limited = 'sim-v-key-a';
  expect((await capacity.set({ max_concurrent: 1, account: limited })).status).toBe(200);
  expect((await createAs(limited, 'a1 [sim:hold]')).status).toBe(200);
  const refused = await createAs(limited, 'a2 [sim:hold]');
  expect(refused.status).toBe(429);
  expect(refused.json.error.code).toBe('InflightBatchsizeExceeded');
  expect((await createAs('sim-v-key-b', 'b1 [sim:hold]')).status).toBe(200);
  expect((await createAs('sim-v-key-b', 'b2 [sim:hold]')).status).toBe(200);
  expect((await held('default 1')).status).toBe(200);
  expect((await held('default 2')).status).toBe(200);
  const view = await capacity.view();
  expect(view.default_max_concurrent).toBeNull();
  expect(view.accounts.find((a) => a.account === limited)).toMatchObject({ max_concurrent: 1, running: 1, refused_creates: 1 });
  expect(view.accounts.find((a) => a.account === 'sim-v-key-b')).toMatchObject({ max_concurrent: null, running: 2, refused_creates: 0 });
});

test('intervals: each job from its create to its end; DELETE …/stats forgets them and the counters', async () => {
  const before = Date.now();
  const a = (await held('a')).json.id as string;
  const b = (await held('b')).json.id as string;
  await advanceJob(sim, a, 'done');
  await statusIs(a, 'succeeded');
  const { status, body } = await capacity.intervals(DEFAULT_KEY);
  expect(status).toBe(200);
  expect(body.map((i: any) => i.id)).toEqual([a, b]);
  expect(body[0].start_ms).toBeGreaterThanOrEqual(before);
  expect(body[0].end_ms).toBeGreaterThanOrEqual(body[0].start_ms);
  expect(body[1].end_ms).toBeNull();

  expect((await capacity.resetStats()).status).toBe(200);
  expect((await capacity.intervals(DEFAULT_KEY)).body).toEqual([]);
  // b still runs: it keeps its slot, and the peak starts from it.
  expect(await capacity.account(DEFAULT_KEY)).toMatchObject({ running: 1, peak_running: 1, created_jobs: 0, refused_creates: 0 });
});

test('a limit lowered below the jobs running: they run on, each one over it counted in over_limit_jobs', async () => {
  for (let i = 0; i < 3; i++) await held(`r${i}`);
  await capacity.set({ max_concurrent: 1 });
  expect(await capacity.account(DEFAULT_KEY)).toMatchObject({ running: 3, over_limit_jobs: 2 });
  expect((await held('refused')).status).toBe(429);
});

test('the control surface refuses what is not a limit or not an account, naming the field', async () => {
  for (const body of [{}, { max_concurrent: -1 }, { max_concurrent: 1.5 }, { max_concurrent: '3' }]) {
    const r = await capacity.set(body);
    expect(r.status).toBe(400);
    expect(r.body.error).toContain('max_concurrent');
  }
  const notAccount = await capacity.set({ max_concurrent: 1, account: 'not-a-sim-key' });
  expect(notAccount.status).toBe(400);
  expect(notAccount.body.error).toContain('account');
  const noAccount = await fetch(`${sim.url}/_sim/v/capacity/intervals`);
  expect(noAccount.status).toBe(400);
  expect(((await noAccount.json()) as { error: string }).error).toContain('account');
  expect((await capacity.view()).default_max_concurrent).toBeNull();
});

test("the simulator's reset restores the limits it started with", async () => {
  await capacity.set({ max_concurrent: 1 });
  await capacity.set({ max_concurrent: 1, account: 'sim-v-key-a' });
  await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
  expect(await capacity.view()).toEqual({ platform: 'V', default_max_concurrent: null, accounts: [] });
  expect((await held('one')).status).toBe(200);
  expect((await held('two')).status).toBe(200);
});

test('a job kept across a restart of the simulator (its data file) still holds its slot', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sim-capacity-'));
  const options = { port: 0, dataFile: join(dir, 'jobs.json'), maxConcurrent: { V: 1 } };
  const createOn = async (url: string, prompt: string) =>
    fetch(`${url}${TASKS}`, { method: 'POST', headers: AUTH, body: JSON.stringify({ model: M.pro, content: [text(prompt)] }) });
  const before = await startSimulator(options);
  try {
    expect((await createOn(before.url, 'before the restart [sim:hold]')).status).toBe(200);
  } finally {
    await before.close();
  }
  const after = await startSimulator(options);
  try {
    const refused = await createOn(after.url, 'after the restart');
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('InflightBatchsizeExceeded');
    const view = (await (await fetch(`${after.url}/_sim/v/capacity`)).json()) as { accounts: { account: string; running: number }[] };
    expect(view.accounts).toEqual([expect.objectContaining({ account: DEFAULT_KEY, running: 1 })]);
  } finally {
    await after.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
