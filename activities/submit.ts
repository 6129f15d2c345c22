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
 * Over a platform's accounts (activities/accounts.ts, docs/operations.md "Accounts and failover"), the submit picks a
 * healthy account by weight and fails over to another only on an answer that proves no job was created: a
 * refusal of the account (credentials, balance, overdue) or a throttle (429). A lost answer proves nothing, so
 * the next attempt reconciles on every account the model may have gone to and sends again to the same account.
 * With every account out, the submit waits (a retryable error) within the task's deadline.
 *
 * What remains (docs/operations.md, "Lost answers"): a create the platform registers more than
 * SUBMIT_SETTLE_MS after receiving it, from an attempt whose worker died, on a platform without a dedup key.
 */
import { createHash } from 'node:crypto';
import { activityInfo, heartbeat, log, sleep } from '@temporalio/activity';
import type { Catalogue, ModelRecord } from '../core/catalogue';
import { deadlineMessage } from '../core/timeouts';
import type { CreatedJob, GenerationRequest, Kind, PollTiming, SubmitResult } from '../core/task';
import type { SubmitContext } from '../platforms/platform';
import { retryable, UpstreamError } from '../platforms/upstream-error';
import { AccountPool, type PoolAccount } from './accounts';

export interface SubmitInput {
  platform: string;
  request: GenerationRequest;
  /** Stable per workflow run and re-submission (workflows/dedup-key.ts): the platform's dedup key where it has one. */
  dedupKey: string;
  /** The task id (workflow id). */
  taskId: string;
  /** When the task's deadline passes (ms since the epoch), once known: a re-submission's. */
  deadlineAt?: number;
  /** The first submit's: when the run began (workflow time of its first workflow task), from which the worker's deadline counts. */
  taskStartedAt?: number;
}

/** A job the submit created or found, and the account it is on. */
type JobOnAccount = CreatedJob & { account: string };

/**
 * Where an attempt stands, as its heartbeats record it for the next attempt; `account` is where a create was
 * (or is being) sent, so a retry after a lost answer stays on it.
 */
export type SubmitProgress = (
  | { phase: 'reconciling' }
  | { phase: 'sending'; sentAt: number; account?: string }
  | { phase: 'answered'; account?: string }
  | { phase: 'searching'; account?: string }
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
  platform: string;
  entry: ModelRecord;
  request: GenerationRequest;
  ctx: SubmitContext;
  pool: AccountPool;
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
  lost(account: PoolAccount, reason: string, why: string, code?: string): UpstreamError;
}

const accountOf = (p: SubmitProgress | undefined) => (p && p.phase !== 'reconciling' ? p.account : undefined);

/** What an earlier attempt's heartbeat says every later attempt must still know. */
function memoryFrom(earlier: SubmitProgress | undefined): SubmitMemory {
  return {
    ...(earlier?.phase === 'sending' || earlier?.mayHaveCreated ? { mayHaveCreated: true } : {}),
    ...(earlier?.searchingSince !== undefined ? { searchingSince: earlier.searchingSince } : {}),
    ...(earlier?.lastError !== undefined ? { lastError: earlier.lastError } : {}),
  };
}

/**
 * The job an earlier attempt created, on `only` or else on every account the model may have gone to (heartbeats
 * are throttled, so the last recorded account may not be the last one sent to; it is asked first).
 */
async function reconcile(a: Attempt, why: string, only?: PoolAccount): Promise<JobOnAccount | undefined> {
  if (a.number === 1) return undefined;
  const first = accountOf(a.earlier);
  const where = only
    ? [only]
    : a.pool.accounts.filter((x) => a.pool.serves(x, a.request.model)).sort((x, y) => Number(y.id === first) - Number(x.id === first));
  for (const account of where) {
    if (!account.adapter.findSubmitted) continue;
    let found: CreatedJob | undefined;
    try {
      found = await account.adapter.findSubmitted(a.entry, a.request, { ...a.ctx, since: a.since });
    } catch (err) {
      // The adapter's lookup saw jobs it cannot tell apart (B: identical requests): undecided, not "none".
      if (err instanceof UpstreamError && err.opts.reason === 'upstream_lost')
        throw a.lost(account, err.opts.code ?? 'undecided', err.message, err.opts.code);
      throw err;
    }
    if (found) {
      log.warn(`Adopted the job an earlier submit attempt created (${why})`, {
        platform: a.platform,
        account: account.id,
        upstreamTaskId: found.upstreamTaskId,
        attempt: a.number,
      });
      return { ...found, account: account.id };
    }
  }
  return undefined;
}

/**
 * The platform refused a re-send for its dedup key while an earlier create may have made the job: only look.
 * Within the bound, the next attempt looks again later (Temporal keeps the wait); past it, the task is lost.
 */
