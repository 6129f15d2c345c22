/**
 * Platform B adapter: the job API defined in upstreams.md ("Platform B"). The only file that knows platform B's
 * field names. Every reply is an envelope `{code, message, data}`; code 0 means success, anything else comes
 * with an HTTP 4xx/5xx status and is classified here.
 */
import type { ModelEntry } from '../../core/catalogue';
import type { FailureReason, UpstreamStatus } from '../../core/task';
import type { HttpResponse } from '../http';
import type { AdapterDeps, PlatformAdapter } from '../platform';
import { final, parseRetryAfter, retryable, UpstreamError } from '../upstream-error';
import type { BImageRequest, BVideoRequest } from './rules';

export interface BVideoBody {
  model: string;
  action: 'text_to_video' | 'image_to_video';
  prompt: string;
  duration?: number;
  resolution?: string;
  image?: { imageUrl: string };
  audio?: 'true' | 'false';
  bgm?: 'true' | 'false';
}

export interface BImageBody {
  model: string;
  prompt: string;
  negativePrompt?: string;
  aspectRatio?: string;
  quality?: '1K' | '2K' | '4K';
  n?: number;
}

export interface BTask {
  taskId: string;
  status: 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
  progress?: number;
  outputs?: { url?: string }[];
  error?: { code?: number | string; message?: string } | null;
}

function upstreamModel(entry: ModelEntry): string {
  if (!entry.upstream.model) throw final('invalid_request', `Model ${entry.id} has no platform B model code configured`);
  return entry.upstream.model;
}

/**
 * Spec 2.1 → B video body. `prompt` is a required field of the protocol, so an image-to-video request without
 * one sends an empty prompt (B animates the image unguided). Pure, for golden tests.
 */
export function toBVideoBody(entry: ModelEntry, req: BVideoRequest): BVideoBody {
  const body: BVideoBody = { model: upstreamModel(entry), action: req.action ?? 'image_to_video', prompt: req.prompt ?? '' };
  if (req.duration !== undefined) body.duration = req.duration;
  // Validation already put the resolution in the catalogue's letter case, which is B's.
  if (req.resolution !== undefined) body.resolution = req.resolution;
  // Validation guarantees `image` and the general `image_url` agree when both are given.
  const imageUrl = req.image?.imageUrl ?? req.image_url;
  if (imageUrl !== undefined) body.image = { imageUrl };
  if (req.audio !== undefined) body.audio = req.audio;
  if (req.bgm !== undefined) body.bgm = req.bgm;
  return body;
}

/** Spec 2.2 quality → B quality: the spec's `standard` is 1K and `hd` is 4K; B's own values pass. */
const QUALITY: Record<string, BImageBody['quality']> = { standard: '1K', hd: '4K', '1K': '1K', '2K': '2K', '4K': '4K' };

/** Spec 2.2 → B image body; `ratio` is the aspect ratio validation derived from `size`. Pure, for golden tests. */
export function toBImageBody(entry: ModelEntry, req: BImageRequest): BImageBody {
  const body: BImageBody = { model: upstreamModel(entry), prompt: req.prompt };
  if (req.negative_prompt !== undefined) body.negativePrompt = req.negative_prompt;
  if (req.ratio !== undefined) body.aspectRatio = req.ratio;
  if (req.quality !== undefined) body.quality = QUALITY[req.quality];
  if (req.n !== undefined) body.n = req.n;
  return body;
}

/**
 * Failed-task codes that mean the content was refused. B's moderation codes are the 451xx family; the text
 * test is a safety net for a code we have not seen, because retrying or blaming the platform would be wrong.
 */
function isContentPolicy(code: number | string | undefined, message: string | undefined): boolean {
  const n = Number(code);
  if (Number.isInteger(n) && n >= 45100 && n < 45200) return true;
  return /moderation|sensitive|content[ _-]?policy|nsfw|unsafe/i.test(`${code ?? ''} ${message ?? ''}`);
}

function failureReason(code: number | string | undefined, message: string | undefined): FailureReason {
  return isContentPolicy(code, message) ? 'content_policy' : 'upstream_failed';
}

