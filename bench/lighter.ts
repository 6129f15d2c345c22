/**
 * Part `lighter`: what a task costs the cluster, on the embedded default and on the production shape
 * (`npm run cluster`: the Temporal server on PostgreSQL, two workers, two APIs behind one port, MinIO), side by
 * side in one run, each shape on stacks of its own, one at a time:
 *
 * - history events per task: a short task (a 1-second job) with push off, and one woken by its job's callback with
 *   push on (the worker has seen a callback first, so the task waits the fallback interval from its submit);
 * - end-to-end completions per second, two ways, push off and push on, 1-second jobs, production polling: the
 *   sustained rate — tasks offered at a steady rate (BENCH_LIGHTER_RATES per second, 40 s each, rising until the
 *   stack falls behind), the highest it completes as fast as they come (every task done within 15 s of the
 *   offer's end) — and part 3a's overload (16 clients submitting as fast as answered for 60 s, completions between
 *   20 and 60 s), where starts crowd out the progress of the tasks already started;
 * - the ceiling: bare `client.workflow.start` calls per second at 16 concurrent (the generation workflow's start as
 *   the API makes it, on a task queue no worker polls: the server's start rate alone);
 * - in-flight capacity with push on (part 6's `push-capacity` method, tasks of 58 s), with
 *   BENCH_LIGHTER_CAPACITY_EMBEDDED (default 600,900,1200,1500,2000) and BENCH_LIGHTER_CAPACITY_CLUSTER (default
 *   300,450,600,900) as the steps (empty: skipped), each shape stopping at its first step below 100 %.
 *
 * BENCH_LIGHTER_SHAPES (default embedded,cluster) chooses the shapes.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { SA } from '../core/search-attributes';
import { WORKFLOW_TYPE } from '../core/task';
import type { Stack } from '../test/support/stack';
import { temporalClient } from '../test/support/temporal';
import { completions, throughputOn } from './e2e';
import { capacityOne, modeStack, type CapacityRow, type Mode, type Shape } from './push';
import { apiUrl, percentile, round, sleep, submitTask, taskStatus, until } from './support';
import { taskHistory } from './task-history';

export interface LighterRow {
  shape: Shape;
  measure: string;
  push: Mode | '-';
  value: number;
  unit: string;
  detail: string;
}

/** Events in the history of one short task (a 1-second job) on this stack, and their types. */
async function shortTaskEvents(
  stack: Stack,
  client: Client,
  tag: string,
): Promise<{ events: number; polls: number; signals: number; byType: string }> {
  const id = await submitTask(apiUrl(stack), `bench lighter ${tag} [sim:duration=1000]`);
  if (!(await until(async () => (await taskStatus(apiUrl(stack), id)) === 'success', 120_000, 200)))
    throw new Error(`task ${id} did not succeed`);
  const h = await taskHistory(client, id);
  return {
    events: h.events,
    polls: h.polls,
    signals: h.signals,
    byType: Object.entries(h.byType)
      .map(([t, n]) => `${t} ${n}`)
      .join(', '),
  };
}

