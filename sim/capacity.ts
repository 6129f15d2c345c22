/**
 * Each simulated account's concurrency: how many of its jobs may be queued or running at once, as each platform
 * documents its own (docs/reference/simulator.md#capacity). The core only counts; what a create over the limit gets
 * is the platform's own answer (V refuses it with 429 InflightBatchsizeExceeded, T creates a task that fails with
 * RequestLimitExceeded, B refuses it as it throttles), decided in each platform's create.
 *
 * A job holds its account's slot from the create that made it until it ends (succeeded, failed, cancelled, expired,
 * or forgotten). Job states are a function of time (sim/jobs.ts), so the slots are freed lazily: every look at an
 * account first lets go of the jobs that have ended by then, with the moment each ended, so the intervals a
 * benchmark reads are exact whenever it reads them.
 *
 * Limits: a default per platform (SIM_<X>_MAX_CONCURRENT, sim/sim-config.ts) and any account's own, set while the
 * simulator runs (POST /_sim/<x>/capacity). Counters and intervals are for tests and the capacity benchmark
 * (GET /_sim/<x>/capacity, GET /_sim/<x>/capacity/intervals, DELETE /_sim/<x>/capacity/stats).
 */
import type { SimJob } from './jobs';
import type { SimPlatform } from './vocabulary';

/** A limit: how many jobs at once; null: no limit. */
export type Limit = number | null;

/** What a platform tells the core about its jobs, so the core can count them per account. */
export interface CapacityTracking {
  /** The account (the platform's account key: an API key, a SecretId, an AccessKey ID) that created the job. */
  accountOf(job: SimJob): string;
  /** When the job reached a final state, if it has by `now`; undefined while it is queued or running. */
  endOf(job: SimJob, now: number): number | undefined;
  /** Whether a key names one of the platform's simulated accounts (for the control surface). */
  isAccount(key: string): boolean;
  /** False for a job that never held a slot (T's task created over the limit); default true. */
  holdsSlot?(job: SimJob): boolean;
}

/** One job's time on its account: start = the create accepted, end = it reached a final state. */
export interface JobInterval {
  id: string;
  start_ms: number;
  end_ms: number | null;
}

/** One account's view (GET /_sim/<x>/capacity). */
export interface AccountCapacity {
  account: string;
  max_concurrent: Limit;
  running: number;
  peak_running: number;
  created_jobs: number;
  refused_creates: number;
  over_limit_jobs: number;
}

type KeptInterval = JobInterval & { account: string };

interface AccountState {
  /** The jobs holding a slot now, each with its interval (ended ones are let go at the next look). */
  active: Map<string, { job: SimJob; interval: KeptInterval }>;
  peak: number;
  created: number;
  refused: number;
  overLimit: number;
}

/** Intervals kept per platform, oldest dropped first: memory stays bounded however long a benchmark runs. */
export const MAX_INTERVALS = 100_000;

export class SimCapacity {
  private readonly tracking = new Map<SimPlatform, CapacityTracking>();
  private readonly accounts = new Map<SimPlatform, Map<string, AccountState>>();
  /** Per platform, oldest first; each with the account it belongs to. */
  private readonly intervals = new Map<SimPlatform, KeptInterval[]>();
  private readonly defaults: Record<SimPlatform, Limit>;
  private readonly limits = new Map<SimPlatform, Map<string, Limit>>();

  constructor(
    private readonly initial: Record<SimPlatform, Limit>,
    private readonly now: () => number = Date.now,
  ) {
    this.defaults = { ...initial };
  }

  /**
   * A platform's jobs are counted from now on; the jobs it already has (a simulator restarted on its data file) hold
   * their slots until they end, as on the platform, whose jobs outlive its API servers.
   */
  track(platform: SimPlatform, tracking: CapacityTracking, existing: readonly SimJob[]): void {
    this.tracking.set(platform, tracking);
    const now = this.now();
    for (const job of existing) {
      if (tracking.holdsSlot?.(job) === false || tracking.endOf(job, now) !== undefined) continue;
      this.hold(platform, tracking.accountOf(job), job);
    }
  }

  isAccount(platform: SimPlatform, key: string): boolean {
    return this.tracking.get(platform)?.isAccount(key) ?? false;
  }

  /** The account's limit: its own if one was set, else the platform's default. */
  limitOf(platform: SimPlatform, account: string): Limit {
    const own = this.limits.get(platform)?.get(account);
    return own !== undefined ? own : this.defaults[platform];
  }

  /** Jobs of the account queued or running now. */
  running(platform: SimPlatform, account: string): number {
    const state = this.settle(platform, account);
    return state.active.size;
  }

  /** True when the account may take one more job now. */
  hasRoom(platform: SimPlatform, account: string): boolean {
    const limit = this.limitOf(platform, account);
    return limit === null || this.running(platform, account) < limit;
  }

