/**
 * Tasks in Temporal: a task *is* a generation workflow (task_id = workflow ID). Starting one (for tasks/start.ts,
 * the one start path), reading its record (tasks/record.ts), listing a key's tasks, waiting for a result and
 * cancelling all go to Temporal; there is no other store of tasks.
 *
 * Reads need no worker: the workflow keeps its status in a search attribute and its result or error in its memo, so
 * one DescribeWorkflowExecution call answers, for running and closed tasks alike. A running task's progress is asked
 * of its workflow on a single task's read (tasks/live-progress.ts), bounded, and lists show what the memo keeps.
 */
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
} from '@temporalio/client';
import type { ModelRecord } from '../core/catalogue';
import { SA } from '../core/search-attributes';
import { hintTask, type HintOutcome, type TaskHint } from '../core/task-hints';
import type {
  GenerationInput,
  GenerationRequest,
  GenerationResult,
  GenerationWorkflow,
  Kind,
  TaskAsked,
  TaskMemo,
  TaskRoute,
  TaskStatus,
} from '../core/task';
import { WORKFLOW_TYPE } from '../core/task';
import { pricedRequest } from '../pricing/cost';
import type { TaskPricing } from '../pricing/price-table';
import type { WebhookTarget } from '../core/webhooks';
import { publicItems, type RenderedResult, type ResultLinks } from '../results/result-links';
import { queriedProgress } from './live-progress';
import { askedOf, failureOfCause, liveProgressOf, taskRecordOf, toTaskRecord, toTaskView } from './record';
import type { RenderResult, TaskInfo, TaskRecord, TaskView } from './record';
import { taskQueueShare } from './task-queue-share';

export interface TaskServiceOptions {
  taskQueue: string;
  /** Renders stored results into fresh links on every read (results/result-links.ts); absent: platform links only. */
  resultLinks?: ResultLinks;
  /** Prices task records' `usage` and `cost` (tasks/record.ts); absent: records carry neither. */
  pricing?: TaskPricing;
  /** The bound on one start, describe or count call to Temporal (default TEMPORAL_CALL_DEADLINE_MS). */
  callDeadlineMs?: number;
}

/**
 * How long a start, a describe or a count (a key's tasks in flight) may wait on Temporal. The client sets no deadline of its own, so a server that
 * is up but frozen (paused, swapping, a stuck database) would hold a submit for as long as its client waits; past
 * this bound the call fails with DEADLINE_EXCEEDED, which the API answers 503 `temporal_unavailable` with
 * Retry-After (api/middleware/error-envelope.ts).
 */
export const TEMPORAL_CALL_DEADLINE_MS = 10_000;

export interface StartedTask {
  taskId: string;
  model: string;
}

/**
 * What a cancel request did: the task was not found (or is another key's), had already finished, was
 * cancelled (the record is final), or is still cancelling (the record is the current one).
 */
export type CancelOutcome = { outcome: 'not_found' } | { outcome: 'finished' | 'cancelled' | 'cancelling'; record: TaskRecord };

/** A task whose generation failed, as the sync endpoints report it. */
export class GenerationFailed extends Error {
  override name = 'GenerationFailed';
  constructor(
    readonly taskId: string,
    readonly error: { message: string; code: string; upstream_code?: string },
  ) {
    super(error.message);
  }
}

export class TaskService {
  constructor(
    private readonly client: Client,
    private readonly opts: TaskServiceOptions,
  ) {}

