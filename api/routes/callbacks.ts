/**
 * POST /v1/callbacks/:platform[/…]: the platforms' announcements that a job changed state (V per task, T's event
 * notification in PUSH mode, B's account-level events). Outside Bearer auth — a platform has no API key — but
 * never unauthenticated in effect: each platform's receiver (platforms/<id>/announcements.ts) verifies a per-task
 * token or the platform's signature and expiry before anything is believed.
 *
 * An announcement is a hint, never a result: it becomes an `upstreamEvent` signal to the task's workflow, which
 * polls at once and trusts only the poll. A forged, replayed, duplicated, late or unknown announcement can at
 * worst cause one extra poll. Besides, a verified announcement of a job's final state gives that job's slot to the
 * next waiting task before the poll (capacity/announced-ends.ts); only the named job's slot, so a replay frees
 * nothing. The answer is 2xx only once every signal was accepted by Temporal (durably handed on); 401/403 for a
 * bad token or signature, 400 for a malformed body, 413 past the size bound, 429 past the rate limit, 503 when
 * Temporal is unreachable (the platform retries). The platform's own signatures that keep failing are reported
 * once at warn; refused callbacks that name no job of ours are counted as forged and logged at debug only, so
 * nobody outside can fill the operator's log or raise its alert (api/callback-verification.ts).
 */
import type Router from '@koa/router';
import type { AnnouncedEnd } from '../../capacity/announced-ends';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { CALLBACKS_PATH, CallbackRefused, type UpstreamHint } from '../../platforms/platform';
import { ApiError } from '../api-error';
import { CallbackVerificationWatch } from '../callback-verification';
import type { AppContext, AppDeps, AppState } from '../context';
import { readRawBody } from '../middleware/json-body';

/** Announcements are small (a task object or one event): anything larger is not one. */
export const MAX_CALLBACK_BYTES = 256 * 1024;
const CALLBACK_BODY_TIMEOUT_MS = 10_000;
/** Per platform and source address: well above any platform's real rate, far below what could hurt. */
const CALLBACKS_PER_SECOND = 100;

/** What the callback routes use of the app's dependencies. */
type CallbackDeps = Pick<
  AppDeps,
  'announcedEnd' | 'callbackReceivers' | 'callbackJobCheck' | 'logger' | 'metrics' | 'publicBaseUrl' | 'tasks'
>;

/** A job announced ended frees its slot before its task polls. Best effort: the task's poll gives it back otherwise. */
async function giveBackSlot(announcedEnd: AnnouncedEnd | undefined, platform: string, hint: UpstreamHint, ctx: AppContext): Promise<void> {
  if (!announcedEnd || !hint.ended || !hint.taskId || !hint.upstreamTaskId) return;
  try {
    await announcedEnd(platform, hint.taskId, hint.upstreamTaskId);
  } catch (err) {
    ctx.state.log.warn(
      { platform, taskId: hint.taskId, err: (err as Error).message },
      "Could not give an ended job's slot back; its task's poll does",
    );
  }
}

export function callbackRoutes(router: Router<AppState>, deps: CallbackDeps): void {
  const limiter = new RateLimiterMemory({ points: CALLBACKS_PER_SECOND, duration: 1 });
  // Each receiver read its settings (signing keys, the token secret) once, with the configuration (api/api-config.ts).
  const receivers = deps.callbackReceivers;
  const verification = new CallbackVerificationWatch(
    (platform, failures, lastReason) => {
      deps.logger.warn(
        { platform, consecutiveFailures: failures, lastReason },
        `Callbacks from platform ${platform} keep failing verification (${failures} in a row; last: ${lastReason}). ` +
          "Its tasks are carried by polling meanwhile. Check the platform's callback signing key setting (docs/guides/run.md#platform-callbacks).",
      );
    },
    deps.callbackJobCheck ?? (async () => false),
  );

  const receive = async (ctx: AppContext) => {
    const id = String(ctx.params?.platform ?? '').toUpperCase();
    const receiveCallback = receivers.get(id);
    if (!receiveCallback)
      throw new ApiError(404, 'not_found_error', `No callbacks are received for '${ctx.params?.platform}'`, { code: 'route_not_found' });
    try {
      await limiter.consume(`${id}:${ctx.ip}`);
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      deps.metrics.recordCallback(id, 'rate_limited');
      throw new ApiError(429, 'rate_limit_error', 'Too many callbacks', {
        code: 'rate_limit_exceeded',
        headers: { 'Retry-After': String(Math.max(1, Math.ceil(res.msBeforeNext / 1000))) },
      });
    }
    const rawBody = await readRawBody(ctx, { limitBytes: MAX_CALLBACK_BYTES, timeoutMs: CALLBACK_BODY_TIMEOUT_MS });
    const rest = String(ctx.params?.rest ?? '')
      .split('/')
      .filter(Boolean);
    let hints: UpstreamHint[];
    try {
      hints = receiveCallback({
        rest,
        query: Object.fromEntries(Object.entries(ctx.query).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v])),
        headers: ctx.headers as Record<string, string | undefined>,
        rawBody,
        url: `${deps.publicBaseUrl ?? ctx.origin}${ctx.path}`,
        receivedAt: Date.now(),
      });
    } catch (err) {
      if (!(err instanceof CallbackRefused)) throw err;
      // 401: a signature or token that is missing, expired or wrong (403 is "not enabled", 400 a malformed body).
      // One naming no job of ours is anybody's: counted as forged, logged at debug, never an operator's warning.
      const kind = err.status === 401 ? await verification.failed(id, err.message, err.claims) : 'refused';
      deps.metrics.recordCallback(id, kind);
      if (kind === 'forged')
        ctx.state.log.debug({ platform: id, reason: err.message }, 'Callback refused: it names no job of ours (forged or stray)');
      else ctx.state.log.warn({ platform: id, reason: err.message }, 'Callback refused');
      const type = err.status === 400 ? 'invalid_request_error' : 'authentication_error';
      throw new ApiError(err.status, type, err.message, { code: 'callback_refused' });
    }
    verification.verified(id);
    await Promise.all(hints.map((hint) => giveBackSlot(deps.announcedEnd, id, hint, ctx)));
    const outcomes = await Promise.all(hints.map((hint) => deps.tasks.hint(id, hint)));
    for (const o of outcomes) deps.metrics.recordCallback(id, o);
    // Verified, but nothing a task needs to act on (V's `queued`/`running`): acknowledged, counted, dropped.
    if (hints.length === 0) deps.metrics.recordCallback(id, 'ignored');
    ctx.state.log.info({ platform: id, outcomes }, 'Callback handed on');
    ctx.status = 200;
    ctx.body = { received: hints.length, signalled: outcomes.filter((o) => o === 'signalled').length };
  };

  router.post(`${CALLBACKS_PATH}/:platform`, receive);
  router.post(`${CALLBACKS_PATH}/:platform/:rest`, receive);
}
