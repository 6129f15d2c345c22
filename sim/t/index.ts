/**
 * Platform T's media cloud AIGC API, simulated (upstreams.md "Platform T"): `POST /` routed by X-TC-Action, a
 * TC3-HMAC-SHA256 signature verified for real, strict body validation, SessionId dedup, and tasks that move
 * WAITING → PROCESSING (with Progress) → FINISH. Like the real platform it always answers HTTP 200: the outcome
 * is `Response.Error` or the action's result, and a failed task reads FINISH with a non-zero ErrCode.
 */
import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { defaultCatalogue, describeDurations, durationAllowed, type ModelEntry } from '../../core/catalogue';
import type { Kind } from '../../core/platforms';
import { parseTc3Authorization, signaturesEqual, tc3Date, tc3Sign } from '../../activities/tc3';
import { parseDirectives } from '../directives';
import { resultUrls, type SimJob } from '../jobs';
import { SIM_ACCOUNTS } from '../accounts';
import type { FaultRenderer, SimHost, SimOp, SimPlatformModule } from '../host';

const API_VERSION = '2018-07-17';
const SERVICE = 'vod';
/** T rejects a request whose X-TC-Timestamp is more than five minutes from its clock. */
const MAX_CLOCK_SKEW_S = 300;
const SESSION_ID_MAX = 50;
const MAX_FILE_INFOS = 10;
/** Temporary storage keeps result files about 7 days. */
const FILE_TTL_MS = 7 * 24 * 3600 * 1000;

const ACTIONS: Record<string, { op: SimOp; kind?: Kind }> = {
  CreateAigcVideoTask: { op: 'submit', kind: 'video' },
  CreateAigcImageTask: { op: 'submit', kind: 'image' },
  DescribeTaskDetail: { op: 'poll' },
};

const VIDEO_FIELDS = new Set(['SubAppId', 'ModelName', 'ModelVersion', 'Prompt', 'NegativePrompt', 'EnhancePrompt', 'FileInfos', 'LastFrameUrl', 'OutputConfig', 'SessionId']);
const IMAGE_FIELDS = new Set(['SubAppId', 'ModelName', 'ModelVersion', 'Prompt', 'NegativePrompt', 'EnhancePrompt', 'FileInfos', 'OutputConfig', 'SessionId']);
const DESCRIBE_FIELDS = new Set(['TaskId', 'SubAppId']);
const VIDEO_OUTPUT = new Set(['Duration', 'Resolution', 'AspectRatio', 'AudioGeneration', 'StorageMode']);
const IMAGE_OUTPUT = new Set(['Resolution', 'AspectRatio', 'StorageMode']);
const IMAGE_RESOLUTIONS = ['1K', '2K', '4K'];
const FILE_INFO_FIELDS = new Set(['Type', 'Url', 'Category', 'Usage']);
const USAGES = ['FirstFrame', 'LastFrame', 'Reference'];

/** T's models by kind and `ModelName/ModelVersion`, from the same catalogue data the gateway uses. */
const MODELS = new Map<string, ModelEntry>(
  defaultCatalogue.entries.filter((e) => e.platform === 'T').map((e) => [`${e.kind}:${e.upstream.modelName}/${e.upstream.modelVersion}`, e]),
);

class TError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function sendError(ctx: Context, code: string, message: string): void {
  ctx.status = 200;
  ctx.body = { Response: { Error: { Code: code, Message: message }, RequestId: randomUUID() } };
}

function send(ctx: Context, result: Record<string, unknown>): void {
  ctx.status = 200;
  ctx.body = { Response: { ...result, RequestId: randomUUID() } };
}

