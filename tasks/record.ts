/**
 * A task's record (docs/api.md "Task records") — what every reader of a task is shown: the API's reads (GET /v1/generations/:id,
 * GET /v1/tasks, the Videos API), the event stream, the webhooks' payloads and the ledger's sweep. It is made from
 * the task's workflow description (status, search attributes and memo: one DescribeWorkflowExecution call, no worker
 * needed; a single task's reader may add a running task's progress from its workflow, tasks/live-progress.ts),
 * with its `usage` and `cost` computed on every read from what the memo keeps (docs/api.md "Usage and cost"):
 *
 * - the request's price-deciding fields (`billing`, written at start), priced as an estimate while the task runs;
 * - on success, what the platform reported it billed (`result.usage`): the final cost;
 * - for a task that did not succeed, whether the platform bills its job all the same (`charge`, written by the
 *   workflow when the task ends: a job it could not stop is billed as it runs to its end upstream).
 *
 * Priced by the cost rule (tasks/cost.ts). Pure: no I/O; the prices are the caller's (tasks/billing.ts).
 */
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure, type WorkflowExecutionInfo } from '@temporalio/client';
import type { TaskWaiting } from '../core/capacity';
import { SA } from '../core/search-attributes';
import type { GenerationResult, ReportedUsage, ServedBy, TaskAsked, TaskError, TaskMemo, TaskStatus } from '../core/task';
import { isFailureReason } from '../core/task';
import { costJson, type TaskCost, type TaskOutcome, type TaskUsage } from '../pricing/cost';
import type { TaskPricing } from '../pricing/price-table';
import { publicItems, type PublicResultItem, type RenderedResult } from '../results/result-links';
import { taskCost } from './cost';

/** Spec 2.4. */
export interface TaskRecord {
  task_id: string;
  status: TaskStatus;
  model: string;
  message?: string;
  progress?: string;
  created?: number;
  data?: PublicResultItem[];
  error?: TaskError | { message: string; code: string };
  /** A task that named a route: the member that made its job (null until its submit has answered, or when none did). */
  served_by?: ServedBy | null;
  [extra: string]: unknown;
}

/** What a record is made from: a workflow's description or list entry. */
export type TaskInfo = Omit<WorkflowExecutionInfo, 'raw'>;

/**
 * Describe or list info → docs/api.md "Task records" record. `rendered` carries the client's links to the result's outputs (the
 * caller renders them fresh on every read); without it, the platform's links are shown.
 *
 * A task whose workflow still runs but whose memo already records its end (`success` with its result, `failed`
 * with its error) reads as ended: what remains is the workflow's bookkeeping (its settlement in the ledger), not
 * the task.
 */
export function toTaskRecord(info: TaskInfo, rendered?: RenderedResult, liveProgress?: number): TaskRecord {
  const memo = (info.memo ?? {}) as TaskMemo;
  const model = memo.model ?? String(info.typedSearchAttributes.get(SA.model) ?? '');
  // A routed task says which member served it; a task that named a catalogue model was served by that model.
  const served = memo.route !== undefined ? { served_by: memo.servedBy ?? null } : {};
  const record = (status: TaskStatus, rest: Partial<TaskRecord> = {}): TaskRecord => ({
    task_id: info.workflowId,
    status,
    model,
    ...served,
    ...rest,
  });
  const succeeded = (result: GenerationResult) => {
    const shown = rendered ?? { data: publicItems(result.data), extras: result.extras ?? {} };
    return record('success', { created: result.created, data: shown.data, ...shown.extras });
  };
  switch (info.status.name) {
    case 'RUNNING':
      if (memo.status === 'success' && memo.result) return succeeded(memo.result);
      if (memo.status === 'failed' && memo.error) return record('failed', { error: memo.error });
      if (readsAsRunning(info, memo)) return record('running', { progress: `${liveProgress ?? memo.progress ?? 0}%` });
      return memo.waiting ? record('pending', waitingFields(memo.waiting)) : record('pending');
    case 'COMPLETED':
      if (!memo.result)
        return record('failed', { error: { message: 'The task completed without a recorded result', code: 'upstream_failed' } });
      return succeeded(memo.result);
    case 'FAILED':
      return record('failed', { error: memo.error ?? { message: 'The task failed', code: 'upstream_failed' } });
    case 'CANCELLED':
      return record('failed', { error: memo.error ?? { message: 'The task was cancelled', code: 'cancelled' } });
    case 'TERMINATED':
      return record('failed', { error: { message: 'The task was terminated by an operator', code: 'terminated' } });
    case 'TIMED_OUT':
      return record('failed', { error: { message: 'The task timed out', code: 'deadline_exceeded' } });
    default:
      // CONTINUED_AS_NEW is never the latest run; anything else is treated as still in progress.
      return record('pending');
  }
}

