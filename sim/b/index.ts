/**
 * Platform B's job API, simulated (upstreams.md "Platform B"): Bearer key, the `{code, message, data}` envelope,
 * strict body validation with B's error shape (HTTP 400 `{code: 400xx, message}`), `Idempotency-Key` dedup, and
 * tasks that move QUEUED → RUNNING (with progress) → SUCCEEDED | FAILED, or CANCELLED while still queued.
 *
 * B's codes, as this simulator and the adapter agree on them (the protocol defines only the HTTP statuses):
 *   40001 invalid value · 40002 missing field · 40003 unknown field · 40004 unknown model
 *   40005 Idempotency-Key reused with a different body · 40006 task not cancellable
 *   40100 bad key · 40400 no such task · 42900 rate limited · 50000 internal · 50300 unavailable
 *   failed tasks: 45101 content moderation · 50010 generation failed
 */
import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { defaultCatalogue, describeDurations, durationAllowed, type ModelEntry } from '../../core/catalogue';
import type { Kind } from '../../core/platforms';
import { parseDirectives } from '../directives';
import { resultUrls, type SimJob, type SimState } from '../jobs';
import { SIM_ACCOUNTS } from '../accounts';
import type { FaultRenderer, SimHost, SimPlatformModule } from '../host';

const VIDEO_FIELDS = new Set(['model', 'action', 'prompt', 'duration', 'resolution', 'image', 'audio', 'bgm']);
const IMAGE_FIELDS = new Set(['model', 'prompt', 'negativePrompt', 'aspectRatio', 'quality', 'n']);
const ACTIONS = new Set(['text_to_video', 'image_to_video']);
const STRING_BOOLS = new Set(['true', 'false']);
const QUALITIES = new Set(['1K', '2K', '4K']);
const ASPECT_RATIO = /^[1-9]\d{0,2}:[1-9]\d{0,2}$/;

/** B's models by model code and kind, from the same catalogue data the gateway uses. */
function modelsOf(kind: Kind): Map<string, ModelEntry> {
  return new Map(defaultCatalogue.entries.filter((e) => e.platform === 'B' && e.kind === kind).map((e) => [e.upstream.model!, e]));
}
const MODELS: Record<Kind, Map<string, ModelEntry>> = { video: modelsOf('video'), image: modelsOf('image') };

const STATUS: Record<SimState, string> = {
  queued: 'QUEUED',
  running: 'RUNNING',
  succeeded: 'SUCCEEDED',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
};

class BError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new BError(400, 40001, message);
const missing = (field: string) => new BError(400, 40002, `${field} is required`);

function sendError(ctx: Context, status: number, code: number, message: string): void {
  ctx.status = status;
  ctx.body = { code, message };
}

function sendData(ctx: Context, data: unknown): void {
  ctx.body = { code: 0, message: 'ok', data };
}