/** Injected faults look like T's own: still HTTP 200, with a rate-limit or internal error code. */
export const renderTFault: FaultRenderer = (ctx, status) => {
  if (status === 429) sendError(ctx, 'RequestLimitExceeded', 'Your request frequency has exceeded the limit, please retry later.');
  else sendError(ctx, 'InternalError', 'An internal error has occurred. Retry your request later.');
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isUrl = (v: unknown): v is string => typeof v === 'string' && /^https?:\/\/[^\s/]+/.test(v);

function rejectUnknown(body: Record<string, unknown>, allowed: Set<string>, where = ''): void {
  for (const k of Object.keys(body)) {
    if (!allowed.has(k)) throw new TError('InvalidParameter', `The parameter \`${where}${k}\` is not recognized.`);
  }
}

/**
 * Verifies TC3-HMAC-SHA256 as platform T does: the credential must name our SecretId, today's scope for `vod`,
 * and sign at least content-type and host; the signature is recomputed from the headers and body as received.
 */
export function verifyTSignature(ctx: Context, creds: { secretId: string; secretKey: string }, nowMs = Date.now()): void {
  const auth = parseTc3Authorization(ctx.get('Authorization'));
  if (!auth) throw new TError('AuthFailure.InvalidAuthorization', 'The Authorization header is missing or malformed: expected TC3-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=….');
  const timestamp = Number(ctx.get('X-TC-Timestamp'));
  if (!Number.isInteger(timestamp) || timestamp <= 0) throw new TError('MissingParameter', 'The request is missing a valid X-TC-Timestamp header.');
  if (Math.abs(nowMs / 1000 - timestamp) > MAX_CLOCK_SKEW_S) {
    throw new TError('AuthFailure.SignatureExpire', 'Signature expired: the timestamp differs from the server time by more than 5 minutes.');
  }
  if (auth.secretId !== creds.secretId) throw new TError('AuthFailure.SecretIdNotFound', 'The SecretId is not found, please ensure that your SecretId is correct.');
  if (auth.service !== SERVICE || auth.date !== tc3Date(timestamp)) {
    throw new TError('AuthFailure.InvalidAuthorization', `The credential scope must be ${tc3Date(timestamp)}/${SERVICE}/tc3_request.`);
  }
  if (!auth.signedHeaders.includes('content-type') || !auth.signedHeaders.includes('host')) {
    throw new TError('AuthFailure.InvalidAuthorization', 'SignedHeaders must include content-type and host.');
  }
  const headers = Object.fromEntries(auth.signedHeaders.map((h) => [h, ctx.get(h)]));
  const expected = tc3Sign({
    secretId: creds.secretId,
    secretKey: creds.secretKey,
    service: SERVICE,
    timestamp,
    headers,
    payload: (ctx.request as { rawBody?: string }).rawBody ?? '',
    method: ctx.method,
    path: ctx.path,
    query: ctx.querystring,
  });
  if (!signaturesEqual(expected.signature, auth.signature)) {
    throw new TError('AuthFailure.SignatureFailure', 'The provided credentials could not be validated. Please check your signature is correct.');
  }
}

function checkFileInfos(value: unknown, entry: ModelEntry): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_FILE_INFOS) {
    throw new TError('InvalidParameter', `FileInfos must be an array of 1 to ${MAX_FILE_INFOS} items.`);
  }
  return value.map((item, i) => {
    const p = `FileInfos[${i}]`;
    if (!isObject(item)) throw new TError('InvalidParameter', `${p} must be an object.`);
    rejectUnknown(item, FILE_INFO_FIELDS, `${p}.`);
    if (item.Type !== 'Url') throw new TError('InvalidParameterValue', `${p}.Type must be Url.`);
    if (!isUrl(item.Url)) throw new TError('InvalidParameterValue', `${p}.Url must be an http(s) URL.`);
    if (item.Category !== undefined && item.Category !== 'Image') throw new TError('InvalidParameterValue', `${p}.Category must be Image.`);
    if (item.Usage !== undefined && !USAGES.includes(item.Usage as string)) {
      throw new TError('InvalidParameterValue', `${p}.Usage must be one of ${USAGES.join(', ')}.`);
    }
    if (!entry.capabilities.includes(entry.kind === 'video' ? 'image_to_video' : 'image_to_image')) {
      throw new TError('InvalidParameterValue', `${entry.upstream.modelName} ${entry.upstream.modelVersion} does not accept input images.`);
    }
    return (item.Usage as string | undefined) ?? (entry.kind === 'video' ? 'FirstFrame' : 'Reference');
  });
}