function keepLooking(a: Attempt, account: PoolAccount, lostAnswerSearchMs: number, now: () => number): never {
  if (now() - a.memory.searchingSince! >= lostAnswerSearchMs) {
    throw a.lost(
      account,
      'not_found_after_refusal',
      `the platform refused to create it again for its dedup key, and its task list did not show it within ${Math.round(lostAnswerSearchMs / 1000)} s`,
    );
  }
  a.advance({ phase: 'searching', account: account.id });
  throw retryable(
    `Platform ${a.platform} refused to create this task's job again (its dedup key): still looking for the job`,
    'LostAnswerSearch',
    { retryAfterMs: LOST_ANSWER_LOOK_INTERVAL_MS },
  );
}

/**
 * Before anything is sent again: where the platform has no dedup key and the earlier attempt was cut off
 * mid-request, let that request settle; then look for its job.
 */
async function recoverEarlierAttempt(a: Attempt, now: () => number): Promise<JobOnAccount | undefined> {
  const dedupSubmit = a.pool.accounts.every((x) => x.adapter.dedupSubmit);
  if (a.earlier?.phase === 'sending' && !dedupSubmit) {
    const settleMs = a.earlier.sentAt + SUBMIT_SETTLE_MS - now();
    if (settleMs > 0) {
      log.info('An earlier submit attempt was cut off mid-request; letting it settle before reconciling', {
        platform: a.platform,
        settleMs,
        attempt: a.number,
      });
      await sleep(settleMs);
    }
  }
  return reconcile(a, 'its answer was lost');
}

/** Every account is out, throttled or refused this attempt: why the submit waits (a retryable error). */
function nothingLeft(a: Attempt, lastThrottle: UpstreamError | undefined): UpstreamError {
  // Accounts remain in the rotation but throttled this attempt: wait as the platform asked (Retry-After).
  if (lastThrottle && a.pool.outFor(a.request.model).length === 0) return lastThrottle;
  const { message, retryAfterMs } = a.pool.noAccount(a.request.model);
  log.warn(message, { platform: a.platform, model: a.request.model });
  return new UpstreamError(message, { retryable: true, reason: 'upstream_unavailable', code: 'no_account_available', retryAfterMs });
}

/**
 * Sends the create: after a lost answer to the same account again (its dedup key, where it has one, is that
 * account's), otherwise to a healthy account drawn by weight, failing over on answers that prove no job.
 */
async function sendWithFailover(a: Attempt, now: () => number, lostAnswerSearchMs: number): Promise<JobOnAccount> {
  const { pool, platform } = a;
  const tried = new Set<string>();
  const earlierAccount = accountOf(a.earlier);
  const sticky = earlierAccount === undefined ? undefined : pool.get(earlierAccount);
  let lastThrottle: UpstreamError | undefined;
  for (;;) {
    const account = sticky && tried.size === 0 && pool.available(sticky.id) ? sticky : pool.pick(a.request.model, tried);
    if (!account) throw nothingLeft(a, lastThrottle);
    tried.add(account.id);
    a.advance({ phase: 'sending', sentAt: now(), account: account.id });
    let result: CreatedJob;
    try {
      result = await account.adapter.submit(a.entry, a.request, a.ctx);
    } catch (err) {
      // No answer: this create may have made a job, which every later attempt must keep in mind.
      if (err instanceof UpstreamError && err.opts.noAnswer) a.memory.mayHaveCreated = true;
      // The platform answered (an error response): nothing of this attempt is in flight any more.
      if (err instanceof UpstreamError && !err.opts.noAnswer) a.advance({ phase: 'answered', account: account.id });
      const failover = failoverKind(err);
      const refusal = err as UpstreamError;
      if (failover === 'throttled') pool.throttled(account.id, refusal.opts.retryAfterMs);
      if (failover === 'refused') pool.refused(account.id, refusal.opts.code ?? refusal.opts.reason);
      if (failover) {
        log.warn('The platform refused the account without creating a job; trying another account', {
          platform,
          account: account.id,
          code: refusal.opts.code,
          failover,
        });
        if (failover === 'throttled') lastThrottle = refusal;
        continue;
      }
      if (err instanceof UpstreamError && !err.retryable) {
        const adopted = await reconcile(a, `the platform refused the retry: ${err.opts.code ?? err.message}`, account);
        if (adopted) return adopted;
        // A platform with a dedup key refused a re-send although an earlier create may have made the job: the
        // refusal most likely says the job exists (T's code for a repeated SessionId is not documented), so
        // failing the task with it would lose a running, paid job. Keep looking instead.
        if (account.adapter.dedupSubmit && a.memory.mayHaveCreated) {
          a.memory.searchingSince = now();
          log.warn('The platform refused to create the job again for its dedup key; looking for the first job', {
            platform,
            account: account.id,
            code: err.opts.code,
            attempt: a.number,
          });
          return keepLooking(a, account, lostAnswerSearchMs, now);
        }
      }
      throw err;
    }
    a.advance({ phase: 'answered', account: account.id });
    pool.succeeded(account.id);
    log.info('Submitted upstream job', { platform, account: account.id, model: a.request.model, upstreamTaskId: result.upstreamTaskId });
    return { ...result, account: account.id };
  }
}

