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
 * What remains (docs/operations.md, "Lost answers"): a create the platform registers more than
 * SUBMIT_SETTLE_MS after receiving it, from an attempt whose worker died, on a platform without a dedup key.
 */
import { activityInfo, heartbeat, log, sleep } from '@temporalio/activity';
import type { Catalogue } from '../core/catalogue';
import type { GenerationRequest, SubmitResult } from '../core/task';
import type { PlatformAdapter, SubmitContext } from '../platforms/platform';
import { UpstreamError } from '../platforms/upstream-error';

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
export type SubmitProgress = { phase: 'reconciling' } | { phase: 'sending'; sentAt: number } | { phase: 'answered' };

/** How often the submit heartbeats while it waits on the platform (the workflow's heartbeat timeout is 5 s). */
export const SUBMIT_HEARTBEAT_MS = 1_000;
/** How long a create request cut off by a dying worker is given to be registered upstream before reconciling. */
export const SUBMIT_SETTLE_MS = 10_000;

export interface SubmitDeps {
  catalogue: Catalogue;
  adapterFor(platform: string): PlatformAdapter;
  now?: () => number;
}

export function createSubmitActivity({ catalogue, adapterFor, now = Date.now }: SubmitDeps) {
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

    let progress: SubmitProgress = { phase: 'reconciling' };
    const ticker = setInterval(() => heartbeat(progress), SUBMIT_HEARTBEAT_MS);
    const advance = (next: SubmitProgress) => {
      progress = next;
      heartbeat(progress);
    };
    try {
      const reconcile = async (why: string): Promise<SubmitResult | undefined> => {
        if (info.attempt === 1 || !adapter.findSubmitted) return undefined;
        const found = await adapter.findSubmitted(entry, request, { ...ctx, since: info.scheduledTimestampMs });
        if (found) log.warn(`Adopted the job an earlier submit attempt created (${why})`, { platform, upstreamTaskId: found.upstreamTaskId, attempt: info.attempt });
        return found;
      };

      if (info.attempt > 1) {
        heartbeat(progress);
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
        // The platform answered (an error response): nothing of this attempt is in flight any more.
        if (err instanceof UpstreamError && !err.opts.noAnswer) advance({ phase: 'answered' });
        if (err instanceof UpstreamError && !err.retryable) {
          const adopted = await reconcile(`the platform refused the retry: ${err.opts.code ?? err.message}`);
          if (adopted) return adopted;
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
