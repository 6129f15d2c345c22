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
import { toTaskRecord, withTaskCost, type TaskInfo, type TaskRecord } from '../tasks/record';
import { replayFailed, type ReplayReport } from './replay';
import type { CancelOutcome, TaskService } from '../tasks/task-service';
import { taskTimeline, type TimelineEntry } from './task-timeline';
import { visibilityPage } from './visibility-page';
import type { WorkflowExecutionInfo } from '@temporalio/client';

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
  /** The task's runs: more than one when it was replayed. */
  runs?: number;
}

export interface OperatorTaskDetail extends OperatorTask {
  record: TaskRecord;
  /** Every run's states, oldest run first (a replayed task: the failed run's, then the replay's). */
  timeline: TimelineEntry[];
  run_id: string;
}

/** Visibility's answer for a run: enough to tell a task's current run from the runs a replay superseded. */
export interface RunInfo {
  workflowId: string;
  runId: string;
  closeTime?: Date | undefined;
  status: { name: string };
}

/** How many task ids one visibility query names at most (its length stays far below Temporal's query limit). */
const IDS_PER_QUERY = 100;
/**
 * How many failed runs a count looks through for replays (the runs a replay superseded): the count is exact up to
 * this many failed runs matching, and counts a replayed task twice beyond it.
 */
const SUPERSEDED_SCAN_LIMIT = 5_000;

const quote = (value: string) => `'${value.replace(/'/g, "''")}'`;

/**
 * The visibility query for a filter, over generation tasks only. A run that continued as new is not a task of its
 * own: its chain's last run is (with the task's status).
 */
export function operatorQuery(filter: OperatorTaskFilter): string {
  return [`WorkflowType = ${quote(WORKFLOW_TYPE)}`, `ExecutionStatus != 'ContinuedAsNew'`, ...filterClauses(filter)].join(' AND ');
}

/**
 * The current run of each task among its runs: the one still running, else the one that closed last. A replay
 * (operations/replay.ts) resets a failed run into a new run of the same workflow id; the old run stays in visibility,
 * closed, and is no longer the task.
 */
