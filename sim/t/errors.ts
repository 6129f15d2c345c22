/**
 * Platform T's answer envelope: every reply is HTTP 200, `{"Response":{…,"RequestId"}}` on success and
 * `{"Response":{"Error":{"Code","Message"},"RequestId"}}` on failure (Tencent Cloud API 3.0 "返回结果").
 * The codes used by the simulator are T's common error codes (cloud.tencent.com/document/api/266/31774) and the
 * VOD business codes the official SDKs list (e.g. InvalidParameterValue.SessionId "去重识别码重复，请求被去重").
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import type { FaultRenderer } from '../host';

export class TError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** A create refused for its repeated SessionId: counted as a dedup refusal, not as an invalid request. */
    readonly dedupRefusal = false,
  ) {
    super(message);
  }
}

/** "The request is missing a required parameter `X`." */
export const missingParameter = (name: string) =>
  new TError('MissingParameter', `The request is missing a required parameter \`${name}\`.`);
/** T rejects a parameter the action does not define ("未知参数错误，用户多传未定义的参数会导致错误"). */
export const unknownParameter = (name: string) => new TError('UnknownParameter', `The parameter \`${name}\` is not recognized.`);
/** A parameter of the wrong JSON type. */
export const invalidType = (name: string, expected: string) =>
  new TError('InvalidParameter', `The value type of parameter \`${name}\` is not valid: expected ${expected}.`);
/** A parameter of the right type and a value the action (or the model) does not accept. */
export const invalidValue = (name: string, why: string, code = 'InvalidParameterValue') =>
  new TError(code, `The value of parameter \`${name}\` is not valid: ${why}.`);

export function sendT(ctx: Context, result: Record<string, unknown>): void {
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = { Response: { ...result, RequestId: randomUUID() } };
}

export function sendTError(ctx: Context, code: string, message: string): void {
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = { Response: { Error: { Code: code, Message: message }, RequestId: randomUUID() } };
}

/** Injected faults answer as T does: still HTTP 200, with a rate-limit or internal-error code. */
export const renderTFault: FaultRenderer = (ctx, status) => {
  if (status === 429) sendTError(ctx, 'RequestLimitExceeded', 'Your request frequency has exceeded the limit, please retry later.');
  else sendTError(ctx, 'InternalError', 'An internal error has occurred. Retry your request later.');
};

/**
 * Account-level refusals a test can make one account answer (POST /_sim/t/account-faults): T answers them in the
 * usual envelope, HTTP 200. From Tencent Cloud's common error codes (cloud.tencent.com/document/api/266/31774) and
 * VOD's own (the SDK's vod/v20180717 error list: FailedOperation.InvalidVodUser "没有开通点播业务",
 * FailedOperation.InvalidAccount "账户异常"). VOD's list names no arrears code: `ResourceUnavailable.InArrears` is a
 * GUESS after the `ResourceUnavailable` family other Tencent products answer an overdue account with.
 * `RequestLimitExceeded` is the account's request rate (a throttle, nothing created). Any other code is answered too,
 * with a generic message.
 */
export const T_ACCOUNT_ERRORS: Readonly<Record<string, string>> = {
  'AuthFailure.UnauthorizedOperation': 'The request is not authorized. For more information, see the CAM documentation.',
  'AuthFailure.SecretIdNotFound': 'The SecretId is not found, please ensure that your SecretId is correct.',
  UnauthorizedOperation: 'Unauthorized operation.',
  'FailedOperation.InvalidVodUser': 'The VOD service is not activated.',
  'FailedOperation.InvalidAccount': 'User account exception.',
  'ResourceUnavailable.InArrears': 'The account is in arrears; the service is suspended until the balance is settled.',
  RequestLimitExceeded: 'Your request frequency has exceeded the limit, please retry later.',
};

export const accountError = (code: string) =>
  new TError(code, T_ACCOUNT_ERRORS[code] ?? `The request was refused for this account (${code}).`);
