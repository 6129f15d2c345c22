/**
 * Part 6, platform callbacks: the same V video workload with push off and push on, side by side in
 * one run, each mode on a stack of its own (production polling: first poll 3 s, then every 5 s; with push on,
 * the default POLL_FALLBACK_INTERVAL_MS of 30 s while V's callbacks arrive).
 *
 * Push on is configured as production configures it (PUBLIC_BASE_URL = the API, CALLBACK_SECRET, T's events
 * pushed, B's callbacks managed); V hands every task a per-task callback_url and the simulator POSTs the task
 * object to it on every status change (queued at create, running at a quarter of the job, succeeded at its end);
 * only the end wakes a task. Each part first runs a 1-second task, whose callback shows the worker that push is
 * healthy. Push off: no PUBLIC_BASE_URL, T's events and B's callbacks off.
 *
 * `push`          done-detection delay: 40 tasks with upstream durations spread over 4–13.75 s (as part 3b); the
 *                 delay is the workflow's close time (from then on GET /v1/generations/:id reads `success`) minus
 *                 the simulator job's creation + duration. Polls, signals and history events per task from each
 *                 task's history; polls also from the worker's metrics.
 * `push-history`  one real 5-minute task on each of two stacks at once (push off, push on): events and polls.
 * `push-capacity` steady state with N tasks in flight: tasks of BENCH_PUSH_JOB_MS (58 s = 3 s + 11 × 5 s, so that
 *                 push off's 12th poll falls just after the job ends while the poll schedule keeps up) submitted
 *                 evenly, N per job duration, for 2.5 job durations; the tasks submitted in [1, 1.5) job durations,
 *                 whose whole life has N in flight, are measured: lateness = close time − (job creation + duration).
 *                 N steps up (BENCH_PUSH_STEPS, default 300,600,900,1200,1500,1800), both modes interleaved
 *                 (BENCH_PUSH_MODES); a mode stops at its first N where a measured task is more than 2 s late; the
 *                 part stops starting steps after 30 minutes.
 */
import type { Client } from '@temporalio/client';
import { loadavg } from 'node:os';
import { SimClient } from '../test/support/client';
import { freePort, type Stack } from '../test/support/stack';
import { temporalClient } from '../test/support/temporal';
import {
  apiUrl,
  benchStack,
  metric,
  percentile,
  pool,
  round,
  scrape,
  sleep,
  submitTask,
  temporalWrites,
  workerPolls,
  writesBetween,
  type TemporalWrites,
} from './support';
import { taskHistory, type TaskHistory } from './task-history';

export type Mode = 'off' | 'on';
const MODES: Mode[] = ['off', 'on'];
const CALLBACK_SECRET = 'bench-callback-secret-0123456789abcdefghijkl';

/**
 * Where a bench runs: the embedded default (the Temporal dev server on SQLite, one worker, one API) or the production
 * shape `npm run cluster` runs (the Temporal server on PostgreSQL, two workers, two APIs behind one port, MinIO).
 */
export type Shape = 'embedded' | 'cluster';

/** A stack with production polling and push off or on (as test/system/callbacks.test.ts configures it). */
export async function modeStack(
  part: string,
  mode: Mode,
  shape: Shape = 'embedded',
  env: Record<string, string> = {},
  temporalMetrics = false,
): Promise<Stack> {
  const apiPort = await freePort();
  const push: Record<string, string> =
    mode === 'on'
      ? {
          PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
          CALLBACK_SECRET,
          PLATFORM_T_EVENTS: 'push',
          PLATFORM_T_EVENTS_SIGN_KEY: 'tSignKey0123',
          PLATFORM_B_CALLBACKS: 'manage',
          PLATFORM_B_CALLBACK_SIGN_KEY: 'b-sign-key',
        }
      : { PUBLIC_BASE_URL: '', PLATFORM_T_EVENTS: 'off', PLATFORM_B_CALLBACKS: 'off' };
  const cluster = shape === 'cluster' ? { production: true, workers: 2, apis: 2 } : {};
  return benchStack(`${part}-${mode}-${shape}`, {
    apiPort,
    ...cluster,
    temporalMetrics,
    env: { POLL_FIRST_DELAY_MS: '3000', POLL_INTERVAL_VIDEO_MS: '5000', ...push, ...env },
  });
}

interface SimJobRecord {
  id: string;
  createdAt: number;
  durationMs: number;
}

async function simJobs(stack: Stack): Promise<Map<string, SimJobRecord>> {
  const jobs = (await new SimClient(stack.simUrl).jobs('V')) as unknown as SimJobRecord[];
  return new Map(jobs.map((j) => [j.id, j]));
}

