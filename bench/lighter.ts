/**
 * Part `lighter` (issue 23 §4): what a task costs the cluster, on the embedded default and on the production shape
 * (`npm run cluster`: the Temporal server on PostgreSQL, two workers, two APIs behind one port, MinIO), side by
 * side in one run, each shape on stacks of its own, one at a time:
 *
 * - history events per task: a short task (a 1-second job) with push off, and one woken by its job's callback with
 *   push on (the worker has seen a callback first, so the task waits the fallback interval from its submit);
 * - end-to-end completions per second: 16 clients submitting continuously for 60 s, 1-second jobs, production
 *   polling (part 3a's method), push off and push on;
 * - the ceiling: bare `client.workflow.start` calls per second at 16 concurrent (the generation workflow's start as
 *   the API makes it, on a task queue no worker polls: the server's start rate alone);
 * - in-flight capacity with push on (part 6's `push-capacity` method, tasks of 58 s), with BENCH_LIGHTER_CAPACITY
 *   (default 900,1500,2000,2500; empty: skipped) as the steps, each shape stopping at its first step below 100 %.
 *
 * BENCH_LIGHTER_SHAPES (default embedded,cluster) chooses the shapes.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { SA } from '../core/search-attributes';
import { WORKFLOW_TYPE } from '../core/task';
import type { Stack } from '../test/support/stack';
import { temporalClient } from '../test/support/temporal';
import { throughputOn } from './e2e';
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
async function shortTaskEvents(stack: Stack, client: Client, tag: string): Promise<{ events: number; polls: number; signals: number; byType: string }> {
  const id = await submitTask(apiUrl(stack), `bench lighter ${tag} [sim:duration=1000]`);
  if (!(await until(async () => (await taskStatus(apiUrl(stack), id)) === 'success', 120_000, 200))) throw new Error(`task ${id} did not succeed`);
  const h = await taskHistory(client, id);
  return { events: h.events, polls: h.polls, signals: h.signals, byType: Object.entries(h.byType).map(([t, n]) => `${t} ${n}`).join(', ') };
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
          args: [{ kind: 'video', platform: 'V', model: 'bench', request: { kind: 'video', model: 'bench', prompt: 'bare' }, ownerId: 'bench' }],
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

/** One shape's figures: events per task and completions per second, push off and on, and the start ceiling. */
async function shapeFigures(shape: Shape): Promise<LighterRow[]> {
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
      rows.push({ shape, measure: 'history events per short task', push, value: h.events, unit: 'events', detail: `${h.polls} poll(s), ${h.signals} signal(s): ${h.byType}` });
      const t = await throughputOn(stack);
      rows.push({ shape, measure: 'end-to-end completions per second', push, value: t.completedPerSec, unit: 'tasks/s', detail: `${t.submitted} submitted in 60 s by 16 clients, backlog ${t.backlogAtEnd} at the end` });
      if (push === 'off') {
        const bare = await bareStarts(client);
        rows.push({ shape, measure: 'ceiling: bare workflow.start per second', push: '-', value: bare.perSec, unit: 'starts/s', detail: `16 concurrent, p50 ${bare.p50} ms, p99 ${bare.p99} ms` });
      }
    } finally {
      await close();
      await stack.stop();
    }
    console.log(`lighter: ${JSON.stringify(rows.slice(-3))}`);
  }
  return rows;
}

export async function runLighter(): Promise<{ rows: LighterRow[]; capacity: (CapacityRow & { shape: Shape })[]; notes: string[] }> {
  const shapes = (process.env.BENCH_LIGHTER_SHAPES ?? 'embedded,cluster').split(',').filter(Boolean) as Shape[];
  const steps = (process.env.BENCH_LIGHTER_CAPACITY ?? '900,1500,2000,2500').split(',').filter(Boolean).map(Number);
  const jobMs = Number(process.env.BENCH_PUSH_JOB_MS ?? 58_000);
  const rows: LighterRow[] = [];
  for (const shape of shapes) rows.push(...(await shapeFigures(shape)));
  const capacity: (CapacityRow & { shape: Shape })[] = [];
  for (const shape of shapes) {
    for (const n of steps) {
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
