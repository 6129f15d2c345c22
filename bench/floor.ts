/**
 * Part `floor`: what a gateway task costs beside the least a durable task can cost, in one run on one Temporal dev
 * server. The floor (bench/floor/: create the job in an activity, wait on a durable timer, read its status in a
 * local activity until it is final; no gateway code, the worker's default options) runs in a worker process of its
 * own on the same server as the gateway's stack (API, worker, the ledger's PostgreSQL, the simulated platform V);
 * jobs take 1 s upstream and both read first after 3 s, then every 5 s, as the gateway's production polling does.
 *
 * Each row is a closed loop of N clients (each starts a task and waits for its end, then the next), warmed up for
 * BENCH_FLOOR_WARMUP_S (10) and measured for BENCH_FLOOR_SECONDS (45): completions per second in the window, and the
 * CPU milliseconds each process role spent per completed task (bench/cpu.ts). Rows:
 * - floor, and floor + the result copy (the output downloaded and stored by the local activity that finds it done);
 * - the gateway's sync requests (POST /v1/videos/generations waits for the result), push off and on;
 * - the gateway's async requests (submit, then GET every second until the end), push off and on;
 * - the floor and the gateway's sync requests again at BENCH_FLOOR_MORE_CLIENTS (144): more clients give no more
 *   completions when both are saturated.
 * The ratio is the gateway's completions over the floor's at the same number of clients.
 *
 * BENCH_FLOOR_CLIENTS (96) sets N; BENCH_FLOOR_ROWS (all) a semicolon-separated subset of the rows' names;
 * MEDIAGATE_PROFILE_DIR makes the gateway's API and worker processes write CPU profiles (node --cpu-prof; read them
 * with bench/profile-summary.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startTestPostgres, type TestPostgres } from '../test/support/postgres';
import { freePort, type Stack } from '../test/support/stack';
import { temporalClient } from '../test/support/temporal';
import { cpuBetween, cpuSnapshot, type Role } from './cpu';
import { AUTH, benchStack, round, sleep, temporalWrites, videoBody, writesBetween, type TemporalWrites } from './support';

const REPO = resolve(__dirname, '..');
const seconds = (name: string, def: number) => Number(process.env[name] ?? def);
const WARMUP_S = seconds('BENCH_FLOOR_WARMUP_S', 10);
const MEASURE_S = seconds('BENCH_FLOOR_SECONDS', 45);
const CLIENTS = seconds('BENCH_FLOOR_CLIENTS', 96);
const MORE_CLIENTS = seconds('BENCH_FLOOR_MORE_CLIENTS', 144);
const POLLING = { POLL_FIRST_DELAY_MS: '3000', POLL_INTERVAL_VIDEO_MS: '5000' };
const CALLBACK_SECRET = 'bench-floor-callback-secret-0123456789';
const ROLES: Role[] = ['api', 'worker', 'floor-worker', 'temporal', 'postgres', 'sim', 'load'];

export interface FloorRow {
  row: string;
  clients: number;
  completedPerSec: number;
  /** The gateway's completions over the floor's at the same number of clients (the floor rows: 1). */
  ratio: number | '-';
  /** CPU milliseconds per completed task, by process role. */
  cpuMsPerTask: Partial<Record<Role, number>>;
  cpuMsPerTaskTotal: number;
  /** What the Temporal server wrote per completed task in the window, by its own metrics (bench/support.ts). */
  serverWritesPerTask: TemporalWrites;
  /** The history of one task the row completed, as the server keeps it: its events, and its size once encoded. */
  historyOfOne: { events: number; bytes: number };
  failures: number;
}

/** One task of a closed loop: resolves when the task has ended; false when it did not succeed. */
type OneTask = (n: number) => Promise<boolean>;