function checkCommon(body: Record<string, unknown>, kind: Kind): ModelEntry {
  if (body.ModelName === undefined) throw new TError('MissingParameter', 'The request is missing a required parameter `ModelName`.');
  if (body.ModelVersion === undefined) throw new TError('MissingParameter', 'The request is missing a required parameter `ModelVersion`.');
  const entry = MODELS.get(`${kind}:${String(body.ModelName)}/${String(body.ModelVersion)}`);
  if (!entry) throw new TError('InvalidParameterValue.ModelName', `Unsupported ${kind} model: ModelName ${String(body.ModelName)}, ModelVersion ${String(body.ModelVersion)}.`);
  if (body.SubAppId !== undefined && !(Number.isInteger(body.SubAppId) && (body.SubAppId as number) > 0)) {
    throw new TError('InvalidParameterValue.SubAppId', 'SubAppId must be a positive integer.');
  }
  for (const f of ['Prompt', 'NegativePrompt'] as const) {
    if (body[f] !== undefined && (typeof body[f] !== 'string' || body[f].length === 0)) throw new TError('InvalidParameterValue', `${f} must be a non-empty string.`);
  }
  if (body.EnhancePrompt !== undefined && body.EnhancePrompt !== 'Enabled' && body.EnhancePrompt !== 'Disabled') {
    throw new TError('InvalidParameterValue', 'EnhancePrompt must be Enabled or Disabled.');
  }
  if (body.SessionId !== undefined && (typeof body.SessionId !== 'string' || body.SessionId.length === 0 || body.SessionId.length > SESSION_ID_MAX)) {
    throw new TError('InvalidParameterValue.SessionId', `SessionId must be a string of 1 to ${SESSION_ID_MAX} characters.`);
  }
  return entry;
}

function checkOutputConfig(value: unknown, allowed: Set<string>): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isObject(value)) throw new TError('InvalidParameter', 'OutputConfig must be an object.');
  rejectUnknown(value, allowed, 'OutputConfig.');
  if (value.StorageMode !== undefined && value.StorageMode !== 'Temporary' && value.StorageMode !== 'Permanent') {
    throw new TError('InvalidParameterValue', 'OutputConfig.StorageMode must be Temporary or Permanent.');
  }
  return value;
}

/** Validates a CreateAigcVideoTask body the way platform T does; throws TError. */
export function validateTVideo(body: unknown): ModelEntry {
  if (!isObject(body)) throw new TError('InvalidParameter', 'The request body must be a JSON object.');
  rejectUnknown(body, VIDEO_FIELDS);
  const entry = checkCommon(body, 'video');
  const name = `${entry.upstream.modelName} ${entry.upstream.modelVersion}`;

  const usages = body.FileInfos === undefined ? [] : checkFileInfos(body.FileInfos, entry);
  if (body.LastFrameUrl !== undefined) {
    if (!isUrl(body.LastFrameUrl)) throw new TError('InvalidParameterValue', 'LastFrameUrl must be an http(s) URL.');
    usages.push('LastFrame');
  }
  if (usages.length === 0 && body.Prompt === undefined) throw new TError('MissingParameter', 'Prompt is required when no FileInfos are given.');
  const first = usages.filter((u) => u === 'FirstFrame').length;
  const last = usages.filter((u) => u === 'LastFrame').length;
  const refs = usages.filter((u) => u === 'Reference').length;
  if (first > 1 || last > 1) throw new TError('InvalidParameterValue', 'At most one first frame and one last frame are allowed.');
  if (last > 0 && first === 0) throw new TError('InvalidParameterValue', 'A last frame requires a first frame.');
  if (last > 0 && !entry.capabilities.includes('first_last_frame')) throw new TError('InvalidParameterValue', `${name} does not support a last frame.`);
  if (refs > 0 && !entry.capabilities.includes('reference_images')) throw new TError('InvalidParameterValue', `${name} does not support reference images.`);
  if (refs > 0 && first + last > 0) throw new TError('InvalidParameterValue', 'Reference images cannot be combined with first or last frames.');

  const oc = checkOutputConfig(body.OutputConfig, VIDEO_OUTPUT);
  if (oc.Duration !== undefined && (typeof oc.Duration !== 'number' || !durationAllowed(entry.durations!, oc.Duration))) {
    throw new TError('InvalidParameterValue', `OutputConfig.Duration must be ${describeDurations(entry.durations!)} for ${name}.`);
  }
  if (oc.Resolution !== undefined && !(entry.resolutions ?? []).includes(oc.Resolution as string)) {
    throw new TError('InvalidParameterValue', `OutputConfig.Resolution must be one of ${(entry.resolutions ?? []).join(', ')} for ${name}.`);
  }
  if (oc.AspectRatio !== undefined && !entry.ratios.includes(oc.AspectRatio as string)) {
    throw new TError('InvalidParameterValue', `OutputConfig.AspectRatio must be one of ${entry.ratios.join(', ')}.`);
  }
  if (oc.AudioGeneration !== undefined && oc.AudioGeneration !== 'Enabled' && oc.AudioGeneration !== 'Disabled') {
    throw new TError('InvalidParameterValue', 'OutputConfig.AudioGeneration must be Enabled or Disabled.');
  }
  if (oc.AudioGeneration === 'Enabled' && !entry.capabilities.includes('sound')) throw new TError('InvalidParameterValue', `${name} does not support audio generation.`);
  return entry;
}

