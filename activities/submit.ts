/**
 * The submit activity: creates the upstream job — the one step that costs money — exactly once per task,
 * however often Temporal runs it.
 *
 * An attempt heartbeats while it waits on the platform (every second; the workflow's heartbeat timeout is 5 s),
 * so a worker that dies mid-submit is noticed within seconds and another worker takes over. The heartbeat's
 * details say where the attempt stands: `sending` (a create request is out, no answer yet) or `answered`, and
 * what every later attempt must still know (SubmitMemory: a create went out unanswered; the search began).
 * A later attempt therefore knows whether an earlier one may have created a job whose answer never arrived:
 *
 * - always, on any attempt after the first, it asks the platform for that job first (`findSubmitted`: T by
 *   SessionId, V and B through their task lists) and adopts it if found;
 * - on platforms where a repeated submit could create a second job (no dedup key: V, B), when the earlier
 *   attempt was cut off mid-request, it first lets that request settle (SUBMIT_SETTLE_MS after it was sent):
 *   a platform registers a create within moments of receiving it, so the reconciliation then sees the job;
 * - when the platform refuses the new attempt with a final error (T answers a repeated SessionId with an error,
 *   not the first job), it asks again before giving up;
 * - when that second look misses too on a platform with a dedup key (T), although an earlier attempt may have
 *   created a job, the refusal is taken for what it most likely is — the platform saying the job exists — and the
 *   submit keeps looking (the next attempts only look, they never send again) for LOST_ANSWER_SEARCH_MS;
 * - when the platform cannot tell within that bound (T's lookup still misses; B's task list shows several
 *   identical jobs), the task ends `upstream_lost` — replayable — with what an operator needs to find the job
 *   (account, dedup key, time window, request digest), counted and alerted (`onLostAnswer`). A second paid job is
 *   never sent on a guess, and a task whose job may be running never fails with the platform's refusal.
 *
 * Over a platform's accounts (activities/accounts.ts, docs/explanations/durability.md#accounts-and-failover), the submit picks a
 * healthy account by weight and fails over to another only on an answer that proves no job was created: a
 * refusal of the account (credentials, balance, overdue) or a throttle (429). A lost answer proves nothing, so
 * the next attempt reconciles on every account the model may have gone to and sends again to the same account.
 * With every account out, the submit waits (a retryable error) within the task's deadline.
 *
 * A routed task (platforms/routes.ts) gives the submit its members — catalogue models on several platforms — in the
 * order its route's policy chose (activities/submit-members.ts), one level above accounts and by the same rule: a
 * member none of whose accounts can take the job now (every one out of the rotation, or refusing or throttling
 * without making a job) hands the task to the next member; a create whose failure does not prove that no job was
 * made (a lost answer, a timeout, a 5xx) keeps the task on its member (`stayOn`), which recovers it there. A worker
 * that dies mid-submit leaves a heartbeat that may be a second stale: the next attempt then looks for the job on
 * every member before sending again. The answer names the member that made the job (`servedBy`).
 *
 * What remains (docs/explanations/durability.md#lost-answers): a create the platform registers more than
 * SUBMIT_SETTLE_MS after receiving it, from an attempt whose worker died, on a platform without a dedup key.
 */
import { createHash } from 'node:crypto';
import { activityInfo, heartbeat, log, sleep } from '@temporalio/activity';
import type { CapacityGate, SlotCandidate, TaskWaiting } from '../core/capacity';
import type { Catalogue } from '../core/catalogue';
import { deadlineMessage } from '../core/timeouts';
import type { CreatedJob, GenerationRequest, Kind, PollTiming, RouteMember, SubmitAnswer, SubmitResult } from '../core/task';
import type { SubmitContext } from '../platforms/platform';
import { retryable, UpstreamError } from '../platforms/upstream-error';
import type { AccountPool, PoolAccount } from './accounts';
import { NoAccountLeft, resolveMembers, sendOrder, servedByOf, type SubmitMember } from './submit-members';

