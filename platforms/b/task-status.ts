/**
 * `GET /v2/tasks/{taskId}` (MediaTaskDetail, §3.1) → the normalised upstream status. Pure, for table tests.
 *
 * The status enum is not fully documented (§3.1, §10 question 2), so it is read defensively at both levels: the
 * top-level `status` (official examples show SUCCESS and FINISHED; 3P clients see PENDING/RUNNING/SUCCESS/FAILED)
 * and the inner `videoGenerateTaskInfo.status` (lower case; one 3P client saw it say `succeeded`, with the media
 * filled in, before the top level flipped). Success needs a result link: a "success" without one is read as still
 * running, so the deadline — not an empty result — ends a job whose media never appear. B reports no progress
 * figure, and none is invented. Image tasks answer in the same shape (§2.5 [3P]).
 */
import type { FailureReason, UpstreamStatus } from '../../core/task';
import { retryable } from '../upstream-error';

const TOP_SUCCESS = new Set(['SUCCESS', 'FINISHED', 'SUCCEEDED']);
const TOP_FAILED = new Set(['FAILED', 'FAILURE', 'ERROR', 'CANCELLED', 'CANCELED']);
const TOP_PENDING = new Set(['PENDING', 'QUEUED', 'WAITING', 'CREATED', 'SUBMITTED']);
const INNER_SUCCESS = new Set(['success', 'succeeded', 'finished']);
const INNER_FAILED = new Set(['failed', 'failure', 'error', 'cancelled', 'canceled']);

/**
 * Failure messages that mean the content was refused. B's moderation codes are not documented (§5): a refused
 * task most likely ends FAILED with an `errMsg` [INF], so the words decide.
 */
const CONTENT_POLICY = /moderation|content (security|safety|policy)|sensitive|inappropriate|violat|nsfw|unsafe|porn|审核|违规|敏感|涉黄|涉政/i;
/** VE3.1's throttling answer ("Internal error. Please try again later.", not billed [OFF]) and its kin. */
const TRANSIENT = /internal error\. please try again|please try again later|try again later|too many requests|throttl|系统繁忙|请稍后重试/i;

export function classifyTaskFailure(message: string): { reason: FailureReason; resubmit?: boolean } {
  if (CONTENT_POLICY.test(message)) return { reason: 'content_policy' };
  // A job that failed for a transient reason upstream is worth a new job (and B does not bill it).
  if (TRANSIENT.test(message)) return { reason: 'upstream_unavailable', resubmit: true };
  return { reason: 'upstream_failed' };
}

/** `v` as a JSON object, or undefined (arrays and null are not objects here). */
export const asObject = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
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
    return { state: 'success', outputs: urls.map((url) => ({ url })) };
  }
  return { state: TOP_PENDING.has(top) && !['running', 'processing'].includes(inner) ? 'pending' : 'running' };
}
