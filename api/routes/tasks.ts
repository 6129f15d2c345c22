/** GET /v1/generations/:task_id (and its legacy twin) and GET /v1/tasks. */
import type Router from '@koa/router';
import { z } from 'zod';
import { apiKeyOf, type AppContext, type AppDeps, type AppState } from '../context';
import { requestOrigin } from '../http/request-origin';
import { TASK_STATUSES } from '../../core/task';
import { invalidRequest, taskNotFound } from '../api-error';
import { describeIssue } from '../../core/describe-issue';
import { TASK_ID } from '../http/task-id';

/** A decimal integer as written (no `0x10`, `1e3`, `1.0`, spaces or signs): coerced after this check. */
const integer = (min: number, max: number, def: number) =>
  z
    .string()
    .regex(/^\d{1,6}$/, { message: 'must be a whole number' })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, { message: `must be at least ${min}` })
        .max(max, { message: `must be at most ${max}` }),
    )
    .optional()
    .transform((v) => v ?? def);

/** GET /v1/tasks query: unknown parameters are refused, as unknown body fields are. */
export const listQuerySchema = z.strictObject({
  page: integer(1, 10_000, 1).describe('1-based page number'),
  page_size: integer(1, 100, 20).describe('1 to 100'),
  status: z.enum(TASK_STATUSES).optional().describe('Only tasks in this status'),
  model: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,128}$/, { message: 'must be a model id (GET /v1/models)' })
    .optional()
    .describe('Only tasks of this model (its public id)'),
});

export function taskRoutes(router: Router<AppState>, deps: Pick<AppDeps, 'tasks'>): void {
  const getTask = async (ctx: AppContext) => {
    const taskId = String(ctx.params?.task_id ?? '');
    if (!TASK_ID.test(taskId)) throw taskNotFound(taskId);
    const record = await deps.tasks.read(taskId, apiKeyOf(ctx).id, requestOrigin(ctx));
    if (!record) throw taskNotFound(taskId);
    ctx.body = record;
  };
  router.get('/v1/generations/:task_id', getTask);
  router.get('/v1/videos/generations/:task_id', getTask);

  router.get('/v1/tasks', async (ctx: AppContext) => {
    const repeated = Object.entries(ctx.query).find(([, v]) => Array.isArray(v));
    if (repeated) throw invalidRequest(`${repeated[0]} is given more than once`, repeated[0]);
    const parsed = listQuerySchema.safeParse(ctx.query);
    if (!parsed.success) {
      const { param, message, code } = describeIssue(parsed.error.issues[0]!, ctx.query);
      throw invalidRequest(message, param, code);
    }
    const { page, page_size, status, model } = parsed.data;
    const { total, records } = await deps.tasks.list(apiKeyOf(ctx).id, page, page_size, { status, model }, requestOrigin(ctx));
    ctx.body = { object: 'list', data: records, page, page_size, total, has_more: page * page_size < total };
  });
}