/** Bare workflow starts per second at 16 concurrent for 10 s, on a task queue no worker polls (latency p50/p99 in `detail`). */
async function bareStarts(client: Client): Promise<{ perSec: number; p50: number; p99: number }> {
  const queue = `bench-bare-${randomBytes(4).toString('hex')}`;
  const latencies: number[] = [];
  const until = Date.now() + 10_000;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (Date.now() < until) {
        const t = Date.now();
        await client.workflow.start(WORKFLOW_TYPE, {
          taskQueue: queue,
          workflowId: `task_bare_${randomBytes(12).toString('base64url')}`,
          args: [
            { kind: 'video', platform: 'V', model: 'bench', request: { kind: 'video', model: 'bench', prompt: 'bare' }, ownerId: 'bench' },
          ],
          typedSearchAttributes: [
            { key: SA.owner, value: 'bench-bare' },
            { key: SA.status, value: 'pending' },
          ],
          memo: { model: 'bench', kind: 'video', platform: 'V', status: 'pending' },
        });
        latencies.push(Date.now() - t);
      }
    }),
  );
  return { perSec: round(latencies.length / 10), p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/**
 * The highest steady rate this stack keeps up with: tasks offered at each rate for 40 s (open loop: a submit
 * every 1/rate s whatever the answers), rising until all tasks offered are no longer done within 15 s of the last
 * offer. Returns every rate tried with what was completed per second over its last 30 s.
 */
async function sustained(
  stack: Stack,
  rates: number[],
): Promise<{ rate: number; completedPerSec: number; keptUp: boolean; lateDone: number }[]> {
  const out: { rate: number; completedPerSec: number; keptUp: boolean; lateDone: number }[] = [];
  for (const rate of rates) {
    const before = await completions(stack);
    const t0 = Date.now();
    let sent = 0;
    let window: { at: number; done: number } | undefined;
    const outstanding = new Set<Promise<unknown>>();
    while (Date.now() - t0 < 40_000) {
      const due = t0 + (sent * 1_000) / rate;
      if (due > Date.now()) await sleep(due - Date.now());
      if (!window && Date.now() - t0 >= 10_000) window = { at: Date.now(), done: await completions(stack) };
      const p = submitTask(apiUrl(stack), `bench lighter sustained ${rate} ${sent}`).catch(() => undefined);
      sent += 1;
      outstanding.add(p);
      void p.finally(() => outstanding.delete(p));
    }
    await Promise.all(outstanding);
    const end = { at: Date.now(), done: await completions(stack) };
    const completedPerSec = round((end.done - window!.done) / ((end.at - window!.at) / 1000));
    const keptUp = await until(async () => (await completions(stack)) - before >= sent, 15_000, 500);
    out.push({ rate, completedPerSec, keptUp, lateDone: (await completions(stack)) - before - sent });
    if (!keptUp) break;
  }
  return out;
}

/** One shape's figures: events per task and completions per second, push off and on, and the start ceiling. */
async function shapeFigures(shape: Shape, rates: number[]): Promise<LighterRow[]> {
  const rows: LighterRow[] = [];
  for (const push of ['off', 'on'] as const) {
    const stack = await modeStack('lighter', push, shape, { SIM_JOB_DURATION_MS: '1000' });
    const { client, close } = await temporalClient(stack.temporalAddress);
    try {
      if (push === 'on') {
        // A first task's callback shows the worker that push is healthy: the measured one then waits the fallback.
        await shortTaskEvents(stack, client, 'push warm-up');
        await sleep(500);
      }
      const h = await shortTaskEvents(stack, client, `short task push ${push}`);
      rows.push({
        shape,
        measure: 'history events per short task',
        push,
        value: h.events,
        unit: 'events',
        detail: `${h.polls} poll(s), ${h.signals} signal(s): ${h.byType}`,
      });
      const steady = await sustained(stack, rates);
      const best = steady.filter((r) => r.keptUp).at(-1);
      rows.push({
        shape,
        measure: 'end-to-end completions per second, sustained',
        push,
        value: best?.completedPerSec ?? 0,
        unit: 'tasks/s',
        detail: steady
          .map(
            (r) =>
              `${r.rate}/s offered: ${r.completedPerSec}/s done, ${r.keptUp ? 'kept up' : `fell behind (${-r.lateDone} not done 15 s after)`}`,
          )
          .join('; '),
      });
      const t = await throughputOn(stack);
      rows.push({
        shape,
        measure: 'end-to-end completions per second, overload',
        push,
        value: t.completedPerSec,
        unit: 'tasks/s',
        detail: `${t.submitted} submitted in 60 s by 16 clients, backlog ${t.backlogAtEnd} at the end`,
      });
      if (push === 'off') {
        const bare = await bareStarts(client);
        rows.push({
          shape,
          measure: 'ceiling: bare workflow.start per second',
          push: '-',
          value: bare.perSec,
          unit: 'starts/s',
          detail: `16 concurrent, p50 ${bare.p50} ms, p99 ${bare.p99} ms`,
        });
      }
    } finally {
      await close();
      await stack.stop();
    }
    console.log(`lighter: ${JSON.stringify(rows.slice(-4))}`);
  }
  return rows;
}

export async function runLighter(): Promise<{ rows: LighterRow[]; capacity: (CapacityRow & { shape: Shape })[]; notes: string[] }> {
  const shapes = (process.env.BENCH_LIGHTER_SHAPES ?? 'embedded,cluster').split(',').filter(Boolean) as Shape[];
  const steps = (shape: Shape) =>
    (process.env[`BENCH_LIGHTER_CAPACITY_${shape.toUpperCase()}`] ?? (shape === 'embedded' ? '600,900,1200,1500,2000' : '300,450,600,900'))
      .split(',')
      .filter(Boolean)
      .map(Number);
  const jobMs = Number(process.env.BENCH_PUSH_JOB_MS ?? 58_000);
  const rows: LighterRow[] = [];
  const rates = (process.env.BENCH_LIGHTER_RATES ?? '10,14,18,22,26,30').split(',').filter(Boolean).map(Number);
  for (const shape of shapes) rows.push(...(await shapeFigures(shape, rates)));
  const capacity: (CapacityRow & { shape: Shape })[] = [];
  for (const shape of shapes) {
    for (const n of steps(shape)) {
      const row = { shape, ...(await capacityOne('on', n, jobMs, shape)) };
      capacity.push(row);
      console.log(`lighter capacity: ${JSON.stringify(row)}`);
      if (row.withinPct < 100) break;
    }
  }
  return {
    rows,
    capacity,
    notes: [
      'embedded: Temporal dev server (SQLite), 1 worker, 1 API; cluster: Temporal server 1.30.1 on PostgreSQL (4 history shards), 2 workers, 2 APIs behind one port, results in MinIO',
      'every process and the load generator on the same 2 vCPU',
    ],
  };
}
