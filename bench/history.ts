/**
 * Part 4 (continued): Temporal history events per task for a 5-minute video job with production polling (first
 * poll at 3 s, then every 5 s). By default time-compressed 10×: first poll 300 ms, interval 500 ms, a 30 s job;
 * the activity's own few milliseconds per poll are not compressed, so the poll count is within a few percent
 * of the real one. `--real` runs the real thing (about 5 minutes).
 */
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { apiUrl, benchStack, submitTask, taskStatus, until } from './support';

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
  const stack = await benchStack('history', { env: { POLL_FIRST_DELAY_MS: String(3_000 / factor), POLL_INTERVAL_VIDEO_MS: String(5_000 / factor) } });
  const connection = await Connection.connect({ address: stack.temporalAddress });
  try {
    const base = apiUrl(stack);
    const t0 = Date.now();
    const taskId = await submitTask(base, `bench history [sim:duration=${jobMs}]`);
    const done = await until(async () => (await taskStatus(base, taskId)) === 'success', jobMs + 120_000, 1_000);
    if (!done) throw new Error(`task ${taskId} did not succeed in time`);
    const client = new Client({ connection, namespace: 'default' });
    // Follow continue-as-new backwards from the last run: count the events of every run of the task.
    let events = 0;
    let polls = 0;
    let runs = 0;
    const byType: Record<string, number> = {};
    let runId: string | undefined = (await client.workflow.getHandle(taskId).describe()).runId;
    while (runId && runs < 20) {
      const history: temporal.api.history.v1.IHistory = await client.workflow.getHandle(taskId, runId).fetchHistory();
      const list = history.events ?? [];
      runs += 1;
      events += list.length;
      for (const e of list) {
        const type = temporal.api.enums.v1.EventType[e.eventType ?? 0]?.replace(/^EVENT_TYPE_/, '') ?? String(e.eventType);
        byType[type] = (byType[type] ?? 0) + 1;
      }
      // Polls are local activities (one marker each; the patch adds one more marker per run), or, in runs that
      // predate patch poll-as-local-activity, regular activities.
      polls += list.filter(
        (e) =>
          (e.markerRecordedEventAttributes?.markerName === 'core_local_activity') ||
          e.activityTaskScheduledEventAttributes?.activityType?.name === 'pollGeneration',
      ).length;
      runId = list[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    }
    return { mode: real ? 'real' : 'compressed 10x', jobMs, events, polls, runs, wallMs: Date.now() - t0, byType };
  } finally {
    await connection.close();
    await stack.stop();
  }
}
