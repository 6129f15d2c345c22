/**
 * Platform V's errors: HTTP status + `{"error":{"code","message","param","type"}}` (upstreams.md "Platform V"),
 * with the codes, types and messages of Ark's common error table (BytePlus ModelArk "Common Error Codes",
 * docs.byteplus.com/en/docs/ModelArk/1299023, mirrored by Volcengine's 火山方舟 错误码 page). Messages end in
 * "Request id: …" as Ark's do.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { FaultRenderer } from '../host';

export class VError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param = '',
  ) {
    super(message);
  }
}

const TYPES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  429: 'TooManyRequests',
  500: 'InternalServiceError',
  503: 'ServiceUnavailable',
};

export function requestId(): string {
  return `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}${randomBytes(12).toString('hex')}`;
}

export function sendVError(ctx: Context, err: VError): void {
  ctx.status = err.status;
  ctx.body = { error: { code: err.code, message: `${err.message} Request id: ${requestId()}`, param: err.param, type: TYPES[err.status] ?? 'InternalServiceError' } };
}

export const invalidParameter = (param: string, why: string) => new VError(400, 'InvalidParameter', `The parameter \`${param}\` specified in the request is not valid: ${why}.`, param);
export const missingParameter = (param: string) => new VError(400, 'MissingParameter', `The request failed because it is missing one or multiple required parameters: \`${param}\`.`, param);

/**
 * Account- and endpoint-level refusals a test can trigger (`[sim:reject=CODE]`, POST /_sim/v/account-faults).
 * Statuses and wording from Ark's common error table; 429 covers both a true rate limit (retry later) and spend or
 * quota limits (QuotaExceeded, SetLimitExceeded: the operator must act, retrying does not help).
 */
export const ACCOUNT_ERRORS: Readonly<Record<string, { status: number; message: string }>> = {
  AuthenticationError: { status: 401, message: 'The API key or AK/SK in the request is missing or invalid.' },
  AccountOverdueError: { status: 403, message: 'The request failed because your account has an overdue balance.' },
  AccessDenied: { status: 403, message: 'The request failed because you do not have access to the requested resource.' },
  'InvalidEndpointOrModel.NotFound': { status: 404, message: 'The model or endpoint does not exist or you do not have access to it.' },
  ModelNotOpen: { status: 404, message: 'Your account has not activated the model service. Please activate the model service in the Ark console.' },
  'InvalidEndpoint.ClosedEndpoint': { status: 400, message: 'The request targeted an endpoint that is currently closed or temporarily unavailable.' },
  'RateLimitExceeded.EndpointRPMExceeded': { status: 429, message: 'The request has exceeded the RPM limit of the endpoint. Please retry later.' },
  'RateLimitExceeded.EndpointTPMExceeded': { status: 429, message: 'The request has exceeded the TPM limit of the endpoint. Please retry later.' },
  ServerOverloaded: { status: 429, message: 'The service is currently unable to handle additional requests due to server overload. Please retry later.' },
  QuotaExceeded: { status: 429, message: 'The request has exceeded the quota of your account. Please check your quota or raise it in the console.' },
  SetLimitExceeded: { status: 429, message: 'Your account has reached the inference limit you set (safe experience mode). Raise or disable the limit in the console.' },
  InputTextSensitiveContentDetected: { status: 400, message: 'The request failed because the input text may contain sensitive information.' },
  InputImageSensitiveContentDetected: { status: 400, message: 'The request failed because the input image may contain sensitive information.' },
  InternalServiceError: { status: 500, message: 'The service encountered an unexpected internal error.' },
};

export function accountError(code: string): VError {
  const known = ACCOUNT_ERRORS[code];
  return new VError(known?.status ?? 400, code, known?.message ?? `The request was refused (${code}).`);
}

/** Injected faults in V's shape: 429 a true rate limit (with Retry-After when the test gives one), 5xx server errors. */
export const renderVFault: FaultRenderer = (ctx, status, retryAfter) => {
  if (status === 429) {
    if (retryAfter !== undefined) ctx.set('Retry-After', String(retryAfter));
    sendVError(ctx, accountError('RateLimitExceeded.EndpointRPMExceeded'));
  } else if (status === 503) {
    sendVError(ctx, new VError(503, 'ServiceUnavailable', 'The service is temporarily unavailable. Please retry later.'));
  } else {
    sendVError(ctx, accountError('InternalServiceError'));
  }
};
