/**
 * The OpenAI Videos API in front of every video model: the paths of the `openai` SDKs'
 * `client.videos.*`, backed by the same tasks as /v1/generations — a video created here is the same task at
 * GET /v1/generations/:id and in GET /v1/tasks, and the other way round. It is a thin door: it maps OpenAI's
 * fields onto the general form and starts the task through the one start path (tasks/start.ts: validation,
 * allowlist, budget, limits, Idempotency-Key), cancels through POST /v1/generations/:id/cancel, and serves the
 * stored results.
 *
 * - POST /v1/videos (JSON or multipart/form-data, as the SDKs send it) → the `video` object, `queued`;
 * - GET /v1/videos/:id, GET /v1/videos (cursor list), DELETE /v1/videos/:id (a finished task's stored outputs);
 * - GET /v1/videos/:id/content?variant=video|thumbnail|spritesheet: the stored bytes, with HTTP ranges;
 * - remix, edits, extensions and characters: 404 saying they are not offered.
 */
import type Router from '@koa/router';
import type { GenerationResult, ResultItem } from '../../core/task';
import { readIdempotencyKey, requestFingerprint } from '../../tasks/idempotency';
import type { TaskView } from '../../tasks/record';
import { ApiError, invalidRequest } from '../api-error';
import { markDeletedByOwner, storedContentGone } from '../deleted-results';
import { apiKeyOf, type AppContext, type AppDeps, type AppState } from '../context';
import { explainRoute, routeExplainAsked } from '../route-explain';
import { sendStoredObject } from '../http/stored-object';
import { requestOrigin } from '../http/request-origin';
import { TASK_ID } from '../http/task-id';
import { coerceFormFields, mapCreateBody } from './create-request';
import { derivedKey, ensureDerived, type DerivedVariant } from './derived-media';
import { listVideoPage, parseVideoListQuery } from './list';
import { isMultipart, readMultipart, type MultipartBody } from './multipart';
import { prepareUpload } from './uploads';
import { toVideoObject, type VideoObject } from './video-object';

/** Default RESULT_RETENTION_DAYS (results/results-config.ts), for `expires_at` when the API is not told. */
const DEFAULT_RETENTION_DAYS = 7;

const VARIANTS = ['video', 'thumbnail', 'spritesheet'] as const;

/** POST /v1/videos reads its own body when it is a form (api/middleware/json-body.ts leaves it unread). */
export function readsOwnBody(ctx: AppContext): boolean {
  return ctx.method === 'POST' && ctx.path === '/v1/videos' && isMultipart(ctx);
}

const videoNotFound = (id: string) =>
  new ApiError(404, 'not_found_error', `No video with id '${id}'`, { param: 'video_id', code: 'video_not_found' });

const notOffered = (what: string) => () => {
  throw new ApiError(
    404,
    'not_found_error',
    `${what} is not offered by this gateway: only create, retrieve, list, delete and content of the Videos API are`,
    {
      code: 'not_supported',
    },
  );
};

/**
 * The request's body: JSON (already parsed and checked by jsonBody) or the form, read here into the values its JSON
 * twin would carry (create-request.ts coerceFormFields); the start path checks both alike.
 */
async function createBodyOf(ctx: AppContext, deps: Pick<AppDeps, 'bodyTimeoutMs'>): Promise<MultipartBody> {
  if (!isMultipart(ctx)) return { fields: (ctx.request.body ?? {}) as Record<string, unknown> };
  const form = await readMultipart(ctx, deps.bodyTimeoutMs ?? 30_000);
  if (form.file && form.file.field !== 'input_reference') {
    throw invalidRequest(
      `Unknown file field '${form.file.field}'; the reference image is input_reference`,
      form.file.field,
      'unknown_parameter',
    );
  }
  return { fields: coerceFormFields(form.fields), ...(form.file ? { file: form.file } : {}) };
}

/**
 * `input_reference: {"image_url": "data:image/png;base64,…"}` (OpenAI takes a data URL there) is an upload by
 * another name: it is kept and linked like one, since no platform is handed a data URL of ours.
 */
function dataUrlAsUpload(body: MultipartBody): MultipartBody {
  const reference = body.fields.input_reference as { image_url?: unknown } | undefined;
  const url = typeof reference === 'object' && reference !== null ? reference.image_url : undefined;
  if (body.file || typeof url !== 'string' || !url.startsWith('data:')) return body;
  const m = /^data:([a-z]+\/[a-z0-9.+-]+)?;base64,([A-Za-z0-9+/=\s]+)$/i.exec(url);
  if (!m)
    throw invalidRequest('input_reference.image_url: a data URL must be base64 (data:image/png;base64,…)', 'input_reference.image_url');
  const { input_reference: _dropped, ...fields } = body.fields;
  return { fields, file: { field: 'input_reference', declaredType: m[1] ?? '', bytes: Buffer.from(m[2]!, 'base64') } };
}

