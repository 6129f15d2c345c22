/**
 * Platform capacity over HTTP against a real stack (docs/architecture.md, "Capacity"): the simulator enforces each
 * account's concurrency as the platforms do (T: one task at a time, an over-limit job created then failed with
 * RequestLimitExceeded; V: 429 InflightBatchsizeExceeded), and the gateway holds waiting tasks itself:
 *
 * - T at its default limit of 1 never has a second job running, and every task succeeds; in Temporal's task queues
 *   each task has its key's fair share, and a task granted a slot goes first from its grant on;
 * - a waiting task says so in its record, and a cancel while it waits creates no job and costs nothing;
 * - a route serves from a member with a free slot while another member is full;
 * - a task that outlives its deadline waiting fails capacity_timeout, creating nothing;
 * - a SIGKILL of the worker during a backlog loses no slot, exceeds no limit, and every task succeeds;
 * - a job V announces ended (a verified callback) frees its slot for the next waiting task with no worker running;
 * - a job that runs on after its task was cancelled (T cannot cancel a running job) keeps its slot until it ends;
 * - the console's Accounts page shows an account's slots and queue, and its Overview the tasks waiting.
 */
import type { temporal } from '@temporalio/proto';
import { SA } from '../../core/search-attributes';
import { bundleWorkflows, replayHistories } from '../../scripts/replay-gate';
import { expectText, launchChromium, openPage } from '../support/browser';
import { capacityControl } from '../support/simulator';
import { ApiClient } from '../support/client';
import { installQuietRuntime } from '../support/quiet-runtime';
import { freePort } from '../support/stack';
import { useStack } from '../support/use-stack';
import { startTasks, until, V_MODEL, waitAll } from './faults-support';

jest.setTimeout(300_000);

// The replays below run workers in this process.
installQuietRuntime();

const T_ACCOUNT = 'AKIDsimulator';
const V_ACCOUNT = 'sim-v-key';
const V_LIMIT = 2;

// The gateway is told V's limit (its one account, PLATFORM_V_MAX_CONCURRENT); T's is its documented default of 1.
// V calls back (PUBLIC_BASE_URL names the API's port, chosen first), so an announced end reaches the API.
const ADMIN_TOKEN = 'capacity-console-token-0123456789abcdef';
const gw = useStack(async () => {
  const apiPort = await freePort();
  return {
    name: 'capacity',
    apiPort,
    env: {
      PLATFORM_V_MAX_CONCURRENT: String(V_LIMIT),
      ADMIN_TOKEN,
      PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
      CALLBACK_SECRET: 'capacity-callback-secret-0123456789abcdef',
    },
  };
});
const simT = () => capacityControl({ url: gw.stack.simUrl }, 'T');
const simV = () => capacityControl({ url: gw.stack.simUrl }, 'V');

const tModel = (prompt: string) => ({ model: 'VendorK-2.1', action: 'text_to_video', duration: 5, prompt });

/** The simulator's T jobs whose prompt carries `tag`. */
async function tJobsTagged(tag: string): Promise<unknown[]> {
  return (await gw.sim.jobs('T')).filter((j) => JSON.stringify(j.meta?.request ?? j).includes(tag));
}

beforeAll(async () => {
  expect((await simV().set({ max_concurrent: V_LIMIT })).status).toBe(200);
});

beforeEach(async () => {
  await simT().resetStats();
  await simV().resetStats();
});

test('T at its default limit of 1 never has a second job running, and every task succeeds', async () => {
  const ids = await startTasks(gw.alice, 3, 'one-at-a-time [sim:duration=1500]', tModel('x'));
  const records = await waitAll(gw.alice, ids, 120_000);
  expect(records.map((r) => r.status)).toEqual(['success', 'success', 'success']);
  const account = await simT().account(T_ACCOUNT);
  expect(account).toMatchObject({ peak_running: 1, over_limit_jobs: 0 });
  expect(account!.created_jobs).toBe(3);
  // In Temporal's task queues each task has its key's fair share (its fairness key is the key's id, its weight the
  // key's), and a submit that takes a granted slot is scheduled first (priority key 1): two of the three waited.
  // From its grant on, a granted task's whole workflow goes first (its priority key raised to 1 before the grant's
  // signal), its fairness key kept; a task that never waited keeps the priority it started with. The SDK replays
  // the change like any other event.
  const bundle = await bundleWorkflows();
  const granted: boolean[] = [];
  for (const id of ids) {
    const handle = gw.client.workflow.getHandle(id);
    const history = await handle.fetchHistory();
    const owner = (await handle.describe()).typedSearchAttributes.get(SA.owner);
    expect(history.events![0]!.workflowExecutionStartedEventAttributes!.priority).toMatchObject({ fairnessKey: owner, fairnessWeight: 1 });
    const wasGranted = submitPriorities(history).includes(1);
    granted.push(wasGranted);
    const raised = (history.events ?? []).flatMap((e) => e.workflowExecutionOptionsUpdatedEventAttributes?.priority ?? []);
    expect(raised).toEqual(wasGranted ? [expect.objectContaining({ priorityKey: 1, fairnessKey: owner })] : []);
    expect(await replayHistories(bundle, [{ workflowId: id, history }])).toEqual({ replayed: 1, failures: [] });
  }
  expect(granted.filter(Boolean)).toHaveLength(2);
});

