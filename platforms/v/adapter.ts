/**
 * Platform V adapter: the content-generation task API (upstreams.md, "Platform V"). The only file that knows
 * platform V's field names.
 */
import type { ModelEntry } from '../../core/catalogue';
import type { FailureReason, UpstreamStatus } from '../../core/task';
import type { HttpResponse } from '../http';
import type { AdapterDeps, PlatformAdapter } from '../platform';
import { final, parseRetryAfter, retryable, UpstreamError } from '../upstream-error';
import type { VVideoRequest } from './rules';

type VContentItem =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string }; role: string }
  | { type: 'video_url'; video_url: { url: string }; role: 'reference_video' }
  | { type: 'audio_url'; audio_url: { url: string }; role: 'reference_audio' };

/** Spec 2.1 → V create body (upstreams.md "Spec → V mapping"). Pure, for golden tests. */
export function toVCreateBody(entry: ModelEntry, req: VVideoRequest): Record<string, unknown> {
  const content: VContentItem[] = [];
  if (req.prompt) content.push({ type: 'text', text: req.prompt });
  if (req.image_url) content.push({ type: 'image_url', image_url: { url: req.image_url }, role: req.image_role ?? 'first_frame' });
  if (req.last_frame_url) content.push({ type: 'image_url', image_url: { url: req.last_frame_url }, role: 'last_frame' });
  for (const i of req.images ?? []) content.push({ type: 'image_url', image_url: { url: i.url }, role: i.role });
  if (req.video_url) content.push({ type: 'video_url', video_url: { url: req.video_url }, role: 'reference_video' });
  for (const v of req.videos ?? []) content.push({ type: 'video_url', video_url: { url: v.url }, role: 'reference_video' });
  if (req.audio_url) content.push({ type: 'audio_url', audio_url: { url: req.audio_url }, role: 'reference_audio' });

  const body: Record<string, unknown> = { model: entry.upstream.model, content };
  if (req.ratio !== undefined) body.ratio = req.ratio;
  if (req.duration !== undefined) body.duration = req.duration;
  if (req.resolution !== undefined) body.resolution = req.resolution.toLowerCase();
  if (req.generate_audio !== undefined) body.generate_audio = req.generate_audio;
  if (req.watermark !== undefined) body.watermark = req.watermark;
  if (req.return_last_frame !== undefined) body.return_last_frame = req.return_last_frame;
  if (req.service_tier === 'draft') body.draft = true;
  return body;
}

/** Failed-task codes that mean the content was refused: final, and the client's problem. */
const CONTENT_POLICY = /SensitiveContent|ContentSecurity|RiskDetection/i;

function failureReason(code: string | undefined): FailureReason {
  if (!code) return 'upstream_failed';
  if (CONTENT_POLICY.test(code)) return 'content_policy';
  if (/^(InvalidParameter|MissingParameter)/.test(code)) return 'invalid_request';
  return 'upstream_failed';
}

interface VTask {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  content?: { video_url?: string; last_frame_url?: string };
  usage?: { completion_tokens?: number; total_tokens?: number };
  error?: { code?: string; message?: string } | null;
  duration?: number;
  ratio?: string;
}

/** V task → normalised status (upstreams.md "Get"). Pure, for table tests. */
export function fromVTask(task: VTask): UpstreamStatus {
  switch (task.status) {
    case 'queued':
      return { state: 'pending' };
    case 'running':
      return { state: 'running' };
    case 'succeeded': {
      const url = task.content?.video_url;
      const extras: Record<string, unknown> = { video_url: url, duration: task.duration, ratio: task.ratio, usage: task.usage };
      if (task.content?.last_frame_url) extras.last_frame_url = task.content.last_frame_url;
      return { state: 'success', outputs: url ? [{ url }] : [], extras };
    }
    case 'failed': {
      const code = task.error?.code;
      return { state: 'failed', failure: { reason: failureReason(code), message: task.error?.message ?? 'Generation failed', code } };
    }
    case 'cancelled':
      return { state: 'failed', failure: { reason: 'upstream_failed', message: 'The job was cancelled on the platform', code: 'cancelled' } };
    default:
      throw retryable(`Platform V returned an unknown task status '${String((task as { status: unknown }).status)}'`);
  }
}

/** V error reply → classified UpstreamError (upstreams.md "Errors"). Pure, for table tests. */
export function classifyVError(res: Pick<HttpResponse, 'status' | 'headers' | 'body'>): UpstreamError {
  const err = (res.body as { error?: { code?: string; message?: string } } | undefined)?.error;
  const code = err?.code ?? `HTTP_${res.status}`;
  const message = `Platform V: ${err?.message ?? `HTTP ${res.status}`}`;
  const s = res.status;
  if (s === 408 || s === 409 || s === 429 || s >= 500) {
    return retryable(message, code, { httpStatus: s, retryAfterMs: parseRetryAfter(res.headers['retry-after']) });
  }
  if (s === 401) return final('upstream_auth', message, code, s);
  if (s === 403) return final(/Overdue|Balance/i.test(code) ? 'insufficient_balance' : 'upstream_auth', message, code, s);
  if (CONTENT_POLICY.test(code)) return final('content_policy', message, code, s);
  if (s === 404 && /Model/i.test(code)) return final('upstream_auth', message, code, s);
  return final('invalid_request', message, code, s);
}

/** What the adapter needs to reach the platform (from platforms/v/config.ts). */
export interface PlatformVSettings {
  baseUrl: string;
  apiKey: string;
}

export function createPlatformV(config: PlatformVSettings, { http }: AdapterDeps): PlatformAdapter {
  const base = config.baseUrl.replace(/\/$/, '');
  const headers = { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json' };

  async function call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
    const res = await http.send(method, `${base}${path}`, { headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status >= 200 && res.status < 300) return res.body;
    throw classifyVError(res);
  }

  return {
    async submit(entry, generation) {
      if (generation.kind !== 'video') throw final('invalid_request', 'Platform V only generates video');
      const request = generation as VVideoRequest;
      // Platform V has no dedup key: the submit activity's retries are the only window for a duplicate, and
      // they happen only after errors (5xx/429/network) that normally mean no job was created.
      const body = (await call('POST', '/contents/generations/tasks', toVCreateBody(entry, request))) as { id?: string };
      if (!body?.id) throw retryable('Platform V accepted the job but returned no id');
      return { upstreamTaskId: body.id };
    },
    async poll(_kind, id) {
      const task = (await call('GET', `/contents/generations/tasks/${encodeURIComponent(id)}`)) as VTask;
      return fromVTask(task);
    },
    async cancel(_kind, id) {
      // Only a queued task can be cancelled; a running one finishes (a final refusal is swallowed by the
      // activities' adapter decorator, for every platform).
      await call('DELETE', `/contents/generations/tasks/${encodeURIComponent(id)}`);
    },
  };
}
