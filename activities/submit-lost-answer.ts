/**
 * The submit's lost-answer recovery (activities/submit.ts, docs/explanations/durability.md#lost-answers): a later
 * attempt finds the job an earlier one may have created, lets a create cut off mid-request settle first, keeps looking
 * after a dedup refusal, and, when the platform cannot tell, ends the task `upstream_lost` with what an operator needs
 * to find the job. Nothing here sends a create.
 */
import { createHash } from 'node:crypto';
import { log, sleep } from '@temporalio/activity';
import { deadlineMessage } from '../core/timeouts';
import type { CreatedJob, GenerationRequest, PollTiming } from '../core/task';
import { retryable, UpstreamError } from '../platforms/upstream-error';
import type { PoolAccount } from './accounts';
import { sendOrder, type SubmitMember } from './submit-members';
import { accountOf, memberOf, type Attempt, type JobOnAccount } from './submit-state';

/** How long a submit keeps looking for a job the platform's dedup refusal says exists, before `upstream_lost`. */
export const LOST_ANSWER_SEARCH_MS = 5 * 60_000;
/** The wait between two looks while searching. */
export const LOST_ANSWER_LOOK_INTERVAL_MS = 15_000;
/** How long a create request cut off by a dying worker is given to be registered upstream before reconciling. */
export const SUBMIT_SETTLE_MS = 10_000;

/** What an operator needs to find a job the gateway could not: logged, counted and alerted by the worker. */
export interface LostAnswerReport {
  platform: string;
  /** Why the lookup could not decide: `not_found_after_refusal`, or the adapter's own (e.g. `ambiguous`). */
  reason: string;
  taskId: string;
  /** The platform account (never a secret): PlatformAdapter.account, or "default". */
  account: string;
  dedupKey: string;
  /** The creation-time window the job lies in (ISO 8601). */
  window: { from: string; to: string };
  /** sha256 of the normalised request (canonical JSON), to tell the job among the account's others. */
  requestDigest: string;
  message: string;
}

/** JSON with sorted keys: the same request always digests the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export const requestDigest = (request: GenerationRequest): string =>
  `sha256:${createHash('sha256').update(canonicalJson(request)).digest('hex')}`;

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** How far the reported window reaches around the submit's attempts: the platforms' clocks and ours may differ. */
const REPORT_WINDOW_MARGIN_MS = 2 * 60_000;

/**
 * How a submit reports a job it could not find: the task ends `upstream_lost` with what an operator needs to find
 * the job (the platform's own name for the account, the dedup key, the time window, the request's digest), logged,
 * counted and alerted (`onLostAnswer`).
 */
export function lostReporter(
  scheduledAt: number,
  dedupKey: string,
  taskId: string,
  now: () => number,
  onLostAnswer: ((report: LostAnswerReport) => void) | undefined,
): Attempt['lost'] {
  return (member, account, reason, why, code) => {
    const platform = member.platform;
    // The platform's own name for the account (T's SubAppId…) where the adapter gives one, else the accounts file's id.
    const where = account.adapter.account ?? account.id;
    const window = { from: isoSeconds(scheduledAt - REPORT_WINDOW_MARGIN_MS), to: isoSeconds(now() + REPORT_WINDOW_MARGIN_MS) };
    const digest = requestDigest(member.request);
    const message =
      `Platform ${platform} may hold a job for this task that the gateway could not find (${why}); it was not sent again. ` +
      `Find it upstream before replaying: account ${where}, dedup key ${dedupKey}, created ${window.from} to ${window.to}, request ${digest}`;
    log.error(message, { platform, reason, taskId, account: where, dedupKey, window, requestDigest: digest });
    onLostAnswer?.({ platform, reason, taskId, account: where, dedupKey, window, requestDigest: digest, message });
    return new UpstreamError(message, { retryable: false, reason: 'upstream_lost', code });
  };
}

/**
 * The members an earlier attempt may have created the job on: the one it stayed on (`stayOn`, recorded by an attempt
 * that lived to flush its heartbeat), else every member — a worker that died leaves a heartbeat that may be a second
 * stale — the recorded one first.
 */
export function lookedAt(a: Attempt): SubmitMember[] {
  const stay = a.members.find((m) => m.index === a.state.memory.stayOn);
  return stay ? [stay] : sendOrder(a.members, memberOf(a.earlier));
}

/**
 * Where the job an earlier attempt created may be: `only` (one member's account), or every account of the members it
 * may have gone to (lookedAt) that serves its model — heartbeats are throttled, so the last recorded account may not
 * be the last one sent to. The recorded ones are asked first, and the search stops at the first job found.
 */
function lookupOrder(a: Attempt, only?: { member: SubmitMember; account: PoolAccount }): { member: SubmitMember; account: PoolAccount }[] {
  if (only) return [only];
  const first = { member: memberOf(a.earlier), account: accountOf(a.earlier) };
  return lookedAt(a).flatMap((member) =>
    member.pool.accounts
      .filter((x) => member.pool.serves(x, member.entry.id))
      .sort(
        (x, y) =>
          Number(member.index === first.member && y.id === first.account) - Number(member.index === first.member && x.id === first.account),
      )
      .map((account) => ({ member, account })),
  );
}

