/**
 * Part 3, end to end.
 * (a) Throughput: 16 clients submit continuously for 60 s with production polling and 1 s upstream jobs, so
 *     every task is one submit, one timer and one poll (at 3 s) that finds it done; tasks completed per second
 *     is read from the worker's mediagate_tasks_completed_total between 20 s and 60 s. (Shortening the poll
 *     interval instead would measure polling: a backlog of N tasks polls N / interval times a second.)
 * (b) Completion delay with production polling (first poll 3 s, then every 5 s): for 40 tasks of known upstream
 *     duration, the time from the simulator's job becoming done (its submit time + duration) until a client
 *     polling GET /v1/generations/:id every 50 ms reads `success`.
 */
import { SimClient } from '../test/support/client';
import type { Stack } from '../test/support/stack';
import {
  AUTH,
  apiUrl,
  benchStack,
  cannon,
  metric,
  percentile,
  pool,
  round,
  scrape,
  sleep,
  submitTask,
  taskStatus,
  videoBody,
} from './support';

export interface E2eResult {
  throughput: { submitted: number; completedPerSec: number; windowS: number; backlogAtEnd: number };
  delay: { tasks: number; p50ms: number; p90ms: number; maxms: number; minms: number };
  notes: string[];
}

/** Tasks completed so far (success), summed over the stack's running workers. */
export async function completions(stack: Stack): Promise<number> {
  const pages = await Promise.all(stack.workers.filter((w) => w.running).map((w) => scrape(w.metricsUrl)));
  return pages.reduce((sum, page) => sum + metric(page, 'mediagate_tasks_completed_total', { outcome: 'success' }), 0);
}

/**
 * 16 clients submit continuously for 60 s to the stack's front; tasks completed per second between 20 s and 60 s,
 * from every worker's mediagate_tasks_completed_total. The stack's jobs should take about a second upstream.
 */
export async function throughputOn(stack: Stack): Promise<E2eResult['throughput']> {
  const before = await completions(stack);
  const run = cannon({
    url: `${apiUrl(stack)}/v1/async/videos/generations`,
    method: 'POST',
    headers: AUTH,
    body: videoBody('bench e2e'),
    connections: 16,
    duration: 60,
  });
  await sleep(20_000);
  const c0 = await completions(stack);
  const t0 = Date.now();
  const result = await run;
  const c1 = await completions(stack);
  const windowS = (Date.now() - t0) / 1000;
  return {
    submitted: result.requests.total,
    completedPerSec: round((c1 - c0) / windowS),
    windowS: round(windowS),
    backlogAtEnd: result.requests.total - (c1 - before),
  };
}

async function throughput(): Promise<E2eResult['throughput']> {
  const stack = await benchStack('e2e-throughput', {
    simJobDurationMs: 1_000,
    env: { POLL_FIRST_DELAY_MS: '3000', POLL_INTERVAL_VIDEO_MS: '5000' },
  });
  try {
    return await throughputOn(stack);
  } finally {
    await stack.stop();
  }
}

async function delay(): Promise<E2eResult['delay']> {
  const stack = await benchStack('e2e-delay', { env: { POLL_FIRST_DELAY_MS: '3000', POLL_INTERVAL_VIDEO_MS: '5000' } });
  try {
    const base = apiUrl(stack);
    const sim = new SimClient(stack.simUrl);
    // Upstream durations spread over two poll intervals, so the phase of the poll relative to completion varies.
    const jobs = Array.from({ length: 40 }, (_, i) => ({
      prompt: `bench delay ${i} ${process.pid} [sim:duration=${4_000 + i * 250}]`,
      durationMs: 4_000 + i * 250,
    }));
    const ids = await pool(jobs, 8, (j) => submitTask(base, j.prompt));
    const seenAt = await pool(ids, 40, async (id) => {
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        if ((await taskStatus(base, id)) === 'success') return Date.now();
        await sleep(50);
      }
      throw new Error(`task ${id} not successful within 60 s`);
    });
    const submits = await sim.requests('V', 'submit');
    const delays = jobs.map((j, i) => {
      const req = submits.find((r) => JSON.stringify(r.body).includes(j.prompt)) as { at?: number } | undefined;
      if (!req?.at) throw new Error(`no simulator submit recorded for ${j.prompt}`);
      return seenAt[i]! - (req.at + j.durationMs);
    });
    return {
      tasks: delays.length,
      p50ms: percentile(delays, 50),
      p90ms: percentile(delays, 90),
      maxms: Math.max(...delays),
      minms: Math.min(...delays),
    };
  } finally {
    await stack.stop();
  }
}

export async function runE2e(): Promise<E2eResult> {
  return {
    throughput: await throughput(),
    delay: await delay(),
    notes: ['(a) 1 API, 1 worker; (b) production poll intervals; the client-side 50 ms polling adds up to 50 ms'],
  };
}
