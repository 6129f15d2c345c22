/**
 * Platform V's task object, shaped as the official SDK's ContentGenerationTask (volcengine-ark-runtime 5.0.54,
 * types/content_generation/content_generation_task.py): id, model, safety_identifier, status, error, content
 * {video_url, last_frame_url}, usage {completion_tokens, total_tokens}, frames, framespersecond, created_at,
 * updated_at, seed, service_tier, execution_expires_after, priority, generate_audio, duration, ratio, resolution,
 * draft, draft_task_id, tools. The SDK's 3D-only fields (subdivisionlevel, fileformat, file_url) and
 * revised_prompt are left out.
 *
 * The task does NOT echo the request's content (no prompt, no image or video URLs): the SDK's `content` is the
 * output. The only request values it echoes are the parameters above, `safety_identifier` included.
 *
 * Statuses: queued, running, succeeded, failed, cancelled, expired. `expired` is the simulator's own
 * derivation: a job still queued or running `execution_expires_after` seconds after its creation.
 */
import type { SimHost } from '../host';
import { resultUrls, type SimJob } from '../jobs';
import { V_DIMENSIONS, V_FPS } from './models';
import type { VCreatePlan } from './validation';

export type VStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'expired';
export const V_STATUSES: readonly VStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired'];

/** "tasks are queryable for 7 days" (docs/platforms/v.md); cancelled tasks are removed after 24 h (BytePlus task doc). */
export const V_TASK_RETENTION_MS = 7 * 24 * 3600_000;
export const V_CANCELLED_RETENTION_MS = 24 * 3600_000;

/**
 * What a V job keeps in `SimJob.meta` (JSON only): the validated create (VCreatePlan) minus what only shaped it
 * (model, text, mode, watermark, camera_fixed), plus what the simulator adds.
 */
export type VJobMeta = Omit<VCreatePlan, 'model' | 'text' | 'mode' | 'watermark' | 'cameraFixed'> & {
  /** `[sim:expires=MS]`: the job counts as past execution_expires_after this many ms after creation. */
  expiresInMs?: number;
  /** `[sim:task-error=CODE]`: the failed task's error.code. */
  taskError?: string;
  baseUrl: string;
  /** DELETE of a finished task removes its record. */
  deletedAt?: number;
  /** The create body as received: for /_sim/jobs only, never shown in the task object. */
  request: unknown;
  /**
   * What the task object shows as `model` when the job was created through an endpoint id (`ep-…`): that id, or
   * the endpoint's model — the documents do not say which (/_sim/v/endpoints `listedModel`).
   */
  listedModel?: string;
  /** The API key of the account that created it (absent in jobs kept before accounts: the default key's). */
  apiKey?: string;
  /**
   * POST /_sim/v/usage: the tokens the task object reports from now on, instead of the ones its size and duration
   * make (a platform's record that differs from what a client was told, for reconciliation tests).
   */
  usageOverride?: number;
};

export function vMeta(job: SimJob): VJobMeta {
  return job.meta as unknown as VJobMeta;
}

/** The request as kept for /_sim/jobs: long strings (base64 data URLs) shortened, so the jobs file stays small. */
function shortened(v: unknown): unknown {
  if (typeof v === 'string') return v.length > 512 ? `${v.slice(0, 64)}…(${v.length} chars)` : v;
  if (Array.isArray(v)) return v.map(shortened);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shortened(x)]));
  return v;
}

export function metaFromPlan(
  plan: VCreatePlan,
  baseUrl: string,
  request: unknown,
  extra: { expiresInMs?: number; taskError?: string },
): VJobMeta {
  const { model: _model, text: _text, mode: _mode, watermark: _w, cameraFixed: _c, ...kept } = plan;
  return {
    ...kept,
    ...(extra.expiresInMs !== undefined ? { expiresInMs: extra.expiresInMs } : {}),
    ...(extra.taskError ? { taskError: extra.taskError } : {}),
    baseUrl,
    request: shortened(request),
  };
}

export function expiresAt(job: SimJob): number {
  const meta = vMeta(job);
  return job.createdAt + (meta.expiresInMs ?? meta.executionExpiresAfter * 1000);
}

/** The V status at `now`: the job store's state, with `expired` for a job that outlived execution_expires_after. */
export function vStatus(host: SimHost, job: SimJob, now = host.now()): VStatus {
  const { state } = host.jobs.view(job, now);
  if (state === 'cancelled') return 'cancelled';
  const expiry = expiresAt(job);
  const finish = host.jobs.finishesAt(job);
  if (now >= expiry && (finish === undefined || finish > expiry)) return 'expired';
  return state;
}

