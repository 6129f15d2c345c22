/**
 * Every non-2xx answer in the one envelope. A task the start path refused (tasks/refusal.ts) is answered as its kind
 * says (api/task-refusals.ts). Errors from Koa's own machinery (body parser: 400 malformed JSON,
 * 413 too large; router: 405/501) are translated; anything unexpected is a 500 with no detail, logged here.
 */
import type { Next } from 'koa';
import { ApiError, temporalUnavailable, type ErrorType } from '../api-error';
import type { AppContext } from '../context';
import { TaskRefused } from '../../tasks/refusal';
import { refusalAsApiError } from '../task-refusals';

const TYPES_BY_STATUS: Record<number, ErrorType> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  409: 'conflict_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
};

const CODES_BY_STATUS: Record<number, string> = {
  400: 'invalid_json',
  404: 'route_not_found',
  405: 'method_not_allowed',
  413: 'body_too_large',
  415: 'unsupported_media_type',
  501: 'method_not_allowed',
};

/** gRPC UNAVAILABLE / DEADLINE_EXCEEDED from the Temporal client: the task store is unreachable. */
function isTemporalUnavailable(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (code === 14 || code === 4) return true;
    if ((e as Error).name === 'ServiceError' && /UNAVAILABLE|connect/i.test((e as Error).message)) return true;
  }
  return false;
}

function fromHttpError(err: { status: number; expose?: boolean; message: string; headers?: Record<string, string> }): ApiError {
  let status = err.status === 501 ? 405 : err.status;
  let message = err.expose ? err.message : 'Request failed';
  if (status === 400 && /json|unexpected|token/i.test(err.message)) message = 'The request body is not valid JSON';
  if (status === 413) message = 'The request body is larger than 1 MiB';
  if (status === 405) message = 'Method not allowed on this path';
  if (status >= 500) {
    status = 500;
    message = 'Internal error';
  }
  return new ApiError(status, TYPES_BY_STATUS[status] ?? 'api_error', message, {
    code: CODES_BY_STATUS[status],
    headers: err.headers,
  });
}

export function errorEnvelope() {
  return async (ctx: AppContext, next: Next) => {
    let apiErr: ApiError | undefined;
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        apiErr = new ApiError(404, 'not_found_error', `No route for ${ctx.method} ${ctx.path}`, { code: 'route_not_found' });
      }
    } catch (err) {
      if (err instanceof ApiError) {
        apiErr = err;
      } else if (err instanceof TaskRefused) {
        apiErr = refusalAsApiError(err);
      } else if (typeof (err as { status?: unknown }).status === 'number' && (err as { status: number }).status < 500) {
        apiErr = fromHttpError(err as { status: number; message: string; expose?: boolean; headers?: Record<string, string> });
      } else if (isTemporalUnavailable(err)) {
        ctx.state.log.error({ err }, 'Temporal unavailable');
        apiErr = temporalUnavailable();
      } else {
        ctx.state.log.error({ err }, 'Unhandled error');
        apiErr = new ApiError(500, 'api_error', 'Internal error', { code: 'internal_error' });
      }
    }
    if (!apiErr) return;
    ctx.status = apiErr.status;
    for (const [k, v] of Object.entries(apiErr.opts.headers ?? {})) ctx.set(k, v);
    ctx.body = apiErr.toBody();
  };
}