  /**
   * Starts the task's workflow. Throws WorkflowExecutionAlreadyStartedError (see isAlreadyStarted) when a
   * workflow with this task id exists or existed: task ids are never reused. A routed task (`route`) starts with its
   * members in the order its submit tries them; `entry` and `request` are the member its estimate is priced at.
   */
  async start(
    ownerId: string,
    entry: ModelRecord,
    request: GenerationRequest,
    opts: {
      taskId: string;
      requestHash?: string;
      asked?: Pick<TaskAsked, 'size' | 'via'>;
      webhook?: WebhookTarget;
      route?: TaskRoute;
      /** The key's weight in the fair share of platform slots (core/capacity.ts); absent: 1. */
      weight?: number;
    },
  ): Promise<StartedTask> {
    const taskId = opts.taskId;
    const route = opts.route;
    const model = route?.name ?? entry.id;
    await this.bounded(() =>
      this.client.workflow.start<GenerationWorkflow>(WORKFLOW_TYPE, {
        taskQueue: this.opts.taskQueue,
        workflowId: taskId,
        args: [workflowInput(ownerId, entry, request, opts.webhook, route, opts.weight)],
        // A task id names one task forever: never start a second workflow under it.
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        // A routed task's model and platform are its serving member's, set once its submit answers.
        typedSearchAttributes: [
          { key: SA.owner, value: ownerId },
          { key: SA.status, value: 'pending' },
          ...(route
            ? [{ key: SA.route, value: route.name }]
            : [
                { key: SA.model, value: entry.id },
                { key: SA.platform, value: entry.platform },
              ]),
          { key: SA.kind, value: entry.kind },
        ],
        memo: startMemo(entry, request, opts) as Record<string, unknown>,
        priority: taskQueueShare(ownerId, opts.weight),
        staticSummary: `${entry.kind} · ${route ? `route ${route.name}` : `${entry.id} · platform ${entry.platform}`} · key ${ownerId}`,
      }),
    );
    return { taskId, model };
  }

  /** One unary call to Temporal, failed with DEADLINE_EXCEEDED past the bound (TEMPORAL_CALL_DEADLINE_MS). */
  private bounded<T>(call: () => Promise<T>): Promise<T> {
    return this.client.withDeadline(Date.now() + (this.opts.callDeadlineMs ?? TEMPORAL_CALL_DEADLINE_MS), call);
  }

  /** Whether a generation workflow runs or ran under this task id, whoever owns it. */
  async exists(taskId: string): Promise<boolean> {
    return (await this.describeOwned(taskId, undefined)) !== undefined;
  }

  /**
   * The task's record, or undefined when it does not exist or belongs to another key (indistinguishable). Its links
   * are based at PUBLIC_BASE_URL, else at `origin`: the origin the reader's request came in on.
   */
  async read(taskId: string, ownerId: string, origin: string | undefined): Promise<TaskRecord | undefined> {
    const desc = await this.describeOwned(taskId, ownerId);
    return desc && this.toRecord(desc, origin);
  }

  /** The task's record and the fingerprint of the request that created it. */
  async readWithFingerprint(
    taskId: string,
    ownerId: string,
    origin: string | undefined,
  ): Promise<{ record: TaskRecord; requestHash?: string } | undefined> {
    const desc = await this.describeOwned(taskId, ownerId);
    return desc && { record: await this.toRecord(desc, origin), requestHash: (desc.memo as TaskMemo | undefined)?.requestHash };
  }

  /**
   * A finished task's result as recorded (stored keys included), for serving its content: with `ownerId`, only
   * the owner's task (else undefined, like a missing one); without, any task (the caller checked a signed link).
   */
  async readResult(taskId: string, ownerId: string | undefined): Promise<{ status: TaskStatus; result?: GenerationResult } | undefined> {
    const desc = await this.describeOwned(taskId, ownerId);
    if (!desc) return undefined;
    const record = toTaskRecord(desc);
    return { status: record.status, ...(record.status === 'success' ? { result: (desc.memo as TaskMemo | undefined)?.result } : {}) };
  }

  /** A result with fresh links to its stored outputs (sync answers; task records render through toRecord). */
  async renderResult(taskId: string, result: GenerationResult, origin: string | undefined): Promise<RenderedResult> {
    if (this.opts.resultLinks) return this.opts.resultLinks.render(taskId, result, origin);
    return { data: publicItems(result.data), extras: result.extras ?? {} };
  }

  /**
   * The record, with fresh links to the stored outputs of a finished task, and its usage and cost; `live`: a running
   * task's progress asked of its workflow (a single task's read, not a list's page).
   */
  private async toRecord(info: TaskInfo, origin: string | undefined, live = true): Promise<TaskRecord> {
    const render: RenderResult = (taskId, result) => this.renderResult(taskId, result, origin);
    return taskRecordOf(info, render, this.opts.pricing, live ? queriedProgress(this.client) : undefined);
  }

