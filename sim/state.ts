/**
 * Everything one simulator holds between requests: its jobs, counters, recorded requests, injected faults and
 * settings changed through /_sim/config. The control routes change it, the platform host reads it, and `reset`
 * (/_sim/reset) empties it.
 */
import { CallbackSender } from './callbacks';
import { SimCapacity, type Limit } from './capacity';
import { FirstTimes } from './directives';
import type { PlatformStats, RecordedRequest } from './host';
import { JobStore } from './jobs';
import { TransitionWatcher } from './transitions';
import { SIM_PLATFORMS, type FaultStatus, type SimOp, type SimPlatform } from './vocabulary';

/** A fault set through /_sim/faults: some platform's (or every one's) operation answers `status` for a while. */
export interface Outage {
  platform: SimPlatform | '*';
  op: SimOp | '*';
  status: FaultStatus;
  /** Remaining requests to fault; undefined = until `until`. */
  remaining?: number;
  until?: number;
  retryAfterSeconds?: number;
}

/** The requests kept for /_sim/requests, newest last; older ones are dropped. */
const MAX_RECORDED = 5_000;

/**
 * Each platform's documented concurrency per account: T runs one AIGC task at a time by default (docs/platforms/t.md);
 * V's limit depends on the account's recharge amount and B publishes none, so both are unlimited until configured.
 */
export const DEFAULT_MAX_CONCURRENT: Readonly<Record<SimPlatform, Limit>> = { T: 1, V: null, B: null };

export function emptyStats(): PlatformStats {
  return {
    submitRequests: 0,
    jobsCreated: 0,
    dedupRefusals: 0,
    polls: 0,
    lists: 0,
    cancels: 0,
    rejected: 0,
    faultsInjected: 0,
    answersDropped: 0,
  };
}

export class SimulatorState {
  /** Default job duration; a prompt directive overrides it per job. */
  jobDurationMs: number;
  /** How long a `slow` fault holds an answer back. */
  slowAnswerMs = 4_000;
  readonly jobs: JobStore;
  readonly stats = Object.fromEntries(SIM_PLATFORMS.map((p) => [p, emptyStats()])) as Record<SimPlatform, PlatformStats>;
  readonly requests: RecordedRequest[] = [];
  outages: Outage[] = [];
  readonly promptFaults = new FirstTimes();
  readonly callbacks = new CallbackSender();
  readonly transitions: TransitionWatcher;
  readonly resetListeners: Array<() => void> = [];
  /** Each account's concurrency: its limit, its jobs holding slots, and the counters tests read. */
  readonly capacity: SimCapacity;
  /** Result files deleted through /_sim/files (memory only, and kept across a reset): a platform's link that died. */
  readonly deletedFiles = new Set<string>();

  constructor(options: { jobDurationMs?: number; dataFile?: string; maxConcurrent?: Partial<Record<SimPlatform, Limit>> }) {
    this.jobDurationMs = options.jobDurationMs ?? 8_000;
    const given = options.maxConcurrent ?? {};
    const limits = Object.fromEntries(SIM_PLATFORMS.map((p) => [p, given[p] !== undefined ? given[p] : DEFAULT_MAX_CONCURRENT[p]]));
    this.capacity = new SimCapacity(limits as Record<SimPlatform, Limit>);
    this.jobs = new JobStore({ defaultDurationMs: () => this.jobDurationMs, file: options.dataFile });
    this.transitions = new TransitionWatcher(this.jobs);
  }

  record(request: RecordedRequest): void {
    this.requests.push(request);
    if (this.requests.length > MAX_RECORDED) this.requests.splice(0, this.requests.length - MAX_RECORDED);
  }

  /** The outage that applies to this request now, if any (spent and expired ones are dropped on the way). */
  activeOutage(platform: SimPlatform, op: SimOp, now: number): Outage | undefined {
    this.outages = this.outages.filter((o) => (o.remaining === undefined || o.remaining > 0) && (o.until === undefined || o.until > now));
    return this.outages.find((o) => (o.platform === '*' || o.platform === platform) && (o.op === '*' || o.op === op));
  }

  reset(): void {
    this.jobs.clear();
    this.promptFaults.clear();
    this.requests.length = 0;
    this.outages = [];
    this.callbacks.reset();
    this.transitions.clear();
    for (const p of SIM_PLATFORMS) this.stats[p] = emptyStats();
    this.capacity.reset();
    for (const fn of this.resetListeners) fn();
  }

  close(): void {
    this.jobs.flush();
    this.transitions.stop();
    this.callbacks.close();
  }
}
