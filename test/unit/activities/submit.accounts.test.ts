/**
 * The submit activity with two platform V accounts against the real simulator (its accounts `sim-v-key-one` and
 * `sim-v-key-two`): failover on a refusal that created nothing, the account recorded with the job, the return to
 * the account of an attempt whose answer was lost, the wait when every account is out, and the activities
 * (activities/index.ts) sending a job's polls and its cancel to the account that owns it; and an offline-tier (flex)
 * job taking a slot, or none where the operator counts those apart (CAPACITY_FLEX_JOBS).
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { createActivities } from '../../../activities';
import { AccountPool } from '../../../activities/accounts';
import { createSubmitActivity, SUBMIT_HEARTBEAT_MS } from '../../../activities/submit';
import { SUBMIT_SETTLE_MS } from '../../../activities/submit-lost-answer';
import type { SubmitProgress } from '../../../activities/submit-state';
import { SlotDispatcher, type TaskSignals } from '../../../capacity/dispatcher';
import type { SlotStore } from '../../../capacity/slots';
import type { SlotRequest } from '../../../core/capacity';
import type { SubmitResult } from '../../../core/task';
import { createHttpClient } from '../../../platforms/http';
import { UpstreamError } from '../../../platforms/upstream-error';
import { createPlatformV } from '../../../platforms/v/adapter';
import { catalogue } from '../../support/platform-kit';
import {
  jobsByOwner,
  recordedRequests,
  runSubmit,
  SUBMIT_TIMING,
  submitFrom,
  submitInput,
  twoAccountPool,
} from '../../support/account-pools';
import { call, sim, TASKS, useVSimulator } from '../../support/sim/v';

useVSimulator();

const http = createHttpClient({ connectTimeoutMs: 2_000, responseTimeoutMs: 5_000 });
afterAll(() => http.close());

/** Accounts one and two: the simulator's keys sim-v-key-one and sim-v-key-two. */
const twoAccounts = () =>
  twoAccountPool('V', (id) => createPlatformV({ baseUrl: `${sim.url}/api/v3`, apiKey: `sim-v-key-${id}` }, { http }));
const jobsByAccount = () => jobsByOwner(sim.url, 'V', (meta) => meta.apiKey);
const input = (dedupKey: string) =>
  submitInput('V', 'video', { model: 'vendor-video-1-0-pro-250528', prompt: `a fox ${dedupKey}`, duration: 5 }, dedupKey);

/** The submit on the two accounts, its slots from a stand-in store whose takes `take` answers (creates and releases record nothing). */
function submitOnSlots(take: (request: SlotRequest) => Promise<unknown>, flexJobs: 'counted' | 'apart' = 'counted') {
  const store = { take, created: async () => [], release: async () => [] };
  const gate = new SlotDispatcher(store as unknown as SlotStore, {} as TaskSignals, pino({ level: 'silent' }), {}, flexJobs);
  return createSubmitActivity({ catalogue, timingFor: () => SUBMIT_TIMING, poolFor: () => twoAccounts(), capacity: gate });
}

test('an overdue account: the submit moves to the other, which creates the job and is recorded with it', async () => {
  await call('POST', '/_sim/v/account-faults', { code: 'AccountOverdueError', api_key: 'sim-v-key-one' });
  const pool = twoAccounts();
  const submit = submitFrom(pool);
  const result = (await new MockActivityEnvironment({ attempt: 1 }).run(submit, input('overdue'))) as SubmitResult;
  expect(result.account).toBe('two');
  expect((await call('GET', `${TASKS}/${result.upstreamTaskId}`, undefined, { Authorization: 'Bearer sim-v-key-two' })).status).toBe(200);
  expect(await jobsByAccount()).toEqual({ 'sim-v-key-two': 1 });
  expect(pool.available('one')).toBe(false);
  // The next submit goes straight to two: no create reaches one again.
  const before = await recordedRequests(sim.url, 'V', 'submit');
  await new MockActivityEnvironment({ attempt: 1 }).run(submit, input('overdue-2'));
  const after = await recordedRequests(sim.url, 'V', 'submit');
  expect(after.slice(before.length).map((r) => r.headers.authorization)).toEqual(['Bearer sim-v-key-two']);
});

