/**
 * A start the task path refused (tasks/refusal.ts), as the API answers it: the HTTP status and error type that fit
 * each kind of refusal, in the one error envelope, with its field, code, task and Retry-After.
 */
import type { RefusalKind, TaskRefused } from '../tasks/refusal';
import { ApiError, type ErrorType } from './api-error';

const HTTP: Record<RefusalKind, { status: number; type: ErrorType }> = {
  invalid_request: { status: 400, type: 'invalid_request_error' },
  not_allowed: { status: 403, type: 'permission_error' },
  payment_required: { status: 402, type: 'invalid_request_error' },
  too_many: { status: 429, type: 'rate_limit_error' },
  conflict: { status: 409, type: 'conflict_error' },
};

export function refusalAsApiError(refusal: TaskRefused): ApiError {
  const { status, type } = HTTP[refusal.kind];
  const { param, code, taskId, retryAfterSeconds, extra } = refusal.details;
  return new ApiError(status, type, refusal.message, {
    code,
    ...(param !== undefined ? { param } : {}),
    ...(taskId !== undefined ? { taskId } : {}),
    ...(retryAfterSeconds !== undefined ? { headers: { 'Retry-After': String(retryAfterSeconds) } } : {}),
    ...(extra !== undefined ? { extra } : {}),
  });
}
