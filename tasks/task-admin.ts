/**
 * Every key's tasks as the operator sees them (the admin API, the console): a page of them under any filter, one
 * task's whole story (its record and cost, its key, upstream job and account, the timeline of its states), cancel
 * and replay. Everything is read from Temporal — the tasks' search attributes, memos and histories — exactly as the
 * key's own reads are (tasks/record.ts prices every record), so the operator and the client never disagree.
 *
 * Filters arrive validated (api/routes/admin-tasks.ts): ids match their patterns and statuses their enumerations;
 * each value is still quoted here, so a visibility query never takes a value as syntax.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { SA, type GenerationStatus } from '../core/search-attributes';
import { WORKFLOW_TYPE, type FailureReason, type TaskMemo } from '../core/task';
import type { TaskPricing } from '../pricing/price-table';
import { toTaskRecord, withTaskCost, type TaskInfo, type TaskRecord } from './record';
import { replayFailed, type ReplayReport } from './replay';
import type { CancelOutcome, TaskService } from './task-service';
import { taskTimeline, type TimelineEntry } from './task-timeline';
import { visibilityPage } from './visibility-page';

export interface OperatorTaskFilter {
  /** As GenerationStatus says it: `failed` is a real failure, `cancelled` the client's cancel. */
  status?: GenerationStatus;
  model?: string;
  platform?: string;
  key?: string;
  failureReason?: FailureReason;
  /** The platform account that owns the task's job (UpstreamAccount). */
  account?: string;
  /** Only tasks whose workflow still runs (whatever GenerationStatus says): jobs in flight. */
  open?: boolean;
  /** Started at or after / before. */
  since?: Date;
  until?: Date;
}

/** One task in the operator's list. */
export interface OperatorTask {
  task_id: string;
  key: string;
  status: GenerationStatus;
  model: string;
  platform: string;
  kind: string;
  failure_reason: string | null;
  error: { message: string; code: string } | null;
  cost: TaskRecord['cost'] | null;
  upstream_task_id: string | null;
  upstream_account: string | null;
  created_at: string;
  closed_at: string | null;
}

export interface OperatorTaskDetail extends OperatorTask {
  record: TaskRecord;
  timeline: TimelineEntry[];
  run_id: string;
}

const quote = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** The visibility query for a filter, over generation tasks only. */
export function operatorQuery(filter: OperatorTaskFilter): string {
  return [`WorkflowType = ${quote(WORKFLOW_TYPE)}`, ...filterClauses(filter)].join(' AND ');
}

/** A filter's clauses, each naming one search attribute or the run's status or start time. */
function filterClauses(filter: OperatorTaskFilter): string[] {
  const clauses: string[] = [];
  const status: Record<GenerationStatus, string> = {
    pending: `ExecutionStatus = 'Running' AND ${SA.status.name} = 'pending'`,
    running: `ExecutionStatus = 'Running' AND ${SA.status.name} = 'running'`,
    success: `ExecutionStatus = 'Completed'`,
    failed: `ExecutionStatus IN ('Failed', 'Terminated', 'TimedOut')`,
    cancelled: `ExecutionStatus = 'Canceled'`,
  };
  if (filter.status) clauses.push(status[filter.status]);
  if (filter.model) clauses.push(`${SA.model.name} = ${quote(filter.model)}`);
  if (filter.platform) clauses.push(`${SA.platform.name} = ${quote(filter.platform)}`);
  if (filter.key) clauses.push(`${SA.owner.name} = ${quote(filter.key)}`);
  if (filter.account) clauses.push(`${SA.upstreamAccount.name} = ${quote(filter.account)}`);
  if (filter.open) clauses.push(`ExecutionStatus = 'Running'`);
  if (filter.failureReason) clauses.push(`${SA.failureReason.name} = ${quote(filter.failureReason)}`);
  if (filter.since) clauses.push(`StartTime >= ${quote(filter.since.toISOString())}`);
  if (filter.until) clauses.push(`StartTime < ${quote(filter.until.toISOString())}`);
  return clauses;
}

