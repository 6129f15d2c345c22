/**
 * Retention of stored results: a Temporal Schedule (not a cron outside Temporal) starts the cleanup workflow
 * (workflows/cleanup.ts) once a day; its activity deletes what was stored more than RESULT_RETENTION_DAYS ago.
 * The worker creates or updates the schedule at start, idempotently, under a fixed id, so every worker of a fleet
 * converges on the same one; RESULT_RETENTION_DAYS=0 pauses it (docs/guides/operate.md#results).
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import type { ResultStore } from './result-store';

export const RETENTION_SCHEDULE_ID = 'mediagate-results-retention';
export const CLEANUP_WORKFLOW_TYPE = 'resultsCleanupWorkflow';

export interface CleanupInput {
  /** Results written longer ago than this are deleted. Fractions are allowed (tests use seconds). */
  retentionDays: number;
}

export interface CleanupReport {
  /** Everything written before this instant was deleted (ISO 8601). */
  cutoff: string;
  deleted: number;
  bytes: number;
}

const DAY_MS = 86_400_000;

/** Deletes what the store holds older than `retentionDays`; `now` for tests. */
export async function deleteExpiredResults(
  store: ResultStore,
  { retentionDays }: CleanupInput,
  opts: { now?: number; onProgress?: (deleted: number) => void } = {},
): Promise<CleanupReport> {
  if (!(retentionDays > 0)) throw new Error(`retentionDays must be positive, got ${retentionDays}`);
  const cutoff = new Date((opts.now ?? Date.now()) - retentionDays * DAY_MS);
  const { deleted, bytes } = await store.deleteOlderThan(cutoff, opts.onProgress);
  return { cutoff: cutoff.toISOString(), deleted, bytes };
}

/**
 * Daily at 03:30 UTC (± 15 min of jitter): a quiet hour in most places, and never two cleanups at once. A run
 * missed while Temporal was down is caught up once within a day.
 */
function scheduleOptions(taskQueue: string, retentionDays: number): Omit<ScheduleOptions, 'scheduleId'> {
  const paused = retentionDays <= 0;
  return {
    spec: { calendars: [{ hour: 3, minute: 30, comment: 'daily result cleanup' }], jitter: '15 minutes' },
    action: {
      type: 'startWorkflow',
      workflowType: CLEANUP_WORKFLOW_TYPE,
      workflowId: RETENTION_SCHEDULE_ID,
      taskQueue,
      args: [{ retentionDays: Math.max(retentionDays, 0) } satisfies CleanupInput],
      workflowExecutionTimeout: '1 hour',
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
    state: {
      paused,
      note: paused
        ? 'Paused by the worker: RESULT_RETENTION_DAYS=0 keeps stored results forever'
        : `Managed by the mediagate worker: deletes stored results older than ${retentionDays} days (RESULT_RETENTION_DAYS)`,
    },
  };
}

/**
 * Creates the retention schedule, or brings an existing one in line with this worker's settings (task queue,
 * retention, paused when RESULT_RETENTION_DAYS is 0). The worker owns it: a hand-made change is undone by the
 * next worker start, so change RESULT_RETENTION_DAYS instead.
 */
export async function ensureRetentionSchedule(
  client: Client,
  opts: { taskQueue: string; retentionDays: number },
): Promise<'created' | 'updated'> {
  const desired = scheduleOptions(opts.taskQueue, opts.retentionDays);
  try {
    await client.schedule.create({ scheduleId: RETENTION_SCHEDULE_ID, ...desired });
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(RETENTION_SCHEDULE_ID);
  await handle.update(() => ({
    spec: desired.spec,
    action: desired.action,
    policies: desired.policies,
    state: { paused: desired.state!.paused, note: desired.state!.note },
  }));
  return 'updated';
}
