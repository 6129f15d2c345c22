/**
 * The activities: everything that touches the network, platform-agnostic. Each picks the task's platform
 * adapter (decorated by the worker with metrics and alerting, activities/adapter-decorator.ts) and adds what
 * every platform shares: the exactly-once submit (activities/submit.ts), the push-health hint on polls, and
 * turning adapter errors into the failures Temporal acts on. Built by a factory from their dependencies so tests can inject
 * fakes; workflows import only the *type* of what this returns.
 */
import { activityInfo, ApplicationFailure, heartbeat, log } from '@temporalio/activity';
import type { CapacityGate } from '../core/capacity';
import type { ReconcileDayInput, ReconcileDayOutcome, ReconcileTarget, Reconciliation } from '../core/reconciliation';
import type { Catalogue } from '../core/catalogue';
import {
  endsInSuccess,
  type GenerationRequest,
  type Kind,
  type PolledStatus,
  type PollTiming,
  type ServedBy,
  type SettleInput,
  type StoreResultsInput,
  type SubmitAnswer,
  type UpstreamStatus,
} from '../core/task';
import type { PlatformAdapter } from '../platforms/platform';
import { UpstreamError } from '../platforms/upstream-error';
import { accountRouting } from './account-routing';
import { toActivityFailure } from './activity-failure';
import { createResultActivities, createResultKeeper, type ResultActivityDeps } from './store-results';
import { createPlatformEventsActivity, type PlatformEventsDeps } from './platform-events';
import { createSubmitActivity, type SubmitActivity, type SubmitDeps, type SubmitInput } from './submit';
import { AccountPool } from './accounts';
import type { WebhookActivities } from '../core/webhooks';

export type Adapters = Partial<Record<string, PlatformAdapter>>;
/** Each platform's accounts (activities/accounts.ts). */
export type AccountPools = Partial<Record<string, AccountPool>>;

export interface PollInput {
  platform: string;
  kind: Kind;
  upstreamTaskId: string;
  /** When the workflow received the job's id (epoch ms); unknown in a continued run, whose job is long past the grace. */
  submittedAt?: number;
  /** The account that created the job (SubmitResult.account). */
  account: string;
  /** The task's request (a routed task's: its serving member's): a poll that finds the job done settles the task's ledger entry from it. */
  request?: GenerationRequest;
  /** A routed task's serving member, recorded on its ledger entry when the poll settles it. */
  servedBy?: ServedBy;
}

export type CancelInput = Omit<PollInput, 'submittedAt' | 'request' | 'servedBy'>;

/** What a cancel achieved upstream: `cancelled` only when the platform accepted it (the job is not billed). */
export interface CancelOutcome {
  cancelled: boolean;
}

/** The default of UPSTREAM_LOST_GRACE_MS (worker/worker-config.ts); see ActivityDeps.upstreamLostGraceMs. */
export const UPSTREAM_LOST_GRACE_MS = 2 * 60_000;

export interface ActivityDeps {
  catalogue: Catalogue;
  /** Each platform's adapter: of its one account, or of its first (the event queue's). */
  adapters: Adapters;
  /** Each platform's accounts; a platform missing here has the one account of `adapters`. */
  pools?: AccountPools;
  /** The worker's polling and deadline settings (POLL_*, TASK_DEADLINE_*), by kind. */
  timing: Record<Kind, PollTiming>;
  /** Which platforms' callbacks are arriving (worker/push-monitor.ts); absent: push is off. */
  push?: { isConfigured(platform: string): boolean; healthy(platform: string): boolean };
  /** The wait between polls while a platform's callbacks arrive (POLL_FALLBACK_INTERVAL_MS). */
  fallbackPollIntervalMs?: number;
  /** The longest of those waits once they double while callbacks keep arriving (POLL_FALLBACK_MAX_INTERVAL_MS). */
  fallbackPollMaxIntervalMs?: number;
  /**
   * How long after its submit a job the platform says it does not know is taken for "not visible yet" rather
   * than lost (UPSTREAM_LOST_GRACE_MS). None of the platforms documents whether a task is readable the moment
   * its create answers (T's DescribeTaskDetail, B's GET /v2/tasks/{id}, Ark's GET): failing the task while the job
   * runs would pay for it and lose it, so early "not found" answers are retried on the workflow's poll backoff.
   */
  upstreamLostGraceMs?: number;
  /** Hands a pulled platform event on to its task (core/task-hints.ts); absent: no event queue is consumed. */
  hint?: PlatformEventsDeps['hint'];
  /** Aborted when the worker begins to shut down: long-running activities hand their work back at once. */
  stopping?: AbortSignal;
  /** The result store and the copy into it (activities/store-results.ts: keepOutputs in the poll, cleanupResults). */
  results: ResultActivityDeps;
  /** A task whose job could not be found ended `upstream_lost` (activities/submit.ts): count it, alert the operator. */
  onLostAnswer?: SubmitDeps['onLostAnswer'];
  /** LOST_ANSWER_SEARCH_MS (activities/submit.ts). */
  lostAnswerSearchMs?: number;
  /**
   * Settles an ended task's ledger entry (tasks/settlement.ts; throws when the write fails, to be retried); absent:
   * this worker has no ledger (no DATABASE_URL), and settling is a no-op.
   */
  settle?: (input: SettleInput) => Promise<string>;
  /** The platforms' capacity (capacity/dispatcher.ts): slots taken by the submit, given back when a job ends. */
  capacity?: CapacityGate;
  /** The ledger against the platforms' records (tasks/reconciliation.ts); absent: no ledger, nothing to reconcile. */
  reconciliation?: Reconciliation;
}

