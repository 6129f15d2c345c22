/**
 * Platform capacity: the words the task workflow, the submit activity and the slot store (capacity/) share. Every
 * platform caps how many jobs one account may run at once; a task takes a slot on an account before its create and
 * gives it back as soon as its job can no longer be running (docs/architecture.md, "Capacity").
 */

/** One place a task's job may be created: an account of a platform, for one of the task's members (0: its model). */
export interface SlotCandidate {
  platform: string;
  account: string;
  /** The member's place in a routed task's members (0 for a task that named its model). */
  member: number;
}

/** What a task asks the slot store for: a slot on the first of its candidates with room, else a place in the queue. */
export interface SlotRequest {
  taskId: string;
  /** The API key's id: the queue is fair across keys. */
  owner: string;
  /** The key's share of free slots relative to other waiting keys (default 1). */
  weight: number;
  /** In the order the task prefers them (a route's members first to last, each member's accounts by weight). */
  candidates: SlotCandidate[];
}

/** The store's answer: a slot (the task's own, if it already held one), or a place in the queue since a moment. */
export type SlotAnswer = { granted: SlotCandidate } | { waiting: { since: number } } | { full: true };

/** Why a task gives its slot back, when it matters to the account's learned limit. */
export interface SlotRelease {
  /**
   * The platform refused the job for the account's concurrency (V's 429 `InflightBatchsizeExceeded`, T's task failure
   * `RequestLimitExceeded`): the account runs fewer jobs at once than the gateway let it.
   */
  overCapacity?: boolean;
  /**
   * The task ended but its job runs on upstream (a cancel the platform could not carry out, a deadline): the slot is
   * held until the platform says the job has ended (capacity/dispatcher.ts asks it), never freed while it may run.
   */
  jobRunsOn?: boolean;
}

/** The job a slot's task created, so that a slot held past its task's end can be checked with the platform. */
export interface CreatedOnSlot {
  kind: string;
  upstreamTaskId: string;
}

/** The signal a freed slot sends to the task it was granted to: the task submits again and finds its slot. */
export const CAPACITY_GRANTED_SIGNAL = 'capacityGranted';

/**
 * The priority key of a task holding a granted slot, in Temporal's task queues (1 first, 3 the default): its granted
 * submit (workflows/capacity.ts) and, from its grant on, its workflow's tasks (capacity/temporal-grants.ts) go ahead
 * of a burst's backlog while its slot waits for its job.
 */
export const GRANTED_PRIORITY_KEY = 1;

/** What a task's record says while it waits for a slot (the memo's `waiting`). */
export interface TaskWaiting {
  reason: 'platform_capacity';
  /** When it began to wait (ms since the epoch). */
  since: number;
}

/**
 * What the worker's activities use of the slot store (capacity/dispatcher.ts implements it): take a slot or a place in
 * the queue, say the job was created on it, give it back. Every call is safe to repeat.
 */
/** A task's request as the gate reads it: its `service_tier` decides whether its job counts (core/task.ts GenerationRequest). */
export type TierOfRequest = Readonly<Record<string, unknown>>;

export interface CapacityGate {
  /**
   * Whether a job of this request counts against its account's limit. Every job does, but an offline-tier one
   * (`service_tier: "flex"`) where the operator counts those apart (CAPACITY_FLEX_JOBS=apart): no platform page
   * says whether an offline job takes an online slot (docs/platforms/v.md "The offline tier").
   */
  counts(request: TierOfRequest): boolean;
  take(request: SlotRequest, opts: { mayWait: boolean }): Promise<SlotAnswer>;
  created(taskId: string, job?: CreatedOnSlot): Promise<void>;
  release(taskId: string, why?: SlotRelease): Promise<void>;
}
