/**
 * The client's webhooks: GET /v1/webhooks/default/secret (the key's signing secret, to verify
 * deliveries with), GET /v1/generations/:task_id/deliveries (each event's attempts) and
 * POST /v1/generations/:task_id/deliveries/redeliver (the last event again, same webhook-id). Another key's task
 * reads as missing (404), as everywhere.
 */
import type Router from '@koa/router';
import { ApiError, taskNotFound } from '../api-error';
import { apiKeyOf, type AppContext, type AppDeps, type AppState } from '../context';
import { TASK_ID } from '../http/task-id';

export function webhookRoutes(router: Router<AppState>, deps: Pick<AppDeps, 'tasks' | 'webhookService' | 'webhooks'>): void {
  router.get('/v1/webhooks/default/secret', async (ctx: AppContext) => {
    const keys = await deps.webhooks.secrets.forKey(apiKeyOf(ctx).id);
    if (!keys)
      throw new ApiError(404, 'not_found_error', 'This gateway has no webhook signing secret for this API key (WEBHOOK_SIGNING_SECRET)', {
        code: 'webhooks_not_configured',
      });
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { key: keys.current };
  });

  /** The task id of a task the caller owns, or 404. */
  const ownedTask = async (ctx: AppContext): Promise<string> => {
    const taskId = String(ctx.params?.task_id ?? '');
    if (!TASK_ID.test(taskId) || !(await deps.tasks.read(taskId, apiKeyOf(ctx).id, undefined))) throw taskNotFound(taskId);
    return taskId;
  };

  router.get('/v1/generations/:task_id/deliveries', async (ctx: AppContext) => {
    const taskId = await ownedTask(ctx);
    const found = await deps.webhookService.deliveries(taskId);
    ctx.body = { object: 'list', task_id: taskId, webhook_url: found?.webhook_url ?? null, data: found?.events ?? [] };
  });

  router.post('/v1/generations/:task_id/deliveries/redeliver', async (ctx: AppContext) => {
    const taskId = await ownedTask(ctx);
    const event = await deps.webhookService.redeliver(taskId);
    if (!event)
      throw new ApiError(409, 'conflict_error', 'This task has no webhook event to redeliver yet', { code: 'no_webhook_event', taskId });
    ctx.status = 202;
    ctx.body = { task_id: taskId, webhook_id: event.webhook_id, event: event.event, state: event.state };
  });
}
