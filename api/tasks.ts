/**
 * Tasks as the API sees them: a task *is* a generation workflow (task_id = workflow ID). Starting one, reading
 * its record, listing a key's tasks and waiting for a result all go to Temporal; there is no other store.
 *
 * Reads need no worker: the workflow keeps status, progress, result and error in its memo, so one
 * DescribeWorkflowExecution call answers, for running and closed tasks alike.
 */
import { randomBytes } from 'node:crypto';
import {
  CancelledFailure,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  ApplicationFailure,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import type { ModelEntry } from '../core/catalogue';
import type { GenerationRequest } from '../core/schemas';
import { SA } from '../core/search-attributes';
import type { GenerationInput, GenerationResult, PollTiming, TaskError, TaskMemo, TaskStatus } from '../core/task';
import { isFailureReason } from '../core/task';
import type { generationWorkflow } from '../workflows/generation';

export const WORKFLOW_TYPE = 'generationWorkflow';

/** Spec 2.4. */
export interface TaskRecord {
  task_id: string;
  status: TaskStatus;
  model: string;
  message?: string;
  progress?: string;
  created?: number;
  data?: { url: string }[];
  error?: TaskError | { message: string; code: string };
  [extra: string]: unknown;
}

export interface TaskServiceOptions {
  taskQueue: string;
  timing: { video: PollTiming; image: PollTiming };
}

export interface StartedTask {
  taskId: string;
  model: string;
}

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

/** Opaque, URL-safe and unguessable: 128 random bits. */
export function newTaskId(): string {
  return `task_${randomBytes(16).toString('base64url')}`;
}

export class TaskService {
  constructor(
    private readonly client: Client,
    private readonly opts: TaskServiceOptions,
  ) {}

  async start(ownerId: string, entry: ModelEntry, request: GenerationRequest, taskId = newTaskId()): Promise<StartedTask> {
    const input: GenerationInput = {
      kind: entry.kind,
      platform: entry.platform,
      model: entry.id,
      request,
      ownerId,
      timing: this.opts.timing[entry.kind],
    };
    const memo: TaskMemo = { model: entry.id, kind: entry.kind, platform: entry.platform, status: 'pending' };
    await this.client.workflow.start<typeof generationWorkflow>(WORKFLOW_TYPE, {
      taskQueue: this.opts.taskQueue,
      workflowId: taskId,
      args: [input],
      // A task id names one task forever: never start a second workflow under it.
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [
        { key: SA.owner, value: ownerId },
        { key: SA.status, value: 'pending' },
        { key: SA.model, value: entry.id },
        { key: SA.platform, value: entry.platform },
        { key: SA.kind, value: entry.kind },
      ],
      memo: memo as Record<string, unknown>,
      staticSummary: `${entry.kind} · ${entry.id} · platform ${entry.platform} · key ${ownerId}`,
    });
    return { taskId, model: entry.id };
  }

  /** The task's record, or undefined when it does not exist or belongs to another key (indistinguishable). */
  async read(taskId: string, ownerId: string): Promise<TaskRecord | undefined> {
    let desc: WorkflowExecutionDescription;
    try {
      desc = await this.client.workflow.getHandle(taskId).describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
    if (desc.typedSearchAttributes.get(SA.owner) !== ownerId || desc.type !== WORKFLOW_TYPE) return undefined;
    return toTaskRecord(desc);
  }

  /** Waits for the task's result. Aborting the signal stops the wait, never the task. */
  async awaitResult(taskId: string, signal: AbortSignal): Promise<GenerationResult> {
    try {
      return await this.client.withAbortSignal(signal, () =>
        this.client.workflow.getHandle<typeof generationWorkflow>(taskId).result(),
      );
    } catch (err) {
      if (err instanceof WorkflowFailedError) throw new GenerationFailed(taskId, failureOf(err.cause));
      throw err;
    }
  }

  /** One page of the key's tasks, in SQL visibility's order: running first, then most recently closed. */
  async list(ownerId: string, page: number, pageSize: number): Promise<{ total: number; records: TaskRecord[] }> {
    const query = `${SA.owner.name} = '${ownerId.replace(/'/g, "''")}' AND WorkflowType = '${WORKFLOW_TYPE}'`;
    const [{ count }, records] = await Promise.all([
      this.client.workflow.count(query),
      (async () => {
        const skip = (page - 1) * pageSize;
        const out: TaskRecord[] = [];
        let i = 0;
        for await (const info of this.client.workflow.list({ query, pageSize })) {
          if (i++ < skip) continue;
          out.push(toTaskRecord(info));
          if (out.length >= pageSize) break;
        }
        return out;
      })(),
    ]);
    return { total: count, records };
  }
}

export function isAlreadyStarted(err: unknown): err is WorkflowExecutionAlreadyStartedError {
  return err instanceof WorkflowExecutionAlreadyStartedError;
}

/** Describe or list info → spec 2.4 record. Pure. */
export function toTaskRecord(info: Omit<WorkflowExecutionInfo, 'raw'>): TaskRecord {
  const memo = (info.memo ?? {}) as TaskMemo;
  const model = memo.model ?? String(info.typedSearchAttributes.get(SA.model) ?? '');
  const base = { task_id: info.workflowId, model };
  switch (info.status.name) {
    case 'RUNNING': {
      const status = memo.status === 'running' ? 'running' : 'pending';
      return status === 'running' ? { ...base, status, progress: `${memo.progress ?? 0}%` } : { ...base, status };
    }
    case 'COMPLETED': {
      const result = memo.result;
      if (!result) return { ...base, status: 'failed', error: { message: 'The task completed without a recorded result', code: 'upstream_failed' } };
      return { ...base, status: 'success', created: result.created, data: result.data, ...(result.extras ?? {}) };
    }
    case 'FAILED':
      return { ...base, status: 'failed', error: memo.error ?? { message: 'The task failed', code: 'upstream_failed' } };
    case 'CANCELLED':
      return { ...base, status: 'failed', error: memo.error ?? { message: 'The task was cancelled', code: 'cancelled' } };
    case 'TERMINATED':
      return { ...base, status: 'failed', error: { message: 'The task was terminated by an operator', code: 'terminated' } };
    case 'TIMED_OUT':
      return { ...base, status: 'failed', error: { message: 'The task timed out', code: 'deadline_exceeded' } };
    default:
      // CONTINUED_AS_NEW is never the latest run; anything else is treated as still in progress.
      return { ...base, status: 'pending' };
  }
}

/** The failure a sync client is told about, from the workflow's failure cause. */
function failureOf(cause: unknown): { message: string; code: string; upstream_code?: string } {
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
