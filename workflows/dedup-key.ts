/**
 * The key a platform dedups submissions on (T `SessionId`): stable across the submit activity's retries, so a
 * retried submit never creates a second job, and different for every workflow *run* and every re-submission.
 *
 * Why per run and not per task: the replay-after-outage runbook resets a failed task, which starts a new run of
 * the same workflow ID. If the key were the task id, the platform would refuse that run (T answers a repeated
 * SessionId with an error for three days) or hand it the OLD, failed job. A run id is a random UUID, so it is
 * unique on its own; the task-id prefix is only there so an operator can match an upstream job to its task.
 * A re-submission after a transient upstream failure (workflows/generation.ts) is a new job, so it gets its own
 * key: `r<n>` after the run id. Continue-as-new also starts a new run, but a continued run carries the upstream
 * id and never submits.
 *
 * At most 50 characters (T's SessionId limit) of [A-Za-z0-9_-]. Pure: safe in the workflow sandbox.
 */
export const DEDUP_KEY_MAX_LENGTH = 50;

export function submitDedupKey(workflowId: string, runId: string, resubmission = 0): string {
  const run = runId.replace(/[^A-Za-z0-9]/g, '') + (resubmission > 0 ? `r${resubmission}` : '');
  const hint = workflowId.replace(/[^A-Za-z0-9_-]/g, '').slice(0, Math.max(0, DEDUP_KEY_MAX_LENGTH - run.length - 1));
  const key = hint ? `${hint}-${run}` : run;
  // Keep the run id (the unique part) if an unusual server ever hands out longer run ids.
  return key.slice(-DEDUP_KEY_MAX_LENGTH);
}