/** The priority key each of a task's submit activities was scheduled with (0: none set). */
function submitPriorities(history: temporal.api.history.v1.IHistory): number[] {
  return (history.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'submitGeneration')
    .map((a) => a!.priority?.priorityKey ?? 0);
}

test('a waiting task says so and since when; cancelled, it creates no job and costs nothing', async () => {
  // (T cannot cancel a running job: the first task's job runs on after its cancel, and keeps its slot until it ends.)
  const [busy] = await startTasks(gw.alice, 1, 'holds-the-slot [sim:duration=20000]', tModel('x'));
  await until('the first task has its job', async () => (await tJobsTagged('holds-the-slot')).length === 1, 60_000);
  const [waiting] = await startTasks(gw.alice, 1, 'waits-then-cancelled', tModel('x'));
  let record: any;
  await until(
    'the second task says it waits for capacity',
    async () => {
      record = (await gw.alice.get(`/v1/generations/${waiting}`)).body;
      return record.waiting !== undefined;
    },
    60_000,
  );
  expect(record).toMatchObject({ status: 'pending', waiting: { reason: 'platform_capacity', since: expect.any(Number) } });
  expect(record.message).toMatch(/^Waiting for platform capacity since /);
  const cancelled = await gw.alice.post(`/v1/generations/${waiting}/cancel`, {});
  expect(cancelled.status).toBe(200);
  const ended = await gw.alice.waitForTask(waiting!, 60_000);
  expect(ended).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
  expect(ended.cost ?? null).toBeNull();
  expect(await tJobsTagged('waits-then-cancelled')).toEqual([]);
  await gw.alice.post(`/v1/generations/${busy}/cancel`, {});
  await gw.alice.waitForTask(busy!, 60_000);
});

test('a route serves from a member with a free slot while another member is full', async () => {
  const [busy] = await startTasks(gw.alice, 1, 'fills-T [sim:duration=20000]', tModel('x'));
  await until('T is busy', async () => ((await simT().account(T_ACCOUNT))?.running ?? 0) >= 1, 60_000);
  const [routed] = await startTasks(gw.alice, 1, 'routed-past-full-T', {
    model: 'hailuo-2.3',
    action: 'text_to_video',
    duration: 6,
  });
  const record = await gw.alice.waitForTask(routed!, 120_000);
  expect(record).toMatchObject({ status: 'success', served_by: { platform: 'B', model: 'H23' } });
  expect(await tJobsTagged('routed-past-full-T')).toEqual([]);
  await gw.alice.post(`/v1/generations/${busy}/cancel`, {});
  await gw.alice.waitForTask(busy!, 60_000);
});

test('a task that outlives its deadline waiting fails capacity_timeout and creates nothing', async () => {
  // A lane of its own with a short video deadline, sharing the simulator's T account and the slot store.
  const lane = await gw.stack.startLane({ TASK_DEADLINE_VIDEO_MS: '8000' });
  const api = new ApiClient(lane.apiUrl, 'alice');
  try {
    const [busy] = await startTasks(gw.alice, 1, 'outlasts-the-deadline [sim:duration=40000]', tModel('x'));
    await until('T is busy', async () => ((await simT().account(T_ACCOUNT))?.running ?? 0) >= 1, 60_000);
    const [late] = await startTasks(api, 1, 'never-gets-a-slot', tModel('x'));
    const record = await api.waitForTask(late!, 90_000);
    expect(record).toMatchObject({ status: 'failed', error: { code: 'capacity_timeout' } });
    expect(record.error.message).toMatch(/Nothing was created upstream and nothing is charged/);
    expect(record.cost ?? null).toBeNull();
    expect(await tJobsTagged('never-gets-a-slot')).toEqual([]);
    await gw.alice.post(`/v1/generations/${busy}/cancel`, {});
    await gw.alice.waitForTask(busy!, 60_000);
  } finally {
    await lane.api.stop();
    await lane.worker.stop();
  }
});

