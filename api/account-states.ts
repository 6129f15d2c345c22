/**
 * The platforms' accounts for the operator (GET /admin/v1/accounts, the console's accounts page): what every running
 * worker last wrote of each account (worker/account-states.ts, through the shared database), merged into one state
 * per account — out of the rotation if a worker has it out (with why, since and until when), throttled if a worker
 * slows it, else in the rotation — with its jobs in flight (its running tasks in Temporal, UpstreamAccount) and its
 * recent refusals. Any API replica answers the same, on either shape of the deployment.
 */
import type { AccountCapacity } from '../capacity/slots';
import { accountStates, recentRefusals, requestProbe, type AccountRefusal, type AccountStateRow } from '../ledger/account-states';
import type { LedgerDatabase } from '../ledger/database';

/** A worker that has not written for this long has stopped: its view is left out (it writes every 5 s). */
export const ACCOUNT_STATES_STALE_MS = 30_000;
/** Refusals shown per account. */
export const REFUSALS_SHOWN = 10;

export type AccountStateName = 'in_rotation' | 'throttled' | 'out';

export interface AccountView {
  platform: string;
  account: string;
  state: AccountStateName;
  weight: number;
  out_reason: string | null;
  /** The platform's own words for the refusal (its error message), beside its code in out_reason. */
  out_detail: string | null;
  out_since: string | null;
  out_until: string | null;
  throttled_until: string | null;
  jobs_in_flight: number;
  capacity: CapacityView | null;
  workers: { worker: string; state: AccountStateName; updated_at: string }[];
  recent_refusals: { at: string; kind: 'refused' | 'throttled'; reason: string; worker: string }[];
}

/** An account's slots and queue as the operator reads them. */
export interface CapacityView {
  limit: number | null;
  limit_source: 'configured' | 'learned' | 'unlimited';
  configured: number | null;
  learned: number | null;
  in_use: number;
  waiting: number;
  oldest_waiting_since: string | null;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

function capacityView(c: AccountCapacity): CapacityView {
  return {
    limit: c.limit,
    limit_source: c.learned !== null ? 'learned' : c.configured !== null ? 'configured' : 'unlimited',
    configured: c.configured,
    learned: c.learned,
    in_use: c.inUse,
    waiting: c.waiting,
    oldest_waiting_since: iso(c.oldestWaitingSince),
  };
}

function stateOfRow(r: AccountStateRow, now: Date): AccountStateName {
  if (!r.in_rotation) return 'out';
  return r.throttled_until && r.throttled_until > now ? 'throttled' : 'in_rotation';
}

/** One account's view from its workers' rows (all of one account). */
function merge(
  rows: (AccountStateRow & { updated_at: Date })[],
  now: Date,
): Omit<AccountView, 'jobs_in_flight' | 'recent_refusals' | 'capacity'> {
  const first = rows[0]!;
  const out = rows.filter((r) => !r.in_rotation);
  const throttled = rows.filter((r) => r.throttled_until && r.throttled_until > now);
  const earliest = (ds: (Date | null)[]) => ds.filter((d): d is Date => d !== null).sort((a, b) => a.getTime() - b.getTime())[0];
  const latest = (ds: (Date | null)[]) => ds.filter((d): d is Date => d !== null).sort((a, b) => b.getTime() - a.getTime())[0];
  return {
    platform: first.platform,
    account: first.account,
    state: out.length > 0 ? 'out' : throttled.length > 0 ? 'throttled' : 'in_rotation',
    weight: first.weight,
    out_reason: out[0]?.out_reason ?? null,
    out_detail: out[0]?.out_detail ?? null,
    out_since: iso(earliest(out.map((r) => r.out_since))),
    out_until: iso(latest(out.map((r) => r.out_until))),
    throttled_until: iso(latest(throttled.map((r) => r.throttled_until))),
    workers: rows.map((r) => ({ worker: r.worker_id, state: stateOfRow(r, now), updated_at: r.updated_at.toISOString() })),
  };
}

export class AccountStates {
  constructor(
    private readonly ledger: LedgerDatabase,
    /** How many of the account's tasks are running now (Temporal visibility). */
    private readonly inFlight: (platform: string, account: string) => Promise<number>,
    /** The slot store (capacity/slots.ts): each account's limit, slots in use and queue. */
    private readonly capacity?: { view(): Promise<AccountCapacity[]>; waitingCount(): Promise<number> },
  ) {}

  /** Tasks waiting for platform capacity now (0 without a slot store). */
  async waiting(): Promise<number> {
    return this.capacity ? this.capacity.waitingCount() : 0;
  }

  /**
   * Asks every worker to probe the account now (its next write of the accounts' states acts on it: within
   * ACCOUNT_STATES_INTERVAL_MS). Undefined: no running worker reports such an account.
   */
  async probe(platform: string, account: string, now = new Date()): Promise<{ requested_at: string } | undefined> {
    const rows = await accountStates(this.ledger, new Date(now.getTime() - ACCOUNT_STATES_STALE_MS));
    if (!rows.some((r) => r.platform === platform && r.account === account)) return undefined;
    const request = await requestProbe(this.ledger, platform, account);
    return { requested_at: request.requestedAt.toISOString() };
  }

  async list(now = new Date()): Promise<AccountView[]> {
    const [rows, refusals, capacities] = await Promise.all([
      accountStates(this.ledger, new Date(now.getTime() - ACCOUNT_STATES_STALE_MS)),
      recentRefusals(this.ledger, REFUSALS_SHOWN),
      this.capacity ? this.capacity.view() : Promise.resolve([]),
    ]);
    const capacityOf = (platform: string, account: string) => {
      const found = capacities.find((c) => c.platform === platform && c.account === account);
      return found ? capacityView(found) : null;
    };
    const byAccount = new Map<string, typeof rows>();
    for (const r of rows) byAccount.set(`${r.platform}\n${r.account}`, [...(byAccount.get(`${r.platform}\n${r.account}`) ?? []), r]);
    const refusalsOf = (platform: string, account: string) =>
      refusals
        .filter((r: AccountRefusal) => r.platform === platform && r.account === account)
        .map((r) => ({ at: r.at.toISOString(), kind: r.kind, reason: r.reason, worker: r.workerId }));
    return Promise.all(
      [...byAccount.values()].map(async (accountRows) => {
        const view = merge(accountRows, now);
        return {
          ...view,
          jobs_in_flight: await this.inFlight(view.platform, view.account),
          capacity: capacityOf(view.platform, view.account),
          recent_refusals: refusalsOf(view.platform, view.account),
        };
      }),
    );
  }
}
