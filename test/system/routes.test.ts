/**
 * Routes on a real stack of their own, against the simulator speaking T's and B's real protocols: a route's one
 * request served by whichever member can take it, failing over only while no job can exist, never paying twice.
 * Route `hailuo-2.3` (shipped: `priority`, T's VendorH-2.3 then B's H23) throughout, as text-to-video at 6 s (both
 * take it); `veo-3.1` for a duration only B takes. The simulator is the witness: every create each platform received
 * and every job it holds, by the tag in the task's prompt.
 *
 * - Every T account overdue: 20 tasks all succeed on B, one job each, and T receives no create after its first
 *   refusal (a lane of its own, whose worker keeps T out of the rotation).
 * - T throttling half its creates: every task succeeds with one job, on one platform.
 * - A lost create answer on T (the job was made): the task recovers it on T; B never sees the task.
 * - `cheapest` with prices where B is cheaper (a lane with PRICES_FILE and ROUTES_FILE, and the ledger): tasks go
 *   to B, each reserved at T's estimate (the dearest), each final cost B's.
 * - A request only B can take goes to B; one no member can take is a 400 naming the field, and no job.
 * - A worker SIGKILLed while 10 routed tasks submit, T refusing: every task ends with one job in all.
 */
import { SA } from '../../core/search-attributes';
import { ApiClient } from '../support/client';
import { writeJsonFile } from '../support/json-file';
import { queryRows, usePostgres } from '../support/postgres';
import type { Proc } from '../support/stack';
import { useStack } from '../support/use-stack';
import { report, until, waitAll } from './faults-support';

jest.setTimeout(300_000);

const db = usePostgres();
// A refused account stays out for the whole file (ACCOUNT_COOLDOWN_MS), so "no create after its first refusal" holds.
// Failover between members is under test here, not capacity: T's accounts run any number of jobs at once (simulator and
// gateway alike), so a member is left only for the refusals each test plants (test/system/capacity.test.ts has capacity).
const gw = useStack(() => ({
  name: 'routes',
  env: {
    DATABASE_URL: db.pg.url,
    ACCOUNT_COOLDOWN_MS: '600000',
    UPSTREAM_LOST_GRACE_MS: '1000',
    SIM_T_MAX_CONCURRENT: 'unlimited',
    PLATFORM_T_MAX_CONCURRENT: 'unlimited',
  },
}));

const HAILUO = { model: 'hailuo-2.3', action: 'text_to_video', duration: 6 };

/** Starts `n` routed tasks whose prompts carry `tag` (and any simulator directives); returns their ids. */
async function startRouted(api: ApiClient, n: number, tag: string, body: Record<string, unknown> = HAILUO): Promise<string[]> {
  const replies = await Promise.all(
    Array.from({ length: n }, (_, i) => api.post('/v1/async/videos/generations', { ...body, prompt: `${tag} #${i}` })),
  );
  for (const r of replies) expect([r.status, r.body.model]).toEqual([200, body.model]);
  return replies.map((r) => r.body.task_id as string);
}

/** The simulator's jobs of `platform` whose request carries `tag`. */
async function jobsTagged(platform: 'T' | 'B', tag: string): Promise<{ id: string }[]> {
  return (await gw.sim.jobs(platform)).filter((j) => JSON.stringify(j.meta ?? '').includes(tag));
}

/** The creates `platform` received whose body carries `tag`, with T's error code where it refused (inside HTTP 200). */
async function createsTagged(platform: 'T' | 'B', tag: string): Promise<{ status?: number; error?: string; at?: number }[]> {
  return (await gw.sim.requests(platform, 'submit'))
    .filter((r) => JSON.stringify(r.body ?? '').includes(tag))
    .map((r) => ({ status: r.status, error: r.response?.Response?.Error?.Code ?? r.response?.code, at: r.at }));
}

/** Each task's serving member as Temporal records it (search attributes) and its upstream job. */
async function servedOf(ids: string[]): Promise<{ route?: string; platform?: string; model?: string; upstream?: string }[]> {
  return Promise.all(
    ids.map(async (id) => {
      const a = (await gw.client.workflow.getHandle(id).describe()).typedSearchAttributes;
      return { route: a.get(SA.route), platform: a.get(SA.platform), model: a.get(SA.model), upstream: a.get(SA.upstreamTaskId) };
    }),
  );
}

/**
 * The invariant of every test here: each task succeeded, its record and its search attributes name the member that
 * served it, its job is among that platform's jobs for the tag, and the platforms hold exactly one job per task.
 */
