/**
 * Reading platform V's replies: a task's status (upstreams.md "Get", with `expired` from the Corrections) and
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
      return { state: 'success', outputs: url ? [{ url }] : [], extras };
    }
    case 'failed': {
      const code = task.error?.code;
      return { state: 'failed', failure: { reason: failureReason(code), message: task.error?.message ?? 'Generation failed', code } };
    }
    case 'cancelled':
      return { state: 'failed', failure: { reason: 'upstream_failed', message: 'The job was cancelled on the platform', code: 'cancelled' } };
    case 'expired':
      // The job outlived its execution_expires_after (set from the task's deadline) and the platform stopped it:
      // final, nothing to wait for.
      return {
        state: 'failed',
        failure: { reason: 'upstream_failed', message: 'The platform stopped the job because it did not finish within its execution window (expired)', code: 'expired' },
      };
    default:
      throw retryable(`Platform V returned an unknown task status '${String((task as { status: unknown }).status)}'`);
  }
}

/** A true rate limit (retry later): Ark's `RateLimitExceeded.*` and `ServerOverloaded`. */
const RATE_LIMIT = /^(RateLimitExceeded|ServerOverloaded)(\.|$)/;

/** V error reply → classified UpstreamError (upstreams.md "Errors" and Corrections). */
export function classifyVError(res: Pick<HttpResponse, 'status' | 'headers' | 'body'>): UpstreamError {
  const err = (res.body as ArkErrorBody | undefined)?.error;
  const code = err?.code || `HTTP_${res.status}`;
  const message = `Platform V: ${err?.message ?? `HTTP ${res.status}`}`;
  const s = res.status;
  const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
  if (s === 429) {
    // 429 also covers spend and quota limits (QuotaExceeded, SetLimitExceeded…): retrying for an hour does not
    // help, the operator must act (the adapter decorator alerts on insufficient_balance). A 429 without a code came
    // from something in between: a rate limit.
    if (!err?.code || RATE_LIMIT.test(code)) return retryable(message, code, { httpStatus: s, retryAfterMs });
    return final('insufficient_balance', message, code, s);
  }
  // "The request targeted an endpoint that is currently closed or temporarily unavailable": retry later.
  if (/^InvalidEndpoint\.ClosedEndpoint/.test(code)) return retryable(message, code, { httpStatus: s, retryAfterMs });
  if (s === 408 || s === 409 || s >= 500) return retryable(message, code, { httpStatus: s, retryAfterMs });
  if (s === 401) return final('upstream_auth', message, code, s);
  if (s === 403) return final(/Overdue|Balance/i.test(code) ? 'insufficient_balance' : 'upstream_auth', message, code, s);
  if (CONTENT_POLICY.test(code)) return final('content_policy', message, code, s);
  // The model is not opened on this account, or the deployment's model id is wrong (PLATFORM_V_MODELS_FILE).
  if (s === 404 && /Model|Endpoint/i.test(code)) return final('upstream_auth', message, code, s);
  return final('invalid_request', message, code, s);
}
