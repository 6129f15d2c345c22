/**
 * The submit activity: creates the upstream job — the one step that costs money — exactly once per task,
 * however often Temporal runs it.
 *
 * An attempt heartbeats while it waits on the platform (every second; the workflow's heartbeat timeout is 5 s),
 * so a worker that dies mid-submit is noticed within seconds and another worker takes over. The heartbeat's
 * details say where the attempt stands: `sending` (a create request is out, no answer yet) or `answered`.
 * A later attempt therefore knows whether an earlier one may have created a job whose answer never arrived:
 *
 * - always, on any attempt after the first, it asks the platform for that job first (`findSubmitted`: T by
 *   SessionId, V and B through their task lists) and adopts it if found;
 * - on platforms where a repeated submit could create a second job (no dedup key: V, B), when the earlier
 *   attempt was cut off mid-request, it first lets that request settle (SUBMIT_SETTLE_MS after it was sent):
 *   a platform registers a create within moments of receiving it, so the reconciliation then sees the job;
 * - when the platform refuses the new attempt with a final error (T answers a repeated SessionId with an error,
 *   not the first job), it asks again before giving up.
 *
 * With several accounts (activities/accounts.ts, docs/operations.md "Accounts and failover"), the submit picks a
 * healthy account by weight and fails over to another only on an answer that proves no job was created: a
 * refusal of the account (credentials, balance, overdue) or a throttle (429). A lost answer proves nothing, so
 * the next attempt reconciles on every account the model may have gone to and sends again to the same account.
 * With every account out, the submit waits (a retryable error) within the task's deadline.
 *
 * What remains (docs/operations.md, "Lost answers"): a create the platform registers more than
 * SUBMIT_SETTLE_MS after receiving it, from an attempt whose worker died, on a platform without a dedup key.
 */
import { activityInfo, heartbeat, log, sleep } from '@temporalio/activity';
import type { Catalogue, ModelRecord } from '../core/catalogue';
import type { GenerationRequest, SubmitResult } from '../core/task';
import type { PlatformAdapter, SubmitContext } from '../platforms/platform';
import { UpstreamError } from '../platforms/upstream-error';
import { AccountPool, type PoolAccount } from './accounts';

export interface SubmitInput {
  platform: string;
  request: GenerationRequest;
  /** Stable per workflow run and re-submission (workflows/dedup-key.ts): the platform's dedup key where it has one. */
  dedupKey: string;
  /** The task id (workflow id). Absent in runs recorded before it was passed. */
  taskId?: string;
  /** When the task's deadline passes (ms since the epoch). Absent in runs recorded before it was passed. */
  deadlineAt?: number;
}

/**
 * Where an attempt stands, as its heartbeats record it for the next attempt; `account` is where a create was
 * (or is being) sent, so a retry after a lost answer stays on it.
 */
export type SubmitProgress = { phase: 'reconciling' } | { phase: 'sending'; sentAt: number; account?: string } | { phase: 'answered'; account?: string };

/** How often the submit heartbeats while it waits on the platform (the workflow's heartbeat timeout is 5 s). */
export const SUBMIT_HEARTBEAT_MS = 1_000;
/** How long a create request cut off by a dying worker is given to be registered upstream before reconciling. */
export const SUBMIT_SETTLE_MS = 10_000;

export interface SubmitDeps {
  catalogue: Catalogue;
  /** The platform's accounts (activities/accounts.ts). */
  poolFor?(platform: string): AccountPool;
  /** A platform of one account, without a pool (unit tests of one adapter). */
  adapterFor?(platform: string): PlatformAdapter;
  now?: () => number;
}

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
  /** Records where this attempt stands (a heartbeat at once, and every second). */
  advance(next: SubmitProgress): void;
}

const accountOf = (p: SubmitProgress | undefined) => (p && p.phase !== 'reconciling' ? p.account : undefined);

/**
 * The job an earlier attempt created, on `only` or else on every account the model may have gone to (heartbeats
 * are throttled, so the last recorded account may not be the last one sent to; it is asked first).
 */
async function reconcile(a: Attempt, why: string, only?: PoolAccount): Promise<SubmitResult | undefined> {
  if (a.number === 1) return undefined;
  const first = accountOf(a.earlier);
  const where = only ? [only] : a.pool.accounts.filter((x) => a.pool.serves(x, a.request.model)).sort((x, y) => Number(y.id === first) - Number(x.id === first));
  for (const account of where) {
    if (!account.adapter.findSubmitted) continue;
    const found = await account.adapter.findSubmitted(a.entry, a.request, { ...a.ctx, since: a.since });
    if (found) {
      log.warn(`Adopted the job an earlier submit attempt created (${why})`, { platform: a.platform, account: account.id, upstreamTaskId: found.upstreamTaskId, attempt: a.number });
      return { ...found, account: account.id };
    }
  }
  return undefined;
}

