/**
 * The one error envelope: `{"error": {"message", "type", "param", "code"}}` for every non-2xx answer, with the
 * HTTP status that fits (design §2.9). Never a stack trace, never an HTML page.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'generation_error'
  | 'upstream_error'
  | 'timeout_error'
  | 'service_unavailable_error'
  | 'api_error';

export interface ErrorBody {
  error: { message: string; type: ErrorType; param: string | null; code: string | null; task_id?: string; [more: string]: unknown };
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
    readonly opts: {
      param?: string;
      code?: string;
      headers?: Record<string, string>;
      taskId?: string;
      extra?: Record<string, unknown>;
    } = {},
  ) {
    super(message);
  }

  toBody(): ErrorBody {
    const body: ErrorBody = {
      error: { message: this.message, type: this.type, param: this.opts.param ?? null, code: this.opts.code ?? null },
    };
    if (this.opts.taskId) body.error.task_id = this.opts.taskId;
    if (this.opts.extra) Object.assign(body.error, this.opts.extra);
    return body;
  }
}

export const invalidRequest = (message: string, param?: string, code = 'invalid_value') =>
  new ApiError(400, 'invalid_request_error', message, { param, code });

export const unauthorized = () =>
  new ApiError(401, 'authentication_error', 'Missing or invalid API key. Send "Authorization: Bearer <API_KEY>".', {
    code: 'invalid_api_key',
    headers: { 'WWW-Authenticate': 'Bearer' },
  });

export const taskNotFound = (taskId: string) =>
  new ApiError(404, 'not_found_error', `No task with id '${taskId}'`, { param: 'task_id', code: 'task_not_found' });

export const temporalUnavailable = () =>
  new ApiError(503, 'service_unavailable_error', 'The task store (Temporal) is unavailable; try again shortly', {
    code: 'temporal_unavailable',
    headers: { 'Retry-After': '5' },
  });
