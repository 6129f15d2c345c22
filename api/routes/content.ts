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
import type { OutputSelector } from '../../results/signed-url';
import { sendStoredObject } from '../http/stored-object';
import { TASK_ID } from '../http/task-id';

export const CONTENT_ROUTE = '/v1/generations/:task_id/content';

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