/** B task → normalised status (upstreams.md, GET /v1/tasks/{taskId}). Pure, for table tests. */
export function fromBTask(task: BTask): UpstreamStatus {
  switch (task.status) {
    case 'QUEUED':
      return { state: 'pending' };
    case 'RUNNING':
      return typeof task.progress === 'number' ? { state: 'running', progress: task.progress } : { state: 'running' };
    case 'SUCCEEDED':
      // Order matters: with `n` images, outputs[i] becomes the result's data[i].
      return { state: 'success', outputs: (task.outputs ?? []).flatMap((o) => (typeof o?.url === 'string' ? [{ url: o.url }] : [])) };
    case 'FAILED': {
      const code = task.error?.code;
      const message = task.error?.message;
      return {
        state: 'failed',
        failure: { reason: failureReason(code, message), message: message ?? 'Generation failed on platform B', code: code === undefined ? undefined : String(code) },
      };
    }
    case 'CANCELLED':
      return { state: 'failed', failure: { reason: 'upstream_failed', message: 'The job was cancelled on the platform', code: 'CANCELLED' } };
    default:
      throw retryable(`Platform B returned an unknown task status '${String((task as { status: unknown }).status)}'`);
  }
}

/** B error reply (HTTP 4xx/5xx with `{code, message}`) → classified UpstreamError. Pure, for table tests. */
export function classifyBError(res: Pick<HttpResponse, 'status' | 'headers' | 'body'>): UpstreamError {
  const reply = res.body as { code?: number | string; message?: string } | undefined;
  const code = reply?.code === undefined ? `HTTP_${res.status}` : String(reply.code);
  const message = `Platform B: ${reply?.message ?? `HTTP ${res.status}`}`;
  const s = res.status;
  if (s === 408 || s === 429 || s >= 500) {
    return retryable(message, code, { httpStatus: s, retryAfterMs: parseRetryAfter(res.headers['retry-after']) });
  }
  if (s === 401 || s === 403) return final('upstream_auth', message, code, s);
  if (s === 402) return final('insufficient_balance', message, code, s);
  // On a poll, the job is gone (or was never ours): nothing more will come of it.
  if (s === 404) return final('upstream_failed', message, code, s);
  if (isContentPolicy(reply?.code, reply?.message)) return final('content_policy', message, code, s);
  return final('invalid_request', message, code, s);
}

/** What the adapter needs to reach the platform (from platforms/b/config.ts). */
export interface PlatformBSettings {
  baseUrl: string;
  apiKey: string;
}

export function createPlatformB(config: PlatformBSettings, { http }: AdapterDeps): PlatformAdapter {
  const base = config.baseUrl.replace(/\/$/, '');
  const auth = { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json' };

  /** Sends one call and unwraps `data` from the success envelope. */
  async function call(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<unknown> {
    const res = await http.send(method, `${base}${path}`, { headers: { ...auth, ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status >= 200 && res.status < 300) {
      const envelope = res.body as { code?: unknown; data?: unknown } | undefined;
      // A 2xx without the envelope is a proxy or a broken reply, not an answer: retry within the policy's budget.
      if (envelope?.code !== 0 || envelope.data === undefined) throw retryable(`Platform B replied HTTP ${res.status} without a success envelope`, 'MALFORMED_REPLY');
      return envelope.data;
    }
    throw classifyBError(res);
  }

  return {
    async submit(entry, request, { dedupKey }) {
      const [path, body] =
        request.kind === 'video'
          ? ['/v1/video/generations', toBVideoBody(entry, request as BVideoRequest)]
          : ['/v1/image/generations', toBImageBody(entry, request as BImageRequest)];
      // The Idempotency-Key makes a retried submit (timeout, 5xx, 429) return the first job instead of a second one.
      const data = (await call('POST', path, body, { 'idempotency-key': dedupKey })) as { taskId?: unknown };
      if (typeof data?.taskId !== 'string' || data.taskId.length === 0) throw retryable('Platform B accepted the job but returned no taskId', 'MALFORMED_REPLY');
      return { upstreamTaskId: data.taskId };
    },
    async poll(_kind, id) {
      return fromBTask((await call('GET', `/v1/tasks/${encodeURIComponent(id)}`)) as BTask);
    },
    async cancel(_kind, id) {
      // Only a queued job can be cancelled; a final refusal is swallowed by the activities' adapter decorator.
      await call('POST', `/v1/tasks/${encodeURIComponent(id)}/cancel`);
    },
  };
}
