/**
 * Replays tasks that failed, e.g. during an upstream outage, so that the SAME task_id goes on to success
 * (docs/operations.md, "Replays after an outage"). Each task's workflow is reset to its first workflow task:
 * Temporal starts a new run of the same workflow ID with the original request and a fresh deadline, which
 * submits a new upstream job (with a new dedup key, see workflows/dedup-key.ts) and polls it to the end.
 *
 *   npm run replay-failed -- [--query "<visibility filter>"] [--task-id <id>] [--dry-run] [--reason "<text>"]
 *
 * Only failed generation tasks whose reason is one an outage causes (`upstream_unavailable`, `deadline_exceeded`)
 * are considered, unless --query names GenerationFailureReason itself. Narrow it with the platform and a time
 * window, e.g. `--query "GenerationPlatform = 'V' AND CloseTime BETWEEN '2026-05-01T10:00:00Z' AND '...'"`.
 *
 * Safe to run twice: a task is reset only while its CURRENT run is the failed one, so a task already replayed
 * (running or succeeded again) is skipped. (A plain `temporal workflow reset --query ...` batch has no such
 * guard: the failed runs stay in visibility, and a second batch would reset and restart the replays.)
 * Connects with the gateway's own configuration (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY...).
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { commonSchema, parseEnv, temporalSchema } from '../core/config';
import { temporalConnectionOptions } from '../core/temporal-connection';

export const WORKFLOW_TYPE = 'generationWorkflow';
export const REPLAYABLE_REASONS = "GenerationFailureReason IN ('upstream_unavailable', 'deadline_exceeded')";

type History = temporal.api.history.v1.IHistory;

export interface ReplayOptions {
  filter?: string;
  taskId?: string;
  dryRun?: boolean;
  reason?: string;
  log?: (line: string) => void;
}

export interface ReplayReport {
  replayed: string[];
  skipped: { taskId: string; why: string }[];
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
        reason: opts.reason ?? 'replay after outage (scripts/replay-failed.ts)',
        requestId: randomUUID(),
      });
      log(`replay  ${taskId}: new run ${runId}`);
    }
    report.replayed.push(taskId);
  }
  log(`${opts.dryRun ? 'Would replay' : 'Replayed'} ${report.replayed.length} task(s); skipped ${report.skipped.length}.`);
  return report;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      query: { type: 'string' },
      'task-id': { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      reason: { type: 'string' },
    },
  });
  const config = parseEnv(commonSchema.extend(temporalSchema.shape), process.env);
  const connection = await Connection.connect(temporalConnectionOptions(config));
  try {
    const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
    await replayFailed(client, config.TEMPORAL_NAMESPACE, {
      filter: values.query,
      taskId: values['task-id'],
      dryRun: values['dry-run'],
      reason: values.reason,
    });
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
