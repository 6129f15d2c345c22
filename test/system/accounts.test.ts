/**
 * Several accounts per platform (docs/explanations/durability.md#accounts-and-failover), on a real stack: a lane
 * whose worker reads PLATFORM_V_ACCOUNTS_FILE with two simulated V accounts (`one`, `two`: the simulator's keys
 * `sim-v-key-one` and `sim-v-key-two`, each an account of its own whose tasks only it can read). The simulator
 * tells the accounts apart by their Bearer key, in its recorded requests and in its per-account faults. And a T lane
 * (PLATFORM_T_ACCOUNTS_FILE: the simulator's accounts AKIDsim-one and AKIDsim-two, each with its own SubAppId) and a
 * B lane (PLATFORM_B_ACCOUNTS_FILE: simbak-one and simbak-two): tasks spread over both accounts, and every read of a
 * job is signed by the account that created it (the simulator's recorded requests name the signer).
 */
import { SA } from '../../core/search-attributes';
import { simBAccount, simTAccount } from '../../sim/accounts';
import { ApiClient } from '../support/client';
import { writeJsonFile } from '../support/json-file';
import { simBAccountEntry, simTAccountEntry } from '../support/simulator';
import type { Proc } from '../support/stack';
import { useStack } from '../support/use-stack';
import { report, startTasks, until, waitAll } from './faults-support';

jest.setTimeout(240_000);

const KEYS = { one: 'sim-v-key-one', two: 'sim-v-key-two' } as const;
type AccountId = keyof typeof KEYS;
const accountOfKey = (authorization: string | undefined): AccountId | undefined =>
  (Object.keys(KEYS) as AccountId[]).find((id) => authorization === `Bearer ${KEYS[id]}`);

// The long cool-down keeps a refused account out for the whole file: "no create after its first refusal".
const gw = useStack({ name: 'accounts', env: { ACCOUNT_COOLDOWN_MS: '600000', UPSTREAM_LOST_GRACE_MS: '1000' } });
let lane: { api: ApiClient; env: Record<string, string>; worker: Proc };

function accountsFile(simUrl: string): string {
  const accounts = (Object.keys(KEYS) as AccountId[]).map((id) => ({ id, api_key: KEYS[id], base_url: `${simUrl}/api/v3` }));
  return writeJsonFile(accounts, 'v-accounts.json');
}

