/**
 * Fault tests against the upstream, cancellation, search attributes and the
 * replay-after-outage runbook, on a stack of their own. Platform V models throughout: V has no dedup key, so
 * "exactly one upstream job per task" means the workflow itself never submitted twice.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { SA } from '../../core/search-attributes';
import { findTemporalCli } from '../../scripts/temporal-cli';
import { ApiClient } from '../support/client';
import { REPO } from '../support/stack';
import { upstreamIds } from '../support/temporal';
import { expectOneJobPerTask, report, startTasks, until, V_MODEL, waitAll } from './faults-support';
import { useStack } from '../support/use-stack';

jest.setTimeout(180_000);

/** The deadline of tasks started through the second API: short, so an outage can outlast it. */
const SHORT_DEADLINE_MS = 6_000;

// A job the platform forgets is retried for UPSTREAM_LOST_GRACE_MS after its submit (2 min by default); a job T
// refuses to create again is looked for LOST_ANSWER_SEARCH_MS (5 min by default).
const gw = useStack({ name: 'faults-upstream', env: { UPSTREAM_LOST_GRACE_MS: '1000', LOST_ANSWER_SEARCH_MS: '20000' } });
let aliceShort: ApiClient;

beforeAll(async () => {
  // The deadline is the worker's setting: a lane (its own task queue, worker and API) runs tasks with a short one.
  const short = await gw.stack.startLane({ TASK_DEADLINE_VIDEO_MS: String(SHORT_DEADLINE_MS) });
  aliceShort = new ApiClient(short.apiUrl, 'alice');
}, 180_000);

afterEach(() => gw.sim.clearFaults());

describe('an upstream outage shorter than the deadline', () => {
  test.each([
    { kind: '500', status: 500 as const },
    { kind: '429 with Retry-After', status: 429 as const, retryAfterSeconds: 1 },
    { kind: 'refused connections (reset)', status: 'reset' as const },
  ])('$kind on submit and then on poll: no task fails, one job per task', async ({ status, retryAfterSeconds }) => {
    const before = await gw.sim.stats();
    // Submits fail first...
    await gw.sim.fault({ platform: 'V', op: 'submit', status, durationMs: 2_500, retryAfterSeconds });
    const ids = await startTasks(gw.alice, 5, `outage ${status} [sim:duration=3000]`);
    await until('every task has submitted its job', async () => (await upstreamIds(gw.client, ids)).every(Boolean), 30_000);
    // ...then, while the jobs run, polls fail for ten poll intervals.
    await gw.sim.fault({ platform: 'V', op: 'poll', status, durationMs: 3_000, retryAfterSeconds });
    const records = await waitAll(gw.alice, ids, 60_000);

    const after = await gw.sim.stats();
    expect(after.V.faultsInjected - before.V.faultsInjected).toBeGreaterThanOrEqual(ids.length * 2);
    await expectOneJobPerTask({ sim: gw.sim, client: gw.client, ids, records, jobsBefore: before.V.jobsCreated, expected: 'success' });
  });
});

describe('a job the platform loses', () => {
  test('the task fails upstream_lost naming the job; the runbook replays it as an outage victim, on a new job', async () => {
    const before = await gw.sim.stats();
    const [id] = await startTasks(gw.alice, 1, 'lost upstream [sim:never]');
    await until('the job exists upstream', async () => (await upstreamIds(gw.client, [id!]))[0] !== undefined, 30_000);
    const [upstream] = await upstreamIds(gw.client, [id!]);
    // The platform forgets it, as past its retention: its task query answers 404 from now on.
    expect((await fetch(`${gw.stack.simUrl}/_sim/jobs/${upstream}`, { method: 'DELETE' })).status).toBe(200);

    const lost = await gw.alice.waitForTask(id!, 60_000);
    expect(lost).toMatchObject({ status: 'failed', error: { code: 'upstream_lost', message: expect.stringContaining(upstream!) } });
    const failed = await gw.client.workflow.getHandle(id!).describe();
    expect(failed.typedSearchAttributes.get(SA.failureReason)).toBe('upstream_lost');

    const replay = (...args: string[]) =>
      execFileSync(process.execPath, ['--import', 'tsx', join(REPO, 'scripts/replay-failed.ts'), ...args], {
        cwd: REPO,
        env: { ...process.env, ...gw.stack.env },
        encoding: 'utf8',
      });
    expect(replay('--task-id', id!)).toContain(`replay  ${id}`);
    // The replayed run submits a new job (the lost one is gone) and keeps polling it.
    await until(
      'the replayed run has a job of its own',
      async () => {
        const [now] = await upstreamIds(gw.client, [id!]);
        return now !== undefined && now !== upstream;
      },
      30_000,
    );
    expect((await gw.sim.stats()).V.jobsCreated - before.V.jobsCreated).toBe(2);
    expect((await gw.alice.get(`/v1/generations/${id}`)).body.status).toMatch(/^(pending|running)$/);
    await gw.client.workflow.getHandle(id!).cancel();
  });
});

