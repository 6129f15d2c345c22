/**
 * The key a platform dedups submissions on (T `SessionId`, B `Idempotency-Key`): stable across the submit
 * activity's retries, so a retried submit returns the first job, and different for every workflow *run*.
 *
 * Why per run and not per task: the replay-after-outage runbook resets a failed task, which starts a new run of
 * the same workflow ID. If the key were the task id, platform T or B would hand that run the OLD, failed job
 * (within their 3-day / 24-hour windows) instead of creating a new one. A run id is a random UUID, so it is
 * unique on its own; the task-id prefix is only there so an operator can match an upstream job to its task.
 * Continue-as-new also starts a new run, but a continued run carries the upstream id and never submits.
 *
 * At most 50 characters (T's SessionId limit) of [A-Za-z0-9_-]. Pure: safe in the workflow sandbox.
 */
export const DEDUP_KEY_MAX_LENGTH = 50;

export function submitDedupKey(workflowId: string, runId: string): string {
  const run = runId.replace(/[^A-Za-z0-9]/g, '');
  const hint = workflowId.replace(/[^A-Za-z0-9_-]/g, '').slice(0, Math.max(0, DEDUP_KEY_MAX_LENGTH - run.length - 1));
  const key = hint ? `${hint}-${run}` : run;
  // Keep the run id (the unique part) if an unusual server ever hands out longer run ids.
  return key.slice(-DEDUP_KEY_MAX_LENGTH);
}
