/**
 * GET /v1/generations/:task_id/events: the task as a Server-Sent Events stream. Each status or
 * progress change sends the task record (as GET /v1/generations/:id returns it) with an id `<status>:<progress>`;
 * the stream ends after the final record. A reconnecting client sends Last-Event-ID and is not sent the record it
 * already has again. A comment (`: heartbeat`) goes out every SSE_HEARTBEAT_MS (15 s) so proxies keep the
 * connection; at the sync bound (SYNC_TIMEOUT_MS) an `event: timeout` says the client should reconnect.
 *
 * State comes from Temporal (api/task-changes.ts: one history long-poll per stream), so every replica serves
 * every task. Same auth and ownership as reads: another key's task is 404. Open streams are bounded per key and per
 * process (api/event-stream-slots.ts): a stream past a bound is refused (429, 503) before Temporal is asked anything.
 * A client leaving is normal: the stream stops its long-poll and gives its slot back, and the app logs one debug line
 * (api/app.ts).
 */
import { PassThrough } from 'node:stream';
import type Router from '@koa/router';
import { ApiError, taskNotFound } from '../api-error';
import type { ApiKey } from '../../keys/api-keys';
import { apiKeyOf, type AppContext, type AppDeps, type AppState } from '../context';
import { requestOrigin } from '../http/request-origin';
import type { TaskRecord } from '../../tasks/record';
import { TASK_ID } from '../http/task-id';

/** The id of a record's event: what a client has seen, so a resume skips it. */
export function recordEventId(record: TaskRecord): string {
  // A pending task that begins to wait for platform capacity is a change a client is told of.
  return `${record.status}:${record.progress ?? ''}${record.waiting ? ':waiting' : ''}`;
}

function sseMessage(record: TaskRecord): string {
  return `id: ${recordEventId(record)}\ndata: ${JSON.stringify(record)}\n\n`;
}

export function eventRoutes(
  router: Router<AppState>,
  deps: Pick<AppDeps, 'metrics' | 'shutdownSignal' | 'sseHeartbeatMs' | 'streams' | 'syncTimeoutMs' | 'taskChanges' | 'tasks'>,
): void {
  router.get('/v1/generations/:task_id/events', async (ctx: AppContext) => {
    const taskId = String(ctx.params?.task_id ?? '');
    const key = apiKeyOf(ctx);
    const ownerId = key.id;
    if (!TASK_ID.test(taskId)) throw taskNotFound(taskId);
    const release = trackedSlot(deps, key);
    // Watched from the moment the slot is taken, before any await: a client that leaves while the task is read
    // would otherwise never be seen leaving, and its slot (and a Temporal long-poll) held until the sync bound.
    const stop = new AbortController();
    const leave = () => stop.abort();
    ctx.res.once('close', leave);
    if (ctx.req.socket.destroyed) leave();
    const giveBack = () => {
      ctx.res.off('close', leave);
      release();
    };
    try {
      if (!(await deps.tasks.read(taskId, ownerId, undefined))) throw taskNotFound(taskId);
    } catch (err) {
      giveBack();
      throw err;
    }
    if (stop.signal.aborted || ctx.req.socket.destroyed) {
      giveBack();
      return;
    }
    const lastSeen = ctx.get('Last-Event-ID') || undefined;

    const stream = new PassThrough();
    ctx.status = 200;
    ctx.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-store', 'X-Accel-Buffering': 'no' });
    ctx.req.socket.setNoDelay(true);
    ctx.body = stream;
    stream.write(`retry: 1000\n\n`);
    void pump(deps, { taskId, ownerId, lastSeen, origin: requestOrigin(ctx) }, stream, stop)
      .catch((err: unknown) => {
        ctx.state.log.warn({ err: (err as Error).message, taskId }, 'Event stream ended by an error');
        stream.end();
      })
      .finally(giveBack);
  });
}

/** A slot for a new stream of `key` (or the refusal), counted in the metrics while it is held. */
function trackedSlot(deps: Pick<AppDeps, 'metrics' | 'streams'>, key: ApiKey): () => void {
  let release: () => void;
  try {
    release = deps.streams.acquire(key);
  } catch (err) {
    if (err instanceof ApiError) deps.metrics.recordStreamRefused(err.opts.code ?? String(err.status));
    throw err;
  }
  deps.metrics.streamOpened();
  let open = true;
  return () => {
    if (!open) return;
    open = false;
    release();
    deps.metrics.streamClosed();
  };
}

/** Writes the task's changes until it ends, the client leaves, the sync bound passes or the API stops. */
async function pump(
  deps: Pick<AppDeps, 'shutdownSignal' | 'sseHeartbeatMs' | 'syncTimeoutMs' | 'taskChanges'>,
  /** The task, whose key watches it, the last event the client saw, and the origin its links are based at. */
  t: { taskId: string; ownerId: string; lastSeen?: string; origin: string },
  stream: PassThrough,
  /** Aborted when the client leaves (watched by the route from the start), the bound passes or the API stops. */
  stop: AbortController,
): Promise<void> {
  const heartbeat = setInterval(() => stream.write(': heartbeat\n\n'), deps.sseHeartbeatMs);
  const bound = setTimeout(() => {
    stream.write(
      `event: timeout\ndata: ${JSON.stringify({ message: `The stream reached its ${Math.round(deps.syncTimeoutMs / 1000)} s bound; reconnect (with Last-Event-ID) to follow the task` })}\n\n`,
    );
    stop.abort();
  }, deps.syncTimeoutMs);
  const leave = () => stop.abort();
  deps.shutdownSignal.addEventListener('abort', leave, { once: true });
  try {
    let lastSent = t.lastSeen;
    for await (const record of deps.taskChanges.changes(t.taskId, t.ownerId, stop.signal, t.origin)) {
      const id = recordEventId(record);
      if (id === lastSent) continue;
      stream.write(sseMessage(record));
      lastSent = id;
    }
  } catch (err) {
    if (!stop.signal.aborted) throw err;
  } finally {
    clearInterval(heartbeat);
    clearTimeout(bound);
    deps.shutdownSignal.removeEventListener('abort', leave);
    stream.end();
  }
}