/**
 * One poll of a job; a job the platform says it does not know, within `upstreamLostGraceMs` of its submit, is polled again
 * (it may not be visible yet) rather than taken as lost.
 */
async function pollJob(
  adapter: PlatformAdapter,
  { kind, upstreamTaskId, submittedAt }: Pick<PollInput, 'kind' | 'upstreamTaskId' | 'submittedAt'>,
  upstreamLostGraceMs: number,
): Promise<UpstreamStatus> {
  try {
    return await adapter.poll(kind, upstreamTaskId);
  } catch (err) {
    if (
      err instanceof UpstreamError &&
      err.opts.reason === 'upstream_lost' &&
      submittedAt !== undefined &&
      Date.now() - submittedAt < upstreamLostGraceMs
    ) {
      throw new UpstreamError(
        `${err.message} (submitted ${Math.round((Date.now() - submittedAt) / 1000)} s ago: polling again in case it is not visible yet)`,
        {
          ...err.opts,
          retryable: true,
          reason: 'upstream_unavailable',
        },
      );
    }
    throw err;
  }
}

async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toActivityFailure(err);
  }
}

/**
 * Settles an ended task's entry in the step that ended it; false when the ledger could not be written (the
 * workflow then settles it durably, retried by Temporal), so a ledger outage never holds a finished task back.
 */
function settlerOnce(settle: ActivityDeps['settle']): (input: SettleInput) => Promise<boolean> {
  return async (input) => {
    if (!settle) return true;
    try {
      await settle(input);
      return true;
    } catch (err) {
      log.warn('Could not settle the task in the ledger with its last poll; the workflow settles it durably', {
        error: (err as Error).message,
      });
      return false;
    }
  };
}

/** Asks the platform to cancel a job: whether it did (a platform without a cancel did not). */
async function cancelJob(adapter: PlatformAdapter, platform: string, kind: Kind, upstreamTaskId: string): Promise<CancelOutcome> {
  if (!adapter.cancel) {
    log.info('Platform has no cancel: the upstream job runs to its end, no longer polled', { platform, upstreamTaskId });
    return { cancelled: false };
  }
  const cancelled = await adapter.cancel(kind, upstreamTaskId);
  if (cancelled) log.info('Cancelled upstream job', { platform, upstreamTaskId });
  else
    log.info('The platform can no longer cancel the upstream job: it runs to its end, no longer polled', {
      platform,
      upstreamTaskId,
    });
  return { cancelled };
}

/**
 * The job ended upstream (succeeded or failed): it can no longer be running, so its slot goes to the next waiting task
 * now, before its outputs are copied. Best effort: a slot not given back here is given back by the task's settlement
 * step, or found by the sweep once the task has closed (capacity/dispatcher.ts).
 */
async function jobEnded(capacity: CapacityGate | undefined, taskId: string, status: UpstreamStatus): Promise<void> {
  if (!capacity || (status.state !== 'success' && status.state !== 'failed')) return;
  try {
    await capacity.release(taskId, { overCapacity: status.failure?.overCapacity === true });
  } catch (err) {
    log.warn("Could not give the ended job's slot back; the task's end gives it back", { taskId, error: (err as Error).message });
  }
}

