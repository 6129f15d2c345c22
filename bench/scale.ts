/**
 * Part 4, scale, with production polling (first poll 3 s, then every 5 s):
 * (a) RSS of the worker, the API and the Temporal dev server with 1,000 and then 5,000 video tasks in flight
 *     ([sim:never] jobs: every task keeps polling), and the poll rate the worker sustains meanwhile (the
 *     polling schedule asks for tasks / 5 s);
 * (b) 1,000 concurrent sync requests held open on one API: its RSS, and the sync-wait gauge reaching 1,000;
 *     then the clients go away and the gauge returns to 0 (the tasks keep running).
 */
import type { Stack } from '../test/support/stack';
import { AUTH, apiUrl, benchStack, metric, pool, round, rssMiB, scrape, sleep, submitTask, until, videoBody, workerPolls } from './support';

const SETTLE_MS = 30_000;

export interface InFlightRow {
  tasks: number;
  workerRssMiB: number;
  apiRssMiB: number;
  temporalRssMiB: number;
  pollsPerSec: number;
  pollsPerSecNeeded: number;
}

export interface SyncResult {
  held: number;
  reachedMs: number;
  apiRssBeforeMiB: number;
  apiRssHeldMiB: number;
  workerRssHeldMiB: number;
  releasedToZero: boolean;
}

async function pollRate(stack: Stack, windowMs: number): Promise<number> {
  const p0 = await workerPolls(stack);
  await sleep(windowMs);
  return round((await workerPolls(stack)) - p0) / (windowMs / 1000);
}

function snapshot(stack: Stack, tasks: number, pollsPerSec: number): InFlightRow {
  return {
    tasks,
    workerRssMiB: rssMiB(stack.workers[0]!.child.pid),
    apiRssMiB: rssMiB(stack.apis[0]!.child.pid),
    temporalRssMiB: rssMiB(stack.temporal.process?.pid),
    pollsPerSec: round(pollsPerSec),
    pollsPerSecNeeded: tasks / 5,
  };
}

export async function runInFlight(): Promise<InFlightRow[]> {
  const stack = await benchStack('inflight', { env: { POLL_FIRST_DELAY_MS: '3000', POLL_INTERVAL_VIDEO_MS: '5000' } });
  try {
    const base = apiUrl(stack);
    const rows: InFlightRow[] = [snapshot(stack, 0, 0)];
    let submitted = 0;
    for (const target of [1_000, 5_000]) {
      const batch = Array.from({ length: target - submitted }, (_, i) => submitted + i);
      await pool(batch, 32, (i) => submitTask(base, `bench in flight ${i} [sim:never]`));
      submitted = target;
      await sleep(SETTLE_MS);
      rows.push(snapshot(stack, target, await pollRate(stack, 10_000)));
    }
    return rows;
  } finally {
    await stack.stop();
  }
}

export async function runSync(held = 1_000): Promise<SyncResult> {
  const stack = await benchStack('sync', { env: { POLL_FIRST_DELAY_MS: '3000', POLL_INTERVAL_VIDEO_MS: '5000' } });
  const abort = new AbortController();
  try {
    const base = apiUrl(stack);
    const waits = async () => metric(await scrape(`${base}/metrics`), 'mediagate_sync_waits_in_progress');
    const apiRssBeforeMiB = rssMiB(stack.apis[0]!.child.pid);
    const t0 = Date.now();
    const requests = Array.from({ length: held }, (_, i) =>
      fetch(`${base}/v1/videos/generations`, {
        method: 'POST',
        headers: AUTH,
        body: videoBody(`bench sync ${i} [sim:never]`),
        signal: abort.signal,
      }).then(
        (r) => r.status,
        () => 'aborted',
      ),
    );
    const reached = await until(async () => (await waits()) >= held, 180_000, 500);
    if (!reached) throw new Error(`only ${await waits()} of ${held} sync waits in progress after 180 s`);
    const reachedMs = Date.now() - t0;
    await sleep(10_000);
    const apiRssHeldMiB = rssMiB(stack.apis[0]!.child.pid);
    const workerRssHeldMiB = rssMiB(stack.workers[0]!.child.pid);
    abort.abort();
    await Promise.all(requests);
    const releasedToZero = await until(async () => (await waits()) === 0, 60_000, 500);
    return { held, reachedMs, apiRssBeforeMiB, apiRssHeldMiB, workerRssHeldMiB, releasedToZero };
  } finally {
    abort.abort();
    await stack.stop();
  }
}