  /**
   * The task's workflow, or undefined when there is none (or it is not a generation task); with `ownerId`, also
   * when another key owns it — indistinguishable from a missing one.
   */
  private async describeOwned(taskId: string, ownerId: string | undefined): Promise<WorkflowExecutionDescription | undefined> {
    let desc: WorkflowExecutionDescription;
    try {
      desc = await this.bounded(() => this.client.workflow.getHandle(taskId).describe());
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
    if (desc.type !== WORKFLOW_TYPE || (ownerId !== undefined && desc.typedSearchAttributes.get(SA.owner) !== ownerId)) return undefined;
    return desc;
  }

  /** The task as the Videos API reads it: its record (platform links, none rendered), memo and times. */
  async view(taskId: string, ownerId: string): Promise<TaskView | undefined> {
    const desc = await this.describeOwned(taskId, ownerId);
    return desc && toTaskView(desc, await liveProgressOf(desc, queriedProgress(this.client)));
  }

  /**
   * The key's tasks of one kind, started before or after a moment, in visibility's order (running first, then
   * by close time, most recent first); each task once (an operator's replay is a second run under its id).
   */
  async *views(ownerId: string, filter: { kind: Kind; startedBefore?: Date; startedAfter?: Date }): AsyncGenerator<TaskView> {
    const clauses = [ownerQuery(ownerId), `${SA.kind.name} = '${filter.kind}'`];
    if (filter.startedBefore) clauses.push(`StartTime <= '${filter.startedBefore.toISOString()}'`);
    if (filter.startedAfter) clauses.push(`StartTime >= '${filter.startedAfter.toISOString()}'`);
    const seen = new Set<string>();
    for await (const info of this.client.workflow.list({ query: clauses.join(' AND '), pageSize: 100 })) {
      if (seen.has(info.workflowId)) continue;
      seen.add(info.workflowId);
      yield toTaskView(info);
    }
  }

  /** Hands a platform's announcement on to the task it concerns, as a signal (core/task-hints.ts). */
  hint(platform: string, hint: TaskHint): Promise<HintOutcome> {
    return hintTask(this.client, platform, hint);
  }

  /** How many of the key's tasks are running (Temporal visibility; eventually consistent). */
  async countRunning(ownerId: string): Promise<number> {
    const { count } = await this.bounded(() => this.client.workflow.count(`${ownerQuery(ownerId)} AND ExecutionStatus = 'Running'`));
    return count;
  }

  /** Waits for the task's result. Aborting the signal stops the wait, never the task. */
  async awaitResult(taskId: string, signal: AbortSignal): Promise<GenerationResult> {
    try {
      return await this.client.withAbortSignal(signal, () => this.client.workflow.getHandle<GenerationWorkflow>(taskId).result());
    } catch (err) {
      if (err instanceof WorkflowFailedError) throw new GenerationFailed(taskId, failureOfCause(err.cause));
      throw err;
    }
  }

  /**
   * Asks the task's workflow to cancel (it then cancels the upstream job where the platform allows and fails
   * with `cancelled`), and waits up to `settleMs` for it to close so the caller usually gets the final record.
   * It may take longer, e.g. while a paid submit is still in flight or no worker is running: then the outcome
   * is `cancelling` with the task's current record, and the cancellation completes on its own.
   */
  async cancel(taskId: string, ownerId: string, origin: string | undefined, settleMs = 5_000): Promise<CancelOutcome> {
    const before = await this.read(taskId, ownerId, origin);
    if (!before) return { outcome: 'not_found' };
    if (before.status === 'success' || before.status === 'failed') return { outcome: 'finished', record: before };
    const handle = this.client.workflow.getHandle(taskId);
    try {
      await handle.cancel();
    } catch (err) {
      // It closed between the read and the cancel request.
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      const now = await this.read(taskId, ownerId, origin);
      return now ? { outcome: 'finished', record: now } : { outcome: 'not_found' };
    }
    await this.client.withDeadline(Date.now() + settleMs, () => handle.result()).catch(() => undefined);
    const after = await this.read(taskId, ownerId, origin);
    if (!after) return { outcome: 'not_found' };
    return { outcome: after.status === 'failed' || after.status === 'success' ? 'cancelled' : 'cancelling', record: after };
  }

  /** One page of the key's tasks, in SQL visibility's order: running first, then most recently closed. */
  async list(
    ownerId: string,
    page: number,
    pageSize: number,
    filter: TaskFilter,
    origin: string | undefined,
  ): Promise<{ total: number; records: TaskRecord[] }> {
    const query = [ownerQuery(ownerId), ...filterClauses(filter)].join(' AND ');
    const [{ count }, records] = await Promise.all([
      this.client.workflow.count(query),
      (async () => {
        const skip = (page - 1) * pageSize;
        const out: TaskRecord[] = [];
        let i = 0;
        // A task an operator replayed (Temporal reset, docs/guides/repair.md) has a second run under the same id.
        // Visibility lists the newer run first (running first, then by close time), so the first seen is the
        // task's record; the superseded failed run is skipped. (`total` still counts it: visibility cannot
        // count distinct ids.)
        const seen = new Set<string>();
        for await (const info of this.client.workflow.list({ query, pageSize })) {
          if (seen.has(info.workflowId)) continue;
          seen.add(info.workflowId);
          if (i++ < skip) continue;
          out.push(await this.toRecord(info, origin, false));
          if (out.length >= pageSize) break;
        }
        return out;
      })(),
    ]);
    return { total: count, records };
  }
}

/** What the workflow starts with: a routed task's first member stands in for the model (its route says the rest). */
function workflowInput(
  ownerId: string,
  entry: ModelRecord,
  request: GenerationRequest,
  webhook: WebhookTarget | undefined,
  route: TaskRoute | undefined,
  weight: number | undefined,
): GenerationInput {
  const first = route?.members[0];
  return {
    kind: entry.kind,
    platform: first?.platform ?? entry.platform,
    model: first?.model ?? entry.id,
    request: first?.request ?? request,
    ownerId,
    ...(weight !== undefined && weight !== 1 ? { weight } : {}),
    ...(route ? { route } : {}),
    ...(webhook ? { webhook } : {}),
  };
}

/** The memo a task starts with: what it was asked and what prices it, so every read is one describe call. */
function startMemo(
  entry: ModelRecord,
  request: GenerationRequest,
  opts: { requestHash?: string; asked?: Pick<TaskAsked, 'size' | 'via'>; route?: TaskRoute },
): TaskMemo {
  return {
    model: opts.route?.name ?? entry.id,
    kind: entry.kind,
    ...(opts.route ? { route: opts.route.name } : { platform: entry.platform }),
    status: 'pending',
    requestHash: opts.requestHash,
    // What prices the task, so every read computes its usage and cost from the memo alone (tasks/record.ts): a routed
    // task's dearest member, which its reservation holds.
    billing: { ...pricedRequest({ ...request, kind: entry.kind, model: entry.id }) },
    ...(entry.kind === 'video' ? { asked: askedOf(request, opts.asked) } : {}),
  };
}

/** Visibility query for one key's tasks. Key ids are [A-Za-z0-9_.-] (keys/api-keys.ts, api/admin-schemas.ts), so no quoting issue. */
function ownerQuery(ownerId: string): string {
  return `${SA.owner.name} = '${ownerId}' AND WorkflowType = '${WORKFLOW_TYPE}'`;
}

/** Filters of GET /v1/tasks; values are validated by the route (model ids are [A-Za-z0-9._-]). */
export interface TaskFilter {
  status?: TaskStatus;
  model?: string;
}

/**
 * Visibility clauses for a filter. The status comes from the execution status where that is exact (a closed
 * workflow has succeeded or failed whatever its last search-attribute upsert said) and from GenerationStatus
 * for the two running states. `failed` is every status a record reads as failed (toTaskRecord), so it lists the
 * client's cancelled tasks too (execution Canceled, GenerationStatus `cancelled`): docs/api.md "Task records" knows no other status.
 */
function filterClauses(filter: TaskFilter): string[] {
  const clauses: string[] = [];
  // A route's name finds the tasks started with it (whichever member served them).
  if (filter.model) clauses.push(`(${SA.model.name} = '${filter.model}' OR ${SA.route.name} = '${filter.model}')`);
  switch (filter.status) {
    case 'success':
      clauses.push(`ExecutionStatus = 'Completed'`);
      break;
    case 'failed':
      clauses.push(`ExecutionStatus IN ('Failed', 'Canceled', 'Terminated', 'TimedOut')`);
      break;
    case 'pending':
    case 'running':
      clauses.push(`ExecutionStatus = 'Running'`, `${SA.status.name} = '${filter.status}'`);
      break;
  }
  return clauses;
}

export function isAlreadyStarted(err: unknown): err is WorkflowExecutionAlreadyStartedError {
  return err instanceof WorkflowExecutionAlreadyStartedError;
}
