/**
 * Part 2, task reads: GET /v1/generations/:id for running tasks ([sim:never] jobs, polled by the worker
 * meanwhile) and for finished ones, and GET /v1/tasks (a visibility query, one page of 20), with autocannon at
 * 16 concurrent clients. Each connection cycles over 50 task ids.
 */
import { AUTH, apiUrl, benchStack, cannon, pool, submitTask, taskStatus, until } from './support';

const TASKS = 50;
const SECONDS = 10;
const CLIENTS = 16;

export interface ReadRow {
  what: string;
  reqPerSec: number;
  p50ms: number;
  p99ms: number;
  errors: number;
}

export async function runReads(): Promise<{ rows: ReadRow[]; notes: string[] }> {
  const stack = await benchStack('reads', { simJobDurationMs: 300 });
  try {
    const base = apiUrl(stack);
    const running = await pool(
      Array.from({ length: TASKS }, (_, i) => i),
      8,
      (i) => submitTask(base, `bench read running ${i} [sim:never]`),
    );
    const finished = await pool(
      Array.from({ length: TASKS }, (_, i) => i),
      8,
      (i) => submitTask(base, `bench read finished ${i}`),
    );
    const allDone = await until(
      async () => (await pool(finished, 8, (id) => taskStatus(base, id))).every((s) => s === 'success'),
      120_000,
      1_000,
    );
    if (!allDone) throw new Error('finished tasks did not all succeed within 120 s');

    const rows: ReadRow[] = [];
    const measure = async (what: string, paths: string[]) => {
      const r = await cannon({
        url: base,
        connections: CLIENTS,
        duration: SECONDS,
        requests: paths.map((path) => ({ method: 'GET' as const, path, headers: AUTH })),
      });
      rows.push({
        what,
        reqPerSec: Math.round(r.requests.total / r.duration),
        p50ms: r.latency.p50,
        p99ms: r.latency.p99,
        errors: r.errors + r.non2xx,
      });
    };
    await measure(
      'warm-up',
      finished.map((id) => `/v1/generations/${id}`),
    );
    rows.pop();
    await measure(
      'GET /v1/generations/:id (running)',
      running.map((id) => `/v1/generations/${id}`),
    );
    await measure(
      'GET /v1/generations/:id (finished)',
      finished.map((id) => `/v1/generations/${id}`),
    );
    await measure('GET /v1/tasks?page_size=20', ['/v1/tasks?page_size=20']);
    return {
      rows,
      notes: [`${CLIENTS} clients, ${SECONDS} s each; ${TASKS} running and ${TASKS} finished tasks, ${2 * TASKS} tasks owned by the key`],
    };
  } finally {
    await stack.stop();
  }
}