test('a retry after a lost answer goes back to the account the lost request went to, not to a new draw', async () => {
  const pool = twoAccounts();
  const submit = submitFrom(pool);
  // The earlier attempt sent to two and never heard back; nothing was created (the lookup finds nothing).
  const earlier: SubmitProgress = { phase: 'sending', sentAt: Date.now() - 60_000, account: 'two' };
  const env = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: earlier, scheduledTimestampMs: Date.now() - 60_000 });
  const result = (await env.run(submit, input('lost'))) as SubmitResult;
  expect(result.account).toBe('two');
  // It looked on both accounts before sending again (heartbeats are throttled: the record may be stale).
  const lists = await recordedRequests(sim.url, 'V', 'list');
  expect(new Set(lists.map((l) => l.headers.authorization))).toEqual(new Set(['Bearer sim-v-key-one', 'Bearer sim-v-key-two']));
  expect(await jobsByAccount()).toEqual({ 'sim-v-key-two': 1 });
});

test('a create the platform answers within the ticker’s second costs no heartbeat: only the ticker records `sending`', async () => {
  const env = new MockActivityEnvironment({ attempt: 1 });
  const heartbeats: SubmitProgress[] = [];
  env.on('heartbeat', (d: SubmitProgress) => heartbeats.push(d));
  const started = Date.now();
  const result = (await env.run(submitFrom(twoAccounts()), input('quick'))) as SubmitResult;
  // However slow the machine: at most one heartbeat per whole tick the attempt lasted (one at once would exceed it).
  expect(heartbeats.length).toBeLessThanOrEqual(Math.floor((Date.now() - started) / SUBMIT_HEARTBEAT_MS));
  expect(heartbeats.every((h) => h.phase === 'sending' || h.phase === 'answered')).toBe(true);
  expect(await jobsByAccount()).toEqual({ [`sim-v-key-${result.account}`]: 1 });
});

test('a retry finding no heartbeat (the worker died within its first second of a create) adopts the job wherever it was made, and remembers one may exist', async () => {
  const pool = twoAccounts();
  const tag = 'died-unrecorded';
  // What the dead attempt did before any heartbeat: the job was made on account two.
  const made = await pool.get('two')!.adapter.submit(catalogue.find('video', 'vendor-video-1-0-pro-250528')!, input(tag).request, {
    taskId: input(tag).taskId,
    dedupKey: tag,
    deadlineAt: Date.now() + 600_000,
  });
  const sentBefore = (await recordedRequests(sim.url, 'V', 'submit')).length;
  // Scheduled long enough ago that the create it assumes has settled: no wait in the test.
  const env = new MockActivityEnvironment({ attempt: 2, currentAttemptScheduledTimestampMs: Date.now() - SUBMIT_SETTLE_MS });
  const heartbeats: SubmitProgress[] = [];
  env.on('heartbeat', (d: SubmitProgress) => heartbeats.push(d));
  const result = (await env.run(submitFrom(pool), input(tag))) as SubmitResult;
  expect(result).toMatchObject({ upstreamTaskId: made.upstreamTaskId, account: 'two' });
  expect((await recordedRequests(sim.url, 'V', 'submit')).length).toBe(sentBefore);
  expect(await jobsByAccount()).toEqual({ 'sim-v-key-two': 1 });
  // Its first record says a job may exist, as after a create cut off mid-request.
  expect(heartbeats[0]).toEqual({ phase: 'reconciling', mayHaveCreated: true });
});

test('an attempt that fails before sending (its slot store unreachable) records so: the retry does not take it for a crash mid-create', async () => {
  const submit = submitOnSlots(async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
  });
  const env = new MockActivityEnvironment({ attempt: 1 });
  const heartbeats: SubmitProgress[] = [];
  env.on('heartbeat', (d: SubmitProgress) => heartbeats.push(d));
  await expect(env.run(submit, input('store-away'))).rejects.toThrow('ECONNREFUSED');
  expect(heartbeats.at(-1)).toEqual({ phase: 'reconciling' });
  expect(await recordedRequests(sim.url, 'V', 'submit')).toEqual([]);
});