/** Validates a CreateAigcImageTask body the way platform T does; throws TError. */
export function validateTImage(body: unknown): ModelEntry {
  if (!isObject(body)) throw new TError('InvalidParameter', 'The request body must be a JSON object.');
  rejectUnknown(body, IMAGE_FIELDS);
  const entry = checkCommon(body, 'image');
  if (body.Prompt === undefined) throw new TError('MissingParameter', 'The request is missing a required parameter `Prompt`.');
  if (body.FileInfos !== undefined) checkFileInfos(body.FileInfos, entry);
  const oc = checkOutputConfig(body.OutputConfig, IMAGE_OUTPUT);
  if (oc.Resolution !== undefined && !IMAGE_RESOLUTIONS.includes(oc.Resolution as string)) {
    throw new TError('InvalidParameterValue', `OutputConfig.Resolution must be one of ${IMAGE_RESOLUTIONS.join(', ')}.`);
  }
  if (oc.AspectRatio !== undefined && !entry.ratios.includes(oc.AspectRatio as string)) {
    throw new TError('InvalidParameterValue', `OutputConfig.AspectRatio must be one of ${entry.ratios.join(', ')}.`);
  }
  return entry;
}

const TASK_STATUS = { queued: 'WAITING', running: 'PROCESSING', succeeded: 'FINISH', failed: 'FINISH', cancelled: 'ABORTED' } as const;

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function taskDetail(host: SimHost, ctx: Context, job: SimJob): Record<string, unknown> {
  const { state, progress } = host.jobs.view(job);
  const status = TASK_STATUS[state];
  const taskType = job.kind === 'video' ? 'AigcVideoTask' : 'AigcImageTask';
  const task: Record<string, unknown> = {
    TaskId: job.id,
    Status: status,
    ErrCode: 0,
    ErrCodeExt: '',
    Message: '',
    Progress: progress,
    Input: job.meta.input,
    Output: { FileInfos: [] },
    SessionId: job.meta.sessionId ?? '',
  };
  if (state === 'succeeded') {
    const expireTime = iso(job.createdAt + job.durationMs + FILE_TTL_MS);
    task.Output = { FileInfos: resultUrls(host.publicUrl(ctx), job).map((FileUrl) => ({ FileUrl, StorageMode: 'Temporary', ExpireTime: expireTime })) };
  }
  if (state === 'failed') {
    Object.assign(
      task,
      job.directives.fail === 'content_policy'
        ? { ErrCode: 40000, ErrCodeExt: 'ContentModerationFailed', Message: 'Content moderation failed: the input or the generated media may contain sensitive content.' }
        : { ErrCode: 70000, ErrCodeExt: 'ModelGenerateFailed', Message: 'The model failed to generate the media.' },
    );
  }
  return {
    TaskType: taskType,
    Status: status,
    CreateTime: iso(job.createdAt),
    BeginProcessTime: state === 'queued' ? '' : iso(job.createdAt + job.durationMs / 4),
    FinishTime: status === 'FINISH' ? iso(job.createdAt + job.durationMs) : '',
    [taskType]: task,
  };
}

