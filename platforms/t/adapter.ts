/**
 * Platform T adapter: the media cloud AIGC API (upstreams.md "Platform T"). The only file that knows platform
 * T's field names. One JSON POST to `/` per action, named by X-TC-Action and signed with TC3-HMAC-SHA256
 * (activities/tc3.ts says why not through the official SDK). Every reply is HTTP 200: the outcome is in
 * `Response.Error`, and a finished task can still have failed (`ErrCode` ≠ 0).
 */
import { createHash } from 'node:crypto';
import type { ModelEntry } from '../../core/catalogue';
import type { FailureReason, GenerationRequest, Kind, UpstreamStatus } from '../../core/task';
import type { HttpResponse } from '../http';
import type { AdapterDeps, PlatformAdapter } from '../platform';
import { final, retryable, UpstreamError } from '../upstream-error';
import type { TImageRequest, TVideoRequest } from './rules';
import { tc3Sign } from './tc3';

export const T_SERVICE = 'vod';
export const T_API_VERSION = '2018-07-17';
export const T_CONTENT_TYPE = 'application/json; charset=utf-8';
/** SessionId is at most 50 characters on platform T. */
export const T_SESSION_ID_MAX = 50;

export type TAction = 'CreateAigcVideoTask' | 'CreateAigcImageTask' | 'DescribeTaskDetail';

export interface TFileInfo {
  Type: 'Url';
  Url: string;
  Category?: 'Image';
  Usage?: 'FirstFrame' | 'LastFrame' | 'Reference';
}

export interface TCall {
  action: TAction;
  body: Record<string, unknown>;
}

/** Image `quality` → OutputConfig.Resolution (upstreams.md); T's own names pass through unchanged. */
const IMAGE_RESOLUTION: Record<string, string> = { standard: '1K', hd: '4K', '1K': '1K', '2K': '2K', '4K': '4K' };

/** A dedup key T accepts: the workflow's key as is (it keeps it within 50), or else a stable digest of it. */
export function toSessionId(dedupKey: string): string {
  if (dedupKey.length <= T_SESSION_ID_MAX) return dedupKey;
  return createHash('sha256').update(dedupKey).digest('hex').slice(0, T_SESSION_ID_MAX);
}

/** Drops undefined values so the body carries only what was asked for. */
function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Merges the mapped general fields under the client's explicit output_config, which wins key by key. */
function outputConfig(general: Record<string, unknown>, explicit: object | undefined): Record<string, unknown> | undefined {
  const merged = { ...defined(general), ...defined((explicit ?? {}) as Record<string, unknown>) };
  return Object.keys(merged).length > 0 ? merged : undefined;
}

function modelIds(entry: ModelEntry): { ModelName: string; ModelVersion: string } {
  const { modelName, modelVersion } = entry.upstream;
  if (!modelName || !modelVersion) throw final('invalid_request', `Model ${entry.id} has no platform T ModelName/ModelVersion configured`);
  return { ModelName: modelName, ModelVersion: modelVersion };
}

function videoBody(entry: ModelEntry, req: TVideoRequest): Record<string, unknown> {
  const fileInfos: TFileInfo[] = [];
  if (req.image_url !== undefined) fileInfos.push({ Type: 'Url', Url: req.image_url, Category: 'Image', Usage: 'FirstFrame' });
  fileInfos.push(...(req.file_infos ?? []));
  return defined({
    ...modelIds(entry),
    Prompt: req.prompt,
    NegativePrompt: req.negative_prompt,
    EnhancePrompt: req.enhance_prompt,
    FileInfos: fileInfos.length > 0 ? fileInfos : undefined,
    LastFrameUrl: req.last_frame_url,
    OutputConfig: outputConfig(
      {
        Duration: req.duration,
        Resolution: req.resolution,
        AspectRatio: req.ratio,
        AudioGeneration: req.generate_audio === undefined ? undefined : req.generate_audio ? 'Enabled' : 'Disabled',
      },
      req.output_config,
    ),
  });
}

