/**
 * Part 1, async submission: POST /v1/async/videos/generations through the API with autocannon at 1, 16 and 64
 * concurrent clients; then, in the same run and against the same stack, the API's own start call
 * (TaskService.start = client.workflow.start with the same arguments, search attributes and memo) in a bare
 * loop at the same concurrency. Their ratio is what HTTP, auth, validation and Koa add.
 */
import { Client, Connection } from '@temporalio/client';
import { parseGenerationBody } from '../tasks/validation';
import { TaskService } from '../tasks/task-service';
import { newTaskId } from '../tasks/idempotency';
import { buildCatalogue } from '../platforms';
import { AUTH, apiUrl, benchStack, cannon, percentile, round, videoBody, VIDEO_MODEL } from './support';

const LEVELS = [1, 16, 64];
const SECONDS = 10;
const QUEUE = `bench-submit-${process.pid}`;

export interface SubmitRow {
  clients: number;
  via: 'api' | 'workflow.start';
  requests: number;
  reqPerSec: number;
  p50ms: number;
  p99ms: number;
  errors: number;
}

async function bareLoop(tasks: TaskService, clients: number, seconds: number): Promise<SubmitRow> {
  const { entry, request } = parseGenerationBody(buildCatalogue(), new Set(['V']), 'video', {
    model: VIDEO_MODEL,
    prompt: 'bench bare start',
    duration: 5,
  });
  const latencies: number[] = [];
  let errors = 0;
  const started = Date.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < end) {
        const t0 = performance.now();
        try {
          await tasks.start('alice', entry, request, { taskId: newTaskId() });
          latencies.push(performance.now() - t0);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  return {
    clients,
    via: 'workflow.start',
    requests: latencies.length,
    reqPerSec: round(latencies.length / elapsed),
    p50ms: round(percentile(latencies, 50)),
    p99ms: round(percentile(latencies, 99)),
    errors,
  };
}

export async function runSubmit(): Promise<{ rows: SubmitRow[]; notes: string[] }> {
  // Production polling (first poll at 3 s, then every 5 s); jobs finish in 300 ms, so each task is short.
  const stack = await benchStack('submit', { simJobDurationMs: 300, env: { TEMPORAL_TASK_QUEUE: QUEUE } });
  const connection = await Connection.connect({ address: stack.temporalAddress });
  try {
    const url = `${apiUrl(stack)}/v1/async/videos/generations`;
    const tasks = new TaskService(new Client({ connection, namespace: 'default' }), { taskQueue: QUEUE });
    // Warm-up: JIT, connection pools, the worker's first workflow tasks.
    await cannon({ url, method: 'POST', headers: AUTH, body: videoBody('bench warm-up'), connections: 8, amount: 300 });
    await bareLoop(tasks, 8, 2);

    const rows: SubmitRow[] = [];
    for (const clients of LEVELS) {
      const r = await cannon({
        url,
        method: 'POST',
        headers: AUTH,
        body: videoBody('bench submit'),
        connections: clients,
        duration: SECONDS,
      });
      rows.push({
        clients,
        via: 'api',
        requests: r.requests.total,
        reqPerSec: round(r.requests.total / r.duration),
        p50ms: r.latency.p50,
        p99ms: r.latency.p99,
        errors: r.errors + r.non2xx,
      });
      rows.push(await bareLoop(tasks, clients, SECONDS));
    }
    return { rows, notes: [`${SECONDS} s per level; 1 API, 1 worker, Temporal dev server (SQLite) on the same host`] };
  } finally {
    await connection.close();
    await stack.stop();
  }
}
