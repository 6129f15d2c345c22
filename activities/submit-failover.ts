/**
 * The submit's create and its failover (activities/submit.ts), over a platform's accounts (activities/accounts.ts) and
 * a routed task's members (activities/submit-members.ts), by one rule: fail over only where no job can exist. A create
 * moves to another account, or member, only on an answer that proves the platform made no job — a refusal of the
 * account (credentials, balance, overdue) or a throttle (429); any other failure (a lost answer, a timeout, a 5xx)
 * keeps the task on its member (`mayHaveJobOn`), which recovers it there (activities/submit-lost-answer.ts).
 */
import { log } from '@temporalio/activity';
import type { CreatedJob } from '../core/task';
import { UpstreamError } from '../platforms/upstream-error';
import type { PoolAccount } from './accounts';
import { NoAccountLeft, sendOrder, type SubmitMember } from './submit-members';
import { afterFinalRefusal } from './submit-lost-answer';
import { accountOf, memberOf, type Attempt, type JobOnAccount, type SubmitEvent } from './submit-state';

/** How a failed create proved that no job was made: the account was refused, or throttled. */
export type Failover = 'refused' | 'throttled';

/**
 * An error answer that proves the platform created no job and that another account may succeed: the account
 * was refused (credentials, balance, overdue) or throttled (an answered 429, or a throttle code the adapter marks,
 * e.g. T's RequestLimitExceeded inside HTTP 200). Not a timeout, reset or 5xx, which may have created a job.
 */
export function failoverKind(err: unknown): Failover | undefined {
  if (!(err instanceof UpstreamError) || err.opts.noAnswer) return undefined;
  const status = err.opts.httpStatus;
  if (status !== undefined && status >= 500) return undefined;
  if (!err.retryable && (err.opts.reason === 'upstream_auth' || err.opts.reason === 'insufficient_balance')) return 'refused';
  if (err.retryable && (status === 429 || err.opts.throttled === true)) return 'throttled';
  return undefined;
}

/**
 * What a failed create on `member`'s `account` teaches the submit: an unanswered create may have made a job; an
 * answered one leaves nothing in flight; and unless the answer proves no job was made (`failover`), the task stays on
 * this member from now on.
 */
export function createFailure(member: SubmitMember, account: PoolAccount, err: unknown): { failover?: Failover; events: SubmitEvent[] } {
  const answered = err instanceof UpstreamError && !err.opts.noAnswer;
  const events: SubmitEvent[] = [];
  if (err instanceof UpstreamError && err.opts.noAnswer) events.push({ type: 'answerLost' });
  if (answered) events.push({ type: 'answered', account: account.id, member: member.index });
  const failover = failoverKind(err);
  if (!failover) events.push({ type: 'mayHaveJobOn', member: member.index });
  return { ...(failover ? { failover } : {}), events };
}

/**
 * A create that failed: what it means for the attempt and the account. Returns how it proved no job was made (the
 * next account, or member, may take it), or undefined when it did not (a lost answer, a 5xx, a final refusal of the request).
 */
export function refusedWithoutJob(a: Attempt, member: SubmitMember, account: PoolAccount, err: unknown): Failover | undefined {
  const { failover, events } = createFailure(member, account, err);
  for (const event of events) a.apply(event);
  if (!failover) return undefined;
  const refusal = err as UpstreamError;
  if (failover === 'throttled') member.pool.throttled(account.id, refusal.opts.retryAfterMs);
  else member.pool.refused(account.id, refusal.opts.code ?? refusal.opts.reason, refusal.message);
  log.warn('The platform refused the account without creating a job; trying another account', {
    platform: member.platform,
    account: account.id,
    code: refusal.opts.code,
    failover,
  });
  return failover;
}

/** Every account of the member is out, throttled or refused this attempt: why the submit cannot create the job there now. */
export function nothingLeft(member: SubmitMember, lastThrottle: UpstreamError | undefined): NoAccountLeft {
  const model = member.entry.id;
  // Accounts remain in the rotation but throttled this attempt: wait as the platform asked (Retry-After).
  if (lastThrottle && member.pool.outFor(model).length === 0) return new NoAccountLeft(lastThrottle.message, lastThrottle.opts);
  const { message, retryAfterMs } = member.pool.noAccount(model);
  log.warn(message, { platform: member.platform, model });
  return new NoAccountLeft(message, { retryable: true, reason: 'upstream_unavailable', code: 'no_account_available', retryAfterMs });
}

/**
 * One create on one account, the attempt's phases recorded around it (heartbeated: a retry after a crash knows
 * whether a create was in flight); a refusal is thrown as the adapter threw it, for the caller to read.
 */
export async function createOn(a: Attempt, member: SubmitMember, account: PoolAccount, now: () => number): Promise<JobOnAccount> {
  a.apply({ type: 'sending', sentAt: now(), account: account.id, member: member.index });
  const result: CreatedJob = await account.adapter.submit(member.entry, member.request, a.ctx);
  a.apply({ type: 'answered', account: account.id, member: member.index });
  member.pool.succeeded(account.id);
  log.info('Submitted upstream job', {
    platform: member.platform,
    account: account.id,
    model: member.entry.id,
    upstreamTaskId: result.upstreamTaskId,
  });
  return { ...result, account: account.id, member };
}

/**
 * The create on one member: after a lost answer to the same account again (its dedup key, where it has one, is that
 * account's), otherwise to a healthy account drawn by weight, failing over on answers that prove no job.
 */
async function sendToMember(a: Attempt, member: SubmitMember, now: () => number, lostAnswerSearchMs: number): Promise<JobOnAccount> {
  const { pool } = member;
  const model = member.entry.id;
  const tried = new Set<string>();
  const earlierAccount = memberOf(a.earlier) === member.index ? accountOf(a.earlier) : undefined;
  const sticky = earlierAccount === undefined ? undefined : pool.get(earlierAccount);
  let lastThrottle: UpstreamError | undefined;
  for (;;) {
    const account = sticky && tried.size === 0 && pool.available(sticky.id) ? sticky : pool.pick(model, tried);
    if (!account) throw nothingLeft(member, lastThrottle);
    tried.add(account.id);
    try {
      return await createOn(a, member, account, now);
    } catch (err) {
      const failover = refusedWithoutJob(a, member, account, err);
      if (failover === 'throttled') lastThrottle = err as UpstreamError;
      if (failover) continue;
      return afterFinalRefusal(a, member, account, err, now, lostAnswerSearchMs);
    }
  }
}

/**
 * Sends the create to the members in turn (the one an earlier attempt sent to first): a member none of whose
 * accounts can take it now hands the task to the next; any other failure stays on the member. After a create whose
 * failure did not prove that no job was made (`stayOn`), only that member is tried again: the task recovers there or
 * waits for it, and is never given a second job on another platform.
 */
export async function sendToMembers(a: Attempt, now: () => number, lostAnswerSearchMs: number): Promise<JobOnAccount> {
  let firstOut: NoAccountLeft | undefined;
  const stay = a.members.find((m) => m.index === a.state.memory.stayOn);
  for (const member of stay ? [stay] : sendOrder(a.members, memberOf(a.earlier))) {
    try {
      return await sendToMember(a, member, now, lostAnswerSearchMs);
    } catch (err) {
      if (!(err instanceof NoAccountLeft)) throw err;
      firstOut ??= err;
      if (a.members.length > 1 && !stay)
        log.warn('No account of this member of the route can take the job now; trying the next member', {
          platform: member.platform,
          model: member.entry.id,
          reason: err.message,
        });
    }
  }
  throw firstOut!;
}