/**
 * Before anything is sent again: where the platform has no dedup key and the earlier attempt was cut off
 * mid-request, let that request settle; then look for its job.
 */
async function recoverEarlierAttempt(a: Attempt, now: () => number): Promise<SubmitResult | undefined> {
  const dedupSubmit = a.pool.accounts.every((x) => x.adapter.dedupSubmit);
  if (a.earlier?.phase === 'sending' && !dedupSubmit) {
    const settleMs = a.earlier.sentAt + SUBMIT_SETTLE_MS - now();
    if (settleMs > 0) {
      log.info('An earlier submit attempt was cut off mid-request; letting it settle before reconciling', { platform: a.platform, settleMs, attempt: a.number });
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
async function sendWithFailover(a: Attempt, now: () => number): Promise<SubmitResult> {
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
    let result: SubmitResult;
    try {
      result = await account.adapter.submit(a.entry, a.request, a.ctx);
    } catch (err) {
      // The platform answered (an error response): nothing of this attempt is in flight any more.
      if (err instanceof UpstreamError && !err.opts.noAnswer) a.advance({ phase: 'answered', account: account.id });
      const failover = failoverKind(err);
      const refusal = err as UpstreamError;
      if (failover === 'throttled') pool.throttled(account.id, refusal.opts.retryAfterMs);
      if (failover === 'refused' && pool.failover) pool.refused(account.id, refusal.opts.code ?? refusal.opts.reason);
      if (failover && pool.failover) {
        log.warn('The platform refused the account without creating a job; trying another account', { platform, account: account.id, code: refusal.opts.code, failover });
        if (failover === 'throttled') lastThrottle = refusal;
        continue;
      }
      if (err instanceof UpstreamError && !err.retryable) {
        const adopted = await reconcile(a, `the platform refused the retry: ${err.opts.code ?? err.message}`, account);
        if (adopted) return adopted;
      }
      throw err;
    }
    a.advance({ phase: 'answered', account: account.id });
    pool.succeeded(account.id);
    log.info('Submitted upstream job', { platform, account: account.id, model: a.request.model, upstreamTaskId: result.upstreamTaskId });
    return { ...result, account: account.id };
  }
}

export function createSubmitActivity({ catalogue, poolFor, adapterFor, now = Date.now }: SubmitDeps) {
  const singles = new Map<string, AccountPool>();
  const accountsOf = (platform: string): AccountPool => {
    if (poolFor) return poolFor(platform);
    if (!adapterFor) throw new Error('createSubmitActivity needs poolFor or adapterFor');
    let pool = singles.get(platform);
    if (!pool) singles.set(platform, (pool = AccountPool.single(platform, adapterFor(platform))));
    return pool;
  };

  return async function submitGeneration({ platform, request, dedupKey, taskId, deadlineAt }: SubmitInput): Promise<SubmitResult> {
    const entry = catalogue.find(request.kind, request.model);
    if (!entry || entry.platform !== platform) {
      throw new UpstreamError(`Unknown ${request.kind} model '${request.model}' on platform ${platform}`, { retryable: false, reason: 'invalid_request' });
    }
    // Before the heartbeat ticker starts: a platform this worker lacks throws here, and must not leave it running.
    const pool = accountsOf(platform);
    const info = activityInfo();
    let progress: SubmitProgress = { phase: 'reconciling' };
    const ticker = setInterval(() => heartbeat(progress), SUBMIT_HEARTBEAT_MS);
    const attempt: Attempt = {
      platform,
      entry,
      request,
      ctx: { taskId: taskId ?? info.workflowExecution?.workflowId ?? dedupKey, dedupKey, deadlineAt: deadlineAt ?? info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs },
      pool,
      number: info.attempt,
      since: info.scheduledTimestampMs,
      earlier: info.attempt > 1 ? (info.heartbeatDetails as SubmitProgress | undefined) : undefined,
      advance(next) {
        progress = next;
        heartbeat(progress);
      },
    };
    try {
      if (info.attempt > 1) {
        heartbeat(progress);
        const adopted = await recoverEarlierAttempt(attempt, now);
        if (adopted) return adopted;
      }
      return await sendWithFailover(attempt, now);
    } finally {
      clearInterval(ticker);
    }
  };
}
