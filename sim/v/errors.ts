/**
 * Platform V's errors: HTTP status + `{"error":{"code","message","param","type"}}` (docs/platforms/v.md#calls),
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
  ctx.body = {
    error: {
      code: err.code,
      message: `${err.message} Request id: ${requestId()}`,
      param: err.param,
      type: TYPES[err.status] ?? 'InternalServiceError',
    },
  };
}

export const invalidParameter = (param: string, why: string) =>
  new VError(400, 'InvalidParameter', `The parameter \`${param}\` specified in the request is not valid: ${why}.`, param);
export const missingParameter = (param: string) =>
  new VError(400, 'MissingParameter', `The request failed because it is missing one or multiple required parameters: \`${param}\`.`, param);

/**
 * Account- and endpoint-level refusals a test can trigger (`[sim:reject=CODE]`, `[sim:submit=429:CODE xN]`,
 * POST /_sim/v/account-faults). Statuses and wording from Ark's common error table (docs/platforms/v.md#errors): HTTP 429 `TooManyRequests` is mostly throttling (endpoint, per-model and account RPM/TPM/IPM limits,
 * burst protection, overload, in-flight concurrency), plus the usage quota (`QuotaExceeded`, resets later) and the
 * account's own inference limit (`SetLimitExceeded`); money and account state come as 403. `retryAfterSeconds`:
 * the table says `Retry-After` may be sent with these (burst protection, overload); the simulator sends it.
 */
export const ACCOUNT_ERRORS: Readonly<Record<string, { status: number; message: string; retryAfterSeconds?: number }>> = {
  AuthenticationError: { status: 401, message: 'The API key or AK/SK in the request is missing or invalid.' },
  AccountOverdueError: { status: 403, message: 'The request failed because your account has an overdue balance.' },
  'OperationDenied.ServiceOverdue': { status: 403, message: 'The service is suspended because your account has an overdue payment.' },
  InvalidAccountStatus: { status: 403, message: 'The request failed because the status of your account is abnormal.' },
  AccessDenied: { status: 403, message: 'The request failed because you do not have access to the requested resource.' },
  'InvalidEndpointOrModel.NotFound': { status: 404, message: 'The model or endpoint does not exist or you do not have access to it.' },
  ModelNotOpen: {
    status: 404,
    message: 'Your account has not activated the model service. Please activate the model service in the Ark console.',
  },
  'InvalidEndpoint.ClosedEndpoint': {
    status: 400,
    message: 'The request targeted an endpoint that is currently closed or temporarily unavailable.',
  },
  'RateLimitExceeded.EndpointRPMExceeded': {
    status: 429,
    message: 'The request has exceeded the RPM limit of the endpoint. Please retry later.',
  },
  'RateLimitExceeded.EndpointTPMExceeded': {
    status: 429,
    message: 'The request has exceeded the TPM limit of the endpoint. Please retry later.',
  },
  'RateLimitExceeded.EndpointFlexTPMExceeded': {
    status: 429,
    message: 'The request has exceeded the flex TPM limit of the endpoint. Please retry later.',
  },
  ModelAccountRpmRateLimitExceeded: {
    status: 429,
    message: 'The request has exceeded the RPM limit of your account for this model. Please retry later.',
  },
  ModelAccountTpmRateLimitExceeded: {
    status: 429,
    message: 'The request has exceeded the TPM limit of your account for this model. Please retry later.',
  },
  ModelAccountIpmRateLimitExceeded: {
    status: 429,
    message: 'The request has exceeded the IPM limit of your account for this model. Please retry later.',
  },
  APIAccountRpmRateLimitExceeded: {
    status: 429,
    message:
      'The request has exceeded the RPM limit of your account. Please reduce your request frequency, wait a short moment, and retry.',
  },
  AccountRateLimitExceeded: {
    status: 429,
    message:
      'The request has exceeded the rate limit of your account. Please reduce your request frequency, wait a short moment, and retry.',
  },
  RequestBurstTooFast: {
    status: 429,
    message: 'The request rate increased too fast (burst protection). Please retry later.',
    retryAfterSeconds: 4,
  },
  ServerOverloaded: {
    status: 429,
    message: 'The service is currently unable to handle additional requests due to server overload. Please retry later.',
    retryAfterSeconds: 4,
  },
  InflightBatchsizeExceeded: {
    status: 429,
    message: 'The request has exceeded the maximum concurrency for the current recharge amount. Please retry when a running task ends.',
  },
  QuotaExceeded: { status: 429, message: 'You have exceeded the 5-hour usage quota; it will reset at a later time.' },
  SetLimitExceeded: {
    status: 429,
    message: 'Your account has reached the inference limit you set (safe experience mode). Raise or disable the limit in the console.',
  },
  InputTextSensitiveContentDetected: {
    status: 400,
    message: 'The request failed because the input text may contain sensitive information.',
  },
  InputImageSensitiveContentDetected: {
    status: 400,
    message: 'The request failed because the input image may contain sensitive information.',
  },
  InternalServiceError: { status: 500, message: 'The service encountered an unexpected internal error.' },
};

export function accountError(code: string): VError {
  const known = ACCOUNT_ERRORS[code];
  return new VError(known?.status ?? 400, code, known?.message ?? `The request was refused (${code}).`);
}

/**
 * Injected faults in V's shape: 429 an endpoint rate limit, or the 429 code a directive named (`[sim:submit=429:CODE]`),
 * with Retry-After when the test gives one or the code's table row says it may be sent; 5xx server errors.
 */
export const renderVFault: FaultRenderer = (ctx, status, retryAfter, code) => {
  if (status === 429) {
    const err = accountError(code ?? 'RateLimitExceeded.EndpointRPMExceeded');
    const wait = retryAfter ?? (code ? ACCOUNT_ERRORS[code]?.retryAfterSeconds : undefined);
    if (wait !== undefined) ctx.set('Retry-After', String(wait));
    // A code of another status (e.g. AccountOverdueError) keeps its own: the directive names a code, not a status.
    sendVError(ctx, err);
  } else if (status === 503) {
    sendVError(ctx, new VError(503, 'ServiceUnavailable', 'The service is temporarily unavailable. Please retry later.'));
  } else {
    sendVError(ctx, accountError('InternalServiceError'));
  }
};