export function createSubmitActivity({
  catalogue,
  timingFor,
  poolFor,
  now = Date.now,
  onLostAnswer,
  lostAnswerSearchMs = LOST_ANSWER_SEARCH_MS,
}: SubmitDeps) {
  return async function submitGeneration({
    platform,
    request,
    dedupKey,
    taskId,
    deadlineAt: knownDeadline,
    taskStartedAt,
  }: SubmitInput): Promise<SubmitResult> {
    const entry = catalogue.find(request.kind, request.model);
    if (!entry || entry.platform !== platform) {
      throw new UpstreamError(`Unknown ${request.kind} model '${request.model}' on platform ${platform}`, {
        retryable: false,
        reason: 'invalid_request',
      });
    }
    // Before the heartbeat ticker starts: a platform this worker lacks throws here, and must not leave it running.
    const pool = poolFor(platform);
    const info = activityInfo();
    // The task's timing is settled here, by its first submit, and recorded in the history with the job.
    const timing = timingFor(request.kind, platform);
    const deadlineAt = knownDeadline ?? (taskStartedAt ?? info.scheduledTimestampMs) + timing.deadlineMs;
    const earlier = info.attempt > 1 ? (info.heartbeatDetails as SubmitProgress | undefined) : undefined;
    const memory = memoryFrom(earlier);
    let progress: SubmitProgress = { phase: 'reconciling', ...memory };
    const ticker = setInterval(() => heartbeat(progress), SUBMIT_HEARTBEAT_MS);
    const ctx: SubmitContext = { taskId, dedupKey, deadlineAt };
    const attempt: Attempt = {
      platform,
      entry,
      request,
      ctx,
      pool,
      number: info.attempt,
      since: info.scheduledTimestampMs,
      earlier,
      memory,
      advance(next) {
        progress = { ...memory, ...next };
        heartbeat(progress);
      },
      lost(account, reason, why, code) {
        // The platform's own name for the account (T's SubAppId…) where the adapter gives one, else the accounts file's id.
        const where = account.adapter.account ?? account.id;
        const window = {
          from: isoSeconds(info.scheduledTimestampMs - REPORT_WINDOW_MARGIN_MS),
          to: isoSeconds(now() + REPORT_WINDOW_MARGIN_MS),
        };
        const digest = requestDigest(request);
        const message =
          `Platform ${platform} may hold a job for this task that the gateway could not find (${why}); it was not sent again. ` +
          `Find it upstream before replaying: account ${where}, dedup key ${dedupKey}, created ${window.from} to ${window.to}, request ${digest}`;
        log.error(message, { platform, reason, taskId: ctx.taskId, account: where, dedupKey, window, requestDigest: digest });
        onLostAnswer?.({ platform, reason, taskId: ctx.taskId, account: where, dedupKey, window, requestDigest: digest, message });
        return new UpstreamError(message, { retryable: false, reason: 'upstream_lost', code });
      },
    };
    const settled = (job: JobOnAccount): SubmitResult => ({ ...job, timing, deadlineAt });
    try {
      if (now() >= deadlineAt) return settled(await pastDeadline(attempt, timing, deadlineAt, now, lostAnswerSearchMs));
      if (info.attempt > 1) {
        heartbeat(progress);
        if (memory.searchingSince !== undefined) {
          // Only look, on the account the refused re-send went to: nothing is sent again.
          const account = pool.get(accountOf(earlier)) ?? pool.accounts[0]!;
          return settled(
            (await reconcile(attempt, 'the platform refused to create it again', account)) ??
              keepLooking(attempt, account, lostAnswerSearchMs, now),
          );
        }
        const adopted = await recoverEarlierAttempt(attempt, now);
        if (adopted) return settled(adopted);
      }
      return settled(await sendWithFailover(attempt, now, lostAnswerSearchMs));
    } catch (err) {
      // A retried attempt may start past the deadline: it then says why the submit could not get through.
      if (err instanceof UpstreamError && err.retryable) attempt.advance({ ...progress, lastError: err.message });
      throw err;
    } finally {
      clearInterval(ticker);
    }
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
      const account = a.pool.get(accountOf(a.earlier)) ?? a.pool.accounts[0]!;
      throw a.lost(
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
