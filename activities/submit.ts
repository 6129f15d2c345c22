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
 * What remains (docs/operations.md, "Lost answers"): a create the platform registers more than
 * SUBMIT_SETTLE_MS after receiving it, from an attempt whose worker died, on a platform without a dedup key.
 */
import { createHash } from 'node:crypto';
import { activityInfo, heartbeat, log, sleep } from '@temporalio/activity';
import type { Catalogue } from '../core/catalogue';
import type { GenerationRequest, SubmitResult } from '../core/task';
import type { PlatformAdapter, SubmitContext } from '../platforms/platform';
import { retryable, UpstreamError } from '../platforms/upstream-error';

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

/** Where an attempt stands, as its heartbeats record it for the next attempt. */
export type SubmitProgress = ({ phase: 'reconciling' } | { phase: 'sending'; sentAt: number } | { phase: 'answered' } | { phase: 'searching' }) & SubmitMemory;

/** What every later attempt must still know, whatever its own phase: carried on in every heartbeat. */
export interface SubmitMemory {
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
  adapterFor(platform: string): PlatformAdapter;
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
    return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const requestDigest = (request: GenerationRequest): string => `sha256:${createHash('sha256').update(canonicalJson(request)).digest('hex')}`;

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** How far the reported window reaches around the submit's attempts: the platforms' clocks and ours may differ. */
const REPORT_WINDOW_MARGIN_MS = 2 * 60_000;

export function createSubmitActivity({ catalogue, adapterFor, now = Date.now, onLostAnswer, lostAnswerSearchMs = LOST_ANSWER_SEARCH_MS }: SubmitDeps) {
  return async function submitGeneration({ platform, request, dedupKey, taskId, deadlineAt }: SubmitInput): Promise<SubmitResult> {
    const entry = catalogue.find(request.kind, request.model);
    if (!entry || entry.platform !== platform) {
      throw new UpstreamError(`Unknown ${request.kind} model '${request.model}' on platform ${platform}`, { retryable: false, reason: 'invalid_request' });
    }
    const adapter = adapterFor(platform);
    const info = activityInfo();
    const ctx: SubmitContext = {
      taskId: taskId ?? info.workflowExecution?.workflowId ?? dedupKey,
      dedupKey,
      deadlineAt: deadlineAt ?? info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs,
    };
    const earlier = info.attempt > 1 ? (info.heartbeatDetails as SubmitProgress | undefined) : undefined;
    const memory: SubmitMemory = {
      ...(earlier?.phase === 'sending' || earlier?.mayHaveCreated ? { mayHaveCreated: true } : {}),
      ...(earlier?.searchingSince !== undefined ? { searchingSince: earlier.searchingSince } : {}),
    };

    let progress: SubmitProgress = { phase: 'reconciling', ...memory };
    const ticker = setInterval(() => heartbeat(progress), SUBMIT_HEARTBEAT_MS);
    const advance = (next: SubmitProgress) => {
      progress = { ...memory, ...next };
      heartbeat(progress);
    };

    /** The task ends `upstream_lost` with everything an operator needs to find the job; counted and alerted. */
    const lost = (reason: string, why: string, code?: string): UpstreamError => {
      const account = adapter.account ?? 'default';
      const window = { from: isoSeconds(info.scheduledTimestampMs - REPORT_WINDOW_MARGIN_MS), to: isoSeconds(now() + REPORT_WINDOW_MARGIN_MS) };
      const digest = requestDigest(request);
      const message =
        `Platform ${platform} may hold a job for this task that the gateway could not find (${why}); it was not sent again. ` +
        `Find it upstream before replaying: account ${account}, dedup key ${dedupKey}, created ${window.from} to ${window.to}, request ${digest}`;
      log.error(message, { platform, reason, taskId: ctx.taskId, account, dedupKey, window, requestDigest: digest });
      onLostAnswer?.({ platform, reason, taskId: ctx.taskId, account, dedupKey, window, requestDigest: digest, message });
      return new UpstreamError(message, { retryable: false, reason: 'upstream_lost', code });
    };

    const reconcile = async (why: string): Promise<SubmitResult | undefined> => {
      if (info.attempt === 1 || !adapter.findSubmitted) return undefined;
      let found: SubmitResult | undefined;
      try {
        found = await adapter.findSubmitted(entry, request, { ...ctx, since: info.scheduledTimestampMs });
      } catch (err) {
        // The adapter's lookup saw jobs it cannot tell apart (B: identical requests): undecided, not "none".
        if (err instanceof UpstreamError && err.opts.reason === 'upstream_lost') throw lost(err.opts.code ?? 'undecided', err.message, err.opts.code);
        throw err;
      }
      if (found) log.warn(`Adopted the job an earlier submit attempt created (${why})`, { platform, upstreamTaskId: found.upstreamTaskId, attempt: info.attempt });
      return found;
    };

    /** Within the bound, the next attempt looks again later (Temporal keeps the wait); past it, the task is lost. */
    const keepLooking = (): never => {
      if (now() - memory.searchingSince! >= lostAnswerSearchMs) {
        throw lost('not_found_after_refusal', `the platform refused to create it again for its dedup key, and its task list did not show it within ${Math.round(lostAnswerSearchMs / 1000)} s`);
      }
      advance({ phase: 'searching' });
      throw retryable(`Platform ${platform} refused to create this task's job again (its dedup key): still looking for the job`, 'LostAnswerSearch', { retryAfterMs: LOST_ANSWER_LOOK_INTERVAL_MS });
    };

    try {
      if (info.attempt > 1) {
        heartbeat(progress);
        if (memory.searchingSince !== undefined) return (await reconcile('the platform refused to create it again')) ?? keepLooking();
        if (earlier?.phase === 'sending' && !adapter.dedupSubmit) {
          const settleMs = earlier.sentAt + SUBMIT_SETTLE_MS - now();
          if (settleMs > 0) {
            log.info('An earlier submit attempt was cut off mid-request; letting it settle before reconciling', { platform, settleMs, attempt: info.attempt });
            await sleep(settleMs);
          }
        }
        const adopted = await reconcile('its answer was lost');
        if (adopted) return adopted;
      }

      advance({ phase: 'sending', sentAt: now() });
      let result: SubmitResult;
      try {
        result = await adapter.submit(entry, request, ctx);
      } catch (err) {
        // No answer: this create may have made a job, which every later attempt must keep in mind.
        if (err instanceof UpstreamError && err.opts.noAnswer) memory.mayHaveCreated = true;
        // The platform answered (an error response): nothing of this attempt is in flight any more.
        if (err instanceof UpstreamError && !err.opts.noAnswer) advance({ phase: 'answered' });
        if (err instanceof UpstreamError && !err.retryable) {
          const adopted = await reconcile(`the platform refused the retry: ${err.opts.code ?? err.message}`);
          if (adopted) return adopted;
          // A platform with a dedup key refused a re-send although an earlier create may have made the job: the
          // refusal most likely says the job exists (T's code for a repeated SessionId is not documented), so
          // failing the task with it would lose a running, paid job. Keep looking instead.
          if (adapter.dedupSubmit && memory.mayHaveCreated) {
            memory.searchingSince = now();
            log.warn('The platform refused to create the job again for its dedup key; looking for the first job', { platform, code: err.opts.code, attempt: info.attempt });
            return keepLooking();
          }
        }
        throw err;
      }
      advance({ phase: 'answered' });
      log.info('Submitted upstream job', { platform, model: request.model, upstreamTaskId: result.upstreamTaskId });
      return result;
    } finally {
      clearInterval(ticker);
    }
  };
}
