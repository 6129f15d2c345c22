/**
 * Reading platform V's replies: a task's status (docs/platforms/v.md#calls, with `expired` from the Corrections) and
 * error replies (HTTP status + `{"error": {"code", "message"}}`, Ark's common error codes). Pure, for table tests.
 */
import type { FailureReason, UpstreamStatus } from '../../core/task';
import type { HttpResponse } from '../http';
import { final, parseRetryAfter, retryable, UpstreamError } from '../upstream-error';
import type { ArkErrorBody, ArkTask } from './wire-types';

/** Failed-task codes that mean the content was refused: final, and the client's problem. */
const CONTENT_POLICY = /SensitiveContent|ContentSecurity|RiskDetection/i;

function failureReason(code: string | undefined): FailureReason {
  if (!code) return 'upstream_failed';
  if (CONTENT_POLICY.test(code)) return 'content_policy';
  if (/^(InvalidParameter|MissingParameter)/.test(code)) return 'invalid_request';
  return 'upstream_failed';
}

/** V task → normalised status. */
export function fromVTask(task: ArkTask): UpstreamStatus {
  switch (task.status) {
    case 'queued':
      return { state: 'pending' };
    case 'running':
      return { state: 'running' };
    case 'succeeded': {
      const url = task.content?.video_url;
      const extras: Record<string, unknown> = { video_url: url, duration: task.duration, ratio: task.ratio, usage: task.usage };
      if (task.content?.last_frame_url) extras.last_frame_url = task.content.last_frame_url;
      // Ark bills Seedance by the output tokens it reports (docs/platforms/v.md#calls: usage.completion_tokens).
      const tokens = task.usage?.completion_tokens;
      return { state: 'success', outputs: url ? [{ url }] : [], extras, ...(typeof tokens === 'number' ? { usage: { tokens } } : {}) };
    }
    case 'failed': {
      const code = task.error?.code;
      return { state: 'failed', failure: { reason: failureReason(code), message: task.error?.message ?? 'Generation failed', code } };
    }
    case 'cancelled':
      return {
        state: 'failed',
        failure: { reason: 'upstream_failed', message: 'The job was cancelled on the platform', code: 'cancelled' },
      };
    case 'expired':
      // The job outlived its execution_expires_after (the task's deadline, or an offline job's deadline_seconds) and
      // the platform stopped it: final, nothing to wait for, and not billed (docs/platforms/v.md#the-offline-tier).
      return {
        state: 'failed',
        failure: {
          reason: 'expired',
          message: 'The deadline passed before the platform ran the job: it stopped it unfinished (status expired); nothing was billed',
          code: 'expired',
        },
      };
    default:
      throw retryable(`Platform V returned an unknown task status '${String((task as { status: unknown }).status)}'`);
  }
}

/**
 * Ark's 429 codes (HTTP 429 `TooManyRequests`), from its error-code table (volcengine.com/docs/82379/1299023, as
 * quoted in docs/platforms/v.md#errors). A 429 is throttling — wait and retry — unless its exact code
 * says otherwise; codes are compared whole, never by prefix, and a 429 with a code not listed here (or none: a
 * proxy in between) is throttling too, so a new throttling code never fails a paid-for task.
 */
const V_THROTTLING_429 = new Set([
  'RateLimitExceeded.EndpointRPMExceeded',
  'RateLimitExceeded.EndpointTPMExceeded',
  'RateLimitExceeded.EndpointFlexTPMExceeded',
  'ModelAccountRpmRateLimitExceeded',
  'ModelAccountTpmRateLimitExceeded',
  'ModelAccountIpmRateLimitExceeded',
  'APIAccountRpmRateLimitExceeded',
  'AccountRateLimitExceeded',
  // "Retry-After may be sent" for these two: honoured (activities/activity-failure.ts).
  'RequestBurstTooFast',
  'ServerOverloaded',
  // "the maximum concurrency for the current recharge amount": fewer at once — a retry succeeds once one of the
  // account's running jobs ends, so it is throttling, not money.
  'InflightBatchsizeExceeded',
]);

/** The account's concurrency limit (capacity/slots.ts learns the account's limit from it). */
export const V_CONCURRENCY_429 = 'InflightBatchsizeExceeded';

/**
 * "Exceeded the 5-hour/weekly/monthly usage quota; it will reset at {reset_time}" (also: too many queued tasks):
 * retried like throttling (Retry-After when sent, else the submit's backoff, within the task's deadline), and the
 * operator is told — a notice, not the "out of money" alert, since the account is neither overdue nor closed.
 */
export const V_QUOTA_429 = 'QuotaExceeded';

/**
 * "The account's own inference limit (Safe Experience Mode) paused the model": a spending cap the account set on
 * itself. Retrying the same account cannot lift it — only the operator can, in the console — and no job was
 * created: a final `insufficient_balance` refusal (the account may not spend more), which takes the account out of
 * the rotation with the operator alert (activities/accounts.ts); the task goes to another account or waits.
 */
export const V_SPEND_CAP_429 = 'SetLimitExceeded';

/** 403 codes that mean money (Ark: overdue balance, service suspended for arrears); other 403s are the account. */
export const V_MONEY_403 = new Set(['AccountOverdueError', 'OperationDenied.ServiceOverdue']);

/** V error reply → classified UpstreamError (docs/platforms/v.md#errors and #corrections). */
export function classifyVError(res: Pick<HttpResponse, 'status' | 'headers' | 'body'>): UpstreamError {
  const err = (res.body as ArkErrorBody | undefined)?.error;
  const code = err?.code || `HTTP_${res.status}`;
  const message = `Platform V: ${err?.message ?? `HTTP ${res.status}`}`;
  const s = res.status;
  const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
  if (s === 429) {
    if (code === V_SPEND_CAP_429) return final('insufficient_balance', message, code, s);
    if (code === V_QUOTA_429) return retryable(message, code, { httpStatus: s, retryAfterMs, operatorNotice: true });
    // A documented throttling code, or one Ark added since (or none: a proxy in between): throttling either way;
    // an unknown code is also told to the operator, once, so the table above learns it.
    return retryable(message, code, {
      httpStatus: s,
      retryAfterMs,
      ...(V_THROTTLING_429.has(code) ? {} : { operatorNotice: true }),
      ...(code === V_CONCURRENCY_429 ? { overCapacity: true } : {}),
    });
  }
  // "The request targeted an endpoint that is currently closed or temporarily unavailable": retry later.
  if (code === 'InvalidEndpoint.ClosedEndpoint') return retryable(message, code, { httpStatus: s, retryAfterMs });
  if (s === 408 || s === 409 || s >= 500) return retryable(message, code, { httpStatus: s, retryAfterMs });
  if (s === 401) return final('upstream_auth', message, code, s);
  // Money (V_MONEY_403) or the account itself (InvalidAccountStatus, AccessDenied…): the operator must act.
  if (s === 403) return final(V_MONEY_403.has(code) ? 'insufficient_balance' : 'upstream_auth', message, code, s);
  if (CONTENT_POLICY.test(code)) return final('content_policy', message, code, s);
  // The model is not opened on this account, or the deployment's model id is wrong (PLATFORM_V_MODELS_FILE).
  if (s === 404 && /Model|Endpoint/i.test(code)) return final('upstream_auth', message, code, s);
  return final('invalid_request', message, code, s);
}
