/**
 * POST /v1/generations/:task_id/cancel: the owner cancels a pending or running task. The workflow cancels the
 * upstream job where the platform allows (platform V: only while queued) and the task ends `failed` with
 * `error.code: "cancelled"`.
 *
 * Answers:
 * - 200 with the final task record when the task closed within a few seconds (the usual case);
 * - 202 with the current record when cancellation is still in progress (a paid submit is in flight, or no
 *   worker is running); the task reads `failed`/`cancelled` once it completes, so the client keeps polling;
 * - 404 for an unknown task or another key's (indistinguishable);
 * - 409 when the task has already finished (success or failed): there is nothing left to cancel.
 */
import type Router from '@koa/router';
import { apiKeyOf, type AppContext, type AppDeps, type AppState } from '../context';
import { requestOrigin } from '../http/request-origin';
import { ApiError, taskNotFound } from '../api-error';
import { TASK_ID } from '../http/task-id';

export function cancelRoutes(router: Router<AppState>, deps: Pick<AppDeps, 'tasks'>): void {
  router.post('/v1/generations/:task_id/cancel', async (ctx: AppContext) => {
    const taskId = String(ctx.params?.task_id ?? '');
    if (!TASK_ID.test(taskId)) throw taskNotFound(taskId);
    const result = await deps.tasks.cancel(taskId, apiKeyOf(ctx).id, requestOrigin(ctx));
    switch (result.outcome) {
      case 'not_found':
        throw taskNotFound(taskId);
      case 'finished':
        throw new ApiError(
          409,
          'conflict_error',
          `Task '${taskId}' has already finished (status ${result.record.status}); only a pending or running task can be cancelled`,
          {
            param: 'task_id',
            code: 'task_finished',
          },
        );
      case 'cancelled':
        ctx.state.log.info({ taskId }, 'Task cancelled');
        ctx.body = result.record;
        return;
      case 'cancelling':
        ctx.state.log.info({ taskId }, 'Task cancellation requested; still in progress');
        ctx.status = 202;
        ctx.body = result.record;
        return;
    }
  });
}
