/**
 * The submit activity with a routed task's members (activities/submit.ts, submit-members.ts) against the real
 * simulator, which speaks T and B: route `hailuo-2.3`, T's VendorH-2.3 first, B's H23 second, each on its
 * platform's one account. A member refused or throttled without a job hands the task to the next; a create whose
 * answer was lost stays on its member and is recovered there; a worker that died mid-submit leaves a heartbeat that
 * may name the wrong member, and the next attempt finds the job wherever it is. Never a second job.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { AccountPool } from '../../../activities/accounts';
import { createSubmitActivity, type SubmitInput } from '../../../activities/submit';
import type { SubmitProgress } from '../../../activities/submit-state';
import type { RouteMember, SubmitResult } from '../../../core/task';
import { createPlatformB } from '../../../platforms/b/adapter';
import { createHttpClient } from '../../../platforms/http';
import { createPlatformT } from '../../../platforms/t/adapter';
import { SIM_ACCOUNTS } from '../../../sim/accounts';
import { jobsByOwner, recordedRequests, SUBMIT_TIMING } from '../../support/account-pools';
import { catalogue, normalised } from '../../support/platform-kit';
import { accountFaults, sim, useTSimulator } from '../../support/sim/t';

// One simulator speaks every platform: T's harness starts it, and resets T's account faults before each test.
useTSimulator();

const http = createHttpClient({ connectTimeoutMs: 2_000, responseTimeoutMs: 5_000 });
afterAll(() => http.close());

const tAdapter = () => createPlatformT({ endpoint: sim.url, ...SIM_ACCOUNTS.T }, { http });
const bAdapter = () => createPlatformB({ endpoint: sim.url, ...SIM_ACCOUNTS.B }, { http });

/** The worker's pools: T's and B's one account each (a refused account stays out for the test). */
function pools() {
  return { T: AccountPool.single('T', tAdapter(), { cooldownMs: 60_000 }), B: AccountPool.single('B', bAdapter(), { cooldownMs: 60_000 }) };
}
const submitWith = (p: ReturnType<typeof pools>) =>
  createSubmitActivity({ catalogue, timingFor: () => SUBMIT_TIMING, poolFor: (platform) => p[platform as 'T' | 'B'] });

/** The route's members for one request (each as its own rules validated it): T first, then B. */
function members(prompt: string): RouteMember[] {
  const body = { action: 'text_to_video', prompt, duration: 6 };
  return [
    { platform: 'T', model: 'VendorH-2.3', request: normalised('video', { ...body, model: 'VendorH-2.3' }).request },
    { platform: 'B', model: 'H23', request: normalised('video', { ...body, model: 'H23' }).request },
  ];
}
function routedInput(tag: string): SubmitInput {
  const m = members(`a lighthouse ${tag}`);
  return {
    platform: 'T',
    request: m[0]!.request,
    members: m,
    dedupKey: `task_${tag}-run`,
    taskId: `task_${tag}`,
    taskStartedAt: Date.now(),
  };
}

const jobs = async () => ({
  T: await jobsByOwner(sim.url, 'T', () => 'T'),
  B: await jobsByOwner(sim.url, 'B', () => 'B'),
});
const creates = async (platform: 'T' | 'B') => (await recordedRequests(sim.url, platform, 'submit')).length;

/** Runs one attempt, recording its heartbeats: what the next attempt would read. */
async function attempt(submit: ReturnType<typeof submitWith>, input: SubmitInput, n: number, earlier?: SubmitProgress) {
  const env = new MockActivityEnvironment({ attempt: n, ...(earlier ? { heartbeatDetails: earlier } : {}) });
  let last: SubmitProgress | undefined;
  env.on('heartbeat', (d: SubmitProgress) => (last = d));
  try {
    return { result: (await env.run(submit, input)) as SubmitResult, heartbeat: last };
  } catch (error) {
    return { error, heartbeat: last };
  }
}

afterEach(async () => {
  await accountFaults('DELETE');
  await fetch(`${sim.url}/_sim/b/account-faults`, { method: 'DELETE' });
});

test('T overdue: the task goes to B, which serves it; the next task goes straight to B (no create reaches T again)', async () => {
  await accountFaults('POST', { code: 'ResourceUnavailable.InArrears' });
  const p = pools();
  const submit = submitWith(p);
  const { result } = await attempt(submit, routedInput('overdue'), 1);
  expect(result).toMatchObject({ servedBy: { platform: 'B', model: 'H23' }, account: 'default', timing: SUBMIT_TIMING });
  expect(result!.upstreamTaskId).toMatch(/^tsk-/);
  expect(await jobs()).toEqual({ T: {}, B: { B: 1 } });
  expect(p.T.available('default')).toBe(false);

  const tCreates = await creates('T');
  const second = await attempt(submit, routedInput('overdue-2'), 1);
  expect(second.result?.servedBy).toEqual({ platform: 'B', model: 'H23' });
  expect(await creates('T')).toBe(tCreates);
  expect(await jobs()).toEqual({ T: {}, B: { B: 2 } });
});