  /** A job created on the account: it holds a slot until it ends. */
  started(platform: SimPlatform, account: string, job: SimJob): void {
    this.settle(platform, account).created++;
    this.hold(platform, account, job);
  }

  /** A create the account's limit refused: nothing was created. */
  refused(platform: SimPlatform, account: string): void {
    this.stateOf(platform, account).refused++;
  }

  /** A job created over the limit that fails for it (T): it exists, and holds no slot. */
  overLimit(platform: SimPlatform, account: string): void {
    const state = this.stateOf(platform, account);
    state.created++;
    state.overLimit++;
  }

  /**
   * Sets one account's limit, or (no account) the platform's default, which every account without its own follows.
   * Jobs already running beyond a lowered limit run on: each is counted in over_limit_jobs.
   */
  setLimit(platform: SimPlatform, limit: Limit, account?: string): void {
    if (account === undefined) this.defaults[platform] = limit;
    else this.limitsOf(platform).set(account, limit);
    for (const name of this.accountsOf(platform).keys()) {
      if (account !== undefined && name !== account) continue;
      const max = this.limitOf(platform, name);
      const running = this.running(platform, name);
      if (max !== null && running > max) this.stateOf(platform, name).overLimit += running - max;
    }
  }

  /** Every account the platform has seen or been given a limit for, with its counters. */
  view(platform: SimPlatform): { platform: SimPlatform; default_max_concurrent: Limit; accounts: AccountCapacity[] } {
    const names = new Set([...this.accountsOf(platform).keys(), ...this.limitsOf(platform).keys()]);
    const accounts = [...names].sort().map((account) => {
      const state = this.settle(platform, account);
      return {
        account,
        max_concurrent: this.limitOf(platform, account),
        running: state.active.size,
        peak_running: state.peak,
        created_jobs: state.created,
        refused_creates: state.refused,
        over_limit_jobs: state.overLimit,
      };
    });
    return { platform, default_max_concurrent: this.defaults[platform], accounts };
  }

  /** The account's jobs' intervals, oldest first (at most MAX_INTERVALS over the platform's accounts). */
  intervalsOf(platform: SimPlatform, account: string): JobInterval[] {
    this.settle(platform, account);
    return (this.intervals.get(platform) ?? [])
      .filter((i) => i.account === account)
      .map(({ id, start_ms, end_ms }) => ({ id, start_ms, end_ms }));
  }

  /** Forgets the counters and intervals (jobs still running keep their slots, and the peak starts from them). */
  resetStats(platform: SimPlatform): void {
    this.intervals.set(platform, []);
    for (const state of this.accountsOf(platform).values()) {
      state.created = 0;
      state.refused = 0;
      state.overLimit = 0;
      state.peak = state.active.size;
    }
  }

  /** The simulator's reset: no jobs, no counters, the limits it started with. */
  reset(): void {
    this.accounts.clear();
    this.intervals.clear();
    this.limits.clear();
    Object.assign(this.defaults, this.initial);
  }

  private hold(platform: SimPlatform, account: string, job: SimJob): void {
    const state = this.stateOf(platform, account);
    const interval: KeptInterval = { id: job.id, start_ms: job.createdAt, end_ms: null, account };
    const kept = this.intervals.get(platform) ?? [];
    kept.push(interval);
    if (kept.length > MAX_INTERVALS) kept.splice(0, kept.length - MAX_INTERVALS);
    this.intervals.set(platform, kept);
    state.active.set(job.id, { job, interval });
    state.peak = Math.max(state.peak, state.active.size);
  }

  /** The account's state once the jobs that have ended by now have let go of their slots. */
  private settle(platform: SimPlatform, account: string): AccountState {
    const state = this.stateOf(platform, account);
    const tracking = this.tracking.get(platform);
    if (!tracking) return state;
    const now = this.now();
    for (const [id, { job, interval }] of state.active) {
      const end = tracking.endOf(job, now);
      if (end === undefined) continue;
      interval.end_ms = end;
      state.active.delete(id);
    }
    return state;
  }

  private stateOf(platform: SimPlatform, account: string): AccountState {
    const accounts = this.accountsOf(platform);
    let state = accounts.get(account);
    if (!state) {
      state = { active: new Map(), peak: 0, created: 0, refused: 0, overLimit: 0 };
      accounts.set(account, state);
    }
    return state;
  }

  private accountsOf(platform: SimPlatform): Map<string, AccountState> {
    let accounts = this.accounts.get(platform);
    if (!accounts) this.accounts.set(platform, (accounts = new Map()));
    return accounts;
  }

  private limitsOf(platform: SimPlatform): Map<string, Limit> {
    let limits = this.limits.get(platform);
    if (!limits) this.limits.set(platform, (limits = new Map()));
    return limits;
  }
}