/**
 * POST /v1/videos: OpenAI's fields mapped onto the general form (create-request.ts), an uploaded image checked and
 * linked, then the one start path (tasks/start.ts) — which keeps the upload only once the task is accepted.
 */
async function createVideo(
  ctx: AppContext,
  deps: Pick<AppDeps, 'bodyTimeoutMs' | 'results' | 'starter'>,
  objectOf: (id: string) => Promise<VideoObject | undefined>,
): Promise<void> {
  const sentKey = ctx.req.headers['idempotency-key'];
  const idempotencyKey = readIdempotencyKey(Array.isArray(sentKey) ? sentKey.join(', ') : sentKey);
  const sent = dataUrlAsUpload(await createBodyOf(ctx, deps));
  const explain = routeExplainAsked(ctx);
  // Webhook fields (webhook_url, webhook_events) pass through as on the generation endpoints, for the start path to
  // split off; the task is then announced as a video (video.completed, video.failed: webhooks/event-body.ts).
  const mapped = mapCreateBody(sent.fields, sent.file !== undefined);
  const upload = sent.file ? await prepareUpload(deps.results.store, deps.results.links, sent.file, requestOrigin(ctx)) : undefined;
  if (upload) mapped.body.image_url = upload.link;
  // The fingerprint is of what the client sent: an uploaded image by its digest, not by the link made for it.
  const fingerprinted = upload ? { ...sent.fields, input_reference: { sha256: upload.sha256 } } : sent.fields;
  const started = await deps.starter.start(apiKeyOf(ctx), {
    kind: 'video',
    body: mapped.body,
    fingerprint: requestFingerprint('openai-video', fingerprinted),
    ...(idempotencyKey ? { idempotencyKey } : {}),
    origin: requestOrigin(ctx),
    // The link to the gateway's own copy is allowed although the gateway may sit on a private address (a local
    // stack): it is ours, not an address a client chose.
    ...(upload ? { ownOrigins: [new URL(upload.link).origin], prepare: upload.keep } : {}),
    fieldNames: mapped.fieldNames,
    impliedFields: mapped.impliedFields,
    asked: { via: 'videos', ...(mapped.size ? { size: mapped.size } : {}) },
  });
  const { taskId, entry, model } = started;
  ctx.state.log = ctx.state.log.child({ taskId });
  explainRoute(ctx, started, explain);
  if (started.replayed) ctx.set('Idempotent-Replayed', 'true');
  else
    ctx.state.log.info(
      { model, ...(model === entry.id ? { platform: entry.platform } : {}), kind: 'video', via: 'videos' },
      'Task started',
    );
  ctx.body = await objectOf(taskId);
}

/** A finished task's recorded result (stored keys included); none while it runs or when it failed. */
function resultOf(view: TaskView): GenerationResult | undefined {
  return view.record.status === 'success' ? view.memo.result : undefined;
}

/**
 * A video's path: its id is a task id, and every task id starts `task_` (tasks/idempotency.ts newTaskId,
 * and idempotentTaskId). Matching only those keeps /v1/videos/edits, /characters… and the legacy
 * /v1/videos/generations from reading as ids (a GET there would otherwise be a 404 for a video named "edits",
 * and OPTIONS would advertise GET and DELETE on them).
 */
const VIDEO_PATH = '/v1/videos/task_:video_ref';

function videoIdOf(ctx: AppContext): string {
  const id = `task_${String(ctx.params?.video_ref ?? '')}`;
  if (!TASK_ID.test(id)) throw videoNotFound(id);
  return id;
}

/** The stored item a variant is served from, made now for a thumbnail or spritesheet the platform gave none of. */
async function variantItem(
  deps: Pick<AppDeps, 'results'>,
  id: string,
  result: GenerationResult,
  variant: (typeof VARIANTS)[number],
): Promise<Pick<ResultItem, 'key' | 'contentType' | 'sha256' | 'bytes'> | undefined> {
  const video = result.data[0];
  if (variant === 'video') return video?.stored === true && video.key ? video : undefined;
  // The platform's last frame, where it returned one (result.lastFrame), is the thumbnail as the platform made it.
  if (variant === 'thumbnail' && result.lastFrame?.stored === true && result.lastFrame.key) return result.lastFrame;
  if (video?.stored !== true || !video.key) return undefined;
  const made = await ensureDerived(deps.results.store, id, video.key, variant);
  if (made === 'video_gone') throw await storedContentGone(deps.results.store, video.key);
  return made ? { key: made, contentType: 'image/jpeg' } : undefined;
}