/** Milliseconds from the upstream job becoming done to the task's workflow closing; undefined while it runs. */
async function lateness(client: Client, jobs: Map<string, SimJobRecord>, taskId: string): Promise<number | undefined> {
  const d = await client.workflow.getHandle(taskId).describe();
  if (!d.closeTime) return undefined;
  if (d.status.name !== 'COMPLETED') throw new Error(`task ${taskId} ended ${d.status.name}`);
  const upstream = d.searchAttributes.GenerationUpstreamTaskId?.[0];
  const job = typeof upstream === 'string' ? jobs.get(upstream) : undefined;
  if (!job) throw new Error(`no simulator job ${String(upstream)} for task ${taskId}`);
  return d.closeTime.getTime() - (job.createdAt + job.durationMs);
}

async function waitClosed(client: Client, taskId: string, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`task ${taskId} not closed within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([client.workflow.getHandle(taskId).result(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * V's callbacks as the API processes counted them, e.g. "signalled 120, closed 3": summed over every API process
 * of the stack (on the production shape the front balances between two, and a scrape through it reads only one).
 */
async function callbackCounts(stack: Stack): Promise<{ text: string; signalled: number }> {
  const pages = await Promise.all(stack.apiPorts.map((_, i) => scrape(`${apiUrl(stack, i)}/metrics`)));
  const outcomes = ['signalled', 'closed', 'unknown', 'refused', 'rate_limited'];
  const counts = outcomes.map(
    (o) => [o, pages.reduce((sum, page) => sum + metric(page, 'mediagate_callbacks_total', { platform: 'V', outcome: o }), 0)] as const,
  );
  const text =
    counts
      .filter(([, n]) => n > 0)
      .map(([o, n]) => `${o} ${n}`)
      .join(', ') || 'none';
  return { text, signalled: counts.find(([o]) => o === 'signalled')![1] };
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

// ------------------------------------------------------------------------------------------- done-detection delay

export interface PushDelayRow {
  push: Mode;
  tasks: number;
  p50ms: number;
  p90ms: number;
  maxms: number;
  minms: number;
  pollsPerTask: number;
  workerPollsPerTask: number;
  signalsPerTask: number;
  eventsPerTask: number;
  callbacksV: string;
}

async function delayOne(mode: Mode): Promise<PushDelayRow> {
  const stack = await modeStack('push-delay', mode);
  const { client, close } = await temporalClient(stack.temporalAddress);
  try {
    const base = apiUrl(stack);
    // A warm-up task: a fresh worker's first workflow task is slow, and with push on the worker sees V's
    // callbacks arrive (push healthy) before the measured tasks start.
    await waitClosed(client, await submitTask(base, `bench push warm-up ${mode} [sim:duration=1000]`), 60_000);
    const polls0 = await workerPolls(stack);
    const jobs = Array.from({ length: 40 }, (_, i) => `bench push delay ${mode} ${i} ${process.pid} [sim:duration=${4_000 + i * 250}]`);
    const ids = await pool(jobs, 8, (prompt) => submitTask(base, prompt));
    await Promise.all(ids.map((id) => waitClosed(client, id, 90_000)));
    const workerPollCount = (await workerPolls(stack)) - polls0;
    const simJobMap = await simJobs(stack);
    const delays = await pool(ids, 8, async (id) => (await lateness(client, simJobMap, id))!);
    const histories = await pool(ids, 8, (id) => taskHistory(client, id));
    const avg = (f: (h: TaskHistory) => number) => round(histories.reduce((s, h) => s + f(h), 0) / histories.length, 2);
    const callbacks = await callbackCounts(stack);
    if (mode === 'on' && callbacks.signalled === 0)
      throw new Error('push on, but the API signalled no task: callbacks are not reaching the gateway');
    return {
      push: mode,
      tasks: delays.length,
      p50ms: percentile(delays, 50),
      p90ms: percentile(delays, 90),
      maxms: Math.max(...delays),
      minms: Math.min(...delays),
      pollsPerTask: avg((h) => h.polls),
      workerPollsPerTask: round(workerPollCount / ids.length, 2),
      signalsPerTask: avg((h) => h.signals),
      eventsPerTask: avg((h) => h.events),
      callbacksV: callbacks.text,
    };
  } finally {
    await close();
    await stack.stop();
  }
}

export async function runPushDelay(): Promise<{ rows: PushDelayRow[]; notes: string[] }> {
  const notes = [`load average at start ${load()}`];
  const rows: PushDelayRow[] = [];
  for (const mode of MODES) rows.push(await delayOne(mode));
  notes.push(`at end ${load()}`);
  notes.push(
    'delay = workflow close time − (simulator job creation + duration); callbacksV: the API\'s mediagate_callbacks_total{platform="V"}, the warm-up task included',
  );
  return { rows, notes };
}

// ------------------------------------------------------------------------------------ 5-minute task, events, polls

export interface PushHistoryRow {
  push: Mode;
  jobS: number;
  events: number;
  polls: number;
  signals: number;
  runs: number;
  wallS: number;
  callbacksV: string;
  byType: Record<string, number>;
  /**
   * What the Temporal server wrote from just before the task's start to its close, by its own metrics (nothing else
   * runs on the stack meanwhile): visibilityUpserted is the visibility writes between the task's start and its close.
   */
  serverWrites: TemporalWrites;
}

async function historyOne(mode: Mode, jobMs: number): Promise<PushHistoryRow> {
  const stack = await modeStack('push-history', mode, 'embedded', {}, true);
  const { client, close } = await temporalClient(stack.temporalAddress);
  try {
    // As in the other parts: a short task first, whose callback shows the worker that push is healthy (a worker
    // that has seen no callback yet polls on the spec's intervals, and V wakes a task only at its end).
    await waitClosed(client, await submitTask(apiUrl(stack), `bench push history warm-up ${mode} [sim:duration=1000]`), 60_000);
    const before = await settledWrites(stack);
    const t0 = Date.now();
    const taskId = await submitTask(apiUrl(stack), `bench push history ${mode} [sim:duration=${jobMs}]`);
    await waitClosed(client, taskId, jobMs + 120_000);
    const wallS = round((Date.now() - t0) / 1000);
    const serverWrites = writesBetween(before, await settledWrites(stack));
    const h = await taskHistory(client, taskId);
    const callbacks = await callbackCounts(stack);
    return {
      push: mode,
      jobS: jobMs / 1000,
      events: h.events,
      polls: h.polls,
      signals: h.signals,
      runs: h.runs,
      wallS,
      callbacksV: callbacks.text,
      byType: h.byType,
      serverWrites,
    };
  } finally {
    await close();
    await stack.stop();
  }
}

/**
 * The server's writes once its visibility queue has caught up: a workflow's visibility records are written after its
 * transaction commits, so two readings a second apart that agree are taken as settled (at most 15 s).
 */
async function settledWrites(stack: Stack): Promise<TemporalWrites> {
  let last = await temporalWrites(stack);
  for (let i = 0; i < 15; i++) {
    await sleep(1_000);
    const now = await temporalWrites(stack);
    if (JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  return last;
}

/** Both modes at once, one real 5-minute task each: about 6 minutes in all. */
export async function runPushHistory(): Promise<{ rows: PushHistoryRow[]; notes: string[] }> {
  const notes = [`load average at start ${load()}`];
  const rows = await Promise.all(MODES.map((m) => historyOne(m, 300_000)));
  notes.push(`at end ${load()}`);
  return { rows, notes };
}

// ------------------------------------------------------------------------------------------------ in-flight capacity

export interface CapacityRow {
  push: Mode;
  inFlight: number;
  jobS: number;
  measured: number;
  withinPct: number;
  p50LateMs: number;
  p99LateMs: number;
  maxLateMs: number;
  unfinished: number;
  submitErrors: number;
  /** Starts per second achieved over the whole submission (planned: inFlight ÷ jobS). */
  startsPerSec: number;
  /** Upstream polls per second over the steady window (1 to 2.5 job durations), from the worker's metrics. */
  pollsPerSec: number;
  callbacksV: string;
  loadBefore: string;
  wallS: number;
}

const CAPACITY_BUDGET_MS = 30 * 60_000;

export async function capacityOne(mode: Mode, inFlight: number, jobMs: number, shape: Shape = 'embedded'): Promise<CapacityRow> {
  const t00 = Date.now();
  const loadBefore = load();
  const stack = await modeStack('push-capacity', mode, shape);
  const { client, close } = await temporalClient(stack.temporalAddress);
  try {
    const base = apiUrl(stack);
    await waitClosed(client, await submitTask(base, `bench push capacity warm-up ${mode} [sim:duration=1000]`), 60_000);

    // Evenly spaced submissions, inFlight per job duration, for 2.5 job durations.
    const total = Math.ceil(2.5 * inFlight);
    const spacing = jobMs / inFlight;
    const ids: (string | undefined)[] = new Array(total);
    let submitErrors = 0;
    const outstanding = new Set<Promise<void>>();
    let pollsAtSteady: { at: number; polls: number } | undefined;
    const t0 = Date.now();
    for (let i = 0; i < total; i++) {
      const wait = t0 + i * spacing - Date.now();
      if (wait > 0) await sleep(wait);
      if (!pollsAtSteady && Date.now() - t0 >= jobMs) pollsAtSteady = { at: Date.now(), polls: await workerPolls(stack) };
      const p: Promise<void> = submitTask(base, `bench push capacity ${mode} ${inFlight} ${i} [sim:duration=${jobMs}]`).then(
        (id) => void (ids[i] = id),
        () => void (submitErrors += 1),
      );
      outstanding.add(p);
      void p.finally(() => outstanding.delete(p));
      if (outstanding.size >= 256) await Promise.race(outstanding);
    }
    await Promise.all(outstanding);
    const submitEnd = Date.now();
    const pollsEnd = { at: Date.now(), polls: await workerPolls(stack) };
    const pollsPerSec = pollsAtSteady ? round((pollsEnd.polls - pollsAtSteady.polls) / ((pollsEnd.at - pollsAtSteady.at) / 1000)) : NaN;

    // The measured tasks: submitted in [1, 1.5) job durations, due by 2.5 job durations.
    const measured = ids.slice(inFlight, Math.ceil(1.5 * inFlight)).filter((id): id is string => id !== undefined);
    const late = new Map<string, number>();
    const failures: string[] = [];
    const deadline = t0 + 2.5 * jobMs + 60_000;
    await sleep(Math.max(0, t0 + 2.5 * jobMs + 3_000 - Date.now()));
    for (;;) {
      const jobs = await simJobs(stack);
      const open = measured.filter((id) => !late.has(id));
      // A task that ended other than in success counts as never finishing.
      const got = await pool(open, 8, (id) =>
        lateness(client, jobs, id).catch((err: Error) => {
          failures.push(`${id}: ${err.message}`);
          return Infinity;
        }),
      );
      open.forEach((id, k) => {
        if (got[k] !== undefined) late.set(id, got[k]);
      });
      if (late.size === measured.length || Date.now() > deadline) break;
      await sleep(3_000);
    }
    if (failures.length > 0)
      console.warn(`push-capacity ${mode} ${inFlight}: ${failures.length} task(s) did not succeed, e.g. ${failures[0]}`);
    const values = [...late.values()].filter((v) => Number.isFinite(v));
    const unfinished = measured.length - values.length;
    // An unfinished task counts as later than any finished one.
    const all = [...values, ...Array.from({ length: unfinished }, () => Infinity)];
    const callbacks = await callbackCounts(stack);
    if (mode === 'on' && callbacks.signalled === 0)
      throw new Error('push on, but the API signalled no task: callbacks are not reaching the gateway');
    return {
      push: mode,
      inFlight,
      jobS: jobMs / 1000,
      measured: measured.length,
      withinPct: round((100 * values.filter((v) => v <= 2_000).length) / Math.max(1, measured.length), 1),
      p50LateMs: percentile(all, 50),
      p99LateMs: percentile(all, 99),
      maxLateMs: Math.max(...all),
      unfinished,
      submitErrors,
      startsPerSec: round((total - submitErrors) / ((submitEnd - t0) / 1000)),
      pollsPerSec,
      callbacksV: callbacks.text,
      loadBefore,
      wallS: Math.round((Date.now() - t00) / 1000),
    };
  } finally {
    await close();
    await stack.stop();
  }
}

export async function runPushCapacity(): Promise<{ rows: CapacityRow[]; notes: string[] }> {
  const jobMs = Number(process.env.BENCH_PUSH_JOB_MS ?? 58_000);
  const steps = (process.env.BENCH_PUSH_STEPS ?? '300,600,900,1200,1500,1800').split(',').map(Number);
  const modes = (process.env.BENCH_PUSH_MODES ?? 'off,on').split(',') as Mode[];
  const t0 = Date.now();
  const rows: CapacityRow[] = [];
  const failed = new Set<Mode>();
  const notes: string[] = [];
  for (const n of steps) {
    for (const mode of modes) {
      if (failed.has(mode)) continue;
      if (Date.now() - t0 > CAPACITY_BUDGET_MS) {
        notes.push(`stopped before push ${mode} ${n}: the part's ${CAPACITY_BUDGET_MS / 60_000}-minute budget ran out`);
        return { rows, notes };
      }
      const row = await capacityOne(mode, n, jobMs);
      rows.push(row);
      console.log(`push-capacity: ${JSON.stringify(row)}`);
      if (row.withinPct < 100) failed.add(mode);
    }
    if (modes.every((m) => failed.has(m))) break;
  }
  notes.push(`load average at end ${load()}`);
  return { rows, notes };
}
