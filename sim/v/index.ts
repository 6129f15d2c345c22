/**
 * Platform V's content-generation task API, simulated (upstreams.md "Platform V"): Bearer key, strict body
 * validation with V's error shape `{"error":{code,message,param,type}}`, exclusive content modes, and tasks that
 * move queued → running → succeeded (no progress figure, as on V).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { defaultCatalogue, durationAllowed, describeDurations, type ModelEntry } from '../../core/catalogue';
import { parseDirectives } from '../directives';
import { resultUrls, type SimJob } from '../jobs';
import { SIM_ACCOUNTS } from '../accounts';
import type { FaultRenderer, SimHost, SimPlatformModule } from '../host';

const TOP_LEVEL = new Set([
  'model', 'content', 'ratio', 'duration', 'resolution', 'generate_audio', 'watermark', 'return_last_frame', 'draft',
  'seed', 'camera_fixed', 'service_tier', 'callback_url',
]);
const RATIOS = new Set(['16:9', '4:3', '1:1', '3:4', '9:16', '21:9', 'adaptive']);
const RESOLUTIONS = new Set(['480p', '720p', '1080p']);
const IMAGE_ROLES = new Set(['first_frame', 'last_frame', 'reference_image']);

/** V's models by upstream id, from the same catalogue data the gateway uses. */
const MODELS = new Map<string, ModelEntry>(
  defaultCatalogue.entries.filter((e) => e.platform === 'V').map((e) => [e.upstream.model!, e]),
);

class VError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

function sendError(ctx: Context, status: number, code: string, message: string, param?: string): void {
  const type = status === 401 ? 'Unauthorized' : status === 429 ? 'TooManyRequests' : status >= 500 ? 'InternalServerError' : 'BadRequest';
  ctx.status = status;
  ctx.body = { error: { code, message, param: param ?? '', type } };
}

