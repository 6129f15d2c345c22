/**
 * Notices the simulated jobs' state changes (queued → running → succeeded…) by looking every 100 ms, and tells the
 * platforms that asked (their callbacks and event queues). Seeded without firing: a job already known when the
 * simulator (re)starts replays nothing, a job created since starts from `queued`.
 */
import type { TransitionListener } from './host';
import type { JobStore, SimState } from './jobs';
import type { SimPlatform } from './vocabulary';

const TERMINAL = new Set<SimState>(['succeeded', 'failed', 'cancelled']);

export class TransitionWatcher {
  private readonly listeners = new Map<SimPlatform, TransitionListener[]>();
  /** Last state seen per job. */
  private readonly lastState = new Map<string, SimState>();
  private readonly startedAt = Date.now();
  private readonly ticker: NodeJS.Timeout;

  constructor(
    private readonly jobs: JobStore,
    intervalMs = 100,
  ) {
    this.ticker = setInterval(() => this.check(), intervalMs);
    this.ticker.unref();
  }

  on(platform: SimPlatform, listener: TransitionListener): void {
    this.listeners.set(platform, [...(this.listeners.get(platform) ?? []), listener]);
  }

  /** One look at every job of a platform someone listens for; each change fires once. */
  check(): void {
    for (const [platform, fns] of this.listeners) {
      for (const job of this.jobs.all(platform)) {
        const before = this.lastState.get(job.id);
        if (before !== undefined && TERMINAL.has(before)) continue;
        const now = this.jobs.view(job).state;
        this.lastState.set(job.id, now);
        const from = before ?? (job.createdAt > this.startedAt ? 'queued' : now);
        if (from !== now) for (const fn of fns) fn(job, from, now);
      }
    }
  }

  /** Forgets the states seen (the simulator's reset). */
  clear(): void {
    this.lastState.clear();
  }

  stop(): void {
    clearInterval(this.ticker);
  }
}