export interface SubmitInput {
  platform: string;
  request: GenerationRequest;
  /**
   * A routed task's members (core/task.ts TaskRoute), in the order to try them; absent: the job is created on
   * `platform` for `request`'s model.
   */
  members?: RouteMember[];
  /** Stable per workflow run and re-submission (workflows/dedup-key.ts): the platform's dedup key where it has one. */
  dedupKey: string;
  /** The task id (workflow id). */
  taskId: string;
  /** When the task's deadline passes (ms since the epoch), once known: a re-submission's. */
  deadlineAt?: number;
  /** The first submit's: when the run began (workflow time of its first workflow task), from which the worker's deadline counts. */
  taskStartedAt?: number;
  /** The API key's id: the capacity queue is fair across keys (absent in runs started before it: one shared key). */
  owner?: string;
  /** The key's weight in that fair share (default 1). */
  weight?: number;
  /**
   * The workflow can wait for a slot (patch `capacity`): with every account full, the submit answers `waiting` and the
   * task is queued. Without it (a workflow of an older build), a full platform is a retryable error, as before.
   */
  mayWait?: boolean;
}

/** A job the submit created or found, the account it is on and the member (the task's model, or a route's) it serves. */
type JobOnAccount = CreatedJob & { account: string; member: SubmitMember };

/**
 * Where an attempt stands, as its heartbeats record it for the next attempt; `account` (and `member`, its place in
 * the task's members) is where a create was (or is being) sent, so a retry after a lost answer starts there.
 */
export type SubmitProgress = (
  | { phase: 'reconciling' }
  | { phase: 'sending'; sentAt: number; account?: string; member?: number }
  | { phase: 'answered'; account?: string; member?: number }
  | { phase: 'searching'; account?: string; member?: number }
) &
  SubmitMemory;

/** What every later attempt must still know, whatever its own phase: carried on in every heartbeat. */
export interface SubmitMemory {
  /** Why the last attempt failed (a retryable error): the task's deadline message names it. */
  lastError?: string;
  /** An attempt's create went out and its answer never came: a job may exist upstream. */
  mayHaveCreated?: boolean;
  /**
   * Since when (ms) the submit only looks for its job: the platform refused a re-send for its dedup key while an
   * earlier create may have made the job. No create is sent any more.
   */
  searchingSince?: number;
  /**
   * The member (its place in the task's members) a create went to whose failure does not prove that no job was made
   * (a lost answer, a timeout, a 5xx), as the attempt that saw it recorded (an attempt that fails flushes its last
   * heartbeat): every later attempt stays on that member, never creating the job on another platform.
   */
  stayOn?: number;
}

/** How long a submit keeps looking for a job the platform's dedup refusal says exists, before `upstream_lost`. */
export const LOST_ANSWER_SEARCH_MS = 5 * 60_000;
/** The wait between two looks while searching. */
export const LOST_ANSWER_LOOK_INTERVAL_MS = 15_000;

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

/** How often the submit heartbeats while it waits on the platform (the workflow's heartbeat timeout is 5 s). */
export const SUBMIT_HEARTBEAT_MS = 1_000;
/** How long a create request cut off by a dying worker is given to be registered upstream before reconciling. */
export const SUBMIT_SETTLE_MS = 10_000;