function imageBody(entry: ModelEntry, req: TImageRequest): Record<string, unknown> {
  let resolution: string | undefined;
  if (req.quality !== undefined) {
    resolution = IMAGE_RESOLUTION[req.quality];
    if (!resolution) throw final('invalid_request', `quality '${req.quality}' has no platform T resolution`);
  }
  return defined({
    ...modelIds(entry),
    Prompt: req.prompt,
    NegativePrompt: req.negative_prompt,
    EnhancePrompt: req.enhance_prompt,
    FileInfos: req.file_infos,
    // `ratio` is what validation derived from `size` (spec 2.2).
    OutputConfig: outputConfig({ AspectRatio: req.ratio, Resolution: resolution }, req.output_config),
  });
}

/** Validated spec request → T action and body (upstreams.md "Spec → T mapping"). Pure, for golden tests. */
export function toTCreateCall(entry: ModelEntry, request: GenerationRequest, opts: { sessionId: string; subAppId?: number }): TCall {
  const body = request.kind === 'video' ? videoBody(entry, request as TVideoRequest) : imageBody(entry, request as TImageRequest);
  return {
    action: request.kind === 'video' ? 'CreateAigcVideoTask' : 'CreateAigcImageTask',
    body: { ...defined({ SubAppId: opts.subAppId }), ...body, SessionId: toSessionId(opts.sessionId) },
  };
}

export function toTDescribeCall(taskId: string, subAppId?: number): TCall {
  return { action: 'DescribeTaskDetail', body: defined({ TaskId: taskId, SubAppId: subAppId }) };
}

// ------------------------------------------------------------------------------------------ task status

export interface TAigcTask {
  TaskId?: string;
  Status?: string;
  ErrCode?: number;
  ErrCodeExt?: string;
  Message?: string;
  Progress?: number;
  Output?: { FileInfos?: { FileUrl?: string; ExpireTime?: string }[] };
}

/** The `Response` of DescribeTaskDetail, the fields this adapter reads. */
export interface TTaskDetail {
  Status?: string;
  AigcVideoTask?: TAigcTask | null;
  AigcImageTask?: TAigcTask | null;
}

/** Task failure codes that mean the content was refused: final, and the client's problem. `Voilation` is T's spelling. */
const CONTENT_POLICY = /ContentModerationFailed|V(?:oi|io)lationContent/i;

function clampProgress(p: unknown): number | undefined {
  return typeof p === 'number' && Number.isFinite(p) ? Math.min(100, Math.max(0, Math.round(p))) : undefined;
}

/** DescribeTaskDetail → normalised status (upstreams.md). Pure, for table tests. */
export function fromTTaskDetail(kind: Kind, detail: TTaskDetail): UpstreamStatus {
  const task = (kind === 'video' ? detail.AigcVideoTask : detail.AigcImageTask) ?? undefined;
  const progress = clampProgress(task?.Progress);
  switch (detail.Status) {
    case 'WAITING':
      return { state: 'pending' };
    case 'PROCESSING':
      return progress === undefined ? { state: 'running' } : { state: 'running', progress };
    case 'FINISH': {
      if (!task) throw retryable(`Platform T finished the task but sent no ${kind === 'video' ? 'AigcVideoTask' : 'AigcImageTask'}`);
      // FINISH only says the task stopped: ErrCode says whether it succeeded.
      if (task.ErrCode !== undefined && task.ErrCode !== 0) {
        const code = task.ErrCodeExt || String(task.ErrCode);
        const reason: FailureReason = CONTENT_POLICY.test(code) ? 'content_policy' : 'upstream_failed';
        return { state: 'failed', failure: { reason, message: task.Message || `Generation failed (${code})`, code } };
      }
      const urls = (task.Output?.FileInfos ?? []).map((f) => f.FileUrl).filter((u): u is string => typeof u === 'string' && u.length > 0);
      if (urls.length === 0) {
        return { state: 'failed', failure: { reason: 'upstream_failed', message: 'The platform finished the task without any output file', code: 'NoOutput' } };
      }
      return { state: 'success', progress: 100, outputs: urls.map((url) => ({ url })) };
    }
    case 'ABORTED':
      return {
        state: 'failed',
        failure: { reason: 'upstream_failed', message: task?.Message || 'The task was aborted on the platform', code: task?.ErrCodeExt || 'ABORTED' },
      };
    default:
      throw retryable(`Platform T returned an unknown task status '${String(detail.Status)}'`);
  }
}

// ------------------------------------------------------------------------------------------ errors