/** N clients in closed loop for the warm-up and the window; completions and CPU in the window. */
async function closedLoop(
  clients: number,
  oneTask: OneTask,
  serverWrites: () => Promise<TemporalWrites>,
): Promise<{ perSec: number; failures: number; cpu: Partial<Record<Role, number>>; writes: TemporalWrites; done: number }> {
  const start = Date.now();
  const windowStart = start + WARMUP_S * 1000;
  const windowEnd = windowStart + MEASURE_S * 1000;
  let done = 0;
  let failures = 0;
  let counter = 0;
  // What the processes and the server had done when the window opened, taken while the clients run.
  const windowOpens = sleep(WARMUP_S * 1000).then(async () => ({ cpu: cpuSnapshot(), writes: await serverWrites() }));
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < windowEnd) {
        const ok = await oneTask(counter++).catch(() => false);
        const at = Date.now();
        if (at < windowStart || at > windowEnd) continue;
        if (ok) done += 1;
        else failures += 1;
      }
    }),
  );
  const before = await windowOpens;
  const cpu = cpuBetween(before.cpu, cpuSnapshot());
  const writes = writesBetween(before.writes, await serverWrites(), Math.max(1, done));
  return { perSec: done / MEASURE_S, failures, cpu, writes, done };
}

function row(
  name: string,
  clients: number,
  r: Awaited<ReturnType<typeof closedLoop>>,
  ratio: number | '-',
  historyOfOne: FloorRow['historyOfOne'],
): FloorRow {
  const perTask: Partial<Record<Role, number>> = {};
  for (const role of ROLES) if (r.cpu[role] !== undefined && r.done > 0) perTask[role] = round(r.cpu[role]! / r.done);
  return {
    row: name,
    clients,
    completedPerSec: round(r.perSec, 2),
    ratio,
    cpuMsPerTask: perTask,
    cpuMsPerTaskTotal: round(Object.values(perTask).reduce((a, b) => a + b, 0)),
    serverWritesPerTask: r.writes,
    historyOfOne,
    failures: r.failures,
  };
}

/** The most recently completed workflow of a task queue: its history's events, and its bytes encoded as Temporal sends it. */
async function historyOfOne(client: Client, taskQueue: string): Promise<FloorRow['historyOfOne']> {
  for await (const w of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Completed'`, pageSize: 1 })) {
    const history = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
    return { events: history.events?.length ?? 0, bytes: temporal.api.history.v1.History.encode(history).finish().length };
  }
  return { events: 0, bytes: 0 };
}

/** The floor's worker as a process of its own, on the stack's dev server. */
async function startFloorWorker(stack: Stack, taskQueue: string): Promise<ChildProcess> {
  const profileDir = process.env.MEDIAGATE_PROFILE_DIR;
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', join(REPO, 'bench', 'floor', 'worker.ts')], {
    cwd: REPO,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: stack.temporalAddress,
      FLOOR_TASK_QUEUE: taskQueue,
      FLOOR_SIM_URL: stack.simUrl,
      FLOOR_STORE_DIR: mkdtempSync(join(tmpdir(), 'bench-floor-store-')),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((ok, fail) => {
    child.stdout!.on('data', (c: Buffer) => c.toString().includes('RUNNING') && ok());
    child.once('exit', (code) => fail(new Error(`the floor worker exited (${code}) before it ran`)));
  });
  return child;
}

const floorTask =
  (client: Client, taskQueue: string, keep: boolean): OneTask =>
  async (n) => {
    const result = await client.workflow.execute('floorWorkflow', {
      taskQueue,
      workflowId: `floor-${randomBytes(8).toString('hex')}`,
      args: [{ prompt: `bench floor ${n} [sim:duration=1000]`, firstReadMs: 3000, readEveryMs: 5000, keep }],
    });
    return (result as { status: string }).status === 'succeeded';
  };

const syncTask =
  (apiUrl: string): OneTask =>
  async (n) => {
    const r = await fetch(`${apiUrl}/v1/videos/generations`, {
      method: 'POST',
      headers: AUTH,
      body: videoBody(`bench floor sync ${n} [sim:duration=1000]`),
    });
    await r.arrayBuffer();
    return r.status === 200;
  };

const asyncTask =
  (apiUrl: string): OneTask =>
  async (n) => {
    const r = await fetch(`${apiUrl}/v1/async/videos/generations`, {
      method: 'POST',
      headers: AUTH,
      body: videoBody(`bench floor async ${n} [sim:duration=1000]`),
    });
    const { task_id: id } = (await r.json()) as { task_id?: string };
    if (!id) return false;
    for (;;) {
      await sleep(1_000);
      const status = ((await (await fetch(`${apiUrl}/v1/generations/${id}`, { headers: AUTH })).json()) as { status: string }).status;
      if (status === 'success') return true;
      if (status === 'failed') return false;
    }
  };