export interface SubmitDeps {
  catalogue: Catalogue;
  /** The worker's timing for a new task of this kind and platform (POLL_*, TASK_DEADLINE_*, the fallback when push is on). */
  timingFor(kind: Kind, platform: string): PollTiming;
  /** The platform's accounts (activities/accounts.ts; one account: AccountPool.single). */
  poolFor(platform: string): AccountPool;
  now?: () => number;
  /** A task ended `upstream_lost` because its job could not be found: the worker counts it and alerts the operator. */
  onLostAnswer?: (report: LostAnswerReport) => void;
  /** LOST_ANSWER_SEARCH_MS, shorter in tests. */
  lostAnswerSearchMs?: number;
  /** The platforms' capacity (capacity/dispatcher.ts); absent (no database): accounts' limits are not enforced. */
  capacity?: CapacityGate;
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
 * An error answer that proves the platform created no job and that another account may succeed: the account
 * was refused (credentials, balance, overdue) or throttled (an answered 429, or a throttle code the adapter marks,
 * e.g. T's RequestLimitExceeded inside HTTP 200). Not a timeout, reset or 5xx, which may have created a job.
 */
export function failoverKind(err: unknown): 'refused' | 'throttled' | undefined {
  if (!(err instanceof UpstreamError) || err.opts.noAnswer) return undefined;
  const status = err.opts.httpStatus;
  if (status !== undefined && status >= 500) return undefined;
  if (!err.retryable && (err.opts.reason === 'upstream_auth' || err.opts.reason === 'insufficient_balance')) return 'refused';
  if (err.retryable && (status === 429 || err.opts.throttled === true)) return 'throttled';
  return undefined;
}

/** One attempt of a submit: what its steps share. */
interface Attempt {
  /** What the job may be created on: the task's model, or its route's members this worker reaches, in order. */
  members: SubmitMember[];
  ctx: SubmitContext;
  /** Temporal's attempt number (1: nothing can have been sent before) and when the first attempt was scheduled. */
  number: number;
  since: number;
  /** What the previous attempt's last heartbeat recorded. */
  earlier: SubmitProgress | undefined;
  /** What this and every later attempt must still know (carried on in every heartbeat). */
  memory: SubmitMemory;
  /** Records where this attempt stands (a heartbeat at once, and every second). */
  advance(next: SubmitProgress): void;
  /** The task ends `upstream_lost` with everything an operator needs to find the job on `account`; counted and alerted. */
  lost(member: SubmitMember, account: PoolAccount, reason: string, why: string, code?: string): UpstreamError;
}

const accountOf = (p: SubmitProgress | undefined) => (p && p.phase !== 'reconciling' ? p.account : undefined);
/** The member an earlier attempt sent to (runs recorded before routes name none: the task's only member). */
const memberOf = (p: SubmitProgress | undefined) => (p && p.phase !== 'reconciling' ? (p.member ?? 0) : undefined);

/** What an earlier attempt's heartbeat says every later attempt must still know. */
function memoryFrom(earlier: SubmitProgress | undefined): SubmitMemory {
  return {
    ...(earlier?.phase === 'sending' || earlier?.mayHaveCreated ? { mayHaveCreated: true } : {}),
    ...(earlier?.searchingSince !== undefined ? { searchingSince: earlier.searchingSince } : {}),
    ...(earlier?.lastError !== undefined ? { lastError: earlier.lastError } : {}),
    ...(earlier?.stayOn !== undefined ? { stayOn: earlier.stayOn } : {}),
  };
}

/**
 * The members an earlier attempt may have created the job on: the one it stayed on (`stayOn`, recorded by an attempt
 * that lived to flush its heartbeat), else every member — a worker that died leaves a heartbeat that may be a second
 * stale — the recorded one first.
 */
function lookedAt(a: Attempt): SubmitMember[] {
  const stay = a.members.find((m) => m.index === a.memory.stayOn);
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
async function reconcile(
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
function keepLooking(a: Attempt, member: SubmitMember, account: PoolAccount, lostAnswerSearchMs: number, now: () => number): never {
  if (now() - a.memory.searchingSince! >= lostAnswerSearchMs) {
    throw a.lost(
      member,
      account,
      'not_found_after_refusal',
      `the platform refused to create it again for its dedup key, and its task list did not show it within ${Math.round(lostAnswerSearchMs / 1000)} s`,
    );
  }
  a.advance({ phase: 'searching', account: account.id, member: member.index });
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
async function recoverEarlierAttempt(a: Attempt, now: () => number): Promise<JobOnAccount | undefined> {
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

/** Every account of the member is out, throttled or refused this attempt: why the submit cannot create the job there now. */
function nothingLeft(member: SubmitMember, lastThrottle: UpstreamError | undefined): NoAccountLeft {
  const model = member.entry.id;
  // Accounts remain in the rotation but throttled this attempt: wait as the platform asked (Retry-After).
  if (lastThrottle && member.pool.outFor(model).length === 0) return new NoAccountLeft(lastThrottle.message, lastThrottle.opts);
  const { message, retryAfterMs } = member.pool.noAccount(model);
  log.warn(message, { platform: member.platform, model });
  return new NoAccountLeft(message, { retryable: true, reason: 'upstream_unavailable', code: 'no_account_available', retryAfterMs });
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
 * One create on one account, the attempt's phases recorded around it (heartbeated: a retry after a crash knows
 * whether a create was in flight); a refusal is thrown as the adapter threw it, for the caller to read.
 */
async function createOn(a: Attempt, member: SubmitMember, account: PoolAccount, now: () => number): Promise<JobOnAccount> {
  a.advance({ phase: 'sending', sentAt: now(), account: account.id, member: member.index });
  const result: CreatedJob = await account.adapter.submit(member.entry, member.request, a.ctx);
  a.advance({ phase: 'answered', account: account.id, member: member.index });
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
 * A create that failed: what it means for the account. Returns how it proved no job was made (the next account, or
 * member, may take it), or undefined when it did not (a lost answer, a 5xx, a final refusal of the request).
 */
function refusedWithoutJob(a: Attempt, member: SubmitMember, account: PoolAccount, err: unknown): 'refused' | 'throttled' | undefined {
  // No answer: this create may have made a job, which every later attempt must keep in mind.
  if (err instanceof UpstreamError && err.opts.noAnswer) a.memory.mayHaveCreated = true;
  // The platform answered (an error response): nothing of this attempt is in flight any more.
  if (err instanceof UpstreamError && !err.opts.noAnswer) a.advance({ phase: 'answered', account: account.id, member: member.index });
  const failover = failoverKind(err);
  if (!failover) {
    // Nothing proves this create made no job: the task stays on this member from now on.
    a.memory.stayOn = member.index;
    return undefined;
  }
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

/**
 * A create that failed without proving that no job was made: a final refusal may hide the job an earlier attempt
 * made, which is adopted if the platform shows it; otherwise the failure is thrown. A platform with a dedup key that
 * refuses a re-send although an earlier create may have made the job most likely says the job exists (T's code for a
 * repeated SessionId is not documented): failing the task with it would lose a running, paid job, so the submit keeps
 * looking instead.
 */
async function afterFinalRefusal(
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
  if (account.adapter.dedupSubmit && a.memory.mayHaveCreated) {
    a.memory.searchingSince = now();
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

/**
 * Sends the create to the members in turn (the one an earlier attempt sent to first): a member none of whose
 * accounts can take it now hands the task to the next; any other failure stays on the member. After a create whose
 * failure did not prove that no job was made (`stayOn`), only that member is tried again: the task recovers there or
 * waits for it, and is never given a second job on another platform.
 */
async function sendToMembers(a: Attempt, now: () => number, lostAnswerSearchMs: number): Promise<JobOnAccount> {
  let firstOut: NoAccountLeft | undefined;
  const stay = a.members.find((m) => m.index === a.memory.stayOn);
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

/** How a task asks for slots: whose it is, its weight, and whether its workflow can wait for one (SubmitInput). */
interface SlotAsk {
  gate: CapacityGate;
  owner: string;
  weight: number;
  mayWait: boolean;
}

/** The submit's answer while the task waits for a slot: its place in the queue, since when. */
interface Queued {
  waiting: TaskWaiting;
}

/** How many times one attempt sends again after a concurrency refusal before it leaves that account out. */
const OVER_CAPACITY_RETRIES = 3;

/** A concurrency refusal (V's `InflightBatchsizeExceeded`): the account runs fewer jobs at once than its slots said. */
const isOverCapacity = (err: unknown) => err instanceof UpstreamError && err.opts.overCapacity === true;

/**
 * Where the task's job may go, in the order it prefers them: the members in their order (only the one it must stay on,
 * after a create that may have made a job), each member's accounts that serve its model and are in the rotation, by a
 * draw on their weights; less the accounts this attempt left out.
 */
function slotCandidates(a: Attempt, excluded: ReadonlySet<string>): SlotCandidate[] {
  const stay = a.members.find((m) => m.index === a.memory.stayOn);
  const out: SlotCandidate[] = [];
  for (const member of stay ? [stay] : sendOrder(a.members, memberOf(a.earlier))) {
    const drawn = new Set<string>();
    for (;;) {
      const account = member.pool.pick(member.entry.id, drawn);
      if (!account) break;
      drawn.add(account.id);
      if (!excluded.has(`${member.index}/${account.id}`))
        out.push({ platform: member.platform, account: account.id, member: member.index });
    }
  }
  return out;
}

/**
 * A create refused without a job: its slot is given back at once (a concurrency refusal also lowers the account's
 * learned limit) and the account is left out of this attempt — but for a concurrency refusal, whose lowered limit
 * now queues the task behind the account's running jobs, unless it keeps refusing. True: the account was left out.
 */
async function slotRefused(
  a: Attempt,
  ask: SlotAsk,
  refused: { member: SubmitMember; account: PoolAccount; err: unknown },
  excluded: Set<string>,
  refusedForCapacity: Map<string, number>,
): Promise<boolean> {
  const overCapacity = isOverCapacity(refused.err);
  await ask.gate.release(a.ctx.taskId, { overCapacity });
  const where = `${refused.member.index}/${refused.account.id}`;
  const refusals = (refusedForCapacity.get(where) ?? 0) + 1;
  refusedForCapacity.set(where, refusals);
  if (overCapacity && refusals <= OVER_CAPACITY_RETRIES) return false;
  excluded.add(where);
  return !overCapacity;
}

/**
 * The create, on a slot (docs/architecture.md, "Capacity"): the task takes a slot on the first candidate account with
 * room — or, with none, joins the queue and answers `waiting` — then creates its job there. A refusal proving that no job
 * was made gives the slot back at once (a concurrency refusal also lowers the account's learned limit) and the task
 * takes another slot or waits; any other failure keeps the slot, since a job may exist on it. A task that already
 * holds a slot (a retried attempt, a grant that woke it) is given the same one.
 */
async function sendOnSlots(a: Attempt, ask: SlotAsk, now: () => number, lostAnswerSearchMs: number): Promise<JobOnAccount | Queued> {
  const excluded = new Set<string>();
  const refusedForCapacity = new Map<string, number>();
  let lastThrottle: UpstreamError | undefined;
  let firstOut: NoAccountLeft | undefined;
  for (;;) {
    const candidates = slotCandidates(a, excluded);
    if (candidates.length === 0) throw firstOut ?? nothingLeft(a.members[0]!, lastThrottle);
    const answer = await ask.gate.take(
      { taskId: a.ctx.taskId, owner: ask.owner, weight: ask.weight, candidates },
      { mayWait: ask.mayWait },
    );
    if ('waiting' in answer) {
      log.info('Every account that can serve the task is running as many jobs as it may: the task waits for a slot', {
        taskId: a.ctx.taskId,
        accounts: candidates.map((c) => `${c.platform}/${c.account}`),
      });
      return { waiting: { reason: 'platform_capacity', since: answer.waiting.since } };
    }
    if ('full' in answer)
      throw retryable('Every account that can serve the task is running as many jobs as it may', 'CapacityFull', { retryAfterMs: 10_000 });
    const slot = answer.granted;
    const member = a.members.find((m) => m.index === slot.member && m.platform === slot.platform);
    const account = member?.pool.get(slot.account);
    if (!member || !account) {
      // A slot on an account this worker does not have (the fleet's accounts files differ): given back, never used.
      await ask.gate.release(a.ctx.taskId);
      excluded.add(`${slot.member}/${slot.account}`);
      continue;
    }
    let job: JobOnAccount;
    try {
      job = await createOn(a, member, account, now);
    } catch (err) {
      const failover = refusedWithoutJob(a, member, account, err);
      if (!failover) return afterFinalRefusal(a, member, account, err, now, lostAnswerSearchMs);
      if (failover === 'throttled') lastThrottle = err as UpstreamError;
      const leftOut = await slotRefused(a, ask, { member, account, err }, excluded, refusedForCapacity);
      if (leftOut && member.pool.pick(member.entry.id, new Set([account.id])) === undefined) firstOut ??= nothingLeft(member, lastThrottle);
      continue;
    }
    try {
      await ask.gate.created(a.ctx.taskId, { kind: member.entry.kind, upstreamTaskId: job.upstreamTaskId });
    } catch (err) {
      // The job exists and its slot is held either way; only the learned limit's count misses this one.
      log.warn('Could not record the created job on its slot', { taskId: a.ctx.taskId, error: (err as Error).message });
    }
    return job;
  }
}

/**
 * The submit activity's call: a workflow that can wait for a slot (`mayWait`) may be answered `waiting`; any other
 * caller is answered with a job or an error.
 */
export interface SubmitActivity {
  (input: SubmitInput & { mayWait: true }): Promise<SubmitAnswer>;
  (input: SubmitInput): Promise<SubmitResult>;
}

/** The submit's answer for the job it created or found, with the timing of the platform that made it. */
function answerOf(job: JobOnAccount, input: SubmitInput, timing: PollTiming, deadlineAt: number): SubmitResult {
  return {
    upstreamTaskId: job.upstreamTaskId,
    account: job.account,
    // A routed task's member that made the job (the workflow's polls, cancels and bill follow it).
    ...(input.members ? { servedBy: servedByOf(job.member) } : {}),
    timing,
    deadlineAt,
  };
}

/** How this submit asks for slots, when the worker has the platforms' capacity. */
function slotAsk(capacity: CapacityGate | undefined, input: SubmitInput): SlotAsk | undefined {
  if (!capacity?.counts(input.request)) return undefined;
  return { gate: capacity, owner: input.owner ?? 'unknown', weight: input.weight ?? 1, mayWait: input.mayWait === true };
}

export function createSubmitActivity({
  catalogue,
  timingFor,
  poolFor,
  now = Date.now,
  onLostAnswer,
  lostAnswerSearchMs = LOST_ANSWER_SEARCH_MS,
  capacity,
}: SubmitDeps): SubmitActivity {
  return async function submitGeneration(input: SubmitInput): Promise<SubmitAnswer> {
    const { request, dedupKey, taskId } = input;
    const info = activityInfo();
    const earlier = info.attempt > 1 ? (info.heartbeatDetails as SubmitProgress | undefined) : undefined;
    const memory = memoryFrom(earlier);
    // Before the heartbeat ticker starts: a platform this worker lacks throws here, and must not leave it running.
    const members = resolveMembers(
      catalogue,
      poolFor,
      input.members ?? [{ platform: input.platform, model: request.model, request }],
      memory.mayHaveCreated === true || memory.stayOn !== undefined,
    );
    // The task's timing is settled here, by its first submit, and recorded in the history with the job: its deadline
    // (the same for every platform of a kind) now, its polling once the serving member is known.
    const firstTiming = timingFor(request.kind, members[0]!.platform);
    const deadlineAt = input.deadlineAt ?? (input.taskStartedAt ?? info.scheduledTimestampMs) + taskDeadlineMs(request, firstTiming);
    let progress: SubmitProgress = { phase: 'reconciling', ...memory };
    const ticker = setInterval(() => heartbeat(progress), SUBMIT_HEARTBEAT_MS);
    const attempt: Attempt = {
      members,
      ctx: { taskId, dedupKey, deadlineAt },
      number: info.attempt,
      since: info.scheduledTimestampMs,
      earlier,
      memory,
      advance(next) {
        progress = { ...memory, ...next };
        heartbeat(progress);
      },
      lost: lostReporter(info.scheduledTimestampMs, dedupKey, taskId, now, onLostAnswer),
    };
    try {
      const job = await submitOnce(attempt, deadlineAt, firstTiming, now, lostAnswerSearchMs, slotAsk(capacity, input));
      if ('waiting' in job) return { waiting: job.waiting, timing: firstTiming, deadlineAt };
      return answerOf(job, input, timingFor(request.kind, job.member.platform), deadlineAt);
    } catch (err) {
      // A retried attempt may start past the deadline: it then says why the submit could not get through.
      if (err instanceof UpstreamError && err.retryable) attempt.advance({ ...progress, lastError: err.message });
      throw err;
    } finally {
      clearInterval(ticker);
    }
  } as SubmitActivity;
}

/**
 * How long the task may take: the worker's deadline for its kind, or, for a request that names the platform's own
 * window (`deadline_seconds`: V's offline tier, docs/platforms/v.md#the-offline-tier), that window plus the worker's
 * deadline as a margin, so the platform's `expired` is seen before the task's own deadline would end it.
 */
export function taskDeadlineMs(request: GenerationRequest, timing: PollTiming): number {
  const own = (request as { deadline_seconds?: unknown }).deadline_seconds;
  return typeof own === 'number' ? own * 1000 + timing.deadlineMs : timing.deadlineMs;
}

/** One attempt's course: past the deadline only a lookup; after an earlier attempt, its job looked for first; then a send. */
async function submitOnce(
  a: Attempt,
  deadlineAt: number,
  timing: PollTiming,
  now: () => number,
  searchMs: number,
  ask: SlotAsk | undefined,
): Promise<JobOnAccount | Queued> {
  if (now() >= deadlineAt) return pastDeadline(a, timing, deadlineAt, now, searchMs);
  if (a.number > 1) {
    heartbeat({ ...a.memory, phase: 'reconciling' });
    if (a.memory.searchingSince !== undefined) {
      // Only look, on the member and account the refused re-send went to: nothing is sent again.
      const { member, account } = recordedAccount(a);
      return (
        (await reconcile(a, 'the platform refused to create it again', { member, account })) ??
        keepLooking(a, member, account, searchMs, now)
      );
    }
    const adopted = await recoverEarlierAttempt(a, now);
    if (adopted) {
      await ask?.gate.created(a.ctx.taskId, { kind: adopted.member.entry.kind, upstreamTaskId: adopted.upstreamTaskId });
      return adopted;
    }
  }
  return ask ? sendOnSlots(a, ask, now, searchMs) : sendToMembers(a, now, searchMs);
}

/** The member and account an earlier attempt's heartbeat names (the first ones when it names none this worker has). */
function recordedAccount(a: Attempt): { member: SubmitMember; account: PoolAccount } {
  const member = a.members.find((m) => m.index === memberOf(a.earlier)) ?? a.members[0]!;
  return { member, account: member.pool.get(accountOf(a.earlier)) ?? member.pool.accounts[0]! };
}

/**
 * How a submit reports a job it could not find: the task ends `upstream_lost` with what an operator needs to find
 * the job (the platform's own name for the account, the dedup key, the time window, the request's digest), logged,
 * counted and alerted (`onLostAnswer`).
 */
function lostReporter(scheduledAt: number, dedupKey: string, taskId: string, now: () => number, onLostAnswer: SubmitDeps['onLostAnswer']) {
  return (member: SubmitMember, account: PoolAccount, reason: string, why: string, code?: string): UpstreamError => {
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
 * An attempt that starts after the task's deadline sends nothing and ends the task `deadline_exceeded`, with the
 * last error that kept the submit from getting through. Where an earlier attempt's create may have made a job
 * (its answer never came), that job is looked for first and adopted if found (the workflow then cancels it, the
 * deadline being past); a lookup the platform keeps refusing is tried again for at most `searchMs` past the
 * deadline, then the task ends `upstream_lost` with what an operator needs to find the job.
 */
async function pastDeadline(
  a: Attempt,
  timing: PollTiming,
  deadlineAt: number,
  now: () => number,
  searchMs: number,
): Promise<JobOnAccount> {
  if (a.memory.mayHaveCreated) {
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
  throw new UpstreamError(deadlineMessage(timing.deadlineMs, 'submit', a.memory.lastError), {
    retryable: false,
    reason: 'deadline_exceeded',
  });
}
