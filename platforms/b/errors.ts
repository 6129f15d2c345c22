/**
 * B's error answers → classified UpstreamErrors. Pure, for table tests. An error is an HTTP status with
 * `{"requestId", "code", "message"}` (§5, [OFF] VOD 1m057yiso); the `x-bce-request-id` response header carries the
 * same id, quoted in our message so Baidu support can trace the call.
 *
 * - Credentials, permissions, real-name verification, service not activated: final `upstream_auth` (the worker's
 *   adapter decorator alerts the operator). Quota and balance codes are not documented [GUESS: an overdue account
 *   is refused with a 403 naming arrears]: final `insufficient_balance`.
 * - `InternalError`, VE3.1's "Internal error. Please try again later." (throttling, not billed [OFF]), 429, 5xx:
 *   retryable.
 * - `RequestExpired`: our signature was too old when it arrived; the retry signs afresh, so retryable. If it
 *   persists, the worker's clock is off by more than the 1800 s the signature lives.
 * - 404: final `upstream_failed`. On a task query it means the task is not (or no longer: 7 days, §3.1)
 *   queryable, which the adapter's poll turns into `upstream_lost` (isUnknownTask); the 404's code is a GUESS
 *   (`TaskNotFound`, from a third-party mock), so any 404 counts, except `InvalidVersion`, which names our URI.
 * - Anything else 4xx: the request is wrong — final `invalid_request`, or `content_policy` when it says so.
 */
import type { HttpResponse } from '../http';
import { final, parseRetryAfter, retryable, UpstreamError } from '../upstream-error';
import { classifyTaskFailure } from './task-status';

/** Baidu's common codes (and VOD's QualifyNotPass) that only an operator can fix. */
export const AUTH_CODES: ReadonlySet<string> = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AccessDenied',
  'QualifyNotPass',
  'OptInRequired',
  'InvalidHTTPAuthHeader',
]);
const TRANSIENT_CODES: ReadonlySet<string> = new Set(['InternalError', 'ServiceUnavailable', 'TooManyRequests', 'RequestExpired']);
const BALANCE = /arrear|overdue|balance|insufficient|suspend|欠费/i;
/** VE3.1's documented throttling answer, whatever code and status carry it [OFF]. */
export const VEO_THROTTLED = /internal error\. please try again later/i;

interface BErrorBody {
  requestId?: unknown;
  code?: unknown;
  message?: unknown;
}

export function classifyBError(res: Pick<HttpResponse, 'status' | 'headers' | 'body'>): UpstreamError {
  const body = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as BErrorBody;
  const s = res.status;
  const code = typeof body.code === 'string' && body.code !== '' ? body.code : `HTTP_${s}`;
  const detail = typeof body.message === 'string' && body.message !== '' ? body.message : `HTTP ${s}`;
  const header = res.headers['x-bce-request-id'];
  const requestId = typeof body.requestId === 'string' ? body.requestId : Array.isArray(header) ? header[0] : header;
  const message = `Platform B: ${detail} (${code}${requestId ? `, request ${requestId}` : ''})`;

  if (TRANSIENT_CODES.has(code) || VEO_THROTTLED.test(detail) || s === 408 || s === 429 || s >= 500) {
    const hint = code === 'RequestExpired' ? '; re-signed on retry — if it persists, check the worker clock' : '';
    return retryable(`${message}${hint}`, code, { httpStatus: s, retryAfterMs: parseRetryAfter(res.headers['retry-after']) });
  }
  if (s === 401 || s === 403 || AUTH_CODES.has(code)) {
    return final(BALANCE.test(`${code} ${detail}`) ? 'insufficient_balance' : 'upstream_auth', message, code, s);
  }
  if (s === 404) return final('upstream_failed', message, code, s);
  if (classifyTaskFailure(detail).reason === 'content_policy') return final('content_policy', message, code, s);
  return final('invalid_request', message, code, s);
}

/** A task query's answer that B does not know the task (unknown, or past the 7 days it keeps tasks queryable). */
export function isUnknownTask(err: unknown): err is UpstreamError {
  return err instanceof UpstreamError && err.opts.httpStatus === 404 && err.opts.code !== 'InvalidVersion';
}