async function serveContent(ctx: AppContext, deps: Pick<AppDeps, 'catalogue' | 'results' | 'tasks'>): Promise<void> {
  const id = videoIdOf(ctx);
  const variant = ctx.query.variant ?? 'video';
  if (typeof variant !== 'string' || !(VARIANTS as readonly string[]).includes(variant)) {
    throw invalidRequest(`variant must be one of ${VARIANTS.join(', ')}`, 'variant');
  }
  const view = await deps.tasks.view(id, apiKeyOf(ctx).id);
  if (!view || view.memo.kind !== 'video') throw videoNotFound(id);
  const result = resultOf(view);
  if (!result) {
    throw new ApiError(
      404,
      'not_found_error',
      `Video ${id} has no content (status ${toVideoObject(view, { catalogue: deps.catalogue, retentionDays: 0 }).status})`,
      {
        param: 'video_id',
        code: 'content_not_ready',
      },
    );
  }
  const item = await variantItem(deps, id, result, variant as DerivedVariant | 'video');
  if (!item?.key) {
    throw new ApiError(404, 'not_found_error', `Video ${id} has no ${variant}: the gateway keeps no copy of its video to make one from`, {
      param: 'variant',
      code: 'variant_unavailable',
    });
  }
  await sendStoredObject(ctx, deps.results.store, {
    key: item.key,
    contentType: item.contentType,
    sha256: item.sha256,
    bytes: item.bytes,
    filename: `${id}-${variant}`,
  });
}

/** DELETE: a finished video's stored outputs (and what was made from them) are deleted; a running one is 409. */
async function deleteVideo(ctx: AppContext, deps: Pick<AppDeps, 'results' | 'tasks'>): Promise<void> {
  const id = videoIdOf(ctx);
  const owner = apiKeyOf(ctx).id;
  const view = await deps.tasks.view(id, owner);
  if (!view || view.memo.kind !== 'video') throw videoNotFound(id);
  if (view.record.status === 'pending' || view.record.status === 'running') {
    throw new ApiError(
      409,
      'conflict_error',
      `Video ${id} is still ${view.record.status}; cancel it first with POST /v1/generations/${id}/cancel`,
      {
        param: 'video_id',
        code: 'video_running',
      },
    );
  }
  const result = resultOf(view);
  const keys = [...(result?.data ?? []), ...(result?.lastFrame ? [result.lastFrame] : [])].flatMap((i) =>
    i.stored === true && i.key ? [i.key] : [],
  );
  keys.push(derivedKey(id, 'thumbnail'), derivedKey(id, 'spritesheet'));
  await Promise.all(keys.map((k) => deps.results.store.delete(k)));
  await markDeletedByOwner(deps.results.store, id);
  ctx.state.log.info({ taskId: id, deleted: keys.length }, 'Video outputs deleted');
  ctx.body = { id, object: 'video.deleted', deleted: true };
}

/** What the Videos API's routes use of the app's dependencies. */
type VideoDeps = Pick<AppDeps, 'bodyTimeoutMs' | 'catalogue' | 'resultRetentionDays' | 'results' | 'starter' | 'tasks'>;

export function videoRoutes(router: Router<AppState>, deps: VideoDeps): void {
  const retentionDays = deps.resultRetentionDays ?? DEFAULT_RETENTION_DAYS;
  const objectOptions = { catalogue: deps.catalogue, retentionDays };
  const objectFor = (owner: string) => async (id: string) => {
    const view = await deps.tasks.view(id, owner);
    return view && view.memo.kind === 'video' ? toVideoObject(view, objectOptions) : undefined;
  };

  // Not offered.
  router.post('/v1/videos/edits', notOffered('Editing a video (POST /v1/videos/edits)'));
  router.post('/v1/videos/extensions', notOffered('Extending a video (POST /v1/videos/extensions)'));
  router.post('/v1/videos/characters', notOffered('Characters (POST /v1/videos/characters)'));
  router.get('/v1/videos/characters/:character_id', notOffered('Characters (GET /v1/videos/characters/{id})'));
  router.post('/v1/videos/:video_id/remix', notOffered('Remixing a video (POST /v1/videos/{id}/remix)'));

  router.post('/v1/videos', (ctx: AppContext) => createVideo(ctx, deps, objectFor(apiKeyOf(ctx).id)));
  router.get('/v1/videos', async (ctx: AppContext) => {
    const query = parseVideoListQuery(ctx.query);
    const { page, hasMore } = await listVideoPage(deps.tasks, apiKeyOf(ctx).id, query);
    const data = page.map((v) => toVideoObject(v, objectOptions));
    ctx.body = { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: hasMore };
  });
  router.get(VIDEO_PATH, async (ctx: AppContext) => {
    const id = videoIdOf(ctx);
    const video = await objectFor(apiKeyOf(ctx).id)(id);
    if (!video) throw videoNotFound(id);
    ctx.body = video;
  });
  router.delete(VIDEO_PATH, (ctx: AppContext) => deleteVideo(ctx, deps));
  router.get(`${VIDEO_PATH}/content`, (ctx: AppContext) => serveContent(ctx, deps));
}
