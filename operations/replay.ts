/**
 * Replaying tasks that failed, e.g. during an upstream outage, so that the SAME task_id goes on to success
 * (docs/guides/repair.md#replaying-failed-tasks): the operator's `npm run replay-failed` (scripts/replay-failed.ts) and the
 * console's replay (POST /admin/v1/replays) both run this. Each task's workflow is reset to its first workflow
 * task: Temporal starts a new run of the same workflow ID with the original request and a fresh deadline, which
 * submits a new upstream job (with a new dedup key, see workflows/dedup-key.ts) and polls it to the end.
 *
 * Only failed generation tasks whose reason is one an outage causes (`upstream_unavailable`, `deadline_exceeded`,
 * `upstream_lost`, `capacity_timeout`) are considered, unless the filter names GenerationFailureReason itself. A task the client
 * cancelled is never replayed, whatever the filter: a cancel is the client's wish, and its workflow ended Canceled,
 * not Failed (GenerationStatus `cancelled`).
 *
 * Safe to run twice: a task is reset only while its CURRENT run is the failed one, so a task already replayed
 * (running or succeeded again) is skipped. (A plain `temporal workflow reset --query ...` batch has no such
 * guard: the failed runs stay in visibility, and a second batch would reset and restart the replays.)
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { SA } from '../core/search-attributes';
import { WORKFLOW_TYPE } from '../core/task';

/**
 * The failures an outage causes: the platform could not be reached (upstream_unavailable), did not finish in
 * time (deadline_exceeded), lost a job it had accepted (upstream_lost), or had no free slot on any account before the
 * deadline (capacity_timeout: nothing was created). Refusals (content_policy,
 * invalid_request) and genuine generation failures (upstream_failed) would fail again, or be paid for again for
 * nothing, so they are left alone unless the operator's query names GenerationFailureReason itself.
 */
export const REPLAYABLE = ['upstream_unavailable', 'deadline_exceeded', 'upstream_lost', 'capacity_timeout'] as const;
export const REPLAYABLE_REASONS = `GenerationFailureReason IN (${REPLAYABLE.map((r) => `'${r}'`).join(', ')})`;

type History = temporal.api.history.v1.IHistory;

export interface ReplayOptions {
  filter?: string;
  taskId?: string;
  dryRun?: boolean;
  reason?: string;
  /** At most this many tasks (the console's bound on one request); default: every match. */
  limit?: number;
  log?: (line: string) => void;
  /**
   * How the caller replays a task whose reason an outage does not cause anyway, in its own terms (the command line
   * names its --query option; the admin API its filter). Default: the command line's.
   */
  overrideHint?: (reason: string) => string;
}

export interface ReplayReport {
  replayed: string[];
  skipped: { taskId: string; why: string }[];
  /** More tasks matched than `limit`: the rest were left alone. */
  truncated?: boolean;
}

/**
 * The visibility query for the failed runs to consider. Only the failures an outage causes are replayable
 * (a content-policy refusal would fail again), unless the operator's filter names reasons itself.
 */
export function replayQuery(filter?: string, taskId?: string): string {
  const parts = [`WorkflowType = '${WORKFLOW_TYPE}'`, "ExecutionStatus = 'Failed'"];
  if (taskId) parts.push(`WorkflowId = '${taskId.replace(/'/g, "''")}'`);
  if (!filter || !/GenerationFailureReason/.test(filter)) parts.push(REPLAYABLE_REASONS);
  if (filter) parts.push(`(${filter})`);
  return parts.join(' AND ');
}

/** Event id of the first WorkflowTaskCompleted: the "FirstWorkflowTask" reset point. */
function firstWorkflowTaskCompleted(history: History): temporal.api.history.v1.IHistoryEvent | undefined {
  return history.events?.find((e) => e.workflowTaskCompletedEventAttributes != null);
}

export async function replayFailed(client: Client, namespace: string, opts: ReplayOptions = {}): Promise<ReplayReport> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const report: ReplayReport = { replayed: [], skipped: [] };
  const seen = new Set<string>();
  for await (const failed of client.workflow.list({ query: replayQuery(opts.filter, opts.taskId) })) {
    const taskId = failed.workflowId;
    if (seen.has(taskId)) continue;
    if (opts.limit !== undefined && report.replayed.length >= opts.limit) {
      report.truncated = true;
      break;
    }
    seen.add(taskId);

    const current = await client.workflow.getHandle(taskId).describe();
    if (current.runId !== failed.runId || current.status.name !== 'FAILED') {
      report.skipped.push({ taskId, why: `already replayed (current run ${current.runId} is ${current.status.name})` });
      log(`skip    ${taskId}: already replayed (current run is ${current.status.name})`);
      continue;
    }

    // A run that continued-as-new carries the old upstream job; start over from the first run of its chain.
    let history = await client.workflow.getHandle(taskId, failed.runId).fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    let baseRunId = failed.runId;
    if (started?.continuedExecutionRunId && started.firstExecutionRunId) {
      baseRunId = started.firstExecutionRunId;
      history = await client.workflow.getHandle(taskId, baseRunId).fetchHistory();
    }
    const resetPoint = firstWorkflowTaskCompleted(history);
    if (!resetPoint?.eventId) {
      report.skipped.push({ taskId, why: 'no completed workflow task to reset to' });
      log(`skip    ${taskId}: no completed workflow task to reset to`);
      continue;
    }

    if (opts.dryRun) {
      log(`would replay ${taskId} (run ${baseRunId}, reset to event ${resetPoint.eventId.toString()})`);
    } else {
      const { runId } = await client.workflowService.resetWorkflowExecution({
        namespace,
        workflowExecution: { workflowId: taskId, runId: baseRunId },
        workflowTaskFinishEventId: resetPoint.eventId,
        reason: opts.reason ?? 'replay after outage',
        requestId: randomUUID(),
      });
      log(`replay  ${taskId}: new run ${runId}`);
    }
    report.replayed.push(taskId);
  }
  if (opts.taskId && report.replayed.length === 0 && report.skipped.length === 0) {
    const why = await whyNotReplayable(client, opts.taskId, opts.filter, opts.overrideHint ?? cliOverrideHint);
    report.skipped.push({ taskId: opts.taskId, why });
    log(`skip    ${opts.taskId}: ${why}`);
  }
  log(`${opts.dryRun ? 'Would replay' : 'Replayed'} ${report.replayed.length} task(s); skipped ${report.skipped.length}.`);
  return report;
}

const cliOverrideHint = (reason: string) => `to replay it anyway, pass --query "GenerationFailureReason = '${reason}'"`;

/** Why a task named with --task-id matched nothing: missing, not failed, or failed for a reason not replayed. */
async function whyNotReplayable(
  client: Client,
  taskId: string,
  filter: string | undefined,
  overrideHint: (reason: string) => string,
): Promise<string> {
  let desc;
  try {
    desc = await client.workflow.getHandle(taskId).describe();
  } catch {
    return 'no such task';
  }
  if (desc.status.name === 'CANCELLED') return "it was cancelled at the client's request, which a replay would undo: never replayed";
  if (desc.status.name !== 'FAILED') return `its current run is ${desc.status.name}, not failed: nothing to replay`;
  const reason = desc.typedSearchAttributes.get(SA.failureReason);
  if (reason && !(REPLAYABLE as readonly string[]).includes(reason)) {
    return `it failed with ${reason}, which an outage does not cause, so a replay would fail (or be paid) again; ${overrideHint(reason)}`;
  }
  return filter ? `it does not match the filter ${JSON.stringify(filter)}` : 'it does not match the replay query';
}
