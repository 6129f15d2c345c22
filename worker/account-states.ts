/**
 * Publishes this worker's view of the platforms' accounts (activities/accounts.ts) to the shared database, so the
 * operator's console on any API replica can say which account is in the rotation, throttled or out and why, and what
 * each refused lately, whatever the number of workers and replicas: every ACCOUNT_STATES_INTERVAL_MS the worker
 * writes each account's state and the refusals it met since its last write. A failed write is logged and tried
 * again at the next tick: the accounts themselves never wait on it.
 */
import { hostname } from 'node:os';
import type { AccountPools } from '../activities';
import type { Logger } from '../core/logger';
import {
  latestProbeId,
  probeRequestsAfter,
  publishAccountStates,
  recordRefusals,
  type AccountRefusal,
  type AccountStateRow,
} from '../ledger/account-states';
import type { LedgerDatabase } from '../ledger/database';

/** How often a worker writes its accounts' states; readers count a worker silent for ACCOUNT_STATES_STALE_MS as stopped. */
export const ACCOUNT_STATES_INTERVAL_MS = 5_000;
/** Refusals kept in memory between two writes (a storm of 429s is summed up by its latest). */
const MAX_PENDING_REFUSALS = 200;

const at = (ms: number | undefined) => (ms === undefined ? null : new Date(ms));

export class AccountStatePublisher {
  private pending: AccountRefusal[] = [];
  private timer?: NodeJS.Timeout;
  /** The last probe request this worker has acted on; undefined until it has read where the requests stand. */
  private lastProbeId?: string;

  constructor(
    private readonly ledger: LedgerDatabase,
    private readonly pools: AccountPools,
    private readonly log: Logger,
    /** How this worker is named in the rows (its host and process). */
    readonly workerId = `${hostname()}:${process.pid}`,
  ) {}

  /** The pools' observer calls this for each refusal or throttle. */
  refusal(platform: string, account: string, kind: 'refused' | 'throttled', reason: string): void {
    this.pending.push({ workerId: this.workerId, platform, account, kind, reason, at: new Date() });
    if (this.pending.length > MAX_PENDING_REFUSALS) this.pending.splice(0, this.pending.length - MAX_PENDING_REFUSALS);
  }

  /** The rows this worker writes now: one per account of every enabled platform. */
  rows(): AccountStateRow[] {
    return Object.entries(this.pools).flatMap(([platform, pool]) =>
      (pool?.snapshot() ?? []).map((a) => ({
        worker_id: this.workerId,
        platform,
        account: a.id,
        weight: a.weight,
        in_rotation: a.inRotation,
        out_reason: a.outReason ?? null,
        out_detail: a.outDetail ?? null,
        out_since: at(a.outSince),
        out_until: at(a.outUntil),
        throttled_until: at(a.throttledUntil),
      })),
    );
  }

  /**
   * Acts on the operator's probe requests made since the last look (the console's "probe now", through the
   * database): the account's cool-down ends in this worker's pool. A worker that starts skips the requests made
   * before it: its pools start with every account in the rotation.
   */
  async applyProbes(): Promise<void> {
    if (this.lastProbeId === undefined) {
      this.lastProbeId = await latestProbeId(this.ledger);
      return;
    }
    for (const p of await probeRequestsAfter(this.ledger, this.lastProbeId)) {
      this.lastProbeId = p.id;
      const probed = this.pools[p.platform as keyof AccountPools]?.probeNow(p.account) ?? false;
      this.log.info({ platform: p.platform, account: p.account, probed }, 'Probe of an account requested by the operator');
    }
  }

  async publish(): Promise<void> {
    const refusals = this.pending;
    this.pending = [];
    try {
      await this.applyProbes();
      await publishAccountStates(this.ledger, this.rows());
      await recordRefusals(this.ledger, refusals);
    } catch (err) {
      // Kept for the next write: a database restarting must not lose what the accounts said meanwhile.
      this.pending = [...refusals, ...this.pending].slice(-MAX_PENDING_REFUSALS);
      this.log.warn({ err: (err as Error).message }, "Could not write the accounts' states to the database; trying again shortly");
    }
  }

  start(intervalMs = ACCOUNT_STATES_INTERVAL_MS): void {
    void this.publish();
    this.timer = setInterval(() => void this.publish(), intervalMs);
    this.timer.unref();
  }

  /** Stops the ticks and writes once more, so the last state is the one a reader sees. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.publish();
  }
}
