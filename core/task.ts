import type { TaskWaiting } from './capacity';
import type { WebhookTarget } from './webhooks';

/**
 * The normalised shapes that cross the workflow boundary: what the workflow is started with, what the
 * adapters report, and what a task reads as. Platform-agnostic; no I/O, so workflows may import it.
 */

export const KINDS = ['video', 'image'] as const;
export type Kind = (typeof KINDS)[number];

/**
 * A validated spec request (2.1 or 2.2), tagged by kind. The workflow carries it without looking inside; its
 * fields are typed where they are read, by the platforms (platforms/request.ts).
 */
export interface GenerationRequest {
  kind: Kind;
  model: string;
  [field: string]: unknown;
}

export const TASK_STATUSES = ['pending', 'running', 'success', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/**
 * Why a task failed. The workflow fails with an ApplicationFailure whose `type` is one of these, so operators
 * can filter on it (search attribute `GenerationFailureReason`) and the API can pick a fitting HTTP status.
 */
export const FAILURE_REASONS = [
  'content_policy',
  'invalid_request',
  'upstream_failed',
  /**
   * The platform no longer knows a job it had accepted (it answers "task not found" when polled): nothing more
   * will come of it, and it is the platform's loss, not the request's — an outage victim, replayable.
   */
  'upstream_lost',
  'upstream_unavailable',
  'upstream_auth',
  'insufficient_balance',
  'deadline_exceeded',
  /**
   * No slot on any account that could serve the task became free before its deadline (core/capacity.ts): nothing was
   * created upstream and nothing is paid.
   */
  'capacity_timeout',
  /**
   * The platform's own deadline for the job passed before it ran it (V's `expired`: an offline job's
   * `deadline_seconds`, or the window the task's deadline set): final, and not billed.
   */
  'expired',
  'cancelled',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export function isFailureReason(s: unknown): s is FailureReason {
  return typeof s === 'string' && (FAILURE_REASONS as readonly string[]).includes(s);
}

/**
 * Timing captured when the task starts, so a config change never alters a running task. The worker decides it
 * (its POLL_* and TASK_DEADLINE_* settings): the first submit returns it with the job (SubmitResult.timing),
 * recorded in the history with the submit's answer.
 */
export interface PollTiming {
  firstPollDelayMs: number;
  pollIntervalMs: number;
  /**
   * The poll interval while the platform's callbacks are known to arrive (push configured and seen recently on
   * this worker): callbacks wake the task, the timer is only the safety net. Absent: push is off.
   */
  fallbackPollIntervalMs?: number;
  /**
   * While callbacks keep arriving, each fallback wait in a row is twice the last, up to this (patch
   * `quieter-task`, workflows/generation/polling.ts). Absent: every fallback wait is fallbackPollIntervalMs.
   */
  fallbackPollMaxIntervalMs?: number;
  /** Wall-clock budget for the whole task, from submission to a terminal state. */
  deadlineMs: number;
}

/** Which catalogue model, on which platform, created a task's job: the task record's `served_by`. */
export interface ServedBy {
  platform: string;
  model: string;
}

/** One model a routed task may be served by, with the request as that model's platform validated it. */
export interface RouteMember extends ServedBy {
  request: GenerationRequest;
}

/**
 * A route as a task carries it (tasks/routing.ts): its public name and the members that can take the task's
 * request, in the order the submit tries them (the route's policy applied when the task started).
 */
export interface TaskRoute {
  name: string;
  members: RouteMember[];
}

export interface GenerationInput {
  kind: Kind;
  /** The platform's id in the registry (platforms/index.ts); a routed task's: its first member's. */
  platform: string;
  /** The catalogue model; a routed task's: its first member's. */
  model: string;
  /** The validated spec request (2.1 or 2.2); adapters map it onto their wire protocol. A routed task's: its first member's. */
  request: GenerationRequest;
  /** Set when the client named a route: the submit chooses among its members and fails over between them. */
  route?: TaskRoute;
  /** Id of the API key that owns the task (never the secret). */
  ownerId: string;
  /** The key's weight in the fair share of platform slots (core/capacity.ts); absent: 1. */
  weight?: number;
  /** History length at which a run continues as new (default 2,500); tests lower it to force continue-as-new. */
  maxEventsPerRun?: number;
  /** Where the task's events are delivered (`webhook_url`, `webhook_events`, or the key's default): core/webhooks.ts, webhooks/targets.ts. */
  webhook?: WebhookTarget;
}

/**
 * One output of a finished job as the workflow records it. `url` is the platform's own link (temporary: V's die
 * after about 24 h). When the gateway kept a copy, `stored` is true and `key` names it in
 * the result store; the API then answers with a fresh gateway link on every read instead of `url`. `stored:
 * false` means the copy failed until its bound and the platform's link is all there is.
 */
export interface ResultItem {
  url: string;
  stored?: boolean;
  /** The object's key in the result store (results/). */
  key?: string;
  contentType?: string;
  bytes?: number;
  /** Strong validator of the stored bytes (sha256, hex), served as the ETag. */
  sha256?: string;
  /** Why the copy failed, when `stored` is false. */
  storeError?: string;
}

/**
 * What the platform reported it billed for a job, normalised by its adapter (platform V: `usage.completion_tokens`
 * as `tokens`). Absent fields: the platform did not say; the task's cost then follows the request (pricing/).
 */
export interface ReportedUsage {
  seconds?: number;
  images?: number;
  tokens?: number;
}

/** Spec 2.3, plus the platform's raw extras (platform V: video_url, duration, ratio, usage, last_frame_url). */
export interface GenerationResult {
  created: number;
  data: ResultItem[];
  /** A routed task's: the member that served it (its final cost is that member's). */
  servedBy?: ServedBy;
  extras?: Record<string, unknown>;
  /** What the platform reported it billed (UpstreamStatus.usage), for the task's final cost. */
  usage?: ReportedUsage;
  /** V's last frame (`return_last_frame`), recorded like a result item so it is kept too. */
  lastFrame?: ResultItem;
}

/** What the result store is asked to keep of a finished job (activities/store-results.ts): one entry per output. */
export interface StoreResultsInput {
  taskId: string;
  platform: string;
  kind: Kind;
  /** The platform's links, in result order; `role` says what each is. */
  outputs: { url: string; role: 'result' | 'last_frame' }[];
}

/**
 * A poll's answer as the workflow receives it (the poll activity, activities/index.ts): the platform's status and,
 * when the job succeeded, its outputs as kept — each copied into the result store, or the platform's link marked
 * `stored: false` with the reason — in result order, and V's last frame; and whether the task's ledger entry was
 * settled in the same step (`settled`; false: the workflow settles it durably).
 */
export type PolledStatus = UpstreamStatus & { kept?: { data: ResultItem[]; lastFrame?: ResultItem }; settled?: boolean };

/** Whether a poll's answer ends the task with success: the job succeeded and at least one output is kept. */
export function endsInSuccess(status: Pick<PolledStatus, 'state' | 'kept'>): boolean {
  return status.state === 'success' && status.kept !== undefined && status.kept.data.length > 0;
}

/** What one poll of the upstream job says, normalised by the adapter. */
export interface UpstreamStatus {
  state: 'pending' | 'running' | 'success' | 'failed';
  /**
   * Set by the poll activity, not the adapter: this worker has seen the platform's callbacks arrive recently, so
   * the task may wait on the longer fallback interval (PollTiming.fallbackPollIntervalMs).
   */
  pushHealthy?: boolean;
  /** 0–100 where the platform reports it. */
  progress?: number;
  outputs?: { url: string }[];
  extras?: Record<string, unknown>;
  /** On success, what the platform reported it billed, where its answer says (ReportedUsage). */
  usage?: ReportedUsage;
  failure?: {
    reason: FailureReason;
    message: string;
    code?: string;
    /**
     * The job failed upstream for a transient reason (T's account concurrency `RequestLimitExceeded`, a model
     * backlog): the workflow submits a new job (bounded, within the deadline, with a new dedup key) instead of
     * failing the task.
     */
    resubmit?: boolean;
    /** The failure is the account's concurrency limit (T's `RequestLimitExceeded`): its learned limit is lowered. */
    overCapacity?: boolean;
  };
}

/** What an adapter's submit answers: the platform's id for the job it created. */
export interface CreatedJob {
  upstreamTaskId: string;
}

/** What the submit activity answers the workflow: the job, the account that owns it, and the task's timing. */
export interface SubmitResult extends CreatedJob {
  /**
   * The platform account that created the job (its id in PLATFORM_<X>_ACCOUNTS_FILE, or `default`). Polls and
   * cancels go to it.
   */
  account: string;
  /** The worker's timing for the task (POLL_*, TASK_DEADLINE_*), settled by its first submit. */
  timing: PollTiming;
  /** When the task's deadline passes (ms since the epoch): its start plus timing.deadlineMs. */
  deadlineAt: number;
  /** The model (a routed task's member) whose platform created the job: polls, cancels and the bill follow it. */
  servedBy?: ServedBy;
  /**
   * Set by the submit activity, not the adapter (as UpstreamStatus.pushHealthy): the platform's callbacks are
   * arriving, so the task may wait the fallback interval before its first poll too.
   */
  pushHealthy?: boolean;
}

/**
 * The submit's answer while no account that could serve the task has a free slot (core/capacity.ts): the task is
 * queued, and its workflow waits for its grant (or its deadline), then submits again.
 */
export interface SubmitWaiting {
  waiting: TaskWaiting;
  /** As SubmitResult's: the task's timing and deadline, settled by its first submit. */
  timing: PollTiming;
  deadlineAt: number;
}

export type SubmitAnswer = SubmitResult | SubmitWaiting;

/** The generation workflow's registered type name (workflows/generation.ts): starts, lookups and queries use it. */
export const WORKFLOW_TYPE = 'generationWorkflow';

/** The generation workflow's signal for a platform's announcement (workflows/messages.ts, core/task-hints.ts). */
export const UPSTREAM_EVENT_SIGNAL = 'upstreamEvent';

/**
 * The generation workflow's query for its live state (workflows/messages.ts); the single-task read asks it for a
 * running task's progress, which the workflow keeps out of its memo (tasks/live-progress.ts).
 */
export const TASK_STATE_QUERY = 'taskState';

/** Live state of a running workflow, answered by the `taskState` query. */
export interface TaskState {
  status: TaskStatus;
  progress?: number;
  upstreamTaskId?: string;
  /** The platform account that owns the job (SubmitResult.account). */
  upstreamAccount?: string;
}

/** The `error` of a failed task (docs/api.md "Task records"), as the workflow records it. */
export interface TaskError {
  message: string;
  /** A FailureReason, e.g. `content_policy`, `deadline_exceeded`, `cancelled`. */
  code: FailureReason;
  /** The platform's own error code, where it gave one. */
  upstream_code?: string;
}

/**
 * The workflow memo: written by the API at start (model, kind, platform, request fingerprint) and kept current
 * by the workflow (status, progress, result or error), so one describe call reads a task.
 */
export interface TaskMemo {
  /** The model the client named: a catalogue model, or a route's name. */
  model?: string;
  kind?: string;
  /** The platform of the catalogue model; absent for a routed task (its member's is `servedBy`). */
  platform?: string;
  /** A routed task's route name (written at start). */
  route?: string;
  /** A routed task's member that created its job (written by the workflow when its submit answered). */
  servedBy?: ServedBy;
  requestHash?: string;
  /**
   * The request's price-deciding fields (pricing/cost.ts PricedRequest), written by the API at start, so a task's
   * estimate and final cost are computed from the memo alone.
   */
  billing?: Record<string, unknown>;
  /** What a video task was asked for, for GET /v1/videos (set at start, never changed; absent on older tasks). */
  asked?: TaskAsked;
  status?: TaskStatus;
  progress?: number;
  /** Set while the task waits for a slot on a platform account (removed when it gets one). */
  waiting?: TaskWaiting;
  result?: GenerationResult;
  error?: TaskError;
  /** How a task that did not succeed left its upstream job, for its final cost (absent: not billed). */
  charge?: TaskCharge;
}

/** How a task ended, for its settlement: a client's cancel is told apart from a failure. */
export type TaskEndOutcome = 'success' | 'failed' | 'cancelled';

/**
 * What the settlement step of an ended task is given (tasks/settlement.ts): its ledger entry's final figure is
 * priced from it.
 */
export interface SettleInput {
  taskId: string;
  /** The platform of the model that served the task (a routed task without a job: its first member's). */
  platform: string;
  /** The validated request of the model that served the task: its price-deciding fields price the final figure. */
  request: GenerationRequest;
  /** A routed task's member that served it, recorded on its ledger entry; absent: a direct task, or no job was made. */
  servedBy?: ServedBy;
  outcome: TaskEndOutcome;
  /** What the platform reported it billed, where it said (on success, or for a billed job that did not succeed). */
  usage: ReportedUsage;
  /** Whether the platform bills the job of a task that did not succeed (absent: only a success is billed). */
  billed?: boolean;
}

/**
 * What became of the upstream job of a task that ended without success (workflows/job-charge.ts):
 * `none` (no job was created), `failed` (it failed upstream), `lost` (the platform no longer knows it),
 * `cancelled` (the platform accepted the cancel) — none of these is billed — or `running` (left to run to its
 * end: a platform without a cancel, or one that can no longer cancel it) and `succeeded` (it succeeded upstream
 * although the task did not), both billed by the platform.
 */
export interface TaskCharge {
  job: 'none' | 'failed' | 'lost' | 'cancelled' | 'running' | 'succeeded';
  /** Whether the platform bills the job: the task then costs what a success would. */
  billed: boolean;
  /** What the platform reported it billed, where an answer of it said (rare before a job succeeds). */
  usage?: ReportedUsage;
}

/**
 * What a video task was asked for, as a client reads it back (the OpenAI `video` object: prompt, seconds, size),
 * whichever endpoint created it. Kept in the memo at start so a read needs no workflow history.
 */
export interface TaskAsked {
  prompt?: string;
  /** `duration` as validated. */
  seconds?: number;
  ratio?: string;
  resolution?: string;
  /** OpenAI's `WxH` as the client sent it (POST /v1/videos). */
  size?: string;
  /** `videos`: created at POST /v1/videos (webhooks name its events `video.*`). */
  via?: 'videos';
}

/** The generation workflow's signature, for a typed start without importing the workflow's code. */
export type GenerationWorkflow = (input: GenerationInput, resume?: unknown) => Promise<GenerationResult>;
