/**
 * Part `submit`, async submission: POST /v1/async/videos/generations through the API with autocannon at 1, 16 and
 * 64 concurrent clients, with a key that has a budget (the ledger in a real PostgreSQL: every submit reserves its
 * estimate, the model priced in PRICES_FILE); then, in the same run and against the same stack, the API's own start
 * call (TaskService.start = client.workflow.start with the same arguments, search attributes and memo) in a bare
 * loop at the same concurrency. Their ratio (p50 over p50) is what HTTP, auth, validation, the reservation and Koa
 * add.
 *
 * Then, interleaved, each submit followed by one bare start: each client sends one async submit through the API,
 * then one bare `workflow.start` of a workflow with no search attributes and no memo, on a queue of its own that no
 * worker polls, and again, while the submitted tasks run; submit over bare start is what a submit costs beyond the
 * least a start can. In a segment of its own, the API's start call (TaskService.start: the same search attributes,
 * memo and summary, from the bench process) alternates with a bare start the same way: its ratio is the start's own
 * search attributes, memo and summary, and the tasks it starts; what the submit adds beyond it is the API's work
 * (HTTP, auth, validation, the reservation).
 *
 * Every measured segment starts from the same state: no task of the queue running. Tasks live a few seconds after
 * their start (the first poll is at 3 s), so without the wait a segment shares the machine with the previous one's
 * tasks (the warm-up's 300 before the first): whichever way ran first measured slower, whatever it was.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startTestPostgres } from '../test/support/postgres';
import { parseGenerationBody } from '../tasks/validation';
import { TaskService } from '../tasks/task-service';
import { newTaskId } from '../tasks/idempotency';
import { buildCatalogue } from '../platforms';
import { waitFor } from '../test/support/wait-for';
import { apiUrl, benchStack, cannon, percentile, round, videoBody, VIDEO_MODEL } from './support';

const LEVELS = [1, 16, 64];
const INTERLEAVED_LEVELS = [1, 16];
const SECONDS = 10;
const QUEUE = `bench-submit-${process.pid}`;

export interface SubmitRow {
  clients: number;
  via:
    | 'api, budget on'
    | 'workflow.start'
    | 'interleaved: api submit'
    | 'interleaved: bare workflow.start, after a submit'
    | "interleaved: the api's start call"
    | 'interleaved: bare workflow.start, after a start call';
  requests: number;
  reqPerSec: number;
  p50ms: number;
  p99ms: number;
  /** The API's p50 over the bare start's at the same concurrency. */
  ratio?: number;
  errors: number;
}

const ADMIN_TOKEN = 'bench-submit-admin-token-0123456789abcdefgh';