async function expectOneJobEach(api: ApiClient, ids: string[], tag: string): Promise<{ T: number; B: number }> {
  const records = await waitAll(api, ids, 150_000);
  expect(records.map((r) => r.status)).toEqual(ids.map(() => 'success'));
  const jobs = { T: await jobsTagged('T', tag), B: await jobsTagged('B', tag) };
  expect(jobs.T.length + jobs.B.length).toBe(ids.length);
  const served = await servedOf(ids);
  served.forEach((s, i) => {
    expect(s.route).toBe('hailuo-2.3');
    expect(records[i].served_by).toEqual({ platform: s.platform, model: s.model });
    expect(jobs[s.platform as 'T' | 'B'].map((j) => j.id)).toContain(s.upstream);
  });
  expect(new Set(served.map((s) => s.upstream)).size).toBe(ids.length);
  report({ tasks: ids.length, succeeded: records.length, failed: 0, jobsCreated: jobs.T.length + jobs.B.length });
  return { T: jobs.T.length, B: jobs.B.length };
}

afterEach(async () => {
  await gw.sim.clearAccountFaults('T');
  await gw.sim.clearFaults();
});

test('priority [T, B], every T account overdue: 20 tasks all succeed on B, one job each, none on T after its first refusal', async () => {
  // A lane of its own: its worker learns T's refusal and keeps T out, without taking T from the other tests.
  const lane = await gw.stack.startLane({});
  try {
    const api = new ApiClient(lane.apiUrl, 'alice');
    const tag = `overdue-${Date.now()}`;
    await gw.sim.accountFault('T', { code: 'ResourceUnavailable.InArrears' });
    const [first] = await startRouted(api, 1, `${tag} first`);
    await api.waitForTask(first!, 60_000);
    const rest = await startRouted(api, 19, `${tag} then`);
    const ids = [first!, ...rest];
    expect(await expectOneJobEach(api, ids, tag)).toEqual({ T: 0, B: 20 });
    const tCreates = await createsTagged('T', tag);
    expect(tCreates.map((c) => c.error)).toEqual(['ResourceUnavailable.InArrears']);
    expect(await createsTagged('B', tag)).toHaveLength(20);
  } finally {
    await lane.worker.stop(5_000);
    await lane.api.stop(5_000);
  }
});

test('T throttling half its creates: every task succeeds, one job each, on one platform (the throttled ones on B)', async () => {
  const tag = `throttled-${Date.now()}`;
  await gw.sim.accountFault('T', { code: 'RequestLimitExceeded', count: 10 });
  const ids = await startRouted(gw.alice, 20, tag);
  const jobs = await expectOneJobEach(gw.alice, ids, tag);
  const tCreates = await createsTagged('T', tag);
  expect(tCreates.filter((c) => c.error === 'RequestLimitExceeded')).toHaveLength(10);
  // Every throttled create went on to B; every other one made T's job.
  expect(jobs).toEqual({ T: tCreates.length - 10, B: 10 });
  expect(await createsTagged('B', tag)).toHaveLength(10);
  process.stdout.write(`[routes] throttled half: jobs on T=${jobs.T} B=${jobs.B}\n`);
});

test('a lost create answer on T (the job was made): the task recovers it on T; B never sees the task; one job in all', async () => {
  const tag = `lost-${Date.now()}`;
  const ids = await startRouted(gw.alice, 1, `${tag} [sim:submit=dropx1]`);
  expect(await expectOneJobEach(gw.alice, ids, tag)).toEqual({ T: 1, B: 0 });
  expect(await createsTagged('T', tag)).toHaveLength(1);
  expect(await createsTagged('B', tag)).toEqual([]);
  expect((await gw.alice.get(`/v1/generations/${ids[0]}`)).body.served_by).toEqual({ platform: 'T', model: 'VendorH-2.3' });
});

