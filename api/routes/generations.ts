/**
 * POST /v1/{videos,images}/generations (sync; async with `X-Async: true`) and
 * POST /v1/async/{videos,images}/generations (always async).
 *
 * Sync mode starts the same workflow and waits for its result for at most SYNC_TIMEOUT_MS. A client that
 * disconnects stops the wait, never the task; a wait that runs out answers 504 naming the task_id, and the task
 * keeps running, so nothing is lost.
 */
import type Router from '@koa/router';
import type { ModelRecord } from '../../core/catalogue';
import type { GenerationRequest, GenerationResult, Kind, TaskAsked } from '../../core/task';
import { apiKeyOf, type AppContext, type AppDeps, type AppState } from '../context';
import { ApiError, invalidRequest } from '../api-error';
import { idempotentTaskId, readIdempotencyKey, requestFingerprint } from '../idempotency';
import { recordTaskStarted, trackSyncWait } from '../api-metrics';
import { withInputUrlPolicy } from '../../platforms/request';
import { parseGenerationBody } from '../request-validation';
import { pricedRequest } from '../../pricing/cost';
import { recordCost, withCost } from '../task-cost';
import { splitWebhookFields, webhookTarget } from '../webhook-request';
import type { WebhookTarget } from '../../core/webhooks';
import { GenerationFailed, isAlreadyStarted, newTaskId, type StartedTask, type TaskRecord } from '../task-service';

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
async function syncBody(deps: AppDeps, taskId: string, request: GenerationRequest, result: GenerationResult) {
  const shown = await deps.tasks.renderResult(taskId, result);
  return withCost(
    { created: result.created, data: shown.data, ...shown.extras, task_id: taskId },
    recordCost(deps.pricing, { ...pricedRequest(request) }, { outcome: 'success', result }),
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

export function generationRoutes(router: Router<AppState>, deps: AppDeps): void {
  // Input URLs in a generation body are checked against the operator's private-origin allowlist
  // (INPUT_URL_ALLOW_PRIVATE_ORIGINS; none by default) while the body is validated, the one place they are read.
  const inputUrls = { allowPrivateOrigins: deps.inputUrlAllowPrivateOrigins ?? new Set<string>() };
  const submit = (kind: Kind, alwaysAsync: boolean) => async (ctx: AppContext) => {
    const key = apiKeyOf(ctx);
    const wantsAsync = isAsyncRequested(headerIfSent(ctx, 'x-async'), alwaysAsync);
    const idempotencyKey = readIdempotencyKey(headerIfSent(ctx, 'idempotency-key'));
    const { body, ...webhookFields } = splitWebhookFields(ctx.request.body);
    const { entry, request } = withInputUrlPolicy(inputUrls, () => parseGenerationBody(deps.catalogue, deps.enabledPlatforms, kind, body));
    if (key.models && !key.models.has(entry.id)) {
      throw new ApiError(403, 'permission_error', `This API key may not use the model '${entry.id}'`, {
        param: 'model',
        code: 'model_not_allowed',
      });
    }
    const webhook = await webhookTarget(webhookFields, key, deps.webhooks, `${ctx.protocol}://${ctx.host}`);

    const requestHash = requestFingerprint(kind, ctx.request.body);
    const taskId = idempotencyKey ? idempotentTaskId(key, idempotencyKey) : newTaskId();
    const started = await startOrReplay(ctx, deps, {
      taskId,
      requestHash,
      idempotent: idempotencyKey !== undefined,
      entry,
      request,
      webhook,
    });
    ctx.state.log = ctx.state.log.child({ taskId });

    if (started.replayed) {
      ctx.set('Idempotent-Replayed', 'true');
      if (wantsAsync || started.replayed.status === 'failed') {
        if (!wantsAsync) throwIfFailed(started.replayed, taskId);
        ctx.body = { ...started.replayed, message: replayMessage(started.replayed) };
        return;
      }
    } else {
      ctx.state.log.info({ model: entry.id, platform: entry.platform, kind }, 'Task started');
      if (wantsAsync) {
        ctx.body = asyncRecord({ taskId, model: entry.id });
        return;
      }
    }
    await waitForResult(ctx, deps, { taskId, model: entry.id }, request);
  };

  router.post('/v1/videos/generations', submit('video', false));
  router.post('/v1/images/generations', submit('image', false));
  router.post('/v1/async/videos/generations', submit('video', true));
  router.post('/v1/async/images/generations', submit('image', true));
}

/**
 * Starts the workflow, or — for a repeated Idempotency-Key — finds the task it started before: the same request
 * gets that task back (never a second workflow or upstream job), a different request under the same key is 409.
 * The one way a task is started, whichever endpoint asks (POST /v1/videos too: api/openai-videos/).
 */
export async function startOrReplay(
  ctx: AppContext,
  deps: AppDeps,
  t: {
    taskId: string;
    requestHash: string;
    idempotent: boolean;
    entry: ModelRecord;
    request: GenerationRequest;
    asked?: Pick<TaskAsked, 'size' | 'via'>;
    webhook?: WebhookTarget;
  },
): Promise<{ replayed?: TaskRecord }> {
  const key = apiKeyOf(ctx);
  const release = await deps.limits.reserveInflight(key);
  try {
    // The estimate is reserved before anything can be paid for (issue 20 §5): over budget → 402, no workflow.
    await deps.taskLedger?.reserve(key, t.taskId, t.entry, t.request);
  } catch (err) {
    release();
    throw err;
  }
  try {
    await deps.tasks.start(key.id, t.entry, t.request, {
      taskId: t.taskId,
      requestHash: t.requestHash,
      ...(t.asked ? { asked: t.asked } : {}),
      ...(t.webhook ? { webhook: t.webhook } : {}),
    });
    recordTaskStarted({ kind: t.entry.kind, model: t.entry.id, platform: t.entry.platform });
    return {};
  } catch (err) {
    release();
    if (!t.idempotent || !isAlreadyStarted(err)) {
      // Nothing started: the reservation goes back (if this fails too, the ledger's sweep releases it).
      await deps.taskLedger?.releaseUnstarted(t.taskId).catch(() => undefined);
      throw err;
    }
  }
  const existing = await deps.tasks.readWithFingerprint(t.taskId, key.id);
  if (!existing) throw new Error(`task ${t.taskId} exists but could not be read`);
  if (existing.requestHash !== t.requestHash) {
    throw new ApiError(409, 'conflict_error', 'This Idempotency-Key was already used with a different request body', {
      param: 'Idempotency-Key',
      code: 'idempotency_key_reused',
      taskId: t.taskId,
    });
  }
  return { replayed: existing.record };
}

function throwIfFailed(record: TaskRecord, taskId: string): void {
  if (record.status !== 'failed' || !record.error) return;
  throw failureError(taskId, { message: record.error.message, code: record.error.code });
}

function failureError(taskId: string, error: { message: string; code: string }): ApiError {
  const fit = FAILURE_STATUS[error.code] ?? { status: 502, type: 'upstream_error' as const };
  return new ApiError(fit.status, fit.type, error.message, { code: error.code, taskId });
}

async function waitForResult(ctx: AppContext, deps: AppDeps, task: StartedTask, request: GenerationRequest): Promise<void> {
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
    const result = await trackSyncWait(() => deps.tasks.awaitResult(task.taskId, abort.signal));
    ctx.body = await syncBody(deps, task.taskId, request, result);
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
