/**
 * Fault tests that break the gateway's own processes, graceful shutdown, and reads with
 * every worker stopped, on a stack of their own. Platform V models throughout.
 */
import { temporal } from '@temporalio/proto';
import { SA } from '../../core/search-attributes';
import { ApiClient } from '../support/client';
import { keptLink, withoutTokens } from '../support/result-links';
import { upstreamIds } from '../support/temporal';
import { expectOneJobPerTask, startTasks, until, V_MODEL, waitAll } from './faults-support';
import { useStack } from '../support/use-stack';

jest.setTimeout(240_000);

const gw = useStack({ name: 'faults-processes' });

const runningWorkers = () => gw.stack.workers.filter((w) => w.running);
const runningApi = () => gw.stack.apis.filter((a) => a.running).at(-1)!;

// A test that fails between stopping a process and starting it again must not take the next tests with it.
afterEach(async () => {
  await gw.sim.clearFaults();
  if (runningWorkers().length === 0) await gw.stack.startWorker();
  if (!gw.stack.apis.some((a) => a.running)) await gw.stack.startApi(gw.stack.apiPorts[0]!);
});

/** Resolves with the exit code, or rejects if the process is still running after `ms`. */
function exitWithin(proc: { exited: Promise<number | null> }, ms: number): Promise<number | null> {
  return Promise.race([
    proc.exited,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still running after ${ms} ms`)), ms).unref()),
  ]);
}

describe('worker crashes', () => {
  test('SIGKILL while submissions are in flight, and again while tasks poll: a new worker completes every task', async () => {
    const before = await gw.sim.stats();
    // Platform V refuses submits for a while, so every task is mid-submission (retrying) when the worker dies.
    // A refused submit creates no job, so any second job would be the gateway's doing. (V has no dedup key: a
    // kill landing between V creating a job and the activity reporting it is the one window left; T and B
    // close it with their dedup keys, see workflows/dedup-key.ts.)
    await gw.sim.fault({ platform: 'V', op: 'submit', status: 503, durationMs: 3_000 });
    const ids = await startTasks(gw.alice, 10, 'sigkill [sim:duration=4000]');
    await until(
      'every task has tried to submit',
      async () => (await gw.sim.stats()).V.submitRequests - before.V.submitRequests >= ids.length,
      30_000,
    );
    await runningWorkers()[0]!.kill();
    await gw.stack.startWorker();

    await until('every task is polling its job', async () => (await upstreamIds(gw.client, ids)).every(Boolean), 90_000);
    await runningWorkers()[0]!.kill();
    await gw.stack.startWorker();

    const records = await waitAll(gw.alice, ids, 150_000);
    await expectOneJobPerTask({ sim: gw.sim, client: gw.client, ids, records, jobsBefore: before.V.jobsCreated, expected: 'success' });
  });

  test('SIGKILL while a submit waits on the platform: another worker takes over on the heartbeat timeout and adopts the job, never paying twice', async () => {
    const before = await gw.sim.stats();
    // The platform creates each job at once but answers 8 s later: the worker dies while it waits.
    await gw.sim.config({ slowAnswerMs: 8_000 });
    try {
      const ids = await startTasks(gw.alice, 3, 'killed mid-submit [sim:submit=slow] [sim:duration=2000]');
      await until(
        'every job exists upstream',
        async () => (await gw.sim.stats()).V.jobsCreated - before.V.jobsCreated >= ids.length,
        30_000,
      );
      await runningWorkers()[0]!.kill();
      await gw.stack.startWorker();
      const records = await waitAll(gw.alice, ids, 120_000);
      await expectOneJobPerTask({ sim: gw.sim, client: gw.client, ids, records, jobsBefore: before.V.jobsCreated, expected: 'success' });
      // The attempt that completed each submit was started because the first one stopped heartbeating (5 s),
      // not because its 45 s attempt timeout ran out.
      for (const id of ids) {
        const history = await gw.client.workflow.getHandle(id).fetchHistory();
        const started = history.events
          ?.filter((e) => e.activityTaskStartedEventAttributes)
          .map((e) => e.activityTaskStartedEventAttributes!)[0];
        expect(started?.attempt).toBeGreaterThan(1);
        expect(started?.lastFailure?.timeoutFailureInfo?.timeoutType).toBe(temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT);
      }
    } finally {
      await gw.sim.config({ slowAnswerMs: 4_000 });
    }
  });

  test('SIGTERM mid-flight: the worker exits cleanly after handing back its work, and no task is lost', async () => {
    const before = await gw.sim.stats();
    const ids = await startTasks(gw.alice, 5, 'sigterm [sim:duration=3000]');
    await until('every task is polling its job', async () => (await upstreamIds(gw.client, ids)).every(Boolean), 30_000);
    const worker = runningWorkers()[0]!;
    worker.child.kill('SIGTERM');
    // WORKER_SHUTDOWN_GRACE_MS is 5 s in tests; the bound leaves room for the connection to close.
    expect(await exitWithin(worker, 20_000)).toBe(0);
    await gw.stack.startWorker();
    const records = await waitAll(gw.alice, ids, 60_000);
    await expectOneJobPerTask({ sim: gw.sim, client: gw.client, ids, records, jobsBefore: before.V.jobsCreated, expected: 'success' });
  });
});

describe('simulator restarts', () => {
  test('jobs survive a restart of the simulator (the embedded default), as a platform outlives its API servers', async () => {
    const ids = await startTasks(gw.alice, 3, 'across a simulator restart [sim:duration=6000]');
    await until('every task is polling its job', async () => (await upstreamIds(gw.client, ids)).every(Boolean), 30_000);
    await gw.stack.restartSim();
    const records = await waitAll(gw.alice, ids, 60_000);
    expect(records.map((r) => r.status)).toEqual(ids.map(() => 'success'));
    // Each task's job is the one it submitted before the restart, and exists exactly once.
    const jobs = await gw.sim.jobs('V');
    for (const upstream of await upstreamIds(gw.client, ids)) expect(jobs.filter((j) => j.id === upstream)).toHaveLength(1);
  });
});

describe('reads with every worker stopped', () => {
  test('closed tasks read from history, running ones from their last status, lists work, and a cancel is accepted (202)', async () => {
    const [done] = await startTasks(gw.alice, 1, 'finished before the workers stop');
    const finished = await gw.alice.waitForTask(done!);
    expect(finished.status).toBe('success');
    const running = await startTasks(gw.alice, 2, 'running while the workers stop [sim:duration=60000]');
    await until(
      'both report running',
      async () => {
        const rs = await Promise.all(running.map((id) => gw.alice.get(`/v1/generations/${id}`)));
        return rs.every((r) => r.body.status === 'running');
      },
      30_000,
    );

    const desc = await gw.client.workflow.getHandle(running[0]!).describe();
    expect(desc.typedSearchAttributes.get(SA.status)).toBe('running');

    await Promise.all(runningWorkers().map((w) => w.stop()));
    expect(runningWorkers()).toHaveLength(0);

    expect(withoutTokens((await gw.alice.get(`/v1/generations/${done}`)).body)).toEqual(withoutTokens(finished));
    for (const id of running) {
      const r = await gw.alice.get(`/v1/generations/${id}`);
      expect(r.status).toBe(200);
      // The estimate is read from the memo too (V has no public price: usage without a cost).
      expect(r.body).toEqual({
        task_id: id,
        status: 'running',
        model: V_MODEL,
        progress: expect.stringMatching(/^\d+%$/),
        usage: { seconds: 5 },
        cost: null,
      });
    }
    const list = await gw.alice.get('/v1/tasks?page_size=100');
    expect(list.status).toBe(200);
    const listed = new Map((list.body.data as any[]).map((t) => [t.task_id, t.status]));
    expect(listed.get(done!)).toBe('success');
    for (const id of running) expect(listed.get(id)).toBe('running');

    // Cancelling needs a worker to finish: the request is accepted and completes once one is back.
    const cancel = await gw.alice.post(`/v1/generations/${running[0]}/cancel`, {});
    expect(cancel.status).toBe(202);
    expect(cancel.body).toMatchObject({ task_id: running[0], status: 'running' });

    await gw.stack.startWorker();
    const cancelled = await gw.alice.waitForTask(running[0]!, 30_000);
    expect(cancelled).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    expect((await gw.alice.post(`/v1/generations/${running[1]}/cancel`, {})).status).toBe(200);
  });
});

describe('API restarts', () => {
  test('SIGKILL during a sync wait: async tasks are unaffected; the sync client finds its task in GET /v1/tasks and by Idempotency-Key', async () => {
    const before = await gw.sim.stats();
    const bob = new ApiClient(gw.stack.apiUrl, 'bob');
    const asyncIds = await startTasks(gw.alice, 3, 'across an API crash [sim:duration=3000]');
    const body = { model: V_MODEL, prompt: 'sync, connection lost [sim:duration=3000]', duration: 5 };
    const idempotency = { 'Idempotency-Key': `lost-sync-${process.pid}` };
    const sync = bob.post('/v1/videos/generations', body, idempotency);
    await until("bob's sync task has started", async () => (await bob.get('/v1/tasks')).body.total === 1, 15_000);

    const api = runningApi();
    const port = gw.stack.apiPorts[0]!;
    await api.kill();
    await expect(sync).rejects.toThrow();
    await gw.stack.startApi(port);

    const list = await bob.get('/v1/tasks');
    expect(list.body.data).toHaveLength(1);
    const syncId = list.body.data[0].task_id as string;
    // Sending the same request again with its Idempotency-Key waits on the same task instead of starting one.
    const retried = await bob.post('/v1/videos/generations', body, idempotency);
    expect(retried.status).toBe(200);
    expect(retried.body.task_id).toBe(syncId);
    expect(retried.body.data[0].url).toMatch(keptLink(syncId));

    const ids = [...asyncIds, syncId];
    const records = await Promise.all(ids.map((id) => (id === syncId ? bob : gw.alice).waitForTask(id, 60_000)));
    await expectOneJobPerTask({ sim: gw.sim, client: gw.client, ids, records, jobsBefore: before.V.jobsCreated, expected: 'success' });
  });

  test('SIGTERM: an in-flight sync request is answered, new connections are refused, and the process exits', async () => {
    const dave = new ApiClient(gw.stack.apiUrl, 'dave');
    const sync = dave.post('/v1/videos/generations', { model: V_MODEL, prompt: 'sync through a SIGTERM [sim:duration=2500]', duration: 5 });
    await until("dave's sync task has started", async () => (await dave.get('/v1/tasks')).body.total === 1, 15_000);

    const api = runningApi();
    const port = gw.stack.apiPorts[0]!;
    api.child.kill('SIGTERM');
    await api.waitForLine(/Stopping/, 10_000);
    await expect(fetch(`${gw.stack.apiUrl}/healthz`)).rejects.toThrow();

    const answer = await sync;
    expect(answer.status).toBe(200);
    expect(answer.body.data[0].url).toMatch(keptLink(answer.body.task_id));
    // API_SHUTDOWN_GRACE_MS is 5 s in tests: the process is gone well within it plus a margin.
    expect(await exitWithin(api, 15_000)).toBe(0);
    await gw.stack.startApi(port);
  });

  test('SIGTERM: a sync wait longer than the grace period is answered 503 naming its task, which then succeeds', async () => {
    const carol = new ApiClient(gw.stack.apiUrl, 'carol');
    const sync = carol.post('/v1/videos/generations', {
      model: V_MODEL,
      prompt: 'outlives the grace period [sim:duration=9000]',
      duration: 5,
    });
    await until("carol's sync task has started", async () => (await carol.get('/v1/tasks')).body.total === 1, 15_000);

    const api = runningApi();
    const port = gw.stack.apiPorts[0]!;
    api.child.kill('SIGTERM');
    const answer = await sync;
    expect(answer.status).toBe(503);
    expect(answer.body.error).toMatchObject({ code: 'api_restarting', task_id: expect.any(String) });
    expect(await exitWithin(api, 15_000)).toBe(0);
    await gw.stack.startApi(port);
    expect((await carol.waitForTask(answer.body.error.task_id, 60_000)).status).toBe('success');
  });
});

describe('Temporal restarts', () => {
  test('the dev server stops mid-flight and starts again on the same database: every task completes', async () => {
    const before = await gw.sim.stats();
    const ids = await startTasks(gw.alice, 10, 'across a Temporal restart [sim:duration=3000]');
    await until('every task is polling its job', async () => (await upstreamIds(gw.client, ids)).every(Boolean), 30_000);

    await gw.stack.temporal.stop();
    const down = await gw.alice.get(`/v1/generations/${ids[0]}`);
    expect(down.status).toBe(503);
    expect(down.body.error).toMatchObject({ type: 'service_unavailable_error', code: 'temporal_unavailable' });
    await gw.stack.startTemporal();

    const records = await waitAll(gw.alice, ids, 150_000);
    await expectOneJobPerTask({ sim: gw.sim, client: gw.client, ids, records, jobsBefore: before.V.jobsCreated, expected: 'success' });
  });
});