/** When the job last changed status, by `now`. */
function updatedAt(host: SimHost, job: SimJob, status: VStatus): number {
  switch (status) {
    case 'queued':
      return job.createdAt;
    case 'running':
      return job.createdAt + job.durationMs / 4;
    case 'cancelled':
      return job.cancelledAt ?? job.createdAt;
    case 'expired':
      return expiresAt(job);
    default:
      return job.createdAt + job.durationMs;
  }
}

/**
 * Failed-task codes. Content policy: OutputVideoSensitiveContentDetected (docs/platforms/v.md). Generic failure:
 * InternalServiceError. Transient: GUESS, ServerOverloaded (Ark's "retry later" overload code); Ark documents no
 * task-level transient code.
 */
const FAILURES: Record<string, string> = {
  OutputVideoSensitiveContentDetected: 'The request failed because the output video may contain sensitive information.',
  InputImageSensitiveContentDetected: 'The request failed because the input image may contain sensitive information.',
  InputTextSensitiveContentDetected: 'The request failed because the input text may contain sensitive information.',
  InternalServiceError: 'The service encountered an unexpected internal error.',
  ServerOverloaded: 'The service is currently unable to handle additional requests due to server overload.',
};

function errorOf(job: SimJob): { code: string; message: string } {
  const code =
    vMeta(job).taskError ??
    (job.directives.fail === 'content_policy'
      ? 'OutputVideoSensitiveContentDetected'
      : job.directives.fail === 'transient'
        ? 'ServerOverloaded'
        : 'InternalServiceError');
  return { code, message: FAILURES[code] ?? `The task failed (${code}).` };
}

function tokens(meta: VJobMeta): number {
  if (meta.usageOverride !== undefined) return meta.usageOverride;
  const dims = V_DIMENSIONS[meta.resolution]?.[meta.ratio] ?? V_DIMENSIONS[meta.resolution]?.['16:9'] ?? [1248, 704];
  return Math.round((dims[0] * dims[1] * V_FPS * meta.duration) / 1024);
}

/** The task object (GET, list items, and callback bodies). */
export function taskObject(host: SimHost, job: SimJob, baseUrl: string, now = host.now()): Record<string, unknown> {
  const meta = vMeta(job);
  const status = vStatus(host, job, now);
  const task: Record<string, unknown> = {
    id: job.id,
    model: meta.listedModel ?? job.model,
    status,
    error: null,
  };
  if (status === 'succeeded') {
    const [url] = resultUrls(baseUrl, job);
    task.content = { video_url: url, ...(meta.returnLastFrame ? { last_frame_url: url!.replace(/\.mp4$/, '.png') } : {}) };
    const used = tokens(meta);
    task.usage = { completion_tokens: used, total_tokens: used };
  }
  if (status === 'failed') task.error = errorOf(job);
  Object.assign(task, {
    created_at: Math.floor(job.createdAt / 1000),
    updated_at: Math.floor(updatedAt(host, job, status) / 1000),
    seed: meta.seed,
    resolution: meta.resolution,
    // `adaptive` resolves to the ratio the model chose; the simulator reports 16:9.
    ratio: meta.ratio === 'adaptive' ? '16:9' : meta.ratio,
    duration: meta.duration,
    ...(meta.frames !== undefined ? { frames: meta.frames } : {}),
    framespersecond: V_FPS,
    service_tier: meta.serviceTier,
    execution_expires_after: meta.executionExpiresAfter,
    priority: meta.priority,
    ...(meta.generateAudio !== undefined ? { generate_audio: meta.generateAudio } : {}),
    ...(meta.draft !== undefined ? { draft: meta.draft } : {}),
    ...(meta.draftTaskId !== undefined ? { draft_task_id: meta.draftTaskId } : {}),
    ...(meta.tools !== undefined ? { tools: meta.tools } : {}),
    ...(meta.safetyIdentifier !== undefined ? { safety_identifier: meta.safetyIdentifier } : {}),
  });
  return task;
}

/** False once the task can no longer be read: deleted, cancelled more than 24 h ago, or older than 7 days. */
export function visible(host: SimHost, job: SimJob, now = host.now()): boolean {
  if (job.platform !== 'V' || vMeta(job).deletedAt !== undefined) return false;
  if (now - job.createdAt > V_TASK_RETENTION_MS) return false;
  if (job.cancelledAt !== undefined && now - job.cancelledAt > V_CANCELLED_RETENTION_MS) return false;
  return true;
}