test('every account out: a retryable wait naming each account, no create sent while they are out', async () => {
  await call('POST', '/_sim/v/account-faults', { code: 'AccountOverdueError' });
  const pool = twoAccounts();
  const submit = submitFrom(pool);
  await expect(new MockActivityEnvironment({ attempt: 1 }).run(submit, input('all-out'))).rejects.toMatchObject({
    retryable: true,
    opts: { code: 'no_account_available' },
    message: expect.stringContaining('one: AccountOverdueError; two: AccountOverdueError'),
  });
  const sent = (await recordedRequests(sim.url, 'V', 'submit')).length;
  await expect(new MockActivityEnvironment({ attempt: 2 }).run(submit, input('all-out'))).rejects.toMatchObject({
    opts: { code: 'no_account_available' },
  });
  expect((await recordedRequests(sim.url, 'V', 'submit')).length).toBe(sent);
  expect(await jobsByAccount()).toEqual({});
});

test("a job's polls and its cancel, through the activities, go to the account that owns it, not the platform's first", async () => {
  const adapterOf = (id: 'one' | 'two') => createPlatformV({ baseUrl: `${sim.url}/api/v3`, apiKey: `sim-v-key-${id}` }, { http });
  // The draw lands on two, the second account: `adapters.V` (the first account's, the event queue's) must not be used.
  const pool = new AccountPool(
    'V',
    [
      { id: 'one', weight: 1, adapter: adapterOf('one') },
      { id: 'two', weight: 1, adapter: adapterOf('two') },
    ],
    { random: () => 0.99, cooldownMs: 60_000 },
  );
  const timing = { firstPollDelayMs: 1_000, pollIntervalMs: 1_000, deadlineMs: 600_000 };
  const activities = createActivities({
    catalogue,
    adapters: { V: adapterOf('one') },
    pools: { V: pool },
    timing: { video: timing, image: timing },
    results: {} as never,
  });
  // A long job, still queued when it is cancelled (Ark cancels only a queued task).
  const dedupKey = 'owner-cancel';
  const submitted = (await new MockActivityEnvironment({ attempt: 1 }).run(activities.submitGeneration, {
    ...submitInput('V', 'video', { model: 'vendor-video-1-0-pro-250528', prompt: 'a fox [sim:duration=60000]', duration: 5 }, dedupKey),
    deadlineAt: Date.now() + 600_000,
  })) as SubmitResult;
  expect(submitted.account).toBe('two');
  const job = { platform: 'V', kind: 'video' as const, upstreamTaskId: submitted.upstreamTaskId, account: submitted.account };

  await expect(new MockActivityEnvironment().run(activities.pollGeneration, { ...job, submittedAt: Date.now() })).resolves.toMatchObject({
    state: 'pending',
  });
  await new MockActivityEnvironment().run(activities.cancelGeneration, job);

  const byKey = (r: { headers: Record<string, string> }) => r.headers.authorization;
  // The poll, and the cancel's read of the task (V sends its DELETE only while a task is queued): both to two.
  expect((await recordedRequests(sim.url, 'V', 'poll')).map(byKey)).toEqual(['Bearer sim-v-key-two', 'Bearer sim-v-key-two']);
  const cancels = await recordedRequests(sim.url, 'V', 'cancel');
  expect(cancels.map((r) => [byKey(r), r.status])).toEqual([['Bearer sim-v-key-two', 200]]);
  const [upstream] = (await (await fetch(`${sim.url}/_sim/jobs?platform=V`)).json()) as { id: string; view: { state: string } }[];
  expect(upstream).toMatchObject({ id: submitted.upstreamTaskId, view: { state: 'cancelled' } });
});