/** What the poll activity uses of the worker's parts. */
interface PollParts {
  accountAdapter: (platform: string, account: string | undefined) => PlatformAdapter;
  keepOutputs: ReturnType<typeof createResultKeeper>;
  settledOnce: (input: SettleInput) => Promise<boolean>;
  withPushHealth: <T extends { pushHealthy?: boolean }>(platform: string, answer: T) => T;
  upstreamLostGraceMs: number;
  capacity: CapacityGate | undefined;
}

/** The poll activity (pollGeneration below). */
function pollActivity({ accountAdapter, keepOutputs, settledOnce, withPushHealth, upstreamLostGraceMs, capacity }: PollParts) {
  return async ({ platform, kind, upstreamTaskId, submittedAt, account, request, servedBy }: PollInput): Promise<PolledStatus> => {
    const status = await guarded(() =>
      pollJob(accountAdapter(platform, account), { kind, upstreamTaskId, submittedAt }, upstreamLostGraceMs),
    );
    const taskId = activityInfo().workflowExecution!.workflowId;
    await jobEnded(capacity, taskId, status);
    const kept = status.state === 'success' ? await keepFor(keepOutputs, taskId, platform, kind, status) : undefined;
    if (!kept) return withPushHealth(platform, status);
    const polled: PolledStatus = { ...status, kept };
    if (endsInSuccess(polled) && request)
      polled.settled = await settledOnce({
        taskId,
        platform,
        request,
        outcome: 'success',
        usage: status.usage ?? {},
        ...(servedBy ? { servedBy } : {}),
      });
    return withPushHealth(platform, polled);
  };
}

/** What push changes in the worker's answers: the longer fallback wait while the platform's callbacks arrive. */
function pushAware(deps: Pick<ActivityDeps, 'push' | 'timing' | 'fallbackPollIntervalMs' | 'fallbackPollMaxIntervalMs'>) {
  const { push, timing, fallbackPollIntervalMs, fallbackPollMaxIntervalMs } = deps;
  /** The worker's timing for a new task, with the fallback intervals when push is configured for its platform. */
  function timingFor(kind: Kind, platform: string): PollTiming {
    if (!push?.isConfigured(platform) || fallbackPollIntervalMs === undefined) return timing[kind];
    const backoff = fallbackPollMaxIntervalMs !== undefined && fallbackPollMaxIntervalMs > fallbackPollIntervalMs;
    return { ...timing[kind], fallbackPollIntervalMs, ...(backoff ? { fallbackPollMaxIntervalMs } : {}) };
  }
  /** Marks an answer with `pushHealthy` while this worker sees the platform's callbacks (the longer wait applies). */
  const withPushHealth = <T extends { pushHealthy?: boolean }>(platform: string, answer: T): T =>
    push?.healthy(platform) ? { ...answer, pushHealthy: true } : answer;
  return { timingFor, withPushHealth };
}

export function createActivities(deps: ActivityDeps) {
  const { catalogue, results, settle } = deps;
  const { adapterFor, poolFor, accountAdapter } = accountRouting(deps.adapters, deps.pools ?? {});
  const { timingFor, withPushHealth } = pushAware(deps);
  const { onLostAnswer, lostAnswerSearchMs } = deps;
  const submit = createSubmitActivity({ catalogue, timingFor, poolFor, onLostAnswer, lostAnswerSearchMs, capacity: deps.capacity });
  const keepOutputs = createResultKeeper(results);
  const upstreamLostGraceMs = deps.upstreamLostGraceMs ?? UPSTREAM_LOST_GRACE_MS;
  const settledOnce = settlerOnce(settle);

  const noHint = async () => Promise.reject(new Error('no Temporal client to hand platform events on with'));
  const consumePlatformEvents = createPlatformEventsActivity({ adapterFor, hint: deps.hint ?? noHint, stopping: deps.stopping });

  return {
    /** Deleting stored results after the retention (activities/store-results.ts). */
    ...createResultActivities(results),

    /** Creates the upstream job, exactly once per task, on the task's model or one of its route's members (activities/submit.ts). */
    submitGeneration: submitWithPushHealth(submit, withPushHealth),

    /**
     * Polls the job on the account that owns it (a local activity, workflows/generation.ts); a job found done has
     * its outputs copied into the result store (`kept`) and the task's ledger entry settled (`settled`) before the
     * answer goes back, so the task ends at once, in the workflow task that learnt of its end.
     */
    pollGeneration: pollActivity({
      accountAdapter,
      keepOutputs,
      settledOnce,
      withPushHealth,
      upstreamLostGraceMs,
      capacity: deps.capacity,
    }),

    /** The pull consumer's turn at a platform's event queue (workflows/platform-events.ts). */
    consumePlatformEvents,

    /**
     * Asks the platform to cancel the job; the answer says whether it did (`cancelled: true`: the job stopped
     * before it was billed). The task's settlement reads it (workflows/job-charge.ts): a job that could not be
     * cancelled, or a platform without a cancel, is billed as it runs to its end upstream.
     */
    async cancelGeneration({ platform, kind, upstreamTaskId, account }: CancelInput): Promise<CancelOutcome> {
      return guarded(() => cancelJob(accountAdapter(platform, account), platform, kind, upstreamTaskId));
    },

    /**
     * The task's last step (workflows/generation.ts): its ledger entry settled to its final cost, idempotently per
     * task id; a failed write fails the attempt, and Temporal retries it.
     */
    settleTask: settleActivity(deps.capacity, settle),

    ...reconciliationActivities(deps.reconciliation),
  };
}

