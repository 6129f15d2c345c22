/**
 * Every key's tasks for the operator: GET /admin/v1/tasks (filtered, a page at a time with Temporal's page token),
 * GET /admin/v1/tasks/:task_id (the record and cost, key, upstream job and account, timeline, webhook deliveries, a
 * link to the workflow in the Temporal UI), POST /admin/v1/tasks/:task_id/cancel, and POST /admin/v1/replays
 * (one failed task or a filtered set, never a cancelled one; `dry_run` is the preview).
 */
import type Router from '@koa/router';
import type { z } from 'zod';
import type { OperatorTaskFilter, TaskAdmin } from '../../operations/task-admin';
import { decodePageToken } from '../../operations/visibility-page';
import { replaySchema, taskListQuerySchema } from '../admin-console-schemas';
import { parseBody, parseQuery } from '../admin-input';
import { ApiError, invalidRequest, taskNotFound } from '../api-error';
import type { AppContext, AppDeps, AppState } from '../context';
import { requestOrigin } from '../http/request-origin';
import { TASK_ID } from '../http/task-id';

/** A replay without a limit replays at most this many tasks per request. */
const DEFAULT_REPLAY_LIMIT = 100;

type FilterFields = Omit<z.infer<typeof taskListQuerySchema>, 'page_token' | 'page_size'>;

export function filterOf(q: Partial<FilterFields>): OperatorTaskFilter {
  return {
    ...(q.status ? { status: q.status } : {}),
    ...(q.model ? { model: q.model } : {}),
    ...(q.platform ? { platform: q.platform } : {}),
    ...(q.key ? { key: q.key } : {}),
    ...(q.failure_reason ? { failureReason: q.failure_reason } : {}),
    ...(q.account ? { account: q.account } : {}),
    ...(q.since ? { since: new Date(q.since) } : {}),
    ...(q.until ? { until: new Date(q.until) } : {}),
  };
}

export function taskAdminOf(deps: Pick<AppDeps, 'taskAdmin'>): TaskAdmin {
  if (!deps.taskAdmin)
    throw new ApiError(503, 'service_unavailable_error', 'The operator’s task views are not available', { code: 'not_ready' });
  return deps.taskAdmin;
}

export function pageTokenOf(token: string | undefined): Uint8Array | undefined {
  const decoded = decodePageToken(token);
  if (token !== undefined && decoded === undefined) throw invalidRequest('page_token is not a next_page_token this API gave', 'page_token');
  return decoded;
}

function taskIdOf(ctx: AppContext): string {
  const taskId = String(ctx.params?.task_id ?? '');
  if (!TASK_ID.test(taskId)) throw taskNotFound(taskId);
  return taskId;
}

/** A visibility page token Temporal no longer takes (or never made) is the client's mistake: 400. */
export async function withPageToken<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if ((err as { code?: number }).code === 3) throw invalidRequest('page_token is not a next_page_token this API gave', 'page_token');
    throw err;
  }
}

export function adminTaskRoutes(router: Router<AppState>, deps: Pick<AppDeps, 'taskAdmin' | 'temporalUi' | 'webhookService'>): void {
  router.get('/admin/v1/tasks', async (ctx: AppContext) => {
    const q = parseQuery(taskListQuerySchema, ctx.query);
    const token = pageTokenOf(q.page_token);
    const page = await withPageToken(() => taskAdminOf(deps).list(filterOf(q), q.page_size, token));
    ctx.body = { object: 'list', data: page.data, total: page.total, next_page_token: page.nextPageToken ?? null };
  });

  router.get('/admin/v1/tasks/:task_id', async (ctx: AppContext) => {
    const taskId = taskIdOf(ctx);
    const detail = await taskAdminOf(deps).detail(taskId, requestOrigin(ctx));
    if (!detail) throw taskNotFound(taskId);
    const ui = deps.temporalUi;
    ctx.body = {
      ...detail,
      deliveries: (await deps.webhookService.deliveries(taskId)) ?? null,
      temporal_ui_url: ui ? `${ui.url.replace(/\/$/, '')}/namespaces/${encodeURIComponent(ui.namespace)}/workflows/${taskId}` : null,
    };
  });

  router.post('/admin/v1/tasks/:task_id/cancel', async (ctx: AppContext) => {
    const taskId = taskIdOf(ctx);
    const outcome = await taskAdminOf(deps).cancel(taskId, requestOrigin(ctx));
    if (outcome.outcome === 'not_found') throw taskNotFound(taskId);
    if (outcome.outcome === 'finished') {
      throw new ApiError(409, 'conflict_error', `Task ${taskId} has already ended (${outcome.record.status})`, {
        code: 'task_finished',
        taskId,
      });
    }
    ctx.state.log.info({ taskId, outcome: outcome.outcome }, 'Task cancelled by the operator');
    ctx.status = outcome.outcome === 'cancelled' ? 200 : 202;
    ctx.body = outcome.record;
  });

  router.post('/admin/v1/replays', async (ctx: AppContext) => {
    const body = parseBody(replaySchema, ctx.request.body);
    const dryRun = body.dry_run === true;
    const report = await taskAdminOf(deps).replay({
      ...(body.task_id ? { taskId: body.task_id } : {}),
      filter: filterOf(body.filter ?? {}),
      dryRun,
      limit: body.limit ?? DEFAULT_REPLAY_LIMIT,
      reason: 'replayed from the operator’s console',
    });
    if (!dryRun) ctx.state.log.info({ replayed: report.replayed, skipped: report.skipped.length }, 'Tasks replayed by the operator');
    ctx.body = {
      object: 'replay',
      dry_run: dryRun,
      replayed: report.replayed,
      skipped: report.skipped.map((s) => ({ task_id: s.taskId, why: s.why })),
      truncated: report.truncated === true,
    };
  });
}