describe("the task's timing and deadline, settled by its first submit", () => {
  test('the first submit answers with the worker timing and the deadline counted from the task start', async () => {
    const startedAt = Date.now() - 5_000;
    const result = (await new MockActivityEnvironment({ attempt: 1 }).run(submitFrom(twoAccounts()), {
      ...input('timing'),
      taskStartedAt: startedAt,
    })) as SubmitResult;
    expect(result).toMatchObject({ timing: SUBMIT_TIMING, deadlineAt: startedAt + SUBMIT_TIMING.deadlineMs });
  });

  test('an attempt that starts past the deadline sends nothing and ends deadline_exceeded, naming what kept the submit out', async () => {
    const [before, listsBefore] = [await recordedRequests(sim.url, 'V', 'submit'), await recordedRequests(sim.url, 'V', 'list')];
    // The earlier attempt was answered (an error): no job can exist, so nothing is looked up either.
    const earlier: SubmitProgress = {
      phase: 'answered',
      account: 'one',
      lastError: 'POST /contents/generations/tasks answered 503 ServiceUnavailable',
    };
    const env = new MockActivityEnvironment({ attempt: 7, heartbeatDetails: earlier, scheduledTimestampMs: Date.now() - 3_700_000 });
    const failure = await env
      .run(submitFrom(twoAccounts()), { ...input('late'), taskStartedAt: Date.now() - SUBMIT_TIMING.deadlineMs - 1_000 })
      .then(
        () => undefined,
        (e: unknown) => e as UpstreamError,
      );
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure!.opts).toMatchObject({ retryable: false, reason: 'deadline_exceeded' });
    expect(failure!.message).toBe(
      'The job could not be submitted within the task deadline (60 min); the platform could not be reached: POST /contents/generations/tasks answered 503 ServiceUnavailable',
    );
    expect((await recordedRequests(sim.url, 'V', 'submit')).length).toBe(before.length);
    expect((await recordedRequests(sim.url, 'V', 'list')).length).toBe(listsBefore.length);
  });

  test('past the deadline, a job an earlier attempt created (its answer lost) is adopted rather than abandoned', async () => {
    // The earlier attempt's create reached account two and its answer was lost.
    const pool = twoAccounts();
    await new MockActivityEnvironment({ attempt: 1 }).run(submitFrom(pool), input('late-but-made'));
    const [made] = (await (await fetch(`${sim.url}/_sim/jobs?platform=V`)).json()) as { id: string; meta: { apiKey: string } }[];
    const earlier: SubmitProgress = {
      phase: 'sending',
      sentAt: Date.now() - 3_700_000,
      account: made!.meta.apiKey.replace('sim-v-key-', ''),
    };
    const env = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: earlier, scheduledTimestampMs: Date.now() - 3_700_000 });
    const result = (await env.run(submitFrom(pool), {
      ...input('late-but-made'),
      taskStartedAt: Date.now() - SUBMIT_TIMING.deadlineMs - 1_000,
    })) as SubmitResult;
    expect(result.upstreamTaskId).toBe(made!.id);
    expect(await jobsByAccount()).toEqual({ [made!.meta.apiKey]: 1 });
  });
});

test("the deadline's message names the error that kept the submit out, carried from attempt to attempt by the heartbeat", async () => {
  await call('POST', '/_sim/faults', { platform: 'V', op: 'submit', status: 503, count: 1 });
  const submit = submitFrom(twoAccounts());
  let details: unknown;
  const first = new MockActivityEnvironment({ attempt: 1 });
  first.on('heartbeat', (d: unknown) => (details = d));
  const deadlineAt = Date.now() + 1_000;
  await expect(first.run(submit, { ...input('kept-out'), deadlineAt })).rejects.toMatchObject({ opts: { retryable: true } });
  await new Promise((r) => setTimeout(r, 1_100));
  const second = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: details });
  const failure = (await second.run(submit, { ...input('kept-out'), deadlineAt }).catch((e: unknown) => e)) as UpstreamError;
  expect(failure.opts.reason).toBe('deadline_exceeded');
  // The 503 the first attempt met, as V words it (docs/platforms/v.md#errors: ServiceUnavailable).
  expect(failure.message).toMatch(
    /^The job could not be submitted within the task deadline \(60 min\); the platform could not be reached: Platform V: The service is temporarily unavailable/,
  );
});

test('offline-tier jobs: counted (the default), a flex submit takes a slot on its account; apart, it takes none', async () => {
  const asked: string[] = [];
  // The slot store's side, recorded: every take is granted on account one.
  const take = async (request: SlotRequest) => {
    asked.push(request.taskId);
    return { granted: { platform: 'V', account: 'one', member: 0 } };
  };
  const flex = (dedupKey: string) =>
    submitInput(
      'V',
      'video',
      { model: 'vendor-video-1-0-pro-250528', prompt: `offline ${dedupKey}`, duration: 5, service_tier: 'flex' },
      dedupKey,
    );
  for (const flexJobs of ['counted', 'apart'] as const) {
    const submit = submitOnSlots(take, flexJobs);
    expect((await runSubmit(submit, flex(flexJobs))).upstreamTaskId).toEqual(expect.any(String));
    // A job of the online tier takes its slot whatever the setting.
    await runSubmit(submit, input(`online-${flexJobs}`));
  }
  expect(asked).toEqual(['task-counted', 'task-online-counted', 'task-online-apart']);
});