export const renderVFault: FaultRenderer = (ctx, status, retryAfter) => {
  if (status === 429) {
    if (retryAfter !== undefined) ctx.set('Retry-After', String(retryAfter));
    sendError(ctx, 429, 'RateLimitExceeded.EndpointRPMExceeded', 'Request rate limit exceeded, please retry later');
  } else if (status === 503) {
    sendError(ctx, 503, 'ServiceUnavailable', 'The service is temporarily unavailable');
  } else {
    sendError(ctx, 500, 'InternalServiceError', 'The service encountered an unexpected internal error');
  }
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Validates a create body the way platform V does; throws VError. Returns the model entry. */
export function validateVCreate(body: unknown): ModelEntry {
  if (!isObject(body)) throw new VError(400, 'InvalidParameter', 'The request body must be a JSON object');
  for (const k of Object.keys(body)) {
    if (!TOP_LEVEL.has(k)) throw new VError(400, 'InvalidParameter', `The parameter \`${k}\` specified in the request is not valid`, k);
  }
  if (typeof body.model !== 'string') throw new VError(400, 'MissingParameter', 'The request failed because it is missing the `model` parameter', 'model');
  const entry = MODELS.get(body.model);
  if (!entry) throw new VError(404, 'InvalidEndpointOrModel.NotFound', `The model or endpoint ${body.model} does not exist or you do not have access to it`, 'model');
  const content = body.content;
  if (!Array.isArray(content) || content.length === 0) throw new VError(400, 'MissingParameter', 'The request failed because it is missing the `content` parameter', 'content');

  const roles: string[] = [];
  let texts = 0;
  let videos = 0;
  let audios = 0;
  content.forEach((item, i) => {
    const p = `content[${i}]`;
    if (!isObject(item)) throw new VError(400, 'InvalidParameter', `${p} must be an object`, p);
    switch (item.type) {
      case 'text':
        if (typeof item.text !== 'string' || item.text.length === 0) throw new VError(400, 'InvalidParameter', `${p}.text must be a non-empty string`, `${p}.text`);
        texts++;
        break;
      case 'image_url': {
        const url = isObject(item.image_url) ? item.image_url.url : undefined;
        if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new VError(400, 'InvalidParameter', `${p}.image_url.url must be a URL`, `${p}.image_url.url`);
        const role = item.role ?? 'first_frame';
        if (typeof role !== 'string' || !IMAGE_ROLES.has(role)) throw new VError(400, 'InvalidParameter', `${p}.role is not valid`, `${p}.role`);
        roles.push(role);
        break;
      }
      case 'video_url':
        if (!isObject(item.video_url) || typeof item.video_url.url !== 'string') throw new VError(400, 'InvalidParameter', `${p}.video_url.url must be a URL`, `${p}.video_url.url`);
        if (item.role !== 'reference_video') throw new VError(400, 'InvalidParameter', `${p}.role must be reference_video`, `${p}.role`);
        videos++;
        break;
      case 'audio_url':
        if (!isObject(item.audio_url) || typeof item.audio_url.url !== 'string') throw new VError(400, 'InvalidParameter', `${p}.audio_url.url must be a URL`, `${p}.audio_url.url`);
        if (item.role !== 'reference_audio') throw new VError(400, 'InvalidParameter', `${p}.role must be reference_audio`, `${p}.role`);
        audios++;
        break;
      default:
        throw new VError(400, 'InvalidParameter', `${p}.type is not valid`, `${p}.type`);
    }
  });
  if (texts > 1) throw new VError(400, 'InvalidParameter', 'At most one text item is allowed', 'content');

  const first = roles.filter((r) => r === 'first_frame').length;
  const last = roles.filter((r) => r === 'last_frame').length;
  const refs = roles.filter((r) => r === 'reference_image').length;
  if (refs > 0 && first + last > 0) throw new VError(400, 'InvalidParameter', 'Reference images cannot be combined with first or last frames', 'content');
  if (first > 1 || last > 1) throw new VError(400, 'InvalidParameter', 'At most one first frame and one last frame are allowed', 'content');
  if (last > 0 && first === 0) throw new VError(400, 'InvalidParameter', 'A last frame requires a first frame', 'content');
  if (last > 0 && !entry.capabilities.includes('first_last_frame')) throw new VError(400, 'InvalidParameter', `${body.model} does not support first and last frame`, 'content');
  if (refs > 0 && !entry.capabilities.includes('reference_images')) throw new VError(400, 'InvalidParameter', `${body.model} does not support reference images`, 'content');
  if (refs > 4) throw new VError(400, 'InvalidParameter', 'At most 4 reference images are allowed', 'content');
  if (videos > 0 && !entry.capabilities.includes('reference_video')) throw new VError(400, 'InvalidParameter', `${body.model} does not support reference videos`, 'content');
  if (audios > 0 && !entry.capabilities.includes('reference_audio')) throw new VError(400, 'InvalidParameter', `${body.model} does not support reference audio`, 'content');
  if (roles.length === 0 && videos === 0 && !entry.capabilities.includes('text_to_video')) throw new VError(400, 'InvalidParameter', `${body.model} requires an input image`, 'content');
  if (roles.length > 0 && !entry.capabilities.includes('image_to_video')) throw new VError(400, 'InvalidParameter', `${body.model} does not accept images`, 'content');

  if (body.duration !== undefined && (typeof body.duration !== 'number' || !durationAllowed(entry.durations!, body.duration))) {
    throw new VError(400, 'InvalidParameter', `duration must be an integer of ${describeDurations(entry.durations!)}`, 'duration');
  }
  if (body.resolution !== undefined && (typeof body.resolution !== 'string' || !RESOLUTIONS.has(body.resolution))) {
    throw new VError(400, 'InvalidParameter', 'resolution must be one of 480p, 720p, 1080p', 'resolution');
  }
  if (body.ratio !== undefined && (typeof body.ratio !== 'string' || !RATIOS.has(body.ratio))) {
    throw new VError(400, 'InvalidParameter', 'ratio is not valid', 'ratio');
  }
  for (const b of ['generate_audio', 'watermark', 'return_last_frame', 'draft', 'camera_fixed']) {
    if (body[b] !== undefined && typeof body[b] !== 'boolean') throw new VError(400, 'InvalidParameter', `${b} must be a boolean`, b);
  }
  if (body.generate_audio === true && !entry.capabilities.includes('sound')) throw new VError(400, 'InvalidParameter', `${body.model} does not support generate_audio`, 'generate_audio');
  if (body.draft === true && !entry.capabilities.includes('draft')) throw new VError(400, 'InvalidParameter', `${body.model} does not support draft`, 'draft');
  if (body.service_tier !== undefined && body.service_tier !== 'default' && body.service_tier !== 'flex') throw new VError(400, 'InvalidParameter', 'service_tier must be default or flex', 'service_tier');
  return entry;
}

function taskView(host: SimHost, ctx: Context, job: SimJob): Record<string, unknown> {
  const { state } = host.jobs.view(job);
  const seconds = Math.floor(job.createdAt / 1000);
  const task: Record<string, unknown> = {
    id: job.id,
    model: job.model,
    status: state,
    error: null,
    created_at: seconds,
    updated_at: Math.floor(Date.now() / 1000),
    seed: 42,
    resolution: job.meta.resolution,
    ratio: job.meta.ratio,
    duration: job.meta.duration,
    framespersecond: 24,
  };
  if (state === 'succeeded') {
    const [url] = resultUrls(host.publicUrl(ctx), job);
    task.content = { video_url: url, ...(job.meta.return_last_frame ? { last_frame_url: url!.replace(/\.mp4$/, '.png') } : {}) };
    const tokens = Number(job.meta.duration) * 10_000;
    task.usage = { completion_tokens: tokens, total_tokens: tokens };
  }
  if (state === 'failed') {
    task.error =
      job.directives.fail === 'content_policy'
        ? { code: 'OutputVideoSensitiveContentDetected', message: 'The generated video may contain sensitive content' }
        : { code: 'InternalServiceError', message: 'The video could not be generated' };
  }
  return task;
}

export function registerPlatformV(router: Router, host: SimHost): void {
  const stats = host.stats;
  const authorised = (ctx: Context) => {
    if (ctx.get('Authorization') === `Bearer ${SIM_ACCOUNTS.V.apiKey}`) return true;
    host.stats.V.rejected++;
    sendError(ctx, 401, 'AuthenticationError', 'The API key in the request is missing or invalid');
    return false;
  };

  router.post('/api/v3/contents/generations/tasks', (ctx) => {
    const body = ctx.request.body as Record<string, unknown> | undefined;
    const text = Array.isArray(body?.content) ? (body!.content as { type?: string; text?: string }[]).find((c) => c?.type === 'text')?.text : undefined;
    const directives = parseDirectives(text);
    const promptKey = `V-submit:${text ?? ''}`;
    stats.V.submitRequests++;
    if (host.intercept(ctx, 'V', 'submit', renderVFault, host.promptFault(promptKey, directives.submitFault))) return;
    if (!authorised(ctx)) return;
    let entry: ModelEntry;
    try {
      entry = validateVCreate(body);
    } catch (err) {
      if (!(err instanceof VError)) throw err;
      stats.V.rejected++;
      sendError(ctx, err.status, err.code, err.message, err.param);
      return;
    }
    const job = host.jobs.create(
      {
        platform: 'V',
        kind: 'video',
        model: entry.upstream.model!,
        directives,
        outputs: 1,
        meta: {
          duration: body!.duration ?? 5,
          ratio: body!.ratio ?? '16:9',
          resolution: body!.resolution ?? '720p',
          return_last_frame: body!.return_last_frame === true,
        },
      },
      'cgt-',
    );
    stats.V.jobsCreated++;
    ctx.body = { id: job.id };
  });

  router.get('/api/v3/contents/generations/tasks/:id', (ctx) => {
    stats.V.polls++;
    const job = host.jobs.get(ctx.params.id ?? '');
    const fault = job && job.pollFaultsLeft > 0 ? (job.pollFaultsLeft--, job.directives.pollFault) : undefined;
    if (host.intercept(ctx, 'V', 'poll', renderVFault, fault)) return;
    if (!authorised(ctx)) return;
    if (!job || job.platform !== 'V') {
      sendError(ctx, 404, 'ResourceNotFound', `The task ${ctx.params.id} does not exist`, 'id');
      return;
    }
    ctx.body = taskView(host, ctx, job);
  });

  router.delete('/api/v3/contents/generations/tasks/:id', (ctx) => {
    stats.V.cancels++;
    if (host.intercept(ctx, 'V', 'cancel', renderVFault)) return;
    if (!authorised(ctx)) return;
    const job = host.jobs.get(ctx.params.id ?? '');
    if (!job || job.platform !== 'V') {
      sendError(ctx, 404, 'ResourceNotFound', `The task ${ctx.params.id} does not exist`, 'id');
      return;
    }
    const { state } = host.jobs.view(job);
    if (state === 'running') {
      sendError(ctx, 400, 'InvalidAction.TaskNotCancellable', 'Only a queued task can be cancelled');
      return;
    }
    host.jobs.cancel(job);
    ctx.body = {};
  });
}


export const platformV: SimPlatformModule = { platform: 'V', register: registerPlatformV };