export function registerPlatformT(router: Router, host: SimHost): void {
  const stats = host.stats.T;

  /** What every action checks first, after faults (an overloaded front door answers before it authenticates). */
  function checkEnvelope(ctx: Context): void {
    if (ctx.get('X-TC-Version') !== API_VERSION) throw new TError('NoSuchVersion', `The API version \`${ctx.get('X-TC-Version')}\` does not exist; use ${API_VERSION}.`);
    if (!ctx.is('application/json')) throw new TError('InvalidParameter', 'The Content-Type must be application/json.');
    verifyTSignature(ctx, SIM_ACCOUNTS.T);
  }

  function create(ctx: Context, kind: Kind): void {
    const body = ctx.request.body as Record<string, unknown> | undefined;
    const prompt = typeof body?.Prompt === 'string' ? body.Prompt : undefined;
    const directives = parseDirectives(prompt);
    stats.submitRequests++;
    if (host.intercept(ctx, 'T', 'submit', renderTFault, host.promptFault(`T-submit:${prompt ?? ''}`, directives.submitFault))) return;
    checkEnvelope(ctx);
    const entry = kind === 'video' ? validateTVideo(body) : validateTImage(body);
    const sessionId = body!.SessionId as string | undefined;
    const existing = sessionId === undefined ? undefined : host.jobs.byDedupKey('T', sessionId, 3 * 24 * 3600_000);
    if (existing) {
      // Same SessionId within the dedup window: the first task, not a second (billed) one.
      stats.dedupRefusals++;
      send(ctx, { TaskId: existing.id });
      return;
    }
    const job = host.jobs.create(
      {
        platform: 'T',
        kind,
        model: `${entry.upstream.modelName}/${entry.upstream.modelVersion}`,
        directives,
        // T returns one file per AIGC task (there is no count parameter).
        outputs: 1,
        dedupKey: sessionId,
        meta: { sessionId, input: { ModelName: body!.ModelName, ModelVersion: body!.ModelVersion, Prompt: prompt ?? '' } },
      },
      kind === 'video' ? 'AigcVideoTask-' : 'AigcImageTask-',
    );
    stats.jobsCreated++;
    send(ctx, { TaskId: job.id });
  }

  function describe(ctx: Context): void {
    const body = ctx.request.body as Record<string, unknown> | undefined;
    const taskId = typeof body?.TaskId === 'string' ? body.TaskId : '';
    stats.polls++;
    const job = host.jobs.get(taskId);
    const fault = job && job.pollFaultsLeft > 0 ? (job.pollFaultsLeft--, job.directives.pollFault) : undefined;
    if (host.intercept(ctx, 'T', 'poll', renderTFault, fault)) return;
    checkEnvelope(ctx);
    if (!isObject(body)) throw new TError('InvalidParameter', 'The request body must be a JSON object.');
    rejectUnknown(body, DESCRIBE_FIELDS);
    if (body.TaskId === undefined) throw new TError('MissingParameter', 'The request is missing a required parameter `TaskId`.');
    if (!job || job.platform !== 'T') throw new TError('ResourceNotFound.TaskNotExist', `The task ${taskId} does not exist.`);
    send(ctx, taskDetail(host, ctx, job));
  }

  router.post('/', (ctx) => {
    const name = ctx.get('X-TC-Action');
    try {
      const action = ACTIONS[name];
      if (!action) throw new TError(name ? 'InvalidAction' : 'MissingParameter', `The action \`${name}\` is not valid for service ${SERVICE}.`);
      if (action.op === 'submit') create(ctx, action.kind!);
      else describe(ctx);
    } catch (err) {
      if (!(err instanceof TError)) throw err;
      stats.rejected++;
      sendError(ctx, err.code, err.message);
    }
  });
}

export const platformT: SimPlatformModule = { platform: 'T', register: registerPlatformT };
