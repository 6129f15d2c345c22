/** GET /v1/generations/:task_id (and its legacy twin) and GET /v1/tasks. */
import type Router from '@koa/router';
import { z } from 'zod';
import { apiKeyOf, type AppContext, type AppDeps, type AppState } from '../context';
import { invalidRequest, taskNotFound } from '../api-error';

/** Task ids are URL-safe (api/tasks.ts newTaskId, api/idempotency.ts); anything else cannot exist. */
export const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;

export const listQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
});

export function taskRoutes(router: Router<AppState>, deps: AppDeps): void {
  const getTask = async (ctx: AppContext) => {
    const taskId = String(ctx.params?.task_id ?? '');
    if (!TASK_ID.test(taskId)) throw taskNotFound(taskId);
    const record = await deps.tasks.read(taskId, apiKeyOf(ctx).id);
    if (!record) throw taskNotFound(taskId);
    ctx.body = record;
  };
  router.get('/v1/generations/:task_id', getTask);
  router.get('/v1/videos/generations/:task_id', getTask);

  router.get('/v1/tasks', async (ctx: AppContext) => {
    const parsed = listQuerySchema.safeParse({ page: ctx.query.page, page_size: ctx.query.page_size });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const param = String(issue.path[0]);
      throw invalidRequest(`${param} must be an integer ${param === 'page' ? 'of at least 1' : 'from 1 to 100'}`, param);
    }
    const { page, page_size } = parsed.data;
    const { total, records } = await deps.tasks.list(apiKeyOf(ctx).id, page, page_size);
    ctx.body = { object: 'list', data: records, page, page_size, total, has_more: page * page_size < total };
  });
}