export const renderBFault: FaultRenderer = (ctx, status, retryAfter) => {
  if (status === 429) {
    // B always says when to come back; one second unless the test asked for another figure.
    ctx.set('Retry-After', String(retryAfter ?? 1));
    sendError(ctx, 429, 42900, 'Too many requests, please retry later');
  } else if (status === 503) {
    sendError(ctx, 503, 50300, 'Service temporarily unavailable');
  } else {
    sendError(ctx, 500, 50000, 'Internal server error');
  }
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function isHttpUrl(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

function checkFields(body: unknown, allowed: Set<string>): asserts body is Record<string, unknown> {
  if (!isObject(body)) throw invalid('The request body must be a JSON object');
  for (const k of Object.keys(body)) {
    if (!allowed.has(k)) throw new BError(400, 40003, `Unknown field: ${k}`);
  }
}

function checkModel(body: Record<string, unknown>, kind: Kind): ModelEntry {
  if (body.model === undefined) throw missing('model');
  const entry = typeof body.model === 'string' ? MODELS[kind].get(body.model) : undefined;
  if (!entry) throw new BError(400, 40004, `Unsupported ${kind} model: ${String(body.model)}`);
  return entry;
}

/** Validates a video body the way platform B does; throws BError. */
export function validateBVideo(body: unknown): ModelEntry {
  checkFields(body, VIDEO_FIELDS);
  const entry = checkModel(body, 'video');
  if (body.action === undefined) throw missing('action');
  if (typeof body.action !== 'string' || !ACTIONS.has(body.action)) throw invalid('action must be text_to_video or image_to_video');
  if (body.prompt === undefined) throw missing('prompt');
  if (typeof body.prompt !== 'string') throw invalid('prompt must be a string');

  if (body.action === 'text_to_video') {
    if (body.prompt.trim() === '') throw invalid('prompt must not be empty for text_to_video');
    if (body.image !== undefined) throw invalid('image is not accepted for text_to_video');
  } else {
    if (body.image === undefined) throw missing('image.imageUrl');
    if (!isObject(body.image)) throw invalid('image must be an object {imageUrl}');
    for (const k of Object.keys(body.image)) if (k !== 'imageUrl') throw new BError(400, 40003, `Unknown field: image.${k}`);
    if (body.image.imageUrl === undefined) throw missing('image.imageUrl');
    if (!isHttpUrl(body.image.imageUrl)) throw invalid('image.imageUrl must be an http(s) URL');
  }

  if (body.duration === undefined) throw missing('duration');
  if (typeof body.duration !== 'number' || !durationAllowed(entry.durations!, body.duration)) {
    throw invalid(`duration must be ${describeDurations(entry.durations!)} for ${entry.upstream.model}`);
  }
  const resolutions = entry.resolutions ?? [];
  if (body.resolution !== undefined && (typeof body.resolution !== 'string' || !resolutions.includes(body.resolution))) {
    throw invalid(`resolution must be one of ${resolutions.join(', ')} for ${entry.upstream.model}`);
  }
  for (const f of ['audio', 'bgm'] as const) {
    if (body[f] !== undefined && (typeof body[f] !== 'string' || !STRING_BOOLS.has(body[f]))) throw invalid(`${f} must be the string "true" or "false"`);
  }
  return entry;
}

/** Validates an image body the way platform B does; throws BError. */
export function validateBImage(body: unknown): ModelEntry {
  checkFields(body, IMAGE_FIELDS);
  const entry = checkModel(body, 'image');
  if (body.prompt === undefined) throw missing('prompt');
  if (typeof body.prompt !== 'string' || body.prompt.trim() === '') throw invalid('prompt must be a non-empty string');
  if (body.negativePrompt !== undefined && typeof body.negativePrompt !== 'string') throw invalid('negativePrompt must be a string');
  if (body.aspectRatio !== undefined && (typeof body.aspectRatio !== 'string' || !ASPECT_RATIO.test(body.aspectRatio))) {
    throw invalid('aspectRatio must look like 16:9');
  }
  if (body.quality !== undefined && (typeof body.quality !== 'string' || !QUALITIES.has(body.quality))) throw invalid('quality must be one of 1K, 2K, 4K');
  const max = entry.maxImages ?? 1;
  if (body.n !== undefined && (typeof body.n !== 'number' || !Number.isInteger(body.n) || body.n < 1 || body.n > max)) {
    throw invalid(`n must be an integer from 1 to ${max}`);
  }
  return entry;
}

/** A stable fingerprint of a body, so a reused Idempotency-Key with a different request is caught. */
function fingerprint(value: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(canonical) : isObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])])) : v;
  return createHash('sha256').update(JSON.stringify(canonical(value))).digest('hex');
}

function taskView(host: SimHost, ctx: Context, job: SimJob): Record<string, unknown> {
  const { state, progress } = host.jobs.view(job);
  const task: Record<string, unknown> = { taskId: job.id, status: STATUS[state], progress, outputs: [], error: null };
  if (state === 'succeeded') task.outputs = resultUrls(host.publicUrl(ctx), job).map((url) => ({ url }));
  if (state === 'failed') {
    task.error =
      job.directives.fail === 'content_policy'
        ? { code: 45101, message: 'Content moderation: the output may contain sensitive content' }
        : { code: 50010, message: 'Generation failed: the model produced no output' };
  }
  return task;
}

