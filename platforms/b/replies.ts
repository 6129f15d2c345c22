/**
 * Platform B's replies, read (pure, for table tests): task answers below, error answers further down.
 *
 * `GET /v2/tasks/{taskId}` (MediaTaskDetail, docs/platforms/b.md#task-query) → the normalised upstream status.
 *
 * The status enum is not fully documented (docs/platforms/b.md#task-query, #unconfirmed), so it is read defensively at both levels: the
 * top-level `status` (official examples show SUCCESS and FINISHED; 3P clients see PENDING/RUNNING/SUCCESS/FAILED)
 * and the inner `videoGenerateTaskInfo.status` (lower case; one 3P client saw it say `succeeded`, with the media
 * filled in, before the top level flipped). Success needs a result link: a "success" without one is read as still
 * running, so the deadline — not an empty result — ends a job whose media never appear. B reports no progress
 * figure, and none is invented. Image tasks answer in the same shape (docs/platforms/b.md#images [3P]).
 */
import type { FailureReason, ReportedUsage, UpstreamStatus } from '../../core/task';
import type { HttpResponse } from '../http';
import { final, parseRetryAfter, retryable, UpstreamError } from '../upstream-error';
import type { BErrorBody } from './wire-types';

const TOP_SUCCESS = new Set(['SUCCESS', 'FINISHED', 'SUCCEEDED']);
const TOP_FAILED = new Set(['FAILED', 'FAILURE', 'ERROR', 'CANCELLED', 'CANCELED']);
const TOP_PENDING = new Set(['PENDING', 'QUEUED', 'WAITING', 'CREATED', 'SUBMITTED']);
const INNER_SUCCESS = new Set(['success', 'succeeded', 'finished']);
const INNER_FAILED = new Set(['failed', 'failure', 'error', 'cancelled', 'canceled']);

/**
 * Failure messages that mean the content was refused. B's moderation codes are not documented (docs/platforms/b.md#errors): a refused
 * task most likely ends FAILED with an `errMsg` [INF], so the words decide.
 */
const CONTENT_POLICY =
  /moderation|content (security|safety|policy)|sensitive|inappropriate|violat|nsfw|unsafe|porn|审核|违规|敏感|涉黄|涉政/i;
/** VE3.1's throttling answer ("Internal error. Please try again later.", not billed [OFF]) and its kin. */
const TRANSIENT = /internal error\. please try again|please try again later|try again later|too many requests|throttl|系统繁忙|请稍后重试/i;

export function classifyTaskFailure(message: string): { reason: FailureReason; resubmit?: boolean } {
  if (CONTENT_POLICY.test(message)) return { reason: 'content_policy' };
  // A job that failed for a transient reason upstream is worth a new job (and B does not bill it).
  if (TRANSIENT.test(message)) return { reason: 'upstream_unavailable', resubmit: true };
  return { reason: 'upstream_failed' };
}

/** `v` as a JSON object, or undefined (arrays and null are not objects here). */
export const asObject = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const asString = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** `videoGenerateTaskInfo` (also for images [3P]); `imageGenerateTaskInfo` is a 3P client's fallback, unverified. */
function taskInfo(detail: Record<string, unknown>): Record<string, unknown> {
  return asObject(detail.videoGenerateTaskInfo) ?? asObject(detail.imageGenerateTaskInfo) ?? {};
}

/** `videoGenerateTaskOutput.mediaBasicInfos[].source.sourceUrl`, in order: with `n` images, n links. */
export function resultUrls(detail: unknown): string[] {
  const output = asObject(taskInfo(asObject(detail) ?? {}).videoGenerateTaskOutput);
  const infos: unknown[] = Array.isArray(output?.mediaBasicInfos) ? output.mediaBasicInfos : [];
  return infos.flatMap((m) => {
    const url = asString(asObject(asObject(m)?.source)?.sourceUrl);
    return url ? [url] : [];
  });
}

/**
 * What B reports it made, for the task's final cost: the seconds of its videos
 * (`mediaBasicInfos[].sourceMetadata.durationInSecond`, docs/platforms/b.md#task-query [3P]), or the number of images.
 * Undefined when the answer says neither; the cost then follows the request.
 */
export function reportedUsage(detail: unknown): ReportedUsage | undefined {
  const output = asObject(taskInfo(asObject(detail) ?? {}).videoGenerateTaskOutput);
  const infos = (Array.isArray(output?.mediaBasicInfos) ? output.mediaBasicInfos : []).map(asObject).filter((m) => m !== undefined);
  const seconds = infos
    .map((m) => asObject(m.sourceMetadata)?.durationInSecond)
    .filter((s): s is number => typeof s === 'number' && s >= 0);
  if (seconds.length > 0) return { seconds: seconds.reduce((a, b) => a + b, 0) };
  const images = infos.filter((m) => m.mediaType === 'image').length;
  return images > 0 ? { images } : undefined;
}

export function fromBTaskDetail(detail: unknown): UpstreamStatus {
  const d = asObject(detail);
  if (!d || asString(d.taskId) === undefined) throw retryable('Platform B answered a task query without a task', 'MALFORMED_REPLY');
  const info = taskInfo(d);
  const top = String(d.status ?? '').toUpperCase();
  const inner = String(info.status ?? '').toLowerCase();

  if (TOP_FAILED.has(top) || INNER_FAILED.has(inner)) {
    const message = asString(info.errMsg) ?? asString(d.errMsg) ?? `The job ended ${top || inner} on platform B without a reason`;
    const code = asString(info.errCode) ?? asString(d.errorCode) ?? (top || inner.toUpperCase());
    return { state: 'failed', failure: { ...classifyTaskFailure(message), message, code } };
  }
  const urls = resultUrls(d);
  if ((TOP_SUCCESS.has(top) || INNER_SUCCESS.has(inner)) && urls.length > 0) {
    const usage = reportedUsage(d);
    return { state: 'success', outputs: urls.map((url) => ({ url })), ...(usage ? { usage } : {}) };
  }
  return { state: TOP_PENDING.has(top) && !['running', 'processing'].includes(inner) ? 'pending' : 'running' };
}

// ------------------------------------------------------------------------------------------ error answers

/**
 * B's error answers → classified UpstreamErrors. Pure, for table tests. An error is an HTTP status with
 * `{"requestId", "code", "message"}` (docs/platforms/b.md#errors, [OFF] VOD 1m057yiso); the `x-bce-request-id` response header carries the
 * same id, quoted in our message so Baidu support can trace the call.
 *
 * - Credentials, permissions, real-name verification, service not activated: final `upstream_auth` (the worker's
 *   adapter decorator alerts the operator). Quota and balance codes are not documented [GUESS: an overdue account
 *   is refused with a 403 naming arrears]: final `insufficient_balance`.
 * - `InternalError`, VE3.1's "Internal error. Please try again later." (throttling, not billed [OFF]), 429, 5xx:
 *   retryable.
 * - `RequestExpired`: our signature was too old when it arrived; the retry signs afresh, so retryable. If it
 *   persists, the worker's clock is off by more than the 1800 s the signature lives.
 * - 404: final `upstream_failed`. On a task query it means the task is not (or no longer: 7 days, docs/platforms/b.md#task-query)
 *   queryable, which the adapter's poll turns into `upstream_lost` (isUnknownTask); the 404's code is a GUESS
 *   (`TaskNotFound`, from a third-party mock), so any 404 counts, except `InvalidVersion`, which names our URI.
 * - Anything else 4xx: the request is wrong — final `invalid_request`, or `content_policy` when it says so.
 */
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