/** The task queue of the lane whose platform calls back. */
const pushQueueOf = (stack: Stack) => `${stack.taskQueue}-push`;

/** The gateway's stack (push off) with a lane whose platform calls back (push on), the ledger on, and the floor. */
async function floorStacks(postgres: TestPostgres) {
  const stack = await benchStack('floor', {
    simJobDurationMs: 1_000,
    temporalMetrics: true,
    env: { ...POLLING, DATABASE_URL: postgres.url, PUBLIC_BASE_URL: '' },
  });
  const pushPort = await freePort();
  const pushEnv = { TEMPORAL_TASK_QUEUE: pushQueueOf(stack), PUBLIC_BASE_URL: `http://127.0.0.1:${pushPort}`, CALLBACK_SECRET };
  await stack.startWorker(pushEnv);
  await stack.startApi(pushPort, pushEnv);
  const floorQueue = `bench-floor-${randomBytes(4).toString('hex')}`;
  const floorWorker = await startFloorWorker(stack, floorQueue);
  return { stack, pushUrl: `http://127.0.0.1:${pushPort}`, floorQueue, floorWorker };
}

export async function runFloor(): Promise<{ rows: FloorRow[]; notes: string[] }> {
  const wanted = process.env.BENCH_FLOOR_ROWS?.split(';').map((r) => r.trim());
  const postgres = await startTestPostgres();
  const { stack, pushUrl, floorQueue, floorWorker } = await floorStacks(postgres);
  const { client, close } = await temporalClient(stack.temporalAddress);
  const rows: FloorRow[] = [];
  const floorAt = new Map<number, number>();
  const measure = async (name: string, clients: number, task: OneTask, floor: boolean, taskQueue: string) => {
    if (wanted && !wanted.includes(name)) return;
    const r = await closedLoop(clients, task, () => temporalWrites(stack));
    if (floor && !floorAt.has(clients)) floorAt.set(clients, r.perSec);
    const base = floorAt.get(clients);
    rows.push(row(name, clients, r, floor ? '-' : base ? round(r.perSec / base, 2) : '-', await historyOfOne(client, taskQueue)));
    console.log(`[floor] ${JSON.stringify(rows.at(-1))}`);
    await sleep(5_000); // the backlog of the loop's last tasks drains before the next row
  };
  try {
    const [gatewayQueue, pushQueue] = [stack.taskQueue, pushQueueOf(stack)];
    await measure('floor', CLIENTS, floorTask(client, floorQueue, false), true, floorQueue);
    await measure('floor + result copy', CLIENTS, floorTask(client, floorQueue, true), false, floorQueue);
    await measure('gateway sync, push off', CLIENTS, syncTask(stack.apiUrl), false, gatewayQueue);
    await measure('gateway sync, push on', CLIENTS, syncTask(pushUrl), false, pushQueue);
    await measure('gateway async, push off', CLIENTS, asyncTask(stack.apiUrl), false, gatewayQueue);
    await measure('gateway async, push on', CLIENTS, asyncTask(pushUrl), false, pushQueue);
    await measure('floor (more clients)', MORE_CLIENTS, floorTask(client, floorQueue, false), true, floorQueue);
    await measure('gateway sync, push off (more clients)', MORE_CLIENTS, syncTask(stack.apiUrl), false, gatewayQueue);
  } finally {
    await close();
    floorWorker.kill('SIGTERM');
    await stack.stop();
    await postgres.stop();
  }
  return {
    rows,
    notes: [
      `closed loops of ${CLIENTS} (and ${MORE_CLIENTS}) clients, ${WARMUP_S} s warm-up, ${MEASURE_S} s measured, 1-s jobs on platform V (the simulator), first read at 3 s then every 5 s`,
      'ratio: the row’s completions per second over the floor’s at the same number of clients',
      'cpuMsPerTask: CPU milliseconds each process role spent per completed task in the window (/proc user + system time)',
      "serverWritesPerTask: the Temporal dev server's own count (its metrics) of visibility records started, upserted and closed, mutable-state updates, frontend calls and activity heartbeats among them, in the window, per completed task; historyOfOne: the last task the row completed, its history's events and encoded bytes",
    ],
  };
}
