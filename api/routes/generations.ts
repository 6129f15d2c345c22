/**
 * POST /v1/{videos,images}/generations (sync; async with `X-Async: true`) and
 * POST /v1/async/{videos,images}/generations (always async).
 *
 * Sync mode starts the same workflow and waits for its result for at most SYNC_TIMEOUT_MS. A client that
 * disconnects stops the wait, never the task; a wait that runs out answers 504 naming the task_id, and the task
 * keeps running, so nothing is lost.
 */
import type Router from '@koa/router';
import type { Kind } from '../../core/platforms';
import type { GenerationResult } from '../../core/task';
import { apiKeyOf, type AppContext, type AppDeps, type AppState } from '../context';
import { ApiError } from '../errors';
import { parseGenerationBody } from '../request-validation';
import { GenerationFailed, type StartedTask } from '../tasks';

/** HTTP status for a generation that failed, by its reason. */
const FAILURE_STATUS: Record<string, { status: number; type: 'generation_error' | 'upstream_error' | 'conflict_error' }> = {
  content_policy: { status: 422, type: 'generation_error' },
  invalid_request: { status: 400, type: 'generation_error' },
  cancelled: { status: 409, type: 'conflict_error' },
};

function pollMessage(taskId: string): string {
  return `Task accepted. Poll GET /v1/generations/${taskId} for its status and result.`;
}

export function asyncRecord(task: StartedTask) {
  return { task_id: task.taskId, status: 'pending' as const, model: task.model, message: pollMessage(task.taskId) };
}

function syncBody(taskId: string, result: GenerationResult) {
  return { created: result.created, data: result.data, ...(result.extras ?? {}), task_id: taskId };
}

export function generationRoutes(router: Router<AppState>, deps: AppDeps): void {
  const submit = (kind: Kind, alwaysAsync: boolean) => async (ctx: AppContext) => {
    const key = apiKeyOf(ctx);
    const { entry, request } = parseGenerationBody(deps.catalogue, deps.enabledPlatforms, kind, ctx.request.body);
    const task = await deps.tasks.start(key.id, entry, request);
    ctx.state.log = ctx.state.log.child({ taskId: task.taskId });
    ctx.state.log.info({ model: entry.id, platform: entry.platform, kind }, 'Task started');

    if (alwaysAsync || ctx.get('X-Async').toLowerCase() === 'true') {
      ctx.body = asyncRecord(task);
      return;
    }
    await waitForResult(ctx, deps, task);
  };

  router.post('/v1/videos/generations', submit('video', false));
  router.post('/v1/images/generations', submit('image', false));
  router.post('/v1/async/videos/generations', submit('video', true));
  router.post('/v1/async/images/generations', submit('image', true));
}

async function waitForResult(ctx: AppContext, deps: AppDeps, task: StartedTask): Promise<void> {
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, deps.syncTimeoutMs);
  // The response closing before we answered means the client went away: stop waiting, keep the task.
  const onClose = () => abort.abort();
  ctx.res.once('close', onClose);
  try {
    const result = await deps.tasks.awaitResult(task.taskId, abort.signal);
    ctx.body = syncBody(task.taskId, result);
  } catch (err) {
    if (err instanceof GenerationFailed) {
      const fit = FAILURE_STATUS[err.error.code] ?? { status: 502, type: 'upstream_error' as const };
      throw new ApiError(fit.status, fit.type, err.error.message, { code: err.error.code, taskId: task.taskId });
    }
    if (timedOut) {
      throw new ApiError(
        504,
        'timeout_error',
        `The generation did not finish within ${Math.round(deps.syncTimeoutMs / 1000)} s; it keeps running. Poll GET /v1/generations/${task.taskId} for the result.`,
        { code: 'sync_timeout', taskId: task.taskId },
      );
    }
    if (abort.signal.aborted) {
      ctx.state.log.info('Client disconnected during a sync wait; the task continues');
      return;
    }
    throw err;
  } finally {
    clearTimeout(timer);
    ctx.res.off('close', onClose);
  }
}