/**
 * Whether a running workflow's task is `running` rather than `pending`: its GenerationStatus says so. It is written at
 * every status change (workflows/generation/records.ts); runs of the 1.0 shape wrote the memo's status with it, so the
 * two agree there, and the memo decides only for a task with no GenerationStatus at all.
 */
function readsAsRunning(info: TaskInfo, memo: TaskMemo): boolean {
  const status = info.typedSearchAttributes.get(SA.status);
  return status !== undefined ? status === 'running' : memo.status === 'running';
}

/** A running task's progress as its workflow knows it, or undefined when it cannot tell in time (tasks/live-progress.ts). */
export type LiveProgress = (info: TaskInfo) => Promise<number | undefined>;

/**
 * A running task's progress from its workflow, asked only when its memo does not keep it (new runs keep progress out
 * of the memo: patch `quieter-task`; the 1.0 shape wrote `running` there with it). `status`: the task's record's,
 * when the caller has it already.
 */
export async function liveProgressOf(
  info: TaskInfo,
  live: LiveProgress | undefined,
  status: TaskStatus = toTaskRecord(info).status,
): Promise<number | undefined> {
  const memo = (info.memo ?? {}) as TaskMemo;
  const needed = info.status.name === 'RUNNING' && memo.status !== 'running' && status === 'running';
  return live && needed ? await live(info) : undefined;
}

/** Renders a succeeded task's result into the client's links (results/result-links.ts ResultLinks.render). */
export type RenderResult = (taskId: string, result: GenerationResult) => Promise<RenderedResult>;

/**
 * The record a task's reader is shown, from its workflow's description: a succeeded task's result rendered into
 * fresh links — once its memo records the success, even while its workflow makes its last steps (the final webhook
 * event's first attempt reads it then) — and its usage and cost. The one builder of GET /v1/generations/:id
 * (tasks/task-service.ts) and of the webhooks' payloads (webhooks/event-body.ts), so both show the same.
 */
export async function taskRecordOf(
  info: TaskInfo,
  render: RenderResult,
  pricing: TaskPricing | undefined,
  live?: LiveProgress,
): Promise<TaskRecord> {
  // The record's status decides both what to render and whether to ask for progress: derived once.
  const status = toTaskRecord(info).status;
  const result = resultOf(info, status);
  const progress = await liveProgressOf(info, live, status);
  return withTaskCost(info, toTaskRecord(info, result ? await render(info.workflowId, result) : undefined, progress), pricing);
}

/**
 * A pending task waiting for a slot on a platform account (core/capacity.ts): what it waits for and since when (Unix
 * seconds), and a message a person can read.
 */
function waitingFields(waiting: TaskWaiting): Partial<TaskRecord> {
  const since = Math.floor(waiting.since / 1000);
  return {
    message: `Waiting for platform capacity since ${new Date(since * 1000).toISOString()}: every account that can serve this task is running as many jobs as it may; it starts when one frees a slot`,
    waiting: { reason: waiting.reason, since },
  };
}

/** The recorded result of a task that succeeded (stored keys included), whether or not its workflow has closed. */
export function resultOf(info: TaskInfo, status: TaskStatus = toTaskRecord(info).status): GenerationResult | undefined {
  const memo = (info.memo ?? {}) as TaskMemo;
  return status === 'success' ? memo.result : undefined;
}

/** A task as the Videos API reads it (api/openai-videos/): its record, what it was asked, and when it ran. */
export interface TaskView {
  record: TaskRecord;
  memo: TaskMemo;
  startTime: Date;
  closeTime?: Date;
}

export function toTaskView(info: TaskInfo, liveProgress?: number): TaskView {
  return {
    record: toTaskRecord(info, undefined, liveProgress),
    memo: (info.memo ?? {}) as TaskMemo,
    startTime: info.startTime,
    ...(info.closeTime ? { closeTime: info.closeTime } : {}),
  };
}

/** What a video request asked for, in the memo (TaskAsked), from its validated general fields. */
export function askedOf(request: Record<string, unknown>, given: Pick<TaskAsked, 'size' | 'via'> = {}): TaskAsked {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const asked: TaskAsked = {
    prompt: text(request.prompt),
    seconds: typeof request.duration === 'number' ? request.duration : undefined,
    ratio: text(request.ratio),
    resolution: text(request.resolution),
    ...given,
  };
  return Object.fromEntries(Object.entries(asked).filter(([, v]) => v !== undefined)) as TaskAsked;
}

/** The two fields a task record carries. */
export interface RecordCost {
  usage: TaskUsage;
  cost: ReturnType<typeof costJson>;
}

