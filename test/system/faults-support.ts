/**
 * Shared by the fault tests (test/system/faults-*.test.ts): start a batch of platform V video tasks, wait for
 * all of them, and check the invariants every fault test asserts — each task reached the terminal state it
 * should, none was lost, and each created exactly one upstream job.
 */
import type { Client } from '@temporalio/client';
import type { ApiClient, SimClient } from '../support/client';
import { upstreamIds } from '../support/temporal';

export const V_MODEL = 'vendor-video-1-0-pro-250528';

/** Starts `n` async video tasks (of V_MODEL, or the model and fields `request` gives) whose prompts carry `tag` (and any sim directives); returns their ids. */
export async function startTasks(
  api: ApiClient,
  n: number,
  tag: string,
  request: Record<string, unknown> = { model: V_MODEL, duration: 5 },
): Promise<string[]> {
  const replies = await Promise.all(
    Array.from({ length: n }, (_, i) => api.post('/v1/async/videos/generations', { ...request, prompt: `${tag} #${i}` })),
  );
  for (const r of replies) expect(r.status).toBe(200);
  return replies.map((r) => r.body.task_id as string);
}

/** Waits (bounded) until every task is terminal; returns the records in order. */
export async function waitAll(api: ApiClient, ids: string[], timeoutMs: number): Promise<any[]> {
  return Promise.all(ids.map((id) => api.waitForTask(id, timeoutMs)));
}

/** Waits (bounded) until `check` holds, polling every 200 ms. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
}

export interface Tally {
  tasks: number;
  succeeded: number;
  failed: number;
  jobsCreated: number;
}

/**
 * The invariants: every task is in `expected` state, and the platform created exactly one job per task (the
 * simulator's counter moved by exactly the number of tasks, and every task names a different upstream job).
 */
export async function expectOneJobPerTask(opts: {
  sim: SimClient;
  client: Client;
  ids: string[];
  records: any[];
  jobsBefore: number;
  expected: 'success' | 'failed';
}): Promise<Tally> {
  const { sim, client, ids, records, jobsBefore, expected } = opts;
  expect(records.map((r) => r.status)).toEqual(ids.map(() => expected));
  expect(records.map((r) => r.task_id)).toEqual(ids);
  const jobsCreated = (await sim.stats()).V.jobsCreated - jobsBefore;
  expect(jobsCreated).toBe(ids.length);
  const upstream = await upstreamIds(client, ids);
  expect(upstream.every((u) => typeof u === 'string')).toBe(true);
  expect(new Set(upstream).size).toBe(ids.length);
  const tally = {
    tasks: ids.length,
    succeeded: records.filter((r) => r.status === 'success').length,
    failed: records.filter((r) => r.status === 'failed').length,
    jobsCreated,
  };
  report(tally);
  return tally;
}

/** One line per fault test, for the CI log and the note. */
export function report(tally: Tally): void {
  const name = expect.getState().currentTestName ?? 'fault test';
  process.stdout.write(
    `[faults] ${name}: tasks=${tally.tasks} succeeded=${tally.succeeded} failed=${tally.failed} upstreamJobs=${tally.jobsCreated}\n`,
  );
}