/** `Response.Error` → classified UpstreamError (upstreams.md "Error codes"). Pure, for table tests. */
export function classifyTError(code: string, message: string): UpstreamError {
  const text = `Platform T: ${message || code}`;
  if (/^(RequestLimitExceeded|InternalError)/.test(code)) return retryable(text, code);
  // Balance first: it can come as an UnauthorizedOperation or FailedOperation sub-code.
  if (/Balance|Arrears|Overdue/i.test(code)) return final('insufficient_balance', text, code);
  if (/^(AuthFailure|UnauthorizedOperation)/.test(code)) return final('upstream_auth', text, code);
  if (CONTENT_POLICY.test(code)) return final('content_policy', text, code);
  if (/^(InvalidParameter|MissingParameter|UnknownParameter)/.test(code)) return final('invalid_request', text, code);
  return final('upstream_failed', text, code);
}

/** Any T reply → the `Response` object, or the error to throw. Pure, for table tests. */
export function readTResponse(res: Pick<HttpResponse, 'status' | 'body'>): Record<string, unknown> | UpstreamError {
  if (res.status !== 200) {
    // T itself always answers 200; anything else came from a proxy or load balancer in between.
    const s = res.status;
    const text = `Platform T: HTTP ${s}`;
    return s === 408 || s === 429 || s >= 500 ? retryable(text, `HTTP_${s}`, { httpStatus: s }) : final('upstream_failed', text, `HTTP_${s}`, s);
  }
  const response = (res.body as { Response?: unknown } | undefined)?.Response;
  if (typeof response !== 'object' || response === null) return retryable('Platform T sent a reply without a Response object', 'MalformedResponse');
  const error = (response as { Error?: { Code?: unknown; Message?: unknown } }).Error;
  if (error) return classifyTError(String(error.Code ?? 'UnknownError'), String(error.Message ?? ''));
  return response as Record<string, unknown>;
}

// ------------------------------------------------------------------------------------------ adapter

/** What the adapter needs to reach the platform (from platforms/t/config.ts). */
export interface PlatformTSettings {
  endpoint: string;
  secretId: string;
  secretKey: string;
  subAppId?: number;
  region?: string;
}

export function createPlatformT(config: PlatformTSettings, { http, now: nowMs = Date.now }: AdapterDeps): PlatformAdapter {
  // T serves every action at the root of its endpoint; the signed Host is exactly the one undici sends.
  const endpoint = new URL(config.endpoint);
  const url = `${endpoint.origin}/`;

  async function call({ action, body }: TCall): Promise<Record<string, unknown>> {
    const payload = JSON.stringify(body);
    const timestamp = Math.floor(nowMs() / 1000);
    const { authorization } = tc3Sign({
      secretId: config.secretId,
      secretKey: config.secretKey,
      service: T_SERVICE,
      timestamp,
      headers: { 'content-type': T_CONTENT_TYPE, host: endpoint.host },
      payload,
    });
    const headers: Record<string, string> = {
      authorization,
      'content-type': T_CONTENT_TYPE,
      'x-tc-action': action,
      'x-tc-version': T_API_VERSION,
      'x-tc-timestamp': String(timestamp),
    };
    if (config.region) headers['x-tc-region'] = config.region;

    const result = readTResponse(await http.send('POST', url, { headers, body: payload }));
    if (result instanceof UpstreamError) throw result;
    return result;
  }

  return {
    async submit(entry, request, { dedupKey }) {
      // SessionId makes the submit idempotent upstream: a retry after a lost reply returns the same TaskId
      // instead of creating (and billing) a second job.
      const res = await call(toTCreateCall(entry, request, { sessionId: dedupKey, subAppId: config.subAppId }));
      if (typeof res.TaskId !== 'string' || res.TaskId.length === 0) throw retryable('Platform T accepted the job but returned no TaskId');
      return { upstreamTaskId: res.TaskId };
    },
    async poll(kind, taskId) {
      return fromTTaskDetail(kind, (await call(toTDescribeCall(taskId, config.subAppId))) as TTaskDetail);
    },
    // No cancel: platform T has no action to cancel an AIGC task (upstreams.md lists none); the job runs to its
    // end upstream and the gateway simply stops polling it.
  };
}
