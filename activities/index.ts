/**
 * The activities: everything that touches the network, platform-agnostic. Each picks the task's platform
 * adapter (decorated by the worker with metrics and alerting, activities/adapter-decorator.ts) and adds what
 * every platform shares: reconciling a submit whose earlier attempt may have created a job, and turning adapter
 * errors into the failures Temporal acts on. Built by a factory from their dependencies so tests can inject
 * fakes; workflows import only the *type* of what this returns.
 */
import { activityInfo, ApplicationFailure, heartbeat, log } from '@temporalio/activity';
import type { Catalogue } from '../core/catalogue';
import type { GenerationRequest, Kind, PollTiming, SubmitResult, UpstreamStatus } from '../core/task';
import type { PlatformAdapter } from '../platforms/platform';
import { UpstreamError } from '../platforms/upstream-error';
import { toActivityFailure } from './activity-failure';

export type Adapters = Partial<Record<string, PlatformAdapter>>;

export interface ActivityDeps {
  catalogue: Catalogue;
  adapters: Adapters;
  /** The worker's polling and deadline settings (POLL_*, TASK_DEADLINE_*), by kind. */
  timing: Record<Kind, PollTiming>;
  /** Which platforms' callbacks are arriving (worker/push-monitor.ts); absent: push is off. */
  push?: { isConfigured(platform: string): boolean; healthy(platform: string): boolean };
  /** The wait between polls while a platform's callbacks arrive (POLL_FALLBACK_INTERVAL_MS). */
  fallbackPollIntervalMs?: number;
}

/** How often the submit heartbeats while it waits on the platform (the workflow's heartbeat timeout is 5 s). */
const SUBMIT_HEARTBEAT_MS = 1_000;

/** Heartbeats every `everyMs` while `work` runs, so a dead worker is noticed within the heartbeat timeout. */
async function whileHeartbeating<T>(everyMs: number, work: () => Promise<T>): Promise<T> {
  heartbeat();
  const ticker = setInterval(() => heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(ticker);
  }
}

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

export interface PollInput {
  platform: string;
  kind: Kind;
  upstreamTaskId: string;
}

export type CancelInput = PollInput;

export function createActivities({ catalogue, adapters, timing, push, fallbackPollIntervalMs }: ActivityDeps) {
  function adapterFor(platform: string): PlatformAdapter {
    const adapter = adapters[platform];
    if (!adapter) {
      // A worker whose configuration lacks a platform the API offers (PLATFORMS_ENABLED differs across the
      // fleet): retryable, so another, correctly configured worker picks the task up, and loud.
      const message = `Platform ${platform} is not configured on this worker (PLATFORMS_ENABLED); another worker must take this task`;
      log.error(message, { platform });
      throw ApplicationFailure.create({ type: 'platform_not_configured', message, nonRetryable: false });
    }
    return adapter;
  }

  async function guarded<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toActivityFailure(err);
    }
  }

  return {
    /**
     * Creates the upstream job — the step that costs money. A retried attempt may follow one whose request
     * reached the platform and whose answer was lost, so before sending again it asks the platform for the job
     * that attempt created (`findSubmitted`), and asks again when the platform refuses the new attempt (T
     * answers a repeated SessionId with an error, not with the first job).
     */
    async submitGeneration({ platform, request, dedupKey, taskId, deadlineAt }: SubmitInput): Promise<SubmitResult> {
      return guarded(() => whileHeartbeating(SUBMIT_HEARTBEAT_MS, async () => {
        const entry = catalogue.find(request.kind, request.model);
        if (!entry || entry.platform !== platform) {
          throw new UpstreamError(`Unknown ${request.kind} model '${request.model}' on platform ${platform}`, { retryable: false, reason: 'invalid_request' });
        }
        const adapter = adapterFor(platform);
        const info = activityInfo();
        const ctx = { taskId: taskId ?? info.workflowExecution?.workflowId ?? dedupKey, dedupKey, deadlineAt: deadlineAt ?? info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs };
        const mayHaveReached = info.attempt > 1;
        const reconcile = async (why: string): Promise<SubmitResult | undefined> => {
          if (!mayHaveReached || !adapter.findSubmitted) return undefined;
          const found = await adapter.findSubmitted(entry, request, { ...ctx, since: info.scheduledTimestampMs });
          if (found) log.warn(`Adopted the job an earlier submit attempt created (${why})`, { platform, upstreamTaskId: found.upstreamTaskId, attempt: info.attempt });
          return found;
        };

        const earlier = await reconcile('its answer was lost');
        if (earlier) return earlier;
        let result: SubmitResult;
        try {
          result = await adapter.submit(entry, request, ctx);
        } catch (err) {
          if (err instanceof UpstreamError && !err.retryable) {
            const adopted = await reconcile(`the platform refused the retry: ${err.opts.code ?? err.message}`);
            if (adopted) return adopted;
          }
          throw err;
        }
        log.info('Submitted upstream job', { platform, model: request.model, upstreamTaskId: result.upstreamTaskId });
        return result;
      }));
    },

    async pollGeneration({ platform, kind, upstreamTaskId }: PollInput): Promise<UpstreamStatus> {
      const status = await guarded(() => adapterFor(platform).poll(kind, upstreamTaskId));
      return push?.healthy(platform) ? { ...status, pushHealthy: true } : status;
    },

    async cancelGeneration({ platform, kind, upstreamTaskId }: CancelInput): Promise<void> {
      return guarded(async () => {
        const adapter = adapterFor(platform);
        if (!adapter.cancel) {
          log.info('Platform has no cancel: the upstream job runs to its end, no longer polled', { platform, upstreamTaskId });
          return;
        }
        await adapter.cancel(kind, upstreamTaskId);
        log.info('Cancelled upstream job', { platform, upstreamTaskId });
      });
    },

    /**
     * The worker's timing for a new task (a local activity: its answer is recorded in the history), with the
     * fallback interval when push is configured for the task's platform.
     */
    async taskTiming({ kind, platform }: { kind: Kind; platform?: string }): Promise<PollTiming> {
      const pushOn = platform !== undefined && push?.isConfigured(platform) && fallbackPollIntervalMs !== undefined;
      return pushOn ? { ...timing[kind], fallbackPollIntervalMs } : timing[kind];
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