async function accountFault(body: { code: string; api_key?: string; count?: number; op?: string }): Promise<void> {
  const res = await fetch(`${gw.stack.simUrl}/_sim/v/account-faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

/** Each task's recorded account (search attribute UpstreamAccount) and upstream job. */
async function ownersOf(ids: string[]): Promise<{ id: string; account: string | undefined; upstream: string | undefined }[]> {
  return Promise.all(
    ids.map(async (id) => {
      const attrs = (await gw.client.workflow.getHandle(id).describe()).typedSearchAttributes;
      return { id, account: attrs.get(SA.upstreamAccount), upstream: attrs.get(SA.upstreamTaskId) };
    }),
  );
}

/** The simulator's V jobs whose prompt carries `tag`, with the account that created each. */
async function jobsTagged(tag: string): Promise<{ id: string; account: AccountId | undefined }[]> {
  const jobs = await gw.sim.jobs('V');
  return jobs
    .filter((j) => JSON.stringify(j.meta?.request ?? '').includes(tag))
    .map((j) => ({ id: j.id, account: (Object.keys(KEYS) as AccountId[]).find((id) => KEYS[id] === j.meta.apiKey) }));
}

/** The create requests whose prompt carries `tag`, by account, with their answers. */
async function createsTagged(
  tag: string,
): Promise<{ account: AccountId | undefined; status: number | undefined; at: number | undefined }[]> {
  const creates = await gw.sim.requests('V', 'submit');
  return creates
    .filter((r) => JSON.stringify(r.body ?? '').includes(tag))
    .map((r) => ({ account: accountOfKey(r.headers.authorization), status: r.status, at: r.at }));
}

async function healthGauge(worker: Proc): Promise<Record<string, string>> {
  const text = await (await fetch(worker.metricsUrl!)).text();
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/^mediagate_upstream_account_healthy\{platform="V",account="(\w+)"\} (\d+)/gm)) out[m[1]!] = m[2]!;
  return out;
}

beforeAll(async () => {
  // A throttled account is slowed for 1 s (ACCOUNT_THROTTLE_MS), so the test sees it back at full weight.
  const env = {
    TEMPORAL_TASK_QUEUE: `${gw.stack.taskQueue}-accounts`,
    PLATFORM_V_ACCOUNTS_FILE: accountsFile(gw.stack.simUrl),
    ACCOUNT_THROTTLE_MS: '1000',
  };
  const started = await gw.stack.startLane(env);
  lane = { api: new ApiClient(started.apiUrl, 'alice'), env, worker: started.worker };
  await lane.worker.waitForLine(/spreads its jobs over 2 accounts/, 10_000);
}, 180_000);

afterEach(async () => {
  await fetch(`${gw.stack.simUrl}/_sim/v/account-faults`, { method: 'DELETE' });
  await gw.sim.clearFaults();
});

describe('two V accounts', () => {
  test('one throttled: creates spread over both, the throttled creates fail over, every task succeeds with one job; each task polls only the account that created its job', async () => {
    const tag = `throttled-${Date.now()}`;
    const before = (await gw.sim.stats()).V.jobsCreated;
    // Account one's first two creates are throttled (Ark's RateLimitExceeded.EndpointRPMExceeded, 429: nothing created).
    await accountFault({ code: 'RateLimitExceeded.EndpointRPMExceeded', api_key: KEYS.one, count: 2 });
    const during = await startTasks(lane.api, 20, `${tag} [sim:duration=1500]`);
    await waitAll(lane.api, during, 90_000);
    // Past the throttle window: the account is back at its full weight.
    const after = await startTasks(lane.api, 10, `${tag} after [sim:duration=500]`);
    const ids = [...during, ...after];
    const records = await waitAll(lane.api, ids, 90_000);
    expect(records.map((r) => r.status)).toEqual(ids.map(() => 'success'));

    const creates = await createsTagged(tag);
    expect(creates.filter((c) => c.status === 429).map((c) => c.account)).toEqual(['one', 'one']);
    const jobs = await jobsTagged(tag);
    expect(jobs).toHaveLength(ids.length);
    expect((await gw.sim.stats()).V.jobsCreated - before).toBe(ids.length);
    // Slowed, not removed: the throttled account still created jobs.
    const perAccount = { one: jobs.filter((j) => j.account === 'one').length, two: jobs.filter((j) => j.account === 'two').length };
    expect(perAccount.one).toBeGreaterThan(0);
    expect(perAccount.two).toBeGreaterThan(0);

    // The account recorded on each task is the one that created its job, and every poll of it went there.
    const owners = await ownersOf(ids);
    const polls = await gw.sim.requests('V', 'poll');
    for (const o of owners) {
      const job = jobs.find((j) => j.id === o.upstream);
      expect(o.account).toBe(job?.account);
      const itsPolls = polls.filter((p) => p.path.endsWith(`/${o.upstream}`));
      expect(itsPolls.length).toBeGreaterThan(0);
      expect(new Set(itsPolls.map((p) => accountOfKey(p.headers.authorization)))).toEqual(new Set([o.account]));
      expect(itsPolls.every((p) => p.status === 200)).toBe(true);
    }
    report({ tasks: ids.length, succeeded: records.length, failed: 0, jobsCreated: jobs.length });
    process.stdout.write(`[accounts] throttled: jobs on one=${perAccount.one} two=${perAccount.two}, throttled creates=2\n`);
  });

  test('the worker SIGKILLed mid-submit: the next attempt finds the job on the account it went to; one job per task', async () => {
    const tag = `killed-${Date.now()}`;
    const before = (await gw.sim.stats()).V.jobsCreated;
    // Each job is created at once and its answer held back 8 s: the worker dies while it waits.
    await gw.sim.config({ slowAnswerMs: 8_000 });
    try {
      const ids = await startTasks(lane.api, 4, `${tag} [sim:submit=slow] [sim:duration=2000]`);
      await until('every job exists upstream', async () => (await jobsTagged(tag)).length >= ids.length, 30_000);
      await lane.worker.kill();
      lane.worker = await gw.stack.startWorker(lane.env);
      const records = await waitAll(lane.api, ids, 150_000);
      expect(records.map((r) => r.status)).toEqual(ids.map(() => 'success'));
      const jobs = await jobsTagged(tag);
      expect(jobs).toHaveLength(ids.length);
      expect((await gw.sim.stats()).V.jobsCreated - before).toBe(ids.length);
      const owners = await ownersOf(ids);
      expect(new Set(owners.map((o) => o.upstream)).size).toBe(ids.length);
      for (const o of owners) expect(o.account).toBe(jobs.find((j) => j.id === o.upstream)?.account);
      report({ tasks: ids.length, succeeded: records.length, failed: 0, jobsCreated: jobs.length });
    } finally {
      await gw.sim.config({ slowAnswerMs: 4_000 });
    }
  });

  test('one overdue: every task succeeds on the other; the overdue account gets no create after its first refusal, leaves the rotation (gauge 0) and raises the alert', async () => {
    const tag = `overdue-${Date.now()}`;
    await accountFault({ code: 'AccountOverdueError', api_key: KEYS.one });
    // Tasks one at a time until account one has refused once (which account a task goes to is a weighted draw).
    const first: string[] = [];
    for (let i = 0; i < 12 && !(await createsTagged(tag)).some((c) => c.account === 'one'); i++) {
      const [id] = await startTasks(lane.api, 1, `${tag} first ${i} [sim:duration=500]`);
      first.push(id!);
      await lane.api.waitForTask(id!, 30_000);
    }
    const refusals = (await createsTagged(tag)).filter((c) => c.account === 'one');
    expect(refusals).toHaveLength(1);
    expect(refusals[0]!.status).toBe(403);
    await lane.worker.waitForLine(/OPERATOR ACTION NEEDED: account one of platform V was refused \(AccountOverdueError\)/, 5_000);
    expect(await healthGauge(lane.worker)).toEqual({ one: '0', two: '1' });

    const rest = await startTasks(lane.api, 10, `${tag} then [sim:duration=1000]`);
    const ids = [...first, ...rest];
    const records = await waitAll(lane.api, ids, 90_000);
    expect(records.map((r) => r.status)).toEqual(ids.map(() => 'success'));
    const creates = await createsTagged(tag);
    expect(creates.filter((c) => c.account === 'one')).toHaveLength(1);
    const jobs = await jobsTagged(tag);
    expect(jobs).toHaveLength(ids.length);
    expect(jobs.every((j) => j.account === 'two')).toBe(true);
    expect((await ownersOf(ids)).every((o) => o.account === 'two')).toBe(true);
    report({ tasks: ids.length, succeeded: records.length, failed: 0, jobsCreated: jobs.length });
  });
});

describe('every V account out', () => {
  test('accepted tasks wait (nothing is dropped), the alert fires at once, and they succeed once an account is probed back', async () => {
    // A lane of its own, with a short cool-down so the accounts are probed back within the test.
    const env = {
      TEMPORAL_TASK_QUEUE: `${gw.stack.taskQueue}-all-out`,
      PLATFORM_V_ACCOUNTS_FILE: lane.env.PLATFORM_V_ACCOUNTS_FILE!,
      ACCOUNT_COOLDOWN_MS: '3000',
    };
    const started = await gw.stack.startLane(env);
    const api = new ApiClient(started.apiUrl, 'alice');
    const tag = `all-out-${Date.now()}`;
    await accountFault({ code: 'AccountOverdueError' });
    const ids = await startTasks(api, 3, `${tag} [sim:duration=500]`);
    await started.worker.waitForLine(/OPERATOR ACTION NEEDED: No account of platform V can take a job/, 20_000);
    await new Promise((r) => setTimeout(r, 4_000));
    for (const id of ids) expect((await api.get(`/v1/generations/${id}`)).body.status).toBe('pending');
    expect(await healthGauge(started.worker)).toEqual({ one: '0', two: '0' });
    const notReady = await fetch(started.worker.metricsUrl!.replace(/\/metrics$/, '/readyz'));
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({
      status: 'no_account',
      platforms: { V: expect.stringMatching(/^one: AccountOverdueError, probed again in \d+ s; two: AccountOverdueError/) },
    });
    // The API's /readyz says it too (from its worker), still 200: it keeps accepting, and these tasks wait.
    const apiReady = await fetch(`${started.apiUrl}/readyz`);
    expect([apiReady.status, await apiReady.json()]).toEqual([
      200,
      { status: 'degraded', platforms_without_account: { V: expect.stringMatching(/^one: AccountOverdueError/) } },
    ]);

    await fetch(`${gw.stack.simUrl}/_sim/v/account-faults`, { method: 'DELETE' });
    const records = await waitAll(api, ids, 90_000);
    expect(records.map((r) => r.status)).toEqual(ids.map(() => 'success'));
    expect(await jobsTagged(tag)).toHaveLength(ids.length);
    await started.worker.waitForLine(/created a job again: back in the rotation/, 5_000);
    expect((await fetch(started.worker.metricsUrl!.replace(/\/metrics$/, '/readyz'))).status).toBe(200);
    expect(await (await fetch(`${started.apiUrl}/readyz`)).json()).toEqual({ status: 'ready' });
    await started.worker.stop(5_000);
    await started.api.stop(5_000);
  });
});

/**
 * A lane whose worker reads `variable` (an accounts file of two simulated accounts of `platform`): `n` tasks of
 * `request` all succeed, both accounts create jobs, each task records the account of its job, and every read of a
 * job was signed by that account. `jobOwner`: a simulator job's account; `signer`: a recorded request's;
 * `readJob`: the job a recorded poll read.
 */
async function spreadOverTwoAccounts(o: {
  platform: 'T' | 'B';
  variable: string;
  file: string;
  request: Record<string, unknown>;
  jobOwner: (meta: Record<string, unknown>) => string | undefined;
  signer: (authorization: string | undefined) => string | undefined;
  readJob: (poll: { path: string; body: unknown }) => string | undefined;
}): Promise<void> {
  const started = await gw.stack.startLane({ TEMPORAL_TASK_QUEUE: `${gw.stack.taskQueue}-accounts-${o.platform}`, [o.variable]: o.file });
  try {
    await started.worker.waitForLine(new RegExp(`Platform ${o.platform} spreads its jobs over 2 accounts`), 10_000);
    const api = new ApiClient(started.apiUrl, 'alice');
    const tag = `spread-${o.platform}-${Date.now()}`;
    const ids = await startTasks(api, 12, `${tag} [sim:duration=800]`, o.request);
    const records = await waitAll(api, ids, 120_000);
    expect(records.map((r) => r.status)).toEqual(ids.map(() => 'success'));

    const jobs = (await gw.sim.jobs(o.platform)).filter((j) => JSON.stringify(j.meta ?? '').includes(tag));
    expect(jobs).toHaveLength(ids.length);
    const ownerOfJob = new Map(jobs.map((j) => [j.id, o.jobOwner(j.meta)]));
    const perAccount = {
      one: [...ownerOfJob.values()].filter((a) => a === 'one').length,
      two: [...ownerOfJob.values()].filter((a) => a === 'two').length,
    };
    expect(perAccount.one).toBeGreaterThan(0);
    expect(perAccount.two).toBeGreaterThan(0);

    const polls = await gw.sim.requests(o.platform, 'poll');
    for (const owner of await ownersOf(ids)) {
      expect(owner.account).toBe(ownerOfJob.get(owner.upstream!));
      const itsPolls = polls.filter((p) => o.readJob(p) === owner.upstream);
      expect(itsPolls.length).toBeGreaterThan(0);
      expect(new Set(itsPolls.map((p) => o.signer(p.headers.authorization)))).toEqual(new Set([owner.account]));
    }
    report({ tasks: ids.length, succeeded: records.length, failed: 0, jobsCreated: jobs.length });
    process.stdout.write(`[accounts] ${o.platform}: jobs on one=${perAccount.one} two=${perAccount.two}\n`);
  } finally {
    await started.worker.stop(5_000);
    await started.api.stop(5_000);
  }
}

describe('two T accounts and two B accounts', () => {
  test('T: tasks spread over both accounts (each its own SubAppId), all succeed, every DescribeTaskDetail of a job signed by the account that created it', async () => {
    const names = ['one', 'two'] as const;
    const account = (name: string) => names.find((n) => simTAccount(n).secretId === name || simTAccount(n).subAppId === Number(name));
    await spreadOverTwoAccounts({
      platform: 'T',
      variable: 'PLATFORM_T_ACCOUNTS_FILE',
      file: writeJsonFile(
        names.map((id) => simTAccountEntry(id, gw.stack.simUrl)),
        't-accounts.json',
      ),
      request: { model: 'GV-3.1', duration: 8 },
      jobOwner: (meta) => account(String(meta.subAppId)),
      signer: (authorization) => account(/Credential=([^/]+)/.exec(authorization ?? '')?.[1] ?? ''),
      readJob: (poll) => (poll.body as { TaskId?: string } | undefined)?.TaskId,
    });
  });

  test('B: tasks spread over both accounts, all succeed, every task query of a job signed by the account that created it', async () => {
    const names = ['one', 'two'] as const;
    const account = (accessKeyId: string | undefined) => names.find((n) => simBAccount(n).accessKeyId === accessKeyId);
    await spreadOverTwoAccounts({
      platform: 'B',
      variable: 'PLATFORM_B_ACCOUNTS_FILE',
      file: writeJsonFile(
        names.map((id) => simBAccountEntry(id, gw.stack.simUrl)),
        'b-accounts.json',
      ),
      request: { model: 'VQ2', action: 'text_to_video', duration: 5 },
      jobOwner: (meta) => account(meta.owner as string | undefined),
      signer: (authorization) => account(/^bce-auth-v1\/([^/]+)\//.exec(authorization ?? '')?.[1]),
      readJob: (poll) => /\/tasks\/([^/?]+)$/.exec(poll.path)?.[1],
    });
  });
});