export function registerPlatformB(router: Router, host: SimHost): void {
  const stats = host.stats.B;
  const authorised = (ctx: Context) => {
    if (ctx.get('Authorization') === `Bearer ${SIM_ACCOUNTS.B.apiKey}`) return true;
    stats.rejected++;
    sendError(ctx, 401, 40100, 'Invalid or missing API key');
    return false;
  };

  function submit(kind: Kind, validate: (body: unknown) => ModelEntry) {
    return (ctx: Context) => {
      const body = ctx.request.body as Record<string, unknown> | undefined;
      const prompt = typeof body?.prompt === 'string' ? body.prompt : '';
      const directives = parseDirectives(prompt);
      stats.submitRequests++;
      if (host.intercept(ctx, 'B', 'submit', renderBFault, host.promptFault(`B-submit:${prompt}`, directives.submitFault))) return;
      if (!authorised(ctx)) return;
      let entry: ModelEntry;
      try {
        entry = validate(body);
      } catch (err) {
        if (!(err instanceof BError)) throw err;
        stats.rejected++;
        sendError(ctx, err.status, err.code, err.message);
        return;
      }

      const key = ctx.get('Idempotency-Key');
      const hash = fingerprint(body);
      const previous = key ? host.jobs.byDedupKey('B', key, 24 * 3600_000) : undefined;
      if (previous) {
        if (previous.meta.requestHash !== hash) {
          stats.rejected++;
          sendError(ctx, 400, 40005, 'Idempotency-Key was already used with a different request');
          return;
        }
        stats.dedupRefusals++;
        sendData(ctx, { taskId: previous.id });
        return;
      }
      const job = host.jobs.create(
        { platform: 'B', kind, model: entry.upstream.model!, directives, outputs: kind === 'image' ? Number(body!.n ?? 1) : 1, dedupKey: key || undefined, meta: { requestHash: hash } },
        'btask-',
      );
      stats.jobsCreated++;
      sendData(ctx, { taskId: job.id });
    };
  }

  router.post('/v1/video/generations', submit('video', validateBVideo));
  router.post('/v1/image/generations', submit('image', validateBImage));

  const findJob = (ctx: Context): SimJob | undefined => {
    const job = host.jobs.get(ctx.params.taskId ?? '');
    if (job?.platform === 'B') return job;
    sendError(ctx, 404, 40400, `Task not found: ${ctx.params.taskId}`);
    return undefined;
  };

  router.get('/v1/tasks/:taskId', (ctx) => {
    stats.polls++;
    const job = host.jobs.get(ctx.params.taskId ?? '');
    const fault = job && job.pollFaultsLeft > 0 ? (job.pollFaultsLeft--, job.directives.pollFault) : undefined;
    if (host.intercept(ctx, 'B', 'poll', renderBFault, fault)) return;
    if (!authorised(ctx)) return;
    const found = findJob(ctx);
    if (found) sendData(ctx, taskView(host, ctx, found));
  });

  router.post('/v1/tasks/:taskId/cancel', (ctx) => {
    stats.cancels++;
    if (host.intercept(ctx, 'B', 'cancel', renderBFault)) return;
    if (!authorised(ctx)) return;
    const job = findJob(ctx);
    if (!job) return;
    // Cancelling twice is harmless; anything past the queue is not cancellable, as on the real platform.
    if (host.jobs.view(job).state !== 'cancelled' && !host.jobs.cancel(job)) {
      sendError(ctx, 400, 40006, 'Only a queued task can be cancelled');
      return;
    }
    sendData(ctx, { taskId: job.id, status: 'CANCELLED' });
  });
}

export const platformB: SimPlatformModule = { platform: 'B', register: registerPlatformB };
