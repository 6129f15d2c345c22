/**
 * Account-level refusals a test sets on a simulated platform (POST /_sim/<t|b>/account-faults): the next requests of
 * one operation (or all), of one account (or every account), answer a code of the platform's own — an account whose
 * credentials were revoked, whose service is suspended for arrears, or that is throttled — while the platform's other
 * accounts go on. Each platform renders the code in its own error shape; this only decides which request gets which.
 */
import type { Context } from 'koa';
import type { SimOp } from './vocabulary';

export type AccountFaultOp = SimOp | '*';

export interface AccountFault {
  code: string;
  op: AccountFaultOp;
  /** Requests left to refuse; undefined: every one until the faults are cleared. */
  remaining?: number;
  /** Only this account's requests (the platform's account key: a SecretId, an AccessKey ID); undefined: every account's. */
  account?: string;
}

export class AccountFaults {
  private faults: AccountFault[] = [];

  add(fault: AccountFault): number {
    this.faults.push(fault);
    return this.faults.length;
  }

  clear(): void {
    this.faults = [];
  }

  /** The code this request of `account` must answer, counting it against its fault; undefined: none applies. */
  take(account: string, op: SimOp): string | undefined {
    const fault = this.faults.find((f) => (f.op === '*' || f.op === op) && (f.account === undefined || f.account === account));
    if (!fault) return undefined;
    if (fault.remaining !== undefined) fault.remaining--;
    this.faults = this.faults.filter((f) => f.remaining === undefined || f.remaining > 0);
    return fault.code;
  }
}

/**
 * Reads a POST /_sim/<x>/account-faults body `{code, count?, op?, <accountField>?}`; answers 400 and returns
 * undefined when it is not one. `isAccount` says whether a value of `accountField` names one of the platform's
 * simulated accounts.
 */
export function readAccountFault(
  ctx: Context,
  accountField: string,
  isAccount: (key: string) => boolean,
  knownCodes: readonly string[],
  ops: readonly SimOp[],
): AccountFault | undefined {
  const b = (ctx.request.body ?? {}) as Record<string, unknown>;
  const allowedOps: readonly string[] = [...ops, '*'];
  const refuse = (error: string) => {
    ctx.status = 400;
    ctx.body = { error };
    return undefined;
  };
  if (typeof b.code !== 'string' || b.code === '') return refuse(`code is required; known codes: ${knownCodes.join(', ')}`);
  if (b.op !== undefined && !allowedOps.includes(String(b.op))) return refuse(`op must be one of ${allowedOps.join(', ')}`);
  if (b.count !== undefined && (typeof b.count !== 'number' || !Number.isInteger(b.count) || b.count < 1))
    return refuse('count must be a positive integer');
  const account = b[accountField];
  if (account !== undefined && (typeof account !== 'string' || !isAccount(account)))
    return refuse(`${accountField} must name one of the simulator's accounts of this platform`);
  return {
    code: b.code,
    op: (b.op as AccountFaultOp | undefined) ?? 'submit',
    ...(typeof b.count === 'number' ? { remaining: b.count } : {}),
    ...(typeof account === 'string' ? { account } : {}),
  };
}