/** How the task ended, if it has: a record's `failed` covers cancelled tasks too. */
export interface TaskEnd {
  /** Set when the task has ended; absent while it runs: the estimate. */
  outcome?: TaskOutcome;
  /** The recorded result of a task that succeeded (its `usage`: what the platform reported it billed). */
  result?: GenerationResult;
  /** A task that did not succeed whose job the platform bills all the same (memo `charge`), and what it reported. */
  billed?: { usage?: ReportedUsage };
  /** A routed task's member that served it: once ended, the task costs what that member bills (tasks/cost.ts). */
  servedBy?: ServedBy;
}

/**
 * Usage and cost of a task, or undefined when it cannot be priced: started before tasks kept their `billing`, or
 * for a model this deployment no longer lists.
 */
export function recordCost(
  pricing: TaskPricing | undefined,
  billing: Record<string, unknown> | undefined,
  end: TaskEnd,
): RecordCost | undefined {
  if (!pricing || !billing || typeof billing.model !== 'string' || (billing.kind !== 'video' && billing.kind !== 'image')) return undefined;
  let priced: { usage: TaskUsage; cost: TaskCost | null };
  try {
    priced = taskCost(pricing, {
      request: { ...billing, kind: billing.kind, model: billing.model },
      servedBy: end.servedBy,
      outcome: end.outcome,
      usage: end.result?.usage ?? end.billed?.usage ?? {},
      billed: end.outcome === 'success' || end.billed !== undefined,
    });
  } catch {
    return undefined;
  }
  return { usage: priced.usage, cost: costJson(priced.cost) };
}

/** A routed task's serving member, from its record (served_by); undefined: not routed, or not served. */
export function servedByOf(record: Pick<TaskRecord, 'served_by'> | undefined): ServedBy | undefined {
  return record?.served_by ?? undefined;
}

/** How a task that has ended ended, from its record: `failed` covers a cancel, told apart by its error code. */
export function outcomeOf(record: Pick<TaskRecord, 'status' | 'error'>): TaskOutcome | undefined {
  if (record.status === 'success') return 'success';
  if (record.status === 'failed') return record.error?.code === 'cancelled' ? 'cancelled' : 'failed';
  return undefined;
}

/**
 * A task record with its `usage` and `cost`, from its workflow's description (status and memo): the one place every
 * reader prices a record, so the API's reads and the webhooks' payloads show the same.
 */
export function withTaskCost<T extends { status: string; error?: { code?: string } }>(
  info: { memo?: Record<string, unknown> },
  record: T,
  pricing: TaskPricing | undefined,
): T {
  const memo = info.memo as TaskMemo | undefined;
  const outcome = outcomeOf(record as Pick<TaskRecord, 'status' | 'error'>);
  const end: TaskEnd = { result: outcome === 'success' ? memo?.result : undefined };
  if (outcome !== undefined) end.outcome = outcome;
  if (outcome !== undefined && outcome !== 'success' && memo?.charge?.billed === true)
    end.billed = memo.charge.usage ? { usage: memo.charge.usage } : {};
  if (memo?.servedBy) end.servedBy = memo.servedBy;
  return withCost(record, recordCost(pricing, memo?.billing, end));
}

/**
 * `body` with `usage` and `cost` added. A platform's own `usage` object in the body (docs/api.md "Generation results": V's
 * `completion_tokens`, `total_tokens`) keeps its fields; the gateway's units are added beside them.
 */
export function withCost<T extends Record<string, unknown>>(body: T, priced: RecordCost | undefined): T {
  if (!priced) return body;
  const own = typeof body.usage === 'object' && body.usage !== null ? (body.usage as Record<string, unknown>) : {};
  return { ...body, usage: { ...own, ...priced.usage }, cost: priced.cost };
}

/** The failure a sync client is told about, from the workflow's failure cause. */
export function failureOfCause(cause: unknown): { message: string; code: string; upstream_code?: string } {
  if (cause instanceof ApplicationFailure) {
    const upstream = (cause.details?.[0] as { code?: string } | undefined)?.code;
    const code = isFailureReason(cause.type) ? cause.type : 'upstream_failed';
    return { message: cause.message, code, ...(upstream ? { upstream_code: upstream } : {}) };
  }
  if (cause instanceof CancelledFailure) return { message: "The task was cancelled at the client's request", code: 'cancelled' };
  if (cause instanceof TerminatedFailure) return { message: 'The task was terminated by an operator', code: 'terminated' };
  if (cause instanceof TimeoutFailure) return { message: 'The task timed out', code: 'deadline_exceeded' };
  return { message: cause instanceof Error ? cause.message : 'The task failed', code: 'upstream_failed' };
}