test('T throttled (RequestLimitExceeded, nothing created): the task goes to B; T stays in the rotation', async () => {
  await accountFaults('POST', { code: 'RequestLimitExceeded', count: 1 });
  const p = pools();
  const { result } = await attempt(submitWith(p), routedInput('throttled'), 1);
  expect(result?.servedBy).toEqual({ platform: 'B', model: 'H23' });
  expect(p.T.available('default')).toBe(true);
  expect(await jobs()).toEqual({ T: {}, B: { B: 1 } });
  // The next task is served by T again.
  const next = await attempt(submitWith(p), routedInput('throttled-2'), 1);
  expect(next.result?.servedBy).toEqual({ platform: 'T', model: 'VendorH-2.3' });
});

test('a lost create answer on T (the job was made): the task stays on T and recovers its job there; B sees nothing', async () => {
  const p = pools();
  const submit = submitWith(p);
  const input = routedInput('lost');
  for (const m of input.members!) m.request.prompt = `${m.request.prompt as string} [sim:submit=dropx1]`;
  const first = await attempt(submit, { ...input, request: input.members![0]!.request }, 1);
  expect(first.error).toMatchObject({ retryable: true, opts: { noAnswer: true } });
  // The failed attempt's last heartbeat: the create went to T, whose failure proves nothing.
  expect(first.heartbeat).toMatchObject({ phase: 'sending', member: 0, stayOn: 0 });
  const second = await attempt(submit, { ...input, request: input.members![0]!.request }, 2, first.heartbeat);
  expect(second.result?.servedBy).toEqual({ platform: 'T', model: 'VendorH-2.3' });
  expect(await jobs()).toEqual({ T: { T: 1 }, B: {} });
  expect(await creates('B')).toBe(0);
  expect(await recordedRequests(sim.url, 'B', 'list')).toEqual([]);
});

test('after a create on T that may have made a job (a 5xx), T refusing later keeps the task waiting for T: never a job on B', async () => {
  await accountFaults('POST', { code: 'ResourceUnavailable.InArrears' });
  // The earlier attempt's create on T failed without proving that no job was made (its heartbeat says stay on T).
  const earlier: SubmitProgress = { phase: 'answered', account: 'default', member: 0, stayOn: 0 };
  const { error } = await attempt(submitWith(pools()), routedInput('stay'), 2, earlier);
  expect(error).toMatchObject({ retryable: true, opts: { code: 'no_account_available' } });
  expect(await creates('B')).toBe(0);
  expect(await jobs()).toEqual({ T: {}, B: {} });
});

test('a worker died mid-submit with a stale heartbeat naming T while its create went to B: the next attempt finds the job on B', async () => {
  await accountFaults('POST', { code: 'ResourceUnavailable.InArrears' });
  const input = routedInput('killed');
  // What the dead attempt did after its last recorded heartbeat: T refused, and B created the job.
  const made = await bAdapter().submit(catalogue.find('video', 'H23')!, input.members![1]!.request, {
    taskId: input.taskId,
    dedupKey: input.dedupKey,
    deadlineAt: Date.now() + 600_000,
  });
  const stale: SubmitProgress = { phase: 'sending', sentAt: Date.now() - 15_000, account: 'default', member: 0 };
  const env = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: stale, scheduledTimestampMs: Date.now() - 20_000 });
  const result = (await env.run(submitWith(pools()), input)) as SubmitResult;
  expect(result).toMatchObject({ upstreamTaskId: made.upstreamTaskId, servedBy: { platform: 'B', model: 'H23' } });
  expect(await jobs()).toEqual({ T: {}, B: { B: 1 } });
  expect(await creates('B')).toBe(1);
});

test('every member out: the submit waits (retryable, the first member’s reason) and sends nothing', async () => {
  await accountFaults('POST', { code: 'ResourceUnavailable.InArrears' });
  await fetch(`${sim.url}/_sim/b/account-faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: 'Arrears' }),
  });
  const p = pools();
  const { error } = await attempt(submitWith(p), routedInput('all-out'), 1);
  expect(error).toMatchObject({ retryable: true, opts: { code: 'no_account_available' } });
  expect(p.T.available('default') || p.B.available('default')).toBe(false);
  const sent = { T: await creates('T'), B: await creates('B') };
  await attempt(submitWith(p), routedInput('all-out'), 2);
  expect({ T: await creates('T'), B: await creates('B') }).toEqual(sent);
  expect(await jobs()).toEqual({ T: {}, B: {} });
});
