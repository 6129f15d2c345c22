/**
 * GET (and HEAD) /v1/generations/:task_id/content — a task's stored output, streamed from the result store:
 * `?index=N` for `data[N]` (default 0), `?which=last_frame` for platform V's last frame.
 *
 * Two ways in:
 * - `Authorization: Bearer <key>`: the task's owner only; anyone else gets 404, exactly like a missing task;
 * - `?token=…` from a link the API rendered into the task record (results/result-links.ts): a signed,
 *   expiring capability for one output of one task, so a browser's <video>/<img> tag needs no header. An expired
 *   or altered token is 403 (`link_expired` / `link_invalid`): read the task again for a fresh link.
 *
 * Video players seek, so this speaks HTTP ranges (one range per request; `Accept-Ranges: bytes`, 206 with
 * `Content-Range`, 416 when unsatisfiable, `If-Range`), and caches validate with the sha256 ETag
 * (`If-None-Match` → 304). An output the copy could not keep (`stored: false`) is 404 `content_not_stored`; one
 * deleted after RESULT_RETENTION_DAYS, or by its owner (DELETE /v1/videos), is 410 `content_expired` saying which.
 */
import Router from '@koa/router';
import { authenticateRequest } from '../middleware/authenticate';
import { ApiError, invalidRequest, taskNotFound } from '../api-error';
import type { AppContext, AppDeps, AppState } from '../context';
import { MEDIA_EXTENSIONS, type ByteRange, type ResultStore, type StoredObjectInfo } from '../../results/result-store';
import type { OutputSelector } from '../../results/signed-url';
import { storedContentGone } from '../deleted-results';
import { TASK_ID } from './tasks';

export const CONTENT_ROUTE = '/v1/generations/:task_id/content';

/**
 * The single byte range a `Range` header asks for within `size` bytes; undefined when the header is absent, not a
 * bytes range, several ranges, or malformed (RFC 9110: such a header is ignored and the whole body served);
 * `unsatisfiable` when it starts past the end.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  if (start >= size) return 'unsatisfiable';
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  return end < start ? undefined : { start, end };
}

/** Does an If-None-Match (or If-Range) value name this entity tag? Weak comparison, as RFC 9110 asks for If-None-Match. */
export function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => bare(t) === bare(etag));
}

function selectorOf(ctx: AppContext): OutputSelector {
  const { which, index } = ctx.query;
  if (Array.isArray(which) || Array.isArray(index))
    throw invalidRequest('index and which may be given once', Array.isArray(which) ? 'which' : 'index');
  if (which !== undefined && which !== 'result' && which !== 'last_frame')
    throw invalidRequest('which must be "result" or "last_frame"', 'which');
  if (which === 'last_frame') {
    if (index !== undefined) throw invalidRequest('index does not apply to which=last_frame', 'index');
    return { lastFrame: true };
  }
  if (index === undefined) return { index: 0 };
  if (!/^\d{1,4}$/.test(index)) throw invalidRequest('index must be a non-negative integer (the position in data)', 'index');
  return { index: Number(index) };
}

function notFound(code: string, message: string): ApiError {
  return new ApiError(404, 'not_found_error', message, { code });
}

export function contentRoutes(deps: Pick<AppDeps, 'keys' | 'limits' | 'managedKeys' | 'results' | 'tasks'>): Router<AppState> {
  const router = new Router<AppState>();

  router.get(CONTENT_ROUTE, async (ctx: AppContext) => {
    const taskId = String(ctx.params?.task_id ?? '');
    if (!TASK_ID.test(taskId)) throw taskNotFound(taskId);
    const selector = selectorOf(ctx);

    // Who is asking: the owner (Bearer), or the holder of a signed link (no owner check: the link is the right).
    let ownerId: string | undefined;
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : undefined;
    if (ctx.get('Authorization') || token === undefined) {
      const key = await authenticateRequest(ctx, deps.keys, deps.managedKeys);
      await deps.limits.consumeRate(key);
      ownerId = key.id;
    } else {
      const check = deps.results.links.verify(token, taskId, selector);
      if (!check.ok) {
        throw check.why === 'expired'
          ? new ApiError(403, 'permission_error', 'This result link has expired; read the task again for a fresh one', {
              code: 'link_expired',
              param: 'token',
            })
          : new ApiError(403, 'permission_error', 'This result link is not valid', { code: 'link_invalid', param: 'token' });
      }
    }

    const found = await deps.tasks.readResult(taskId, ownerId);
    if (!found) throw taskNotFound(taskId);
    if (!found.result) throw notFound('content_not_ready', `Task ${taskId} has no result (status ${found.status})`);
    const item = 'lastFrame' in selector ? found.result.lastFrame : found.result.data[selector.index];
    if (!item) {
      throw 'lastFrame' in selector
        ? notFound('content_not_found', `Task ${taskId} has no last frame`)
        : new ApiError(
            404,
            'not_found_error',
            `Task ${taskId} has no output at index ${selector.index} (it has ${found.result.data.length})`,
            { code: 'content_not_found', param: 'index' },
          );
    }
    if (item.stored !== true || !item.key) {
      throw notFound(
        'content_not_stored',
        "The gateway keeps no copy of this output (stored: false); the task record carries the platform's own link",
      );
    }
    await sendStoredObject(ctx, deps.results.store, {
      key: item.key,
      contentType: item.contentType,
      sha256: item.sha256,
      bytes: item.bytes,
      filename: `${taskId}-${'lastFrame' in selector ? 'last-frame' : selector.index}`,
    });
  });

  return router;
}

