/**
 * What every benchmark part shares: a real stack (test/support/stack.ts: Temporal dev server, simulator, workers
 * and APIs as separate processes on free 127.0.0.1 ports), load from this process, and small statistics.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { metric, scrape } from '../test/support/metrics';
import { sleep } from '../test/support/wait-for';
import { Stack, TEST_KEYS, type StackOptions } from '../test/support/stack';

export const AUTH = { Authorization: `Bearer ${TEST_KEYS.alice.secret}`, 'Content-Type': 'application/json' };
export const VIDEO_MODEL = 'vendor-video-1-0-pro-250528';
export const videoBody = (prompt: string) => JSON.stringify({ model: VIDEO_MODEL, prompt, duration: 5 });

/**
 * A stack for measuring: per-key limits off (the load comes from one key). Logs stay at `info` as in production
 * (one access-log line per request); the stack writes them to test-results/logs/bench-*.
 */
export async function benchStack(name: string, opts: Omit<StackOptions, 'name'> & { env?: Record<string, string> } = {}): Promise<Stack> {
  return Stack.start({
    ...opts,
    name: `bench-${name}`,
    dataDir: benchDataDir(),
    env: { KEY_RATE_LIMIT_RPS: '0', KEY_MAX_INFLIGHT: '0', ...(opts.env ?? {}) },
  });
}

/**
 * BENCH_TEMPORAL_DB_DIR=/dev/shm puts the dev server's SQLite file in memory, to tell the gateway's costs from
 * the disk's. Unset: the stack's own temporary directory on disk.
 */
function benchDataDir(): string | undefined {
  const root = process.env.BENCH_TEMPORAL_DB_DIR;
  if (!root) return undefined;
  const dir = mkdtempSync(join(root, 'mediagate-bench-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The stack's front (its first API, or the production shape's balancer), or its i-th API process. */
export function apiUrl(stack: Stack, i?: number): string {
  return i === undefined ? stack.apiUrl : `http://127.0.0.1:${stack.apiPorts[i]}`;
}

export async function cannon(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** Nearest-rank percentile of unsorted samples. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Resident set size of a process, in MiB (Linux /proc). */
export function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return m ? round(Number(m[1]) / 1024) : NaN;
}

export { metric, scrape } from '../test/support/metrics';

/** Upstream polls so far, summed over the stack's running workers. */
export async function workerPolls(stack: Stack): Promise<number> {
  const pages = await Promise.all(stack.workers.filter((w) => w.running).map((w) => scrape(w.metricsUrl)));
  return pages.reduce((sum, page) => sum + metric(page, 'mediagate_upstream_request_duration_seconds_count', { operation: 'poll' }), 0);
}

/**
 * What the Temporal dev server has done so far, from its own metrics (a stack started with `temporalMetrics`):
 * visibility records by operation (`visibility_persistence_requests`), the history side's writes of a workflow's
 * mutable state (`persistence_requests`), and the calls its frontend served (`service_requests`): all of them, and
 * activity heartbeats among them.
 */
export interface TemporalWrites {
  visibilityStarted: number;
  visibilityUpserted: number;
  visibilityClosed: number;
  mutableStateUpdates: number;
  frontendCalls: number;
  activityHeartbeats: number;
}

export async function temporalWrites(stack: Stack): Promise<TemporalWrites> {
  const page = await scrape(stack.temporalMetricsUrl);
  const visibility = (operation: string) => metric(page, 'visibility_persistence_requests', { operation });
  const frontend = (labels: Record<string, string> = {}) => metric(page, 'service_requests', { service_name: 'frontend', ...labels });
  return {
    visibilityStarted: visibility('RecordWorkflowExecutionStarted'),
    visibilityUpserted: visibility('UpsertWorkflowExecution'),
    visibilityClosed: visibility('RecordWorkflowExecutionClosed'),
    mutableStateUpdates: metric(page, 'persistence_requests', { operation: 'UpdateWorkflowExecution' }),
    frontendCalls: frontend(),
    activityHeartbeats: frontend({ operation: 'RecordActivityTaskHeartbeat' }),
  };
}

/** The writes between two readings, each divided by `per` (1: the plain difference). */
export function writesBetween(before: TemporalWrites, after: TemporalWrites, per = 1): TemporalWrites {
  const delta = (k: keyof TemporalWrites) => round((after[k] - before[k]) / per, 2);
  return {
    visibilityStarted: delta('visibilityStarted'),
    visibilityUpserted: delta('visibilityUpserted'),
    visibilityClosed: delta('visibilityClosed'),
    mutableStateUpdates: delta('mutableStateUpdates'),
    frontendCalls: delta('frontendCalls'),
    activityHeartbeats: delta('activityHeartbeats'),
  };
}

export { sleep } from '../test/support/wait-for';

/** Polls `check` every `everyMs` until it returns true, for at most `timeoutMs`; false when it never did. */
export async function until(check: () => Promise<boolean>, timeoutMs: number, everyMs = 500): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(everyMs);
  }
  return false;
}

/** Runs `fn` over `items` with at most `concurrency` at a time. */
export async function pool<T, R>(items: T[], concurrency: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

/** Submits an async video task; returns its id. */
export async function submitTask(base: string, prompt: string): Promise<string> {
  const r = await fetch(`${base}/v1/async/videos/generations`, { method: 'POST', headers: AUTH, body: videoBody(prompt) });
  const body = (await r.json()) as { task_id?: string };
  if (r.status !== 200 || !body.task_id) throw new Error(`submit failed: ${r.status} ${JSON.stringify(body)}`);
  return body.task_id;
}

export async function taskStatus(base: string, taskId: string): Promise<string> {
  const r = await fetch(`${base}/v1/generations/${taskId}`, { headers: AUTH });
  return ((await r.json()) as { status?: string }).status ?? `http_${r.status}`;
}

export function machine(): Record<string, string | number> {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: round(totalmem() / 1024 ** 3),
    node: process.version,
  };
}