/** A key with a budget far above what the run spends: every submit pays the reservation's full path. */
async function budgetedKeyHeaders(base: string): Promise<Record<string, string>> {
  const r = await fetch(`${base}/admin/v1/keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ id: `bench-submit-${process.pid}`, budget: { amount: 1_000_000, currency: 'USD', period: 'month' } }),
  });
  if (r.status !== 201) throw new Error(`POST /admin/v1/keys: ${r.status}`);
  return { Authorization: `Bearer ${((await r.json()) as { secret: string }).secret}`, 'Content-Type': 'application/json' };
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

/** Latencies of one way of the interleaved segment. */
function rowOf(via: SubmitRow['via'], clients: number, latencies: number[], errors: number, elapsedS: number): SubmitRow {
  return {
    clients,
    via,
    requests: latencies.length,
    reqPerSec: round(latencies.length / elapsedS),
    p50ms: round(percentile(latencies, 50)),
    p99ms: round(percentile(latencies, 99)),
    errors,
  };
}

/** What one interleaved segment alternates with its bare start. */
type InterleavedWay = 'submit' | 'startCall';

/**
 * Each client: one `way` (a submit through the API, or the start call as the API makes it), then one bare start (a
 * workflow type no worker runs, no search attributes, no memo, a run timeout so the server drops it), and again, for
 * `seconds`. Both share every moment of the machine, the started tasks' own work included.
 */
async function interleaved(
  client: Client,
  tasks: TaskService,
  api: { url: string; headers: Record<string, string> },
  way: InterleavedWay,
  clients: number,
  seconds: number,
): Promise<SubmitRow[]> {
  const { entry, request } = parseGenerationBody(buildCatalogue(), new Set(['V']), 'video', {
    model: VIDEO_MODEL,
    prompt: 'bench interleaved start call',
    duration: 5,
  });
  const ways = {
    measured: { latencies: [] as number[], errors: 0 },
    bare: { latencies: [] as number[], errors: 0 },
  };
  const timed = async (which: keyof typeof ways, call: () => Promise<unknown>) => {
    const t0 = performance.now();
    try {
      await call();
      ways[which].latencies.push(performance.now() - t0);
    } catch {
      ways[which].errors += 1;
    }
  };
  const measured =
    way === 'submit'
      ? async () => {
          const r = await fetch(api.url, { method: 'POST', headers: api.headers, body: videoBody('bench interleaved submit') });
          await r.arrayBuffer();
          if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
        }
      : () => tasks.start('alice', entry, request, { taskId: newTaskId() });
  const started = Date.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < end) {
        await timed('measured', measured);
        await timed('bare', () =>
          client.workflow.start('benchBareWorkflow', {
            taskQueue: `${QUEUE}-bare`,
            workflowId: `bare-${newTaskId()}`,
            workflowRunTimeout: '1 minute',
          }),
        );
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  const names = {
    submit: ['interleaved: api submit', 'interleaved: bare workflow.start, after a submit'],
    startCall: ["interleaved: the api's start call", 'interleaved: bare workflow.start, after a start call'],
  } as const;
  const bare = rowOf(names[way][1], clients, ways.bare.latencies, ways.bare.errors, elapsed);
  const row = rowOf(names[way][0], clients, ways.measured.latencies, ways.measured.errors, elapsed);
  return [{ ...row, ratio: round(row.p50ms / bare.p50ms, 2) }, bare];
}

/** Waits until no task of the queue runs (at most a minute: a segment after a slower wait is still measured). */
async function drained(client: Client): Promise<void> {
  const idle = async () => (await client.workflow.count(`TaskQueue = '${QUEUE}' AND ExecutionStatus = 'Running'`)).count === 0;
  await waitFor(idle, 60_000).catch(() => undefined);
}

export async function runSubmit(): Promise<{ rows: SubmitRow[]; notes: string[] }> {
  const postgres = await startTestPostgres();
  const pricesFile = join(tmpdir(), `bench-submit-prices-${process.pid}.json`);
  writeFileSync(pricesFile, JSON.stringify({ [VIDEO_MODEL]: { currency: 'USD', source: 'bench', per_second: { '*': 0.04 } } }));
  // Production polling (first poll at 3 s, then every 5 s); jobs finish in 300 ms, so each task is short.
  const stack = await benchStack('submit', {
    simJobDurationMs: 300,
    env: { TEMPORAL_TASK_QUEUE: QUEUE, DATABASE_URL: postgres.url, ADMIN_TOKEN, PRICES_FILE: pricesFile },
  });
  const connection = await Connection.connect({ address: stack.temporalAddress });
  try {
    const url = `${apiUrl(stack)}/v1/async/videos/generations`;
    const headers = await budgetedKeyHeaders(apiUrl(stack));
    const client = new Client({ connection, namespace: 'default' });
    const tasks = new TaskService(client, { taskQueue: QUEUE });
    // Warm-up: JIT, connection pools, the worker's first workflow tasks.
    await cannon({ url, method: 'POST', headers, body: videoBody('bench warm-up'), connections: 8, amount: 300 });
    await bareLoop(tasks, 8, 2);

    const rows: SubmitRow[] = [];
    for (const clients of LEVELS) {
      await drained(client);
      const r = await cannon({ url, method: 'POST', headers, body: videoBody('bench submit'), connections: clients, duration: SECONDS });
      await drained(client);
      const bare = await bareLoop(tasks, clients, SECONDS);
      rows.push({
        clients,
        via: 'api, budget on',
        requests: r.requests.total,
        reqPerSec: round(r.requests.total / r.duration),
        p50ms: r.latency.p50,
        p99ms: r.latency.p99,
        ratio: round(r.latency.p50 / bare.p50ms, 2),
        errors: r.errors + r.non2xx,
      });
      rows.push(bare);
    }
    for (const clients of INTERLEAVED_LEVELS) {
      for (const way of ['submit', 'startCall'] as const) {
        await drained(client);
        rows.push(...(await interleaved(client, tasks, { url, headers }, way, clients, SECONDS)));
      }
    }
    return {
      rows,
      notes: [
        `${SECONDS} s per level, each way starting with no task running; interleaved rows: each client alternates one API submit (then, in a segment of its own, one start call as the API makes it) with one bare workflow.start (no search attributes, no memo), the started tasks running meanwhile, ratio = p50 over the bare start's of the same segment; 1 API, 1 worker, Temporal dev server (SQLite), the ledger's PostgreSQL, all on the same host; the API's key has a budget`,
      ],
    };
  } finally {
    await connection.close();
    await stack.stop();
    await postgres.stop();
  }
}