describe('an upstream outage past the deadline, and the replay runbook', () => {
  test('tasks fail with deadline_exceeded, are findable by search attribute, and a replay completes the same task ids', async () => {
    const before = await gw.sim.stats();
    await gw.sim.fault({ platform: 'V', op: '*', status: 503, durationMs: 120_000 });
    const ids = await startTasks(aliceShort, 4, 'down past the deadline');
    const failed = await waitAll(aliceShort, ids, 60_000);
    for (const r of failed) {
      expect(r.status).toBe('failed');
      expect(r.error.code).toBe('deadline_exceeded');
      expect(r.error.message).toMatch(/could not be submitted within the task deadline \(6 s\).*could not be reached.*unavailable/i);
    }
    expect((await gw.sim.stats()).V.jobsCreated).toBe(before.V.jobsCreated);
    report({ tasks: ids.length, succeeded: 0, failed: failed.length, jobsCreated: 0 });

    // Search attributes say why, on the execution and in a visibility query an operator would type.
    const desc = await gw.client.workflow.getHandle(ids[0]!).describe();
    expect(desc.status.name).toBe('FAILED');
    expect(desc.typedSearchAttributes.get(SA.status)).toBe('failed');
    expect(desc.typedSearchAttributes.get(SA.failureReason)).toBe('deadline_exceeded');
    expect(desc.typedSearchAttributes.get(SA.owner)).toBe('alice');
    expect(desc.typedSearchAttributes.get(SA.model)).toBe(V_MODEL);
    expect(desc.typedSearchAttributes.get(SA.platform)).toBe('V');
    expect(desc.typedSearchAttributes.get(SA.kind)).toBe('video');
    const query = "GenerationStatus = 'failed' AND GenerationFailureReason = 'deadline_exceeded' AND GenerationPlatform = 'V'";
    await until(
      'visibility lists the failed tasks',
      async () => {
        const found = new Set<string>();
        for await (const w of gw.client.workflow.list({ query })) found.add(w.workflowId);
        return ids.every((id) => found.has(id));
      },
      15_000,
    );

    // The runbook (docs/guides/repair.md): the platform is back; find the victims with the CLI...
    await gw.sim.clearFaults();
    const cli = findTemporalCli({ install: false });
    if (!cli) throw new Error('Temporal CLI not found (run npm run temporal:install)');
    const listed = JSON.parse(
      execFileSync(cli, ['workflow', 'list', '--address', gw.stack.temporalAddress, '--query', query, '--output', 'json'], {
        encoding: 'utf8',
      }),
    ) as { execution: { workflowId: string } }[];
    expect(listed.map((w) => w.execution.workflowId)).toEqual(expect.arrayContaining(ids));

    // A task refused for its content also failed meanwhile: the runbook must leave it alone.
    const [refused] = await startTasks(aliceShort, 1, 'refused [sim:fail=content_policy]');
    expect((await aliceShort.waitForTask(refused!)).error.code).toBe('content_policy');
    const beforeReplay = await gw.sim.stats();

    // ...see what would be replayed, then replay them with the gateway command.
    const replay = (...args: string[]) =>
      execFileSync(process.execPath, ['--import', 'tsx', join(REPO, 'scripts/replay-failed.ts'), ...args], {
        cwd: REPO,
        env: { ...process.env, ...gw.stack.env },
        encoding: 'utf8',
      });
    const dry = replay('--query', "GenerationPlatform = 'V'", '--dry-run');
    for (const id of ids) expect(dry).toContain(`would replay ${id}`);
    expect(dry).not.toContain(refused);
    expect((await gw.alice.get(`/v1/generations/${ids[0]}`)).body.status).toBe('failed');
    // Named on its own, the refused task is not replayed, and the operator is told why and how to override.
    const named = replay('--task-id', refused!, '--dry-run');
    expect(named).toContain(`skip    ${refused}: it failed with content_policy, which an outage does not cause`);
    expect(named).toContain(`--query "GenerationFailureReason = 'content_policy'"`);
    expect(replay('--help')).toMatch(/^Replays generation tasks that failed because of an outage/);

    const out = replay('--query', "GenerationPlatform = 'V'");
    for (const id of ids) expect(out).toContain(`replay  ${id}`);

    // The same task ids go on to success, with one upstream job each (the first run never created one).
    const records = await waitAll(aliceShort, ids, 60_000);
    await expectOneJobPerTask({
      sim: gw.sim,
      client: gw.client,
      ids,
      records,
      jobsBefore: beforeReplay.V.jobsCreated,
      expected: 'success',
    });
    expect((await aliceShort.get(`/v1/generations/${refused}`)).body.status).toBe('failed');
    const now = await gw.client.workflow.getHandle(ids[0]!).describe();
    expect(now.status.name).toBe('COMPLETED'); // a success is told by its run (patch quieter-task)
    expect(now.typedSearchAttributes.get(SA.failureReason)).toBeUndefined();

    // Clients see one record per task throughout: the reset run replaces the failed one in the task list.
    const list = await aliceShort.get('/v1/tasks?page_size=100');
    const mine = (list.body.data as { task_id: string; status: string }[]).filter((t) => ids.includes(t.task_id));
    expect(mine.map((t) => t.status)).toEqual(ids.map(() => 'success'));

    // Running the runbook again replays nothing: every task's current run is no longer the failed one.
    const again = replay('--query', "GenerationPlatform = 'V'");
    expect(again).toMatch(/Replayed 0 task\(s\)/);
    expect((await gw.sim.stats()).V.jobsCreated - beforeReplay.V.jobsCreated).toBe(ids.length);
  });
});