export function currentRuns(runs: readonly RunInfo[]): Map<string, string> {
  const best = new Map<string, RunInfo>();
  const rank = (r: RunInfo) => (r.status.name === 'RUNNING' ? Number.POSITIVE_INFINITY : (r.closeTime?.getTime() ?? 0));
  for (const r of runs) {
    const held = best.get(r.workflowId);
    if (!held || rank(r) > rank(held)) best.set(r.workflowId, r);
  }
  return new Map([...best].map(([id, r]) => [id, r.runId]));
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
  // A model names a catalogue model or a route: a routed task is found by its route's name as well as by the model
  // that served it.
  if (filter.model) clauses.push(`(${SA.model.name} = ${quote(filter.model)} OR ${SA.route.name} = ${quote(filter.model)})`);
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

  /**
   * One page of every key's tasks (running first, then most recently closed), with the count of all that match. A
   * replayed task is one row, its current run's (with how many runs it had); the runs a replay superseded are left
   * out of the page and of the count, so a page may hold fewer rows than `pageSize`.
   */
  async list(filter: OperatorTaskFilter, pageSize: number, pageToken?: Uint8Array) {
    const query = operatorQuery(filter);
    const [total, page] = await Promise.all([this.count(filter), visibilityPage(this.client, query, pageSize, pageToken)]);
    const runs = await this.runsOf(page.infos.map((i) => i.workflowId));
    const current = currentRuns(runs);
    const runCount = new Map<string, number>();
    for (const r of runs) runCount.set(r.workflowId, (runCount.get(r.workflowId) ?? 0) + 1);
    const data = page.infos
      .filter((info) => (current.get(info.workflowId) ?? info.runId) === info.runId)
      .map((info) => ({ ...this.summary(info), runs: runCount.get(info.workflowId) ?? 1 }));
    return { total, data, nextPageToken: page.nextPageToken };
  }

  /** How many tasks match (the overview's counts): a replayed task once, as its current run stands. */
  async count(filter: OperatorTaskFilter): Promise<number> {
    const query = operatorQuery(filter);
    // Only failed runs are ever superseded: a filter that names another status, or running tasks, has none to look for.
    const mayHoldSuperseded = (filter.status === undefined || filter.status === 'failed') && !filter.open;
    const [{ count }, superseded] = await Promise.all([
      this.client.workflow.count(query),
      mayHoldSuperseded ? this.supersededRuns(query) : Promise.resolve(0),
    ]);
    return Math.max(0, count - superseded);
  }

  /** Every run (continued-as-new ones aside) of these tasks, read from visibility a hundred ids at a time. */
  private async runsOf(ids: readonly string[]): Promise<RunInfo[]> {
    const unique = [...new Set(ids)];
    const runs: RunInfo[] = [];
    for (let i = 0; i < unique.length; i += IDS_PER_QUERY) {
      const chunk = unique.slice(i, i + IDS_PER_QUERY);
      const query = `${operatorQuery({})} AND WorkflowId IN (${chunk.map(quote).join(', ')})`;
      for await (const info of this.client.workflow.list({ query })) runs.push(info as WorkflowExecutionInfo);
    }
    return runs;
  }

  /**
   * How many of the runs a query matches a replay superseded. Only a failed run is ever replayed (operations/replay.ts),
   * so these are the query's failed runs whose task has a later run.
   */
  private async supersededRuns(query: string): Promise<number> {
    const failed: RunInfo[] = [];
    for await (const info of this.client.workflow.list({ query: `${query} AND ExecutionStatus = 'Failed'`, pageSize: 1000 })) {
      failed.push(info);
      if (failed.length >= SUPERSEDED_SCAN_LIMIT) break;
    }
    if (failed.length === 0) return 0;
    const current = currentRuns(await this.runsOf(failed.map((f) => f.workflowId)));
    return failed.filter((f) => current.get(f.workflowId) !== f.runId).length;
  }

  /** A task's whole story; undefined when there is no such generation task. */
  async detail(taskId: string, origin: string | undefined): Promise<OperatorTaskDetail | undefined> {
    let desc;
    try {
      desc = await this.client.workflow.getHandle(taskId).describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
    if (desc.type !== WORKFLOW_TYPE) return undefined;
    const owner = desc.typedSearchAttributes.get(SA.owner) ?? '';
    const runs = await this.runsOf([taskId]);
    const [record, timeline] = await Promise.all([this.tasks.read(taskId, owner, origin), taskTimeline(this.client, desc, runs)]);
    if (!record) return undefined;
    return { ...this.summary(desc), record, timeline, run_id: desc.runId, runs: Math.max(1, runs.length) };
  }

  /** Cancels a task for its key (what POST /v1/generations/:id/cancel does for the key itself). */
  async cancel(taskId: string, origin: string | undefined): Promise<CancelOutcome> {
    const detail = await this.client.workflow
      .getHandle(taskId)
      .describe()
      .catch((err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      });
    const owner = detail?.type === WORKFLOW_TYPE ? detail.typedSearchAttributes.get(SA.owner) : undefined;
    if (!owner) return { outcome: 'not_found' };
    return this.tasks.cancel(taskId, owner, origin);
  }

  /**
   * Replays one failed task, or the failed tasks a filter names (at most `limit`), as `npm run replay-failed` does
   * (operations/replay.ts: never a cancelled task; only an outage's reasons unless the filter names a reason); with
   * `dryRun`, only says which it would.
   */
  async replay(opts: {
    taskId?: string;
    filter: OperatorTaskFilter;
    dryRun: boolean;
    limit: number;
    reason: string;
  }): Promise<ReplayReport> {
    const { status, ...rest } = opts.filter;
    // Only failed tasks are ever replayed: a filter on any other status names none (the list it previews shows none).
    if (status !== undefined && status !== 'failed') return { replayed: [], skipped: [] };
    const narrowing = filterClauses(rest).join(' AND ');
    return replayFailed(this.client, this.client.options.namespace, {
      ...(narrowing ? { filter: narrowing } : {}),
      ...(opts.taskId ? { taskId: opts.taskId } : {}),
      dryRun: opts.dryRun,
      limit: opts.limit,
      reason: opts.reason,
      log: () => undefined,
      overrideHint: (reason) => `to replay it anyway, name the reason (${reason}) in the replay's filter`,
    });
  }
}