/** One stored object to answer with, and what the task record already knows of it (saves a HEAD). */
export interface StoredObjectToSend {
  key: string;
  contentType?: string;
  sha256?: string;
  bytes?: number;
  /** The download name without its extension (the media type gives that). */
  filename: string;
}

/**
 * Answers GET or HEAD with a stored object: its media type, ETag (the sha256), HTTP ranges (206/416, If-Range),
 * If-None-Match (304); 410 `content_expired` when the store no longer has it. The Videos API's content route
 * (api/openai-videos/) serves through it too.
 */
export async function sendStoredObject(ctx: AppContext, store: ResultStore, obj: StoredObjectToSend): Promise<void> {
  const { key } = obj;
  const respond = (info: StoredObjectInfo | undefined, status: number) => {
    const etag = `"${obj.sha256 ?? info?.sha256 ?? info?.etag ?? ''}"`;
    const ext = MEDIA_EXTENSIONS[obj.contentType ?? info?.contentType ?? ''] ?? 'bin';
    ctx.status = status;
    ctx.set('ETag', etag);
    ctx.set('Accept-Ranges', 'bytes');
    ctx.set('Content-Type', obj.contentType ?? info?.contentType ?? 'application/octet-stream');
    ctx.set('Content-Disposition', `inline; filename="${obj.filename}.${ext}"`);
    // Private: links carry a capability; the bytes never change under one key, so an hour of caching is safe.
    ctx.set('Cache-Control', 'private, max-age=3600');
    // Served from the gateway's own origin: never let a browser treat it as anything but the media it is.
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
    if (info) ctx.set('Last-Modified', info.lastModified.toUTCString());
    return etag;
  };

  if (ctx.method === 'HEAD') {
    const info = await store.head(key);
    if (!info) throw await storedContentGone(store, key);
    respond(info, 200);
    ctx.set('Content-Length', String(info.bytes));
    return;
  }

  const ifNoneMatch = ctx.get('If-None-Match');
  if (ifNoneMatch && obj.sha256 && etagMatches(ifNoneMatch, `"${obj.sha256}"`)) {
    respond(undefined, 304);
    return;
  }
  let size = obj.bytes;
  if (size === undefined) {
    const info = await store.head(key);
    if (!info) throw await storedContentGone(store, key);
    size = info.bytes;
  }
  const ifRange = ctx.get('If-Range');
  let range = parseRange(ctx.get('Range'), size);
  if (range && ifRange && obj.sha256 && !etagMatches(ifRange, `"${obj.sha256}"`)) range = undefined; // changed: send it whole
  if (range === 'unsatisfiable') {
    throw new ApiError(416, 'invalid_request_error', `The range is outside the ${size} bytes of this result`, {
      code: 'range_not_satisfiable',
      param: 'Range',
      headers: { 'Content-Range': `bytes */${size}`, 'Accept-Ranges': 'bytes' },
    });
  }
  const got = await store.get(key, range);
  if (!got) throw await storedContentGone(store, key);
  const total = got.info.bytes;
  respond(got.info, range ? 206 : 200);
  // The body first: Koa drops a Content-Length set before a stream body replaces another body.
  ctx.body = got.body;
  if (range) ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${total}`);
  ctx.set('Content-Length', String(range ? range.end - range.start + 1 : total));
}