describe('cancellation', () => {
  test('the owner cancels a queued task: 200, failed with code cancelled, and the upstream job is cancelled', async () => {
    const before = await gw.sim.stats();
    const [id] = await startTasks(gw.alice, 1, 'to be cancelled [sim:duration=20000]');
    await until('the job is submitted', async () => Boolean((await upstreamIds(gw.client, [id!]))[0]), 15_000);

    expect((await gw.bob.post(`/v1/generations/${id}/cancel`, {})).status).toBe(404);
    const r = await gw.alice.post(`/v1/generations/${id}/cancel`, {});
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      task_id: id,
      status: 'failed',
      model: V_MODEL,
      error: { code: 'cancelled', message: expect.stringMatching(/cancelled/) },
    });
    expect((await gw.alice.get(`/v1/generations/${id}`)).body).toEqual(r.body);
    expect((await gw.sim.stats()).V.cancels - before.V.cancels).toBe(1);

    const desc = await gw.client.workflow.getHandle(id!).describe();
    expect(desc.status.name).toBe('CANCELLED');
    expect(desc.typedSearchAttributes.get(SA.status)).toBe('cancelled');
    expect(desc.typedSearchAttributes.get(SA.failureReason)).toBe('cancelled');

    // Cancelling it again: it has finished.
    const again = await gw.alice.post(`/v1/generations/${id}/cancel`, {});
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      error: { message: expect.stringMatching(/already finished/), type: 'conflict_error', param: 'task_id', code: 'task_finished' },
    });
  });

  test('a finished task cannot be cancelled (409); an unknown task is 404', async () => {
    const [id] = await startTasks(gw.alice, 1, 'finishes first');
    expect((await gw.alice.waitForTask(id!)).status).toBe('success');
    const r = await gw.alice.post(`/v1/generations/${id}/cancel`, {});
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: 'conflict_error', code: 'task_finished' });
    expect((await gw.alice.get(`/v1/generations/${id}`)).body.status).toBe('success');

    const unknown = await gw.alice.post('/v1/generations/task_doesnotexist/cancel', {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ type: 'not_found_error', code: 'task_not_found' });
  });
});

describe('search attributes and history size', () => {
  test('a successful task carries model, platform, kind and owner, its success told by its run; its history grows by a bounded amount per poll', async () => {
    const [id] = await startTasks(gw.alice, 1, 'measured');
    expect((await gw.alice.waitForTask(id!)).status).toBe('success');
    const handle = gw.client.workflow.getHandle(id!);
    const desc = await handle.describe();
    expect(
      Object.fromEntries(['model', 'platform', 'kind', 'owner'].map((k) => [k, desc.typedSearchAttributes.get(SA[k as keyof typeof SA])])),
    ).toEqual({
      model: V_MODEL,
      platform: 'V',
      kind: 'video',
      owner: 'alice',
    });
    await until(
      'visibility has the final status',
      async () => {
        for await (const w of gw.client.workflow.list({
          // A success writes no GenerationStatus (patch quieter-task): the closed run's ExecutionStatus says it.
          query: `ExecutionStatus = 'Completed' AND GenerationOwner = 'alice' AND WorkflowId = '${id}'`,
        }))
          return w.workflowId === id;
        return false;
      },
      15_000,
    );

    const events = (await handle.fetchHistory()).events ?? [];
    // Polls are local activities (workflows/generation.ts): each is a marker, plus its timer and workflow task.
    const polls = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
    const fixed = events.length - polls * 6;
    process.stdout.write(`[faults] history of one task: ${events.length} events, ${polls} polls (${fixed} events besides ~6 per poll)\n`);
    expect(polls).toBeGreaterThan(0);
    // Submit, memo/status updates and completion cost a small fixed amount; each poll costs one local-activity
    // marker and one timer (with their workflow task). So a 60-minute video task at 5 s polls stays near 4.3k
    // events over its runs, and continue-as-new keeps each run under 2,500.
    expect(fixed).toBeLessThanOrEqual(30);
  });
});