test('cheapest, B priced lower: tasks go to B, each reserved at the dearest member’s estimate (T’s), each final cost B’s', async () => {
  // CNY per second: T's Hailuo 0.5, B's 0.3. 6 s: T 3 CNY, B 1.8 CNY.
  const env = {
    PRICES_FILE: writeJsonFile({
      'VendorH-2.3': { currency: 'CNY', source: 'test', per_second: { '*': 0.5 } },
      H23: { currency: 'CNY', source: 'test', per_second: { '*': 0.3 } },
    }),
    ROUTES_FILE: writeJsonFile({ routes: { 'hailuo-2.3': { policy: 'cheapest', members: [{ model: 'VendorH-2.3' }, { model: 'H23' }] } } }),
  };
  const lane = await gw.stack.startLane(env);
  try {
    const api = new ApiClient(lane.apiUrl, 'alice');
    const tag = `cheapest-${Date.now()}`;
    const ids = await startRouted(api, 5, tag);
    expect(await expectOneJobEach(api, ids, tag)).toEqual({ T: 0, B: 5 });
    await until('every entry is settled', async () => (await entries(ids)).every((e) => e.state === 'settled'), 30_000);
    expect(await entries(ids)).toEqual(
      ids.map(() => ({ estimated_micros: '3000000', final_micros: '1800000', state: 'settled', served_model: 'H23', route: 'hailuo-2.3' })),
    );
    for (const id of ids)
      expect((await api.get(`/v1/generations/${id}`)).body.cost).toEqual({ amount: 1.8, currency: 'CNY', estimated: false });
  } finally {
    await lane.worker.stop(5_000);
    await lane.api.stop(5_000);
  }
});

/** The ledger's entries of `ids`, in order. */
async function entries(ids: string[]) {
  const rows = await queryRows(
    db.pg.url,
    'SELECT task_id, estimated_micros, final_micros, state, served_model, route FROM ledger_entries WHERE task_id = ANY($1)',
    [ids],
  );
  return ids.map((id) => {
    const { task_id: _id, ...rest } = rows.find((r) => r.task_id === id) ?? {};
    return rest;
  });
}

test('a request only B can take (Veo at 4 s) goes to B; one no member can take is a 400 naming the field, and no job', async () => {
  const tag = `only-b-${Date.now()}`;
  const veo = { model: 'veo-3.1', action: 'text_to_video', prompt: `${tag} a heron` };
  const ok = await gw.alice.post('/v1/async/videos/generations', { ...veo, duration: 4 });
  expect(ok.status).toBe(200);
  const record = await gw.alice.waitForTask(ok.body.task_id, 60_000);
  expect(record).toMatchObject({ status: 'success', model: 'veo-3.1', served_by: { platform: 'B', model: 'VE3.1' } });
  expect(await jobsTagged('B', tag)).toHaveLength(1);
  expect(await createsTagged('T', tag)).toEqual([]);

  const refused = await gw.alice.post('/v1/async/videos/generations', { ...veo, prompt: `${tag} refused`, duration: 5 });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', param: 'duration', code: 'invalid_value' });
  expect([...(await jobsTagged('T', `${tag} refused`)), ...(await jobsTagged('B', `${tag} refused`))]).toEqual([]);
});

test('a worker SIGKILLed while 10 routed tasks submit, T refusing: every task ends with one job in all', async () => {
  const tag = `killed-${Date.now()}`;
  const env = { TEMPORAL_TASK_QUEUE: `${gw.stack.taskQueue}-killed` };
  const lane = await gw.stack.startLane(env);
  let worker: Proc = lane.worker;
  try {
    const api = new ApiClient(lane.apiUrl, 'alice');
    await gw.sim.accountFault('T', { code: 'ResourceUnavailable.InArrears' });
    // B makes each job at once and answers 8 s later: the worker dies while its submits wait on B.
    await gw.sim.config({ slowAnswerMs: 8_000 });
    await gw.sim.fault({ platform: 'B', op: 'submit', status: 'slow', durationMs: 60_000 });
    const ids = await startRouted(api, 10, tag);
    await until('every task has made its job on B', async () => (await jobsTagged('B', tag)).length >= ids.length, 60_000);
    await worker.kill();
    worker = await gw.stack.startWorker(env);
    await gw.sim.clearFaults();
    expect(await expectOneJobEach(api, ids, tag)).toEqual({ T: 0, B: 10 });
    expect(await createsTagged('B', tag)).toHaveLength(10);
    // Each submit was cut off by the kill: the attempt that completed it was a later one, which found B's job.
    for (const id of ids) {
      const history = await gw.client.workflow.getHandle(id).fetchHistory();
      const started = history.events?.find((e) => e.activityTaskStartedEventAttributes)?.activityTaskStartedEventAttributes;
      expect(started?.attempt).toBeGreaterThan(1);
    }
  } finally {
    await gw.sim.config({ slowAnswerMs: 4_000 });
    await worker.stop(5_000);
    await lane.api.stop(5_000);
  }
});