/** The job an earlier attempt created, if a lookup finds it (see lookupOrder). */
export async function reconcile(
  a: Attempt,
  why: string,
  only?: { member: SubmitMember; account: PoolAccount },
): Promise<JobOnAccount | undefined> {
  if (a.number === 1) return undefined;
  for (const { member, account } of lookupOrder(a, only)) {
    if (!account.adapter.findSubmitted) continue;
    let found: CreatedJob | undefined;
    try {
      found = await account.adapter.findSubmitted(member.entry, member.request, { ...a.ctx, since: a.since });
    } catch (err) {
      // The adapter's lookup saw jobs it cannot tell apart (B: identical requests): undecided, not "none".
      if (err instanceof UpstreamError && err.opts.reason === 'upstream_lost')
        throw a.lost(member, account, err.opts.code ?? 'undecided', err.message, err.opts.code);
      throw err;
    }
    if (found) {
      log.warn(`Adopted the job an earlier submit attempt created (${why})`, {
        platform: member.platform,
        model: member.entry.id,
        account: account.id,
        upstreamTaskId: found.upstreamTaskId,
        attempt: a.number,
      });
      return { ...found, account: account.id, member };
    }
  }
  return undefined;
}

/**
 * The platform refused a re-send for its dedup key while an earlier create may have made the job: only look, on that
 * member. Within the bound, the next attempt looks again later (Temporal keeps the wait); past it, the task is lost.
 */
export function keepLooking(a: Attempt, member: SubmitMember, account: PoolAccount, lostAnswerSearchMs: number, now: () => number): never {
  if (now() - a.state.memory.searchingSince! >= lostAnswerSearchMs) {
    throw a.lost(
      member,
      account,
      'not_found_after_refusal',
      `the platform refused to create it again for its dedup key, and its task list did not show it within ${Math.round(lostAnswerSearchMs / 1000)} s`,
    );
  }
  a.apply({ type: 'searching', account: account.id, member: member.index });
  throw retryable(
    `Platform ${member.platform} refused to create this task's job again (its dedup key): still looking for the job`,
    'LostAnswerSearch',
    { retryAfterMs: LOST_ANSWER_LOOK_INTERVAL_MS },
  );
}

/**
 * Before anything is sent again: where a platform the create may have gone to has no dedup key and the earlier
 * attempt was cut off mid-request, let that request settle; then look for its job.
 */
export async function recoverEarlierAttempt(a: Attempt, now: () => number): Promise<JobOnAccount | undefined> {
  const dedupSubmit = lookedAt(a).every((m) => m.pool.accounts.every((x) => x.adapter.dedupSubmit));
  if (a.earlier?.phase === 'sending' && !dedupSubmit) {
    const settleMs = a.earlier.sentAt + SUBMIT_SETTLE_MS - now();
    if (settleMs > 0) {
      log.info('An earlier submit attempt was cut off mid-request; letting it settle before reconciling', {
        platform: a.members.find((m) => m.index === memberOf(a.earlier))?.platform,
        settleMs,
        attempt: a.number,
      });
      await sleep(settleMs);
    }
  }
  return reconcile(a, 'its answer was lost');
}

/**
 * A create that failed without proving that no job was made: a final refusal may hide the job an earlier attempt
 * made, which is adopted if the platform shows it; otherwise the failure is thrown. A platform with a dedup key that
 * refuses a re-send although an earlier create may have made the job most likely says the job exists (T's code for a
 * repeated SessionId is not documented): failing the task with it would lose a running, paid job, so the submit keeps
 * looking instead.
 */
export async function afterFinalRefusal(
  a: Attempt,
  member: SubmitMember,
  account: PoolAccount,
  err: unknown,
  now: () => number,
  lostAnswerSearchMs: number,
): Promise<JobOnAccount> {
  if (!(err instanceof UpstreamError) || err.retryable) throw err;
  const adopted = await reconcile(a, `the platform refused the retry: ${err.opts.code ?? err.message}`, { member, account });
  if (adopted) return adopted;
  if (account.adapter.dedupSubmit && a.state.memory.mayHaveCreated) {
    a.apply({ type: 'searchBegan', at: now() });
    log.warn('The platform refused to create the job again for its dedup key; looking for the first job', {
      platform: member.platform,
      account: account.id,
      code: err.opts.code,
      attempt: a.number,
    });
    return keepLooking(a, member, account, lostAnswerSearchMs, now);
  }
  throw err;
}

/** The member and account an earlier attempt's heartbeat names (the first ones when it names none this worker has). */
export function recordedAccount(a: Attempt): { member: SubmitMember; account: PoolAccount } {
  const member = a.members.find((m) => m.index === memberOf(a.earlier)) ?? a.members[0]!;
  return { member, account: member.pool.get(accountOf(a.earlier)) ?? member.pool.accounts[0]! };
}

/**
 * An attempt that starts after the task's deadline sends nothing and ends the task `deadline_exceeded`, with the
 * last error that kept the submit from getting through. Where an earlier attempt's create may have made a job
 * (its answer never came), that job is looked for first and adopted if found (the workflow then cancels it, the
 * deadline being past); a lookup the platform keeps refusing is tried again for at most `searchMs` past the
 * deadline, then the task ends `upstream_lost` with what an operator needs to find the job.
 */
export async function pastDeadline(
  a: Attempt,
  timing: PollTiming,
  deadlineAt: number,
  now: () => number,
  searchMs: number,
): Promise<JobOnAccount> {
  if (a.state.memory.mayHaveCreated) {
    try {
      const adopted = await reconcile(a, 'the task deadline passed');
      if (adopted) return adopted;
    } catch (err) {
      if (!(err instanceof UpstreamError && err.retryable) || now() < deadlineAt + searchMs) throw err;
      const { member, account } = recordedAccount(a);
      throw a.lost(
        member,
        account,
        'lookup_failed_past_deadline',
        `the task deadline passed and its task list could not be read for ${Math.round(searchMs / 1000)} s: ${err.message}`,
      );
    }
  }
  throw new UpstreamError(deadlineMessage(timing.deadlineMs, 'submit', a.state.memory.lastError), {
    retryable: false,
    reason: 'deadline_exceeded',
  });
}