/**
 * A lost create answer on a real stack: one lost on platform B while the simulator echoes requests the way
 * no public source rules out — with its defaults filled in (/_sim/b/echo "defaults"). The worker reconciles
 * through the task list, recognises its job by the normalised echo, and the task succeeds on that one job.
 */
describe('a lost create answer on B, which echoes its requests with defaults filled in', () => {
  const setEcho = (echo: string) =>
    fetch(`${gw.stack.simUrl}/_sim/b/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ echo }),
    });
  afterEach(async () => {
    await setEcho('exact');
  });

  test('[sim:submit=drop]: the job is adopted, the task succeeds, B made one job', async () => {
    await setEcho('defaults');
    const before = await gw.sim.stats();
    const reply = await gw.alice.post('/v1/async/videos/generations', {
      model: 'K20',
      action: 'text_to_video',
      prompt: `lost answer, echo with defaults ${Date.now()} [sim:submit=dropx1] [sim:duration=2000]`,
      duration: 5,
    });
    expect(reply.status).toBe(200);
    const record = await gw.alice.waitForTask(reply.body.task_id as string, 90_000);
    expect(record.status).toBe('success');
    const after = await gw.sim.stats();
    expect(after.B.answersDropped - before.B.answersDropped).toBe(1);
    expect(after.B.jobsCreated - before.B.jobsCreated).toBe(1);
    expect(after.B.submitRequests - before.B.submitRequests).toBe(1);
    const [upstream] = await upstreamIds(gw.client, [reply.body.task_id as string]);
    const job = (await gw.sim.jobs('B')).find((j) => j.id === upstream);
    // B showed the request with a default it filled in, not as sent.
    expect(job?.meta.echo).toBeDefined();
  });
});

/**
 * A lost create answer on a real stack, T as silent as it could be: DescribeTasks lists no AIGC task and a repeated
 * SessionId is refused with a generic code (/_sim/t/behaviour). The create's answer is lost: the worker cannot find
 * the job, T refuses a second one, and the task ends upstream_lost — naming what finds the job, counted, alerted —
 * instead of failing with T's refusal; the replay runbook then completes it.
 */
describe('a lost create answer on T, whose task list shows no AIGC task', () => {
  const setBehaviour = (b: object) =>
    fetch(`${gw.stack.simUrl}/_sim/t/behaviour`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(b),
    });
  afterEach(async () => {
    await setBehaviour({});
  });

  test('[sim:submit=drop]: one job, no second create, the task ends upstream_lost with account, dedup key, window and digest; replayable', async () => {
    await setBehaviour({ listsAigcTasks: false, sessionIdRepeatCode: 'FailedOperation' });
    const before = await gw.sim.stats();
    const reply = await gw.alice.post('/v1/async/videos/generations', {
      model: 'GV-3.1',
      prompt: `lost answer, silent T ${Date.now()} [sim:submit=dropx1] [sim:duration=2000]`,
      duration: 8,
    });
    expect(reply.status).toBe(200);
    const id = reply.body.task_id as string;
    const lost = await gw.alice.waitForTask(id, 120_000);
    expect(lost).toMatchObject({ status: 'failed', error: { code: 'upstream_lost' } });
    for (const part of ['account SubAppId ', 'dedup key ', 'created ', 'request sha256:']) expect(lost.error.message).toContain(part);
    const after = await gw.sim.stats();
    expect(after.T.jobsCreated - before.T.jobsCreated).toBe(1);
    expect(after.T.dedupRefusals - before.T.dedupRefusals).toBe(1);
    const metrics = await (await fetch(gw.stack.workers[0]!.metricsUrl!)).text();
    expect(metrics).toMatch(/mediagate_upstream_lost_total\{platform="T",reason="not_found_after_refusal"\} [1-9]/);

    // Replayable: a new run, a new SessionId, a new job (the operator accepted paying again).
    const replay = execFileSync(process.execPath, ['--import', 'tsx', join(REPO, 'scripts/replay-failed.ts'), '--task-id', id], {
      cwd: REPO,
      env: { ...process.env, ...gw.stack.env },
      encoding: 'utf8',
    });
    expect(replay).toContain(`replay  ${id}`);
    await until('the replayed task succeeds', async () => (await gw.alice.get(`/v1/generations/${id}`)).body.status === 'success', 60_000);
    expect((await gw.sim.stats()).T.jobsCreated - before.T.jobsCreated).toBe(2);
  });
});
