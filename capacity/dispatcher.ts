/**
 * The worker's side of the slot store (capacity/slots.ts): it takes and gives back slots for the activities
 * (core/capacity.ts CapacityGate), wakes each task a freed slot was granted to, and sweeps what a crash can leave:
 *
 * - a grant whose signal never arrived (the worker died between the commit and the signal, Temporal was down): signalled
 *   again after UNCLAIMED_GRANT_MS;
 * - a slot or a queue place whose task closed without giving it back (terminated by an operator, a build without
 *   capacity): given back once Temporal says the task is closed;
 * - an account with room and a queue (a crash between a release and its grants): its slots granted.
 *
 * Every worker sweeps; every step is safe to run twice, so two sweeps at once cost a few duplicate reads, never a slot.
 */
import type { CapacityGate, CreatedOnSlot, SlotAnswer, SlotRelease, SlotRequest, TierOfRequest } from '../core/capacity';
import type { Logger } from '../core/logger';
import { GrantNotifier, type GrantSignal } from './grant-notifier';
import type { Grant, HeldJob, SlotStore } from './slots';

/** How the dispatcher reaches tasks in Temporal and their jobs on the platforms (worker/capacity.ts). */
export interface TaskSignals {
  /** Signals the task its grant: `closed` when the task has no open run any more. */
  grant: GrantSignal;
  /** Whether the task's workflow is still open. */
  isOpen(taskId: string): Promise<boolean>;
  /** Whether the platform still runs a job (false once it ended, or the platform no longer knows it). */
  jobRuns(job: HeldJob): Promise<boolean>;
}

/** What the dispatcher reports for the metrics (worker/worker-metrics.ts). */
export interface CapacityObserver {
  granted?(grant: Grant): void;
  refusedForCapacity?(taskId: string): void;
}

/** A grant not taken up by its task within this is signalled again. */
export const UNCLAIMED_GRANT_MS = 20_000;
/** A slot or queue place is checked against its task's state in Temporal at most this often. */
export const HOLDER_CHECK_MS = 60_000;
/** A job that runs on past its task's end is asked about at most this often. */
export const HELD_JOB_CHECK_MS = 10_000;
/** The sweep's period. */
export const SWEEP_INTERVAL_MS = 15_000;

/** Offline-tier jobs (`service_tier: "flex"`): counted against their account's limit like any job, or apart (not limited). */
export type FlexJobs = 'counted' | 'apart';

export class SlotDispatcher implements CapacityGate {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private readonly grants: GrantNotifier;

  constructor(
    private readonly store: SlotStore,
    private readonly signals: TaskSignals,
    private readonly log: Logger,
    private readonly observer: CapacityObserver = {},
    private readonly flexJobs: FlexJobs = 'counted',
  ) {
    this.grants = new GrantNotifier(
      store,
      (taskId) => signals.grant(taskId),
      log,
      (grant) => observer.granted?.(grant),
    );
  }

  counts(request: TierOfRequest): boolean {
    return !(this.flexJobs === 'apart' && request.service_tier === 'flex');
  }

  take(request: SlotRequest, opts: { mayWait: boolean }): Promise<SlotAnswer> {
    return this.store.take(request, opts);
  }

  async created(taskId: string, job?: CreatedOnSlot): Promise<void> {
    await this.wake(await this.store.created(taskId, job));
  }

  async release(taskId: string, why: SlotRelease = {}): Promise<void> {
    if (why.overCapacity) this.observer.refusedForCapacity?.(taskId);
    await this.wake(await this.store.release(taskId, why));
  }

  /** Tells each granted task its slot (capacity/grant-notifier.ts). */
  wake(grants: readonly Grant[]): Promise<void> {
    return this.grants.wake(grants);
  }

  /** The sweep, every SWEEP_INTERVAL_MS until `stop` (a failed pass is logged and the next one tries again). */
  start(intervalMs = SWEEP_INTERVAL_MS): void {
    const tick = () => {
      this.sweeping = this.sweep()
        .catch((err: unknown) => this.log.warn({ err: (err as Error).message }, 'The capacity sweep failed; it runs again shortly'))
        .finally(() => {
          this.sweeping = undefined;
          if (this.timer) this.timer = setTimeout(tick, intervalMs);
        });
    };
    this.timer = setTimeout(tick, intervalMs);
  }

  async stop(): Promise<void> {
    const timer = this.timer;
    this.timer = undefined;
    if (timer) clearTimeout(timer);
    await this.sweeping;
  }

  /** One pass: grants owed, grants unclaimed, holders closed. */
  async sweep(): Promise<void> {
    await this.wake(await this.store.grantAll());
    for (const taskId of await this.store.unclaimedGrants(UNCLAIMED_GRANT_MS)) await this.grants.tell(taskId);
    for (const taskId of await this.store.dueForCheck(HOLDER_CHECK_MS)) {
      if (await this.signals.isOpen(taskId)) continue;
      this.log.info({ taskId }, 'A closed task still held a platform slot or a queue place: given back');
      await this.wake(await this.store.release(taskId));
    }
    for (const job of await this.store.heldPastTheirTask(HELD_JOB_CHECK_MS)) {
      if (await this.signals.jobRuns(job)) continue;
      this.log.info(
        { taskId: job.taskId, upstreamTaskId: job.upstreamTaskId },
        'A job that ran on past its task has ended: its slot is given back',
      );
      await this.wake(await this.store.release(job.taskId));
    }
  }
}
