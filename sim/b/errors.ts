/**
 * B's error shape: HTTP status + `{"requestId","code","message"}`, with the `x-bce-request-id` response header on
 * every answer (§5, [OFF] VOD 1m057yiso / lm485bu54). The codes and their statuses are Baidu's common table; the
 * messages of the common codes are Baidu's usual wording, the rest are ours.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import type { FaultRenderer } from '../host';

export class BError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** JSON valid but semantically wrong (missing required field, wrong type, value out of range). [OFF] */
export const inappropriate = (message: string) => new BError(400, 'InappropriateJSON', message);
/** Not JSON at all. [OFF] */
export const malformed = () => new BError(400, 'MalformedJSON', 'The JSON you provided was not well-formed.');
/** A query parameter out of range (list paging, times). Code not documented [GUESS]. */
export const invalidParameter = (message: string) => new BError(400, 'InvalidParameter', message);
/** Task unknown or older than 7 days: 404 TaskNotFound [GUESS, shape of a 3P mock; wording after MediaNotFound]. */
export const taskNotFound = (taskId: string) => new BError(404, 'TaskNotFound', `Task not found with ${taskId}`);
/** A URI no endpoint answers (cancel, /v3 variants not documented…) [GUESS code]. */
export const notFound = () => new BError(404, 'NotFound', 'The requested resource does not exist.');

/**
 * The request id: the client's `x-bce-request-id` when it sent a sensible one (the official examples show the
 * response echoing the request's id), else a fresh UUIDv4 ("VOD 生成的 UUIDv4"). Set once per request.
 */
export function requestId(ctx: Context): string {
  const existing = ctx.state.bRequestId as string | undefined;
  if (existing) return existing;
  const sent = ctx.get('x-bce-request-id');
  const id = /^[A-Za-z0-9-]{8,64}$/.test(sent) ? sent : randomUUID();
  ctx.state.bRequestId = id;
  ctx.set('x-bce-request-id', id);
  return id;
}

export function sendError(ctx: Context, err: BError): void {
  ctx.status = err.status;
  ctx.body = { requestId: requestId(ctx), code: err.code, message: err.message };
}

export function sendJson(ctx: Context, body: unknown): void {
  requestId(ctx);
  ctx.status = 200;
  ctx.body = body;
}

/** VE3.1's documented throttling answer: "Internal error. Please try again later." — retry, not billed. [OFF] */
export const VEO_THROTTLED = 'Internal error. Please try again later.';

/**
 * Injected faults, rendered as B would answer them:
 *  500 → InternalError "We encountered an internal error. Please try again." [OFF common table]
 *  503 → ServiceUnavailable [GUESS: not in the table read; the usual Baidu code]
 *  429 → no 429 is documented for VOD. For VE3.1* creates the observed throttling answer is a 500 with
 *        "Internal error. Please try again later." [OFF], so that is what a 429 fault becomes there; elsewhere a
 *        429 `TooManyRequests` [GUESS]. No Retry-After: nothing says B sends one.
 */
export const renderBFault: FaultRenderer = (ctx, status) => {
  if (status === 429) {
    const model = (ctx.request.body as { model?: unknown } | undefined)?.model;
    if (typeof model === 'string' && model.startsWith('VE3.1')) sendError(ctx, new BError(500, 'InternalError', VEO_THROTTLED));
    else sendError(ctx, new BError(429, 'TooManyRequests', 'Request rate exceeded. Please try again later.'));
  } else if (status === 503) {
    sendError(ctx, new BError(503, 'ServiceUnavailable', 'Service is temporarily unavailable. Please try again later.'));
  } else {
    sendError(ctx, new BError(500, 'InternalError', 'We encountered an internal error. Please try again.'));
  }
};