/** How the task stands, as GenerationStatus names it (a client's cancel is `cancelled`, not `failed`). */
function generationStatus(info: TaskInfo, record: TaskRecord): GenerationStatus {
  if (info.status.name === 'CANCELLED' || (record.status === 'failed' && record.error?.code === 'cancelled')) return 'cancelled';
  return record.status;
}

export class TaskAdmin {
  constructor(
    private readonly client: Client,
    private readonly tasks: TaskService,
    private readonly pricing: TaskPricing | undefined,
  ) {}

  /** A task as the operator's list shows it, from its visibility entry or description. */
  summary(info: TaskInfo): OperatorTask {
    const memo = (info.memo ?? {}) as TaskMemo;
    const record = withTaskCost(info, toTaskRecord(info), this.pricing);
    const sa = info.typedSearchAttributes;
    const error = record.status === 'failed' && record.error ? { message: record.error.message, code: record.error.code } : null;
    return {
      task_id: info.workflowId,
      key: sa.get(SA.owner) ?? '',
      status: generationStatus(info, record),
      model: record.model,
      platform: memo.platform ?? sa.get(SA.platform) ?? '',
      kind: memo.kind ?? sa.get(SA.kind) ?? '',
      failure_reason: sa.get(SA.failureReason) ?? error?.code ?? null,
      error,
      cost: (record.cost as TaskRecord['cost'] | undefined) ?? null,
      upstream_task_id: sa.get(SA.upstreamTaskId) ?? null,
      upstream_account: sa.get(SA.upstreamAccount) ?? null,
      created_at: info.startTime.toISOString(),
      closed_at: info.closeTime?.toISOString() ?? null,
    };
  }

  /** One page of every key's tasks (running first, then most recently closed), with the count of all that match. */
  async list(filter: OperatorTaskFilter, pageSize: number, pageToken?: Uint8Array) {
    const query = operatorQuery(filter);
    const [{ count }, page] = await Promise.all([
      this.client.workflow.count(query),
      visibilityPage(this.client, query, pageSize, pageToken),
    ]);
    return { total: count, data: page.infos.map((info) => this.summary(info)), nextPageToken: page.nextPageToken };
  }

  /** How many tasks match (the overview's counts). */
  async count(filter: OperatorTaskFilter): Promise<number> {
    return (await this.client.workflow.count(operatorQuery(filter))).count;
  }

  /** A task's whole story; undefined when there is no such generation task. */
  async detail(taskId: string): Promise<OperatorTaskDetail | undefined> {
    let desc;
    try {
      desc = await this.client.workflow.getHandle(taskId).describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
    if (desc.type !== WORKFLOW_TYPE) return undefined;
    const owner = desc.typedSearchAttributes.get(SA.owner) ?? '';
    const [record, timeline] = await Promise.all([this.tasks.read(taskId, owner), taskTimeline(this.client, desc)]);
    if (!record) return undefined;
    return { ...this.summary(desc), record, timeline, run_id: desc.runId };
  }

  /** Cancels a task for its key (what POST /v1/generations/:id/cancel does for the key itself). */
  async cancel(taskId: string): Promise<CancelOutcome> {
    const detail = await this.client.workflow
      .getHandle(taskId)
      .describe()
      .catch((err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      });
    const owner = detail?.type === WORKFLOW_TYPE ? detail.typedSearchAttributes.get(SA.owner) : undefined;
    if (!owner) return { outcome: 'not_found' };
    return this.tasks.cancel(taskId, owner);
  }

  /**
   * Replays one failed task, or the failed tasks a filter names (at most `limit`), as `npm run replay-failed` does
   * (tasks/replay.ts: never a cancelled task; only an outage's reasons unless the filter names a reason); with
   * `dryRun`, only says which it would.
   */
  replay(opts: { taskId?: string; filter: OperatorTaskFilter; dryRun: boolean; limit: number; reason: string }): Promise<ReplayReport> {
    const { status: _status, ...rest } = opts.filter;
    const narrowing = filterClauses(rest).join(' AND ');
    return replayFailed(this.client, this.client.options.namespace, {
      ...(narrowing ? { filter: narrowing } : {}),
      ...(opts.taskId ? { taskId: opts.taskId } : {}),
      dryRun: opts.dryRun,
      limit: opts.limit,
      reason: opts.reason,
      log: () => undefined,
    });
  }
}
