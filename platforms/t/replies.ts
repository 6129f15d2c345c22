/**
 * Reading platform T's replies: the envelope (every reply is HTTP 200, the outcome is in `Response.Error`), the
 * error codes, and a task's status (DescribeTaskDetail: a finished task can still have failed, `ErrCode` ≠ 0).
 * Pure, for table tests.
 */
import type { Kind, UpstreamStatus } from '../../core/task';
import type { HttpResponse } from '../http';
import { final, retryable, UpstreamError } from '../upstream-error';
import type { AigcImageTask, AigcVideoTask, DescribeTaskDetailResponse } from './wire-types';

/** Task failure codes that mean the content was refused: final, and the client's problem. `Voilation` is T's spelling. */
const CONTENT_POLICY = /ContentModerationFailed|V(?:oi|io)lationContent/i;

/**
 * Task-level ErrCodeExt values that say nothing about the request (AigcVideoTask.ErrCodeExt: "RequestLimitExceeded：
 * 调用超出并发限制" — the account's concurrency, one running task by default — and "FailedOperation：模型任务堆积",
 * a model backlog): the job is submitted again (core/task.ts `failure.resubmit`), not reported as final.
 */
const TRANSIENT_TASK_FAILURE = /^(RequestLimitExceeded|FailedOperation)(\.|$)/;
/** The account's concurrency limit: the gateway lowers the account's learned limit (capacity/slots.ts). */
const OVER_CAPACITY = /^RequestLimitExceeded(\.|$)/;
/** Balance codes can come as FailedOperation sub-codes: those need the operator, not a re-submission. */
const BALANCE = /Balance|Arrears|Overdue/i;

function clampProgress(p: unknown): number | undefined {
  return typeof p === 'number' && Number.isFinite(p) ? Math.min(100, Math.max(0, Math.round(p))) : undefined;
}

/** Why a finished task failed, from its ErrCodeExt. */
function taskFailure(task: AigcVideoTask | AigcImageTask): NonNullable<UpstreamStatus['failure']> {
  const code = task.ErrCodeExt || String(task.ErrCode);
  const message = task.Message || `Generation failed (${code})`;
  if (CONTENT_POLICY.test(code)) return { reason: 'content_policy', message, code };
  if (BALANCE.test(code)) return { reason: 'insufficient_balance', message, code };
  if (TRANSIENT_TASK_FAILURE.test(code))
    return { reason: 'upstream_unavailable', message, code, resubmit: true, ...(OVER_CAPACITY.test(code) ? { overCapacity: true } : {}) };
  if (/^(InvalidParameter|MissingParameter)/.test(code)) return { reason: 'invalid_request', message, code };
  return { reason: 'upstream_failed', message, code };
}

/** The DescribeTaskDetail fields this adapter reads. */
export type TTaskDetail = Pick<DescribeTaskDetailResponse, 'Status' | 'AigcVideoTask' | 'AigcImageTask'>;

/** DescribeTaskDetail → normalised status (docs/platforms/t.md). */
export function fromTTaskDetail(kind: Kind, detail: TTaskDetail): UpstreamStatus {
  // "注意：此字段可能返回 null": the SDK's types say optional, the wire may say null.
  const task = (kind === 'video' ? detail.AigcVideoTask : detail.AigcImageTask) ?? undefined;
  const progress = clampProgress(task?.Progress);
  switch (detail.Status) {
    case 'WAITING':
      return { state: 'pending' };
    case 'PROCESSING':
      return progress === undefined ? { state: 'running' } : { state: 'running', progress };
    case 'FINISH': {
      if (!task) throw retryable(`Platform T finished the task but sent no ${kind === 'video' ? 'AigcVideoTask' : 'AigcImageTask'}`);
      // FINISH only says the task stopped: ErrCode (and ErrCodeExt, "空字符串表示成功") says whether it succeeded.
      if ((task.ErrCode !== undefined && task.ErrCode !== 0) || (task.ErrCodeExt !== undefined && task.ErrCodeExt !== '')) {
        return { state: 'failed', failure: taskFailure(task) };
      }
      const urls = (task.Output?.FileInfos ?? []).map((f) => f.FileUrl).filter((u): u is string => typeof u === 'string' && u.length > 0);
      if (urls.length === 0) {
        return {
          state: 'failed',
          failure: { reason: 'upstream_failed', message: 'The platform finished the task without any output file', code: 'NoOutput' },
        };
      }
      return { state: 'success', progress: 100, outputs: urls.map((url) => ({ url })) };
    }
    case 'ABORTED':
      return {
        state: 'failed',
        failure: {
          reason: 'upstream_failed',
          message: task?.Message || 'The task was aborted on the platform',
          code: task?.ErrCodeExt || 'ABORTED',
        },
      };
    default:
      throw retryable(`Platform T returned an unknown task status '${String(detail.Status)}'`);
  }
}

/** `Response.Error` → classified UpstreamError (docs/platforms/t.md#calls). */
export function classifyTError(code: string, message: string): UpstreamError {
  const text = `Platform T: ${message || code}`;
  // RequestLimitExceeded: the account's request rate (answered inside HTTP 200, nothing created): another account may take it.
  if (/^RequestLimitExceeded/.test(code)) return retryable(text, code, { throttled: true });
  if (/^InternalError/.test(code)) return retryable(text, code);
  // Balance first: it can come as an UnauthorizedOperation or FailedOperation sub-code.
  if (BALANCE.test(code)) return final('insufficient_balance', text, code);
  if (/^(AuthFailure|UnauthorizedOperation)/.test(code)) return final('upstream_auth', text, code);
  if (CONTENT_POLICY.test(code)) return final('content_policy', text, code);
  if (/^(InvalidParameter|MissingParameter|UnknownParameter)/.test(code)) return final('invalid_request', text, code);
  return final('upstream_failed', text, code);
}

/** Any T reply → the `Response` object, or the error to throw. */
export function readTResponse(res: Pick<HttpResponse, 'status' | 'body'>): Record<string, unknown> | UpstreamError {
  if (res.status !== 200) {
    // T itself always answers 200; anything else came from a proxy or load balancer in between.
    const s = res.status;
    const text = `Platform T: HTTP ${s}`;
    return s === 408 || s === 429 || s >= 500
      ? retryable(text, `HTTP_${s}`, { httpStatus: s })
      : final('upstream_failed', text, `HTTP_${s}`, s);
  }
  const response = (res.body as { Response?: unknown } | undefined)?.Response;
  if (typeof response !== 'object' || response === null)
    return retryable('Platform T sent a reply without a Response object', 'MalformedResponse');
  const error = (response as { Error?: { Code?: unknown; Message?: unknown } }).Error;
  if (error) return classifyTError(String(error.Code ?? 'UnknownError'), String(error.Message ?? ''));
  return response as Record<string, unknown>;
}
