/**
 * Platform V throttling on a real stack: Ark answers 429 for many reasons, and only its exact code
 * says whether waiting helps (docs/platforms/v.md#errors). Tasks whose first two creates meet each
 * throttling code all succeed on one job each, a Retry-After is waited, and nobody is told the account is out of
 * money; the spend cap (SetLimitExceeded) alone takes the account out and alerts, and with no other account the
 * task waits for it to be probed back (every account out: tasks wait within their deadline).
 */
import { readFileSync } from 'node:fs';
import { ApiClient } from '../support/client';
import { upstreamIds } from '../support/temporal';
import { useStack } from '../support/use-stack';
import { expectOneJobPerTask, V_MODEL, waitAll } from './faults-support';

jest.setTimeout(150_000);

/** Ark's 429 codes the issue lists; every one of them means "wait and retry" (QuotaExceeded: and tell the operator). */
const THROTTLING_CODES = [
  'ModelAccountRpmRateLimitExceeded',
  'ModelAccountTpmRateLimitExceeded',
  'ModelAccountIpmRateLimitExceeded',
  'APIAccountRpmRateLimitExceeded',
  'AccountRateLimitExceeded',
  'RequestBurstTooFast',
  'InflightBatchsizeExceeded',
  'QuotaExceeded',
] as const;
const TASKS = 20;
/** The simulator sends `Retry-After: 4` with RequestBurstTooFast (sim/v/errors.ts): longer than the 2 s first backoff. */
const BURST_RETRY_AFTER_MS = 4_000;

const gw = useStack({ name: 'faults-throttling' });

const workerLog = () => readFileSync(gw.stack.workers[0]!.logFile, 'utf8').split('\n');
const promptOf = (body: any): string | undefined => body?.content?.find((c: any) => c.type === 'text')?.text;

test(`${TASKS} tasks meeting each 429 throttling code on their first two creates all succeed, one job each, with no balance alert`, async () => {
  const before = await gw.sim.stats();
  const prompts = Array.from({ length: TASKS }, (_, i) => {
    const code = THROTTLING_CODES[i % THROTTLING_CODES.length]!;
    return { code, prompt: `throttled #${i} [sim:submit=429:${code} x2]` };
  });
  const replies = await Promise.all(
    prompts.map(({ prompt }) => gw.alice.post('/v1/async/videos/generations', { model: V_MODEL, prompt, duration: 5 })),
  );
  for (const r of replies) expect(r.status).toBe(200);
  const ids = replies.map((r) => r.body.task_id as string);

  const records = await waitAll(gw.alice, ids, 90_000);
  const tally = await expectOneJobPerTask({
    sim: gw.sim,
    client: gw.client,
    ids,
    records,
    jobsBefore: before.V.jobsCreated,
    expected: 'success',
  });
  expect(tally).toMatchObject({ tasks: TASKS, succeeded: TASKS, failed: 0, jobsCreated: TASKS });
  // The simulator's own jobs agree: exactly one job per prompt, and it is the one the task names.
  const jobs = await gw.sim.jobs('V');
  const upstream = await upstreamIds(gw.client, ids);
  prompts.forEach(({ prompt }, i) => {
    const mine = jobs.filter((j) => promptOf(j.meta?.request) === prompt);
    expect(mine.map((j) => j.id)).toEqual([upstream[i]]);
  });

  // Each prompt's create was answered 429 twice (with its own code) and then created once.
  const creates = await gw.sim.requests('V', 'submit');
  for (const { code, prompt } of prompts) {
    const mine = creates.filter((r) => promptOf(r.body) === prompt);
    expect(mine.map((r) => [r.status, r.response?.error?.code ?? 'created'])).toEqual([
      [429, code],
      [429, code],
      [200, 'created'],
    ]);
    // Retry-After is waited: the next create came no sooner than it asked (the policy's first backoff is 2 s).
    if (code === 'RequestBurstTooFast') {
      for (let k = 1; k < mine.length; k++) expect(mine[k]!.at! - mine[k - 1]!.at!).toBeGreaterThanOrEqual(BURST_RETRY_AFTER_MS - 50);
    }
  }

  // Nobody was told the account is out of money or refused; the quota was a notice, once.
  const log = workerLog();
  expect(log.filter((l) => /OPERATOR ACTION NEEDED|insufficient_balance/.test(l))).toEqual([]);
  expect(log.filter((l) => /OPERATOR NOTICE/.test(l) && /QuotaExceeded/.test(l))).toHaveLength(1);
  process.stdout.write(
    `[throttling] codes=${THROTTLING_CODES.length} tasks=${TASKS} succeeded=${tally.succeeded} failed=${tally.failed} upstreamJobs=${tally.jobsCreated} creates=${creates.filter((r) => prompts.some((p) => p.prompt === promptOf(r.body))).length}\n`,
  );
});

test("the only account's own spend cap (SetLimitExceeded): the task waits instead of failing, the operator is told at once, and it succeeds on one job once the account is probed back", async () => {
  // A lane of its own (its worker's account pool), on the single-account variables, with a short cool-down.
  const lane = await gw.stack.startLane({ ACCOUNT_COOLDOWN_MS: '5000' });
  try {
    const api = new ApiClient(lane.apiUrl, 'alice');
    const prompt = `capped ${Date.now()} [sim:submit=429:SetLimitExceeded x1]`;
    const r = await api.post('/v1/async/videos/generations', { model: V_MODEL, prompt, duration: 5 });
    expect(r.status).toBe(200);
    await lane.worker.waitForLine(/OPERATOR ACTION NEEDED: account default of platform V was refused \(SetLimitExceeded\)/, 20_000);
    // Out of the rotation: the task waits (nothing accepted is failed for it), and both /readyz say why.
    expect((await api.get(`/v1/generations/${r.body.task_id}`)).body.status).toBe('pending');
    const apiReady = await fetch(`${lane.apiUrl}/readyz`);
    expect([apiReady.status, await apiReady.json()]).toEqual([
      200,
      { status: 'degraded', platforms_without_account: { V: expect.stringMatching(/^default: SetLimitExceeded, probed again in \d+ s$/) } },
    ]);

    const [record] = await waitAll(api, [r.body.task_id as string], 60_000);
    expect(record).toMatchObject({ status: 'success' });
    const creates = (await gw.sim.requests('V', 'submit')).filter((q) => promptOf(q.body) === prompt);
    expect(creates.map((q) => [q.status, q.response?.error?.code ?? 'created'])).toEqual([
      [429, 'SetLimitExceeded'],
      [200, 'created'],
    ]);
    expect((await gw.sim.jobs('V')).filter((j) => promptOf(j.meta?.request) === prompt)).toHaveLength(1);
    const alerts = readFileSync(lane.worker.logFile, 'utf8')
      .split('\n')
      .filter((l) => /OPERATOR ACTION NEEDED/.test(l));
    expect(alerts.filter((l) => /account default of platform V was refused \(SetLimitExceeded\)/.test(l))).toHaveLength(1);
    expect(await (await fetch(`${lane.apiUrl}/readyz`)).json()).toEqual({ status: 'ready' });
  } finally {
    await lane.worker.stop(5_000);
    await lane.api.stop(5_000);
  }
});