/** The ledger against the platforms' records (workflows/reconciliation.ts); without a ledger there is nothing to reconcile. */
function reconciliationActivities(reconciliation: Reconciliation | undefined) {
  return {
    /** The platform accounts this worker reconciles: none without a ledger. */
    async reconciliationTargets(platform?: string, account?: string): Promise<ReconcileTarget[]> {
      return reconciliation?.targets(platform, account) ?? [];
    },

    /** One account's day against its platform's record: the report written once, whole (tasks/reconciliation.ts). */
    async reconcileAccountDay(input: ReconcileDayInput): Promise<ReconcileDayOutcome> {
      if (!reconciliation) throw ApplicationFailure.nonRetryable('This worker has no ledger (DATABASE_URL) to reconcile', 'no_ledger');
      return guarded(() => reconciliation.run(input, () => heartbeat()));
    },
  };
}

/** The submit's answer, marked `pushHealthy` for the platform that made the job when its callbacks arrive. */
function submitWithPushHealth(submit: SubmitActivity, withPushHealth: ReturnType<typeof pushAware>['withPushHealth']): SubmitActivity {
  return (async (input: SubmitInput): Promise<SubmitAnswer> => {
    const result: SubmitAnswer = await guarded(() => submit(input));
    if ('waiting' in result) return result;
    return withPushHealth(result.servedBy?.platform ?? input.platform, result);
  }) as SubmitActivity;
}

/**
 * The task's end step: its slot, or its place in the queue, is given back first (a no-op when it was already) — or, when
 * its job runs on upstream (billed although the task did not succeed), held until that job ends; then its ledger entry.
 */
function settleActivity(capacity: CapacityGate | undefined, settle: ActivityDeps['settle']) {
  return async (input: SettleInput): Promise<string> => {
    await capacity?.release(input.taskId, { jobRunsOn: input.outcome !== 'success' && input.billed === true });
    return settle ? settle(input) : 'no_ledger';
  };
}

/** The outputs of a finished job (and V's last frame) as kept in the result store: see keepOutputs. */
async function keepFor(
  keepOutputs: ReturnType<typeof createResultKeeper>,
  taskId: string,
  platform: string,
  kind: Kind,
  status: UpstreamStatus,
): Promise<PolledStatus['kept']> {
  const outputs = status.outputs ?? [];
  if (outputs.length === 0) return undefined; // the workflow fails such a task: nothing to keep
  const lastFrameUrl = typeof status.extras?.last_frame_url === 'string' ? status.extras.last_frame_url : undefined;
  const wanted: StoreResultsInput['outputs'] = outputs.map((o) => ({ url: o.url, role: 'result' as const }));
  if (lastFrameUrl !== undefined) wanted.push({ url: lastFrameUrl, role: 'last_frame' });
  const items = await keepOutputs({ taskId, platform, kind, outputs: wanted });
  return { data: items.slice(0, outputs.length), ...(lastFrameUrl !== undefined ? { lastFrame: items[outputs.length] } : {}) };
}

/**
 * What the workflows call: these, and the client webhooks' (webhooks/activities.ts), which the worker adds
 * (worker/main.ts) and the workflows know by their signatures.
 */
export type Activities = ReturnType<typeof createActivities> & WebhookActivities;
