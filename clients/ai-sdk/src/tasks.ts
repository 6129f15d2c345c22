/**
 * A gateway task as the provider reads it (docs/api.md, "Task records", "Task states"), and the one place that
 * decides whether it is still going: only `pending` and `running` are; every other state is final, so a task the
 * gateway has finished (succeeded, failed, cancelled, past its deadline) is never reported as pending.
 */
import type { SharedV4ProviderMetadata } from '@ai-sdk/provider';
import { gatewayJson, pause, type GatewaySettings } from './http.js';

export interface TaskRecord {
  task_id: string;
  status: string;
  model: string;
  /** A routed task's member that served it. */
  served_by?: { model: string; platform: string };
  progress?: string;
  created?: number;
  data?: Array<{ url: string; stored?: boolean }>;
  error?: { message: string; code?: string; upstream_code?: string };
  usage?: unknown;
  cost?: unknown;
}

/** How a task reads to the SDK. */
export type TaskOutcome =
  | { state: 'pending' }
  | { state: 'succeeded'; urls: string[] }
  | {
      state: 'failed';
      /**
       * The gateway's `error.code`, with the two the SDK's own providers lose named as such: `cancelled` (the
       * client cancelled it) and `expired` (`deadline_exceeded`: the task's deadline passed before a result; or the
       * platform stopped the job past its own execution window, `upstream_code: "expired"`).
       */
      reason: string;
      message: string;
    };

export function outcomeOf(task: TaskRecord): TaskOutcome {
  if (task.status === 'pending' || task.status === 'running') return { state: 'pending' };
  if (task.status === 'success') {
    const urls = (task.data ?? []).map((d) => d.url);
    if (urls.length > 0) return { state: 'succeeded', urls };
    return { state: 'failed', reason: 'no_result', message: `task ${task.task_id} succeeded without a result` };
  }
  const code = task.error?.code ?? (task.status === 'failed' ? 'failed' : `unknown_status_${task.status}`);
  const expired = code === 'deadline_exceeded' || task.error?.upstream_code === 'expired';
  const reason = expired ? 'expired' : code;
  const message = task.error?.message ?? `task ${task.task_id} ended ${task.status}`;
  return { state: 'failed', reason, message: `${reason}: ${message} (task ${task.task_id})` };
}

/** What the SDK's `providerMetadata.mediagate` carries for a task: enough to find it again (GET, cancel, console). */
export function taskMetadata(task: TaskRecord): SharedV4ProviderMetadata {
  return {
    mediagate: {
      taskId: task.task_id,
      status: task.status,
      model: task.model,
      ...(task.served_by ? { servedBy: task.served_by } : {}),
      ...(task.error ? { errorCode: task.error.code ?? null, errorMessage: task.error.message } : {}),
      ...(task.data ? { urls: task.data.map((d) => d.url) } : {}),
    },
  };
}

export async function readTask(
  settings: GatewaySettings,
  taskId: string,
  opts: { headers?: Record<string, string | undefined>; abortSignal?: AbortSignal },
): Promise<{ task: TaskRecord; headers: Record<string, string> }> {
  const answer = await gatewayJson<TaskRecord>(settings, 'GET', `/generations/${encodeURIComponent(taskId)}`, {
    headers: withoutIdempotencyKey(opts.headers),
    abortSignal: opts.abortSignal,
    canRetry: true,
  });
  return { task: answer.body, headers: answer.headers };
}

/** Reads the task until it is final, every `intervalMs` (the gateway's own deadlines bound how long that is). */
export async function untilFinal(
  settings: GatewaySettings,
  taskId: string,
  intervalMs: number,
  opts: { headers?: Record<string, string | undefined>; abortSignal?: AbortSignal },
): Promise<{ task: TaskRecord; headers: Record<string, string> }> {
  for (;;) {
    const read = await readTask(settings, taskId, opts);
    if (outcomeOf(read.task).state !== 'pending') return read;
    await pause(intervalMs, opts.abortSignal);
  }
}

/** A GET needs no Idempotency-Key; the SDK passes the start's headers on to its status reads. */
function withoutIdempotencyKey(headers: Record<string, string | undefined> | undefined): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(headers ?? {}).filter(([k]) => k.toLowerCase() !== 'idempotency-key'));
}