test('a SIGKILL of the worker during a backlog loses no slot, exceeds no limit, and every task succeeds', async () => {
  const ids = await startTasks(gw.alice, 8, 'backlog-through-a-kill [sim:duration=3000]', { model: V_MODEL, duration: 5 });
  await until(
    'the account is full and tasks wait',
    async () => {
      const waiting = await Promise.all(ids.map(async (id) => (await gw.alice.get(`/v1/generations/${id}`)).body.waiting !== undefined));
      return waiting.filter(Boolean).length >= 3;
    },
    60_000,
  );
  await gw.stack.restartWorker();
  const records = await waitAll(gw.alice, ids, 180_000);
  expect(records.map((r) => r.status)).toEqual(Array(8).fill('success'));
  const account = await simV().account(V_ACCOUNT);
  expect(account!.peak_running).toBeLessThanOrEqual(V_LIMIT);
  expect(account!.refused_creates).toBe(0);
  expect(account!.created_jobs).toBe(8);
});

/** Tasks waiting for a slot, as the operator's overview counts them (from the slot store, whatever runs). */
async function tasksWaiting(): Promise<number> {
  const r = await fetch(`${gw.stack.apiUrl}/admin/v1/overview`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(r.status).toBe(200);
  return ((await r.json()) as { tasks_waiting: number }).tasks_waiting;
}

test('a job V announces ended gives its slot to the next waiting task at once, with no worker to poll it', async () => {
  await until('V is free', async () => ((await simV().account(V_ACCOUNT))?.running ?? 0) === 0 && (await tasksWaiting()) === 0, 120_000);
  const ids = await startTasks(gw.alice, V_LIMIT + 1, 'slot-freed-by-announcement [sim:duration=4000]', { model: V_MODEL, duration: 5 });
  await until('the account is full and one task waits', async () => (await tasksWaiting()) === 1, 60_000);
  // With the worker gone nothing polls: only the API, hearing V's callbacks, can free the ended jobs' slots.
  await gw.stack.killWorker();
  await until("an ended job's slot went to the waiting task", async () => (await tasksWaiting()) === 0, 60_000);
  expect((await simV().account(V_ACCOUNT))!.running).toBe(0);
  await gw.stack.startWorker();
  const records = await waitAll(gw.alice, ids, 180_000);
  expect(records.map((r) => r.status)).toEqual(Array(V_LIMIT + 1).fill('success'));
  const account = await simV().account(V_ACCOUNT);
  expect(account).toMatchObject({ created_jobs: V_LIMIT + 1, refused_creates: 0 });
  expect(account!.peak_running).toBeLessThanOrEqual(V_LIMIT);
});

test('a job that runs on after its task was cancelled keeps its slot until it ends, so T never runs two', async () => {
  await until('T is free', async () => ((await simT().account(T_ACCOUNT))?.running ?? 1) === 0, 120_000);
  await simT().resetStats();
  const [cancelled] = await startTasks(gw.alice, 1, 'runs-on-after-cancel [sim:duration=6000]', tModel('x'));
  await until('its job runs', async () => (await tJobsTagged('runs-on-after-cancel')).length === 1, 60_000);
  await gw.alice.post(`/v1/generations/${cancelled}/cancel`, {});
  await gw.alice.waitForTask(cancelled!, 60_000);
  const [next] = await startTasks(gw.alice, 1, 'after-the-cancelled-one [sim:duration=1000]', tModel('x'));
  expect(await gw.alice.waitForTask(next!, 120_000)).toMatchObject({ status: 'success' });
  expect(await simT().account(T_ACCOUNT)).toMatchObject({ peak_running: 1, over_limit_jobs: 0 });
});

test("the console shows an account's slots and queue, and the tasks waiting", async () => {
  await until('T is free', async () => ((await simT().account(T_ACCOUNT))?.running ?? 1) === 0, 120_000);
  const [busy] = await startTasks(gw.alice, 1, 'busy-for-the-console [sim:duration=30000]', tModel('x'));
  await until('T is busy', async () => ((await simT().account(T_ACCOUNT))?.running ?? 0) >= 1, 60_000);
  const [waiting] = await startTasks(gw.alice, 1, 'waits-for-the-console', tModel('x'));
  const browser = await launchChromium();
  try {
    const { page, errors } = await openPage(browser, gw.stack.apiUrl);
    await page.goto('/console');
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: /sign in/i }).click();
    await expectText(page.getByTestId('tasks-waiting'), '1 waiting for a free slot on a platform account');
    await page.goto('/console/accounts');
    await expectText(page.getByTestId('slots-T-default'), '1 of 1 in use (configured)');
    await expectText(page.getByTestId('queue-T-default'), /^1 waiting since \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
  for (const id of [waiting!, busy!]) {
    await gw.alice.post(`/v1/generations/${id}/cancel`, {});
    await gw.alice.waitForTask(id, 60_000);
  }
});
