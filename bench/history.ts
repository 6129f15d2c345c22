/**
 * Part 4 (continued): Temporal history events per task for a 5-minute video job with production polling (first
 * poll at 3 s, then every 5 s). By default time-compressed 10×: first poll 300 ms, interval 500 ms, a 30 s job;
 * the activity's own few milliseconds per poll are not compressed, so the poll count is within a few percent
 * of the real one. `--real` runs the real thing (about 5 minutes).
 */
import { temporalClient } from '../test/support/temporal';
import { apiUrl, benchStack, submitTask, taskStatus, until } from './support';
import { taskHistory } from './task-history';

export interface HistoryResult {
  mode: 'compressed 10x' | 'real';
  jobMs: number;
  events: number;
  polls: number;
  runs: number;
  wallMs: number;
  /** Events by type, e.g. ACTIVITY_TASK_SCHEDULED: 30. */
  byType: Record<string, number>;
}

export async function runHistory(real = false): Promise<HistoryResult> {
  const factor = real ? 1 : 10;
  const jobMs = 300_000 / factor;
  const stack = await benchStack('history', {
    env: { POLL_FIRST_DELAY_MS: String(3_000 / factor), POLL_INTERVAL_VIDEO_MS: String(5_000 / factor) },
  });
  const temporal = await temporalClient(stack.temporalAddress);
  try {
    const base = apiUrl(stack);
    const t0 = Date.now();
    const taskId = await submitTask(base, `bench history [sim:duration=${jobMs}]`);
    const done = await until(async () => (await taskStatus(base, taskId)) === 'success', jobMs + 120_000, 1_000);
    if (!done) throw new Error(`task ${taskId} did not succeed in time`);
    const { events, polls, runs, byType } = await taskHistory(temporal.client, taskId);
    return { mode: real ? 'real' : 'compressed 10x', jobMs, events, polls, runs, wallMs: Date.now() - t0, byType };
  } finally {
    await temporal.close();
    await stack.stop();
  }
}
