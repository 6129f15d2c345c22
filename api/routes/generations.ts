/**
 * POST /v1/{videos,images}/generations (sync; async with `X-Async: true`) and
 * POST /v1/async/{videos,images}/generations (always async).
 *
 * Sync mode starts the same workflow and waits for its result for at most SYNC_TIMEOUT_MS. A client that
 * disconnects stops the wait, never the task; a wait that runs out answers 504 naming the task_id, and the task
 * keeps running, so nothing is lost.
 */
import type Router from '@koa/router';
import type { GenerationRequest, GenerationResult, Kind } from '../../core/task';
import { readIdempotencyKey, requestFingerprint } from '../../tasks/idempotency';
import { recordCost, withCost, type TaskRecord } from '../../tasks/record';
import { GenerationFailed, type StartedTask } from '../../tasks/task-service';
import { ApiError, invalidRequest } from '../api-error';
import { apiKeyOf, type AppContext, type AppDeps, type AppState } from '../context';
import { requestOrigin } from '../http/request-origin';
import { explainRoute, routeExplainAsked } from '../route-explain';

/** HTTP status for a generation that failed, by its reason. */
const FAILURE_STATUS: Record<string, { status: number; type: 'generation_error' | 'upstream_error' | 'conflict_error' }> = {
  content_policy: { status: 422, type: 'generation_error' },
  invalid_request: { status: 400, type: 'generation_error' },
  cancelled: { status: 409, type: 'conflict_error' },
};

function pollMessage(taskId: string): string {
  return `Task accepted. Poll GET /v1/generations/${taskId} for its status and result.`;
}

/** The message of a task found again through its Idempotency-Key: it says what the task's state is now. */
function replayMessage(record: TaskRecord): string {
  const poll = `GET /v1/generations/${record.task_id}`;
  switch (record.status) {
    case 'success':
      return `This Idempotency-Key's task has already finished; its result is in data (and at ${poll}).`;
    case 'failed':
      return `This Idempotency-Key's task has failed; see error (and ${poll}).`;
    default:
      return `This Idempotency-Key's task was accepted earlier and is ${record.status}. Poll ${poll} for its status and result.`;
  }
}

export function asyncRecord(task: StartedTask) {
  return { task_id: task.taskId, status: 'pending' as const, model: task.model, message: pollMessage(task.taskId) };
}

/** Spec 2.3 with fresh links to the stored outputs (results/result-links.ts). */
async function syncBody(
  deps: Pick<AppDeps, 'pricing' | 'tasks'>,
  taskId: string,
  request: GenerationRequest,
  result: GenerationResult,
  origin: string,
) {
  const shown = await deps.tasks.renderResult(taskId, result, origin);
  return withCost(
    {
      created: result.created,
      data: shown.data,
      ...shown.extras,
      task_id: taskId,
      ...(result.servedBy ? { served_by: result.servedBy } : {}),
    },
    recordCost(deps.pricing, { ...request }, { outcome: 'success', result, servedBy: result.servedBy }),
  );
}

/**
 * `X-Async`: `true` (or `1`) selects async mode, `false` (or `0`) or no header sync, in any letter case; anything
 * else — an empty value too — is an error, not a guess. On the always-async endpoints the header is checked too: `false` there is a
 * contradiction, not something to ignore.
 */
function isAsyncRequested(header: string | undefined, alwaysAsync: boolean): boolean {
  const v = header?.trim().toLowerCase();
  const wanted = v === undefined ? undefined : v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : 'invalid';
  if (wanted === 'invalid') throw invalidRequest('X-Async must be "true" or "false" (or 1 or 0)', 'X-Async', 'invalid_header');
  if (alwaysAsync && wanted === false) {
    throw invalidRequest(
      'This endpoint is always asynchronous; remove X-Async: false, or use the synchronous endpoint without /async',
      'X-Async',
      'invalid_header',
    );
  }
  return alwaysAsync || wanted === true;
}

/**
 * A request header's value, or undefined when it was not sent. Koa's ctx.get answers '' for both, but a header
 * sent empty is a malformed value to refuse, not an absent one to default.
 */
function headerIfSent(ctx: AppContext, lowerCaseName: string): string | undefined {
  const value = ctx.req.headers[lowerCaseName];
  return Array.isArray(value) ? value.join(', ') : value;
}

