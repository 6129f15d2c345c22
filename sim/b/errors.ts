/**
 * B's error shape: HTTP status + `{"requestId","code","message"}`, with the `x-bce-request-id` response header on
 * every answer (docs/platforms/b.md#errors, [OFF] VOD 1m057yiso / lm485bu54). The codes and their statuses are Baidu's common table; the
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

/**
 * Account-level refusals a test can make one account answer (POST /_sim/b/account-faults), from Baidu's common table
 * (docs/platforms/b.md#errors: AccessDenied, InvalidAccessKeyId, OptInRequired 403; VOD's QualifyNotPass 403). An overdue
 * account: VOD is postpaid and an account in arrears is suspended (欠费处理), with no documented code — `Arrears` is
 * the simulator's name for the guess docs/platforms/b.md#errors makes, a 403 `AccessDenied` whose message names the arrears.
 * `TooManyRequests`: the account's rate, 429 (no 429 is documented for VOD [GUESS], as renderBFault).
 */
export const B_ACCOUNT_ERRORS: Readonly<Record<string, { status: number; code: string; message: string }>> = {
  AccessDenied: { status: 403, code: 'AccessDenied', message: 'Access denied.' },
  InvalidAccessKeyId: { status: 403, code: 'InvalidAccessKeyId', message: 'The Access Key ID you provided does not exist in our records.' },
  OptInRequired: { status: 403, code: 'OptInRequired', message: 'A subscription for the service is required.' },
  QualifyNotPass: { status: 403, code: 'QualifyNotPass', message: 'The User has not pass qualify.' },
  Arrears: {
    status: 403,
    code: 'AccessDenied',
    message: 'The account is in arrears (欠费); the service is suspended until the balance is settled.',
  },
  TooManyRequests: { status: 429, code: 'TooManyRequests', message: 'Request rate exceeded. Please try again later.' },
};

/** A fault's answer: a known one from the table, any other code as a 403 of that code. */
export function accountError(name: string): BError {
  const known = B_ACCOUNT_ERRORS[name];
  return known
    ? new BError(known.status, known.code, known.message)
    : new BError(403, name, `The request was refused for this account (${name}).`);
}