export function generationRoutes(
  router: Router<AppState>,
  deps: Pick<AppDeps, 'metrics' | 'pricing' | 'shutdownSignal' | 'starter' | 'syncTimeoutMs' | 'tasks'>,
): void {
  const submit = (kind: Kind, alwaysAsync: boolean) => async (ctx: AppContext) => {
    const wantsAsync = isAsyncRequested(headerIfSent(ctx, 'x-async'), alwaysAsync);
    const explain = routeExplainAsked(ctx);
    const started = await deps.starter.start(apiKeyOf(ctx), {
      kind,
      body: ctx.request.body,
      fingerprint: requestFingerprint(kind, ctx.request.body),
      idempotencyKey: readIdempotencyKey(headerIfSent(ctx, 'idempotency-key')),
      origin: requestOrigin(ctx),
    });
    const { taskId, entry, model } = started;
    ctx.state.log = ctx.state.log.child({ taskId });
    explainRoute(ctx, started, explain);

    if (started.replayed) {
      ctx.set('Idempotent-Replayed', 'true');
      if (wantsAsync || started.record.status === 'failed') {
        if (!wantsAsync) throwIfFailed(started.record, taskId);
        ctx.body = { ...started.record, message: replayMessage(started.record) };
        return;
      }
    } else {
      ctx.state.log.info({ model, ...(model === entry.id ? { platform: entry.platform } : {}), kind }, 'Task started');
      if (wantsAsync) {
        ctx.body = asyncRecord({ taskId, model });
        return;
      }
    }
    await waitForResult(ctx, deps, { taskId, model }, started.request);
  };

  router.post('/v1/videos/generations', submit('video', false));
  router.post('/v1/images/generations', submit('image', false));
  router.post('/v1/async/videos/generations', submit('video', true));
  router.post('/v1/async/images/generations', submit('image', true));
}

function throwIfFailed(record: TaskRecord, taskId: string): void {
  if (record.status !== 'failed' || !record.error) return;
  throw failureError(taskId, { message: record.error.message, code: record.error.code });
}

function failureError(taskId: string, error: { message: string; code: string }): ApiError {
  const fit = FAILURE_STATUS[error.code] ?? { status: 502, type: 'upstream_error' as const };
  return new ApiError(fit.status, fit.type, error.message, { code: error.code, taskId });
}

async function waitForResult(
  ctx: AppContext,
  deps: Pick<AppDeps, 'metrics' | 'pricing' | 'shutdownSignal' | 'syncTimeoutMs' | 'tasks'>,
  task: StartedTask,
  request: GenerationRequest,
): Promise<void> {
  const abort = new AbortController();
  let why: 'timeout' | 'shutdown' | 'client' | undefined;
  const stopWaiting = (reason: typeof why) => () => {
    why ??= reason;
    abort.abort();
  };
  const timer = setTimeout(stopWaiting('timeout'), deps.syncTimeoutMs);
  // The response closing before we answered means the client went away: stop waiting, keep the task.
  const onClose = stopWaiting('client');
  ctx.res.once('close', onClose);
  // A stopping API answers its sync waits (naming the task) rather than dropping their connections.
  const onShutdown = stopWaiting('shutdown');
  if (deps.shutdownSignal.aborted) onShutdown();
  deps.shutdownSignal.addEventListener('abort', onShutdown, { once: true });
  try {
    const result = await deps.metrics.trackSyncWait(() => deps.tasks.awaitResult(task.taskId, abort.signal));
    ctx.body = await syncBody(deps, task.taskId, request, result, requestOrigin(ctx));
  } catch (err) {
    if (err instanceof GenerationFailed) throw failureError(task.taskId, err.error);
    if (why === 'shutdown') {
      throw new ApiError(
        503,
        'service_unavailable_error',
        `This API instance is restarting; the generation keeps running. Poll GET /v1/generations/${task.taskId} for the result.`,
        {
          code: 'api_restarting',
          taskId: task.taskId,
          headers: { 'Retry-After': '1' },
        },
      );
    }
    if (why === 'timeout') {
      throw new ApiError(
        504,
        'timeout_error',
        `The generation did not finish within ${Math.round(deps.syncTimeoutMs / 1000)} s; it keeps running. Poll GET /v1/generations/${task.taskId} for the result.`,
        { code: 'sync_timeout', taskId: task.taskId },
      );
    }
    if (why === 'client') {
      // Nobody is left to answer: no response is written, and logs and metrics record 499 (client closed),
      // not a phantom 404.
      ctx.state.clientClosed = true;
      ctx.respond = false;
      ctx.state.log.info('Client disconnected during a sync wait; the task continues');
      return;
    }
    throw err;
  } finally {
    clearTimeout(timer);
    ctx.res.off('close', onClose);
    deps.shutdownSignal.removeEventListener('abort', onShutdown);
  }
}
