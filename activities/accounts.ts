/**
 * A platform's accounts as one worker sees them (docs/explanations/durability.md#accounts-and-failover): which account a new
 * job goes to, and which accounts are fit to take one.
 *
 * - A submit picks among the healthy accounts that serve the model, by weight (`pick`).
 * - An account whose credentials are refused or whose balance is out (`refused`: `upstream_auth`,
 *   `insufficient_balance`) leaves the rotation for ACCOUNT_COOLDOWN_MS, and raises the operator alert. Once the
 *   cool-down has passed it is probed back: the next pick may choose it again, and its next answer decides (a job
 *   created: healthy; refused again: another cool-down). A probe is a real create, but only a refusal proving that
 *   no job was made keeps an account out, so a probe never costs a job that is not wanted.
 * - A throttled account (`throttled`: a 429 that created nothing) is slowed, not removed: its weight is cut to a
 *   quarter until its Retry-After (at least ACCOUNT_THROTTLE_MS) has passed.
 * - With every account out, `pick` finds none: the submit waits (a retryable error) within the task's deadline,
 *   and the alert fires at once.
 *
 * The state is this worker's memory: each worker learns an account's refusal from its own first refusal.
 */
import type { PlatformAdapter } from '../platforms/platform';

export interface PoolAccount {
  readonly id: string;
  readonly weight: number;
  /** The public model ids it serves; undefined: all. */
  readonly models?: readonly string[];
  readonly adapter: PlatformAdapter;
}

/** What the pool reports: the health gauge and the operator alerts. */
export interface AccountHealthObserver {
  /** An account entered (true) or left (false) the rotation: `mediagate_upstream_account_healthy`. */
  health(platform: string, account: string, healthy: boolean): void;
  /** Something an operator must act on (an account refused, every account out). */
  alert(platform: string, message: string): void;
  /** The platform refused an account (out for its cool-down) or throttled it: the console's recent refusals. */
  refusal?(platform: string, account: string, kind: 'refused' | 'throttled', reason: string): void;
}

/** One account as this worker sees it now (the console's account page, through worker/account-states.ts). */
export interface AccountSnapshot {
  id: string;
  weight: number;
  inRotation: boolean;
  outReason?: string;
  /** The platform's own words for the refusal (its error message), beside its code in outReason. */
  outDetail?: string;
  /** When it left the rotation (its first refusal of this cool-down). */
  outSince?: number;
  /** When it is probed again. */
  outUntil?: number;
  throttledUntil?: number;
}

export interface AccountPoolOptions {
  /** How long a refused account stays out before it is probed back (ACCOUNT_COOLDOWN_MS). */
  cooldownMs?: number;
  /** How long a throttled account is slowed when the platform gave no Retry-After (ACCOUNT_THROTTLE_MS). */
  throttleMs?: number;
  observer?: AccountHealthObserver;
  now?: () => number;
  /** In [0, 1): the weighted pick's draw (tests pin it). */
  random?: () => number;
}

export const ACCOUNT_COOLDOWN_MS = 5 * 60_000;
export const ACCOUNT_THROTTLE_MS = 10_000;
/** The longest a submit waits between looks at a platform whose every account is out. */
export const NO_ACCOUNT_RETRY_MAX_MS = 30_000;
/** The share of its weight a throttled account keeps. */
export const THROTTLED_WEIGHT_FACTOR = 0.25;

interface AccountState {
  /** Out of the rotation until then (a refusal); undefined: in. */
  outUntil?: number;
  /** Why it is out, for the alerts. */
  outReason?: string;
  /** The platform's words for it (the console shows them). */
  outDetail?: string;
  /** Since when it is out (kept through repeated refusals until it is back). */
  outSince?: number;
  /** Slowed until then (a throttle). */
  throttledUntil?: number;
}

export class AccountPool {
  private readonly state = new Map<string, AccountState>();
  private readonly cooldownMs: number;
  private readonly throttleMs: number;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly observer: AccountHealthObserver | undefined;
  private allOutAlerted = false;

  /**
   * One pool whatever configured the accounts: an accounts file, or the single-account variables (a one-account
   * pool, `default`). A refusal takes its account out and moves the submit to the next; with none left, tasks wait
   * within their deadline — so a platform's only account running out of balance makes tasks wait for the
   * operator's top-up instead of failing every task accepted meanwhile.
   */
  constructor(
    readonly platform: string,
    readonly accounts: readonly PoolAccount[],
    options: AccountPoolOptions = {},
  ) {
    if (accounts.length === 0) throw new Error(`platform ${platform} has no account`);
    this.cooldownMs = options.cooldownMs ?? ACCOUNT_COOLDOWN_MS;
    this.throttleMs = options.throttleMs ?? ACCOUNT_THROTTLE_MS;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.observer = options.observer;
    for (const a of accounts) {
      this.state.set(a.id, {});
      this.observer?.health(platform, a.id, true);
    }
  }

  /** The single-account variables: the same as an accounts file with one account, `default`. */
  static single(platform: string, adapter: PlatformAdapter, options?: AccountPoolOptions): AccountPool {
    return new AccountPool(platform, [{ id: 'default', weight: 1, adapter }], options);
  }

  /** The account named `id`; undefined: not configured on this worker. An absent id (older runs) is the first. */
  get(id: string | undefined): PoolAccount | undefined {
    return id === undefined ? this.accounts[0] : this.accounts.find((a) => a.id === id);
  }

  serves(account: PoolAccount, model: string): boolean {
    return account.models === undefined || account.models.includes(model);
  }

  /** In the rotation now: never refused, or its cool-down has passed (it is then probed by the next create). */
  available(id: string): boolean {
    const s = this.state.get(id);
    return s !== undefined && (s.outUntil === undefined || s.outUntil <= this.now());
  }

  /** A healthy account serving `model` and not in `exclude`, drawn by weight; undefined: none. */
  pick(model: string, exclude: ReadonlySet<string> = new Set()): PoolAccount | undefined {
    const now = this.now();
    const candidates = this.accounts.filter((a) => !exclude.has(a.id) && this.serves(a, model) && this.available(a.id));
    const weights = candidates.map((a) => {
      const throttled = (this.state.get(a.id)?.throttledUntil ?? 0) > now;
      return a.weight * (throttled ? THROTTLED_WEIGHT_FACTOR : 1);
    });
    const total = weights.reduce((s, w) => s + w, 0);
    if (candidates.length === 0 || total <= 0) return undefined;
    let draw = this.random() * total;
    for (let i = 0; i < candidates.length; i++) {
      draw -= weights[i]!;
      if (draw < 0) return candidates[i];
    }
    return candidates[candidates.length - 1];
  }

  /** The account created a job: it is healthy (a probe after its cool-down passed). */
  succeeded(id: string): void {
    const s = this.state.get(id);
    if (!s || s.outUntil === undefined) return;
    delete s.outUntil;
    delete s.outReason;
    delete s.outDetail;
    delete s.outSince;
    this.allOutAlerted = false;
    this.observer?.health(this.platform, id, true);
    this.observer?.alert(this.platform, `account ${id} of platform ${this.platform} created a job again: back in the rotation`);
  }

  /**
   * The platform refused the account's credentials or balance (an answer proving no job was made): out for the
   * cool-down. `why` is the platform's code; `detail` its own words, when it gave any.
   */
  refused(id: string, why: string, detail?: string): void {
    const s = this.state.get(id);
    if (!s) return;
    const wasIn = s.outUntil === undefined;
    s.outUntil = this.now() + this.cooldownMs;
    s.outReason = why;
    if (detail) s.outDetail = detail;
    else delete s.outDetail;
    if (wasIn) s.outSince = this.now();
    if (wasIn) this.observer?.health(this.platform, id, false);
    this.observer?.refusal?.(this.platform, id, 'refused', detail ? `${why}: ${detail}` : why);
    this.observer?.alert(
      this.platform,
      `account ${id} of platform ${this.platform} was refused (${why}): out of the rotation for ${Math.round(this.cooldownMs / 1000)} s, then probed again`,
    );
  }

  /**
   * The operator asked to probe an account now (the console's "probe now"): its cool-down ends at once, so the next
   * create may pick it and its answer decides, as when a cool-down runs out. False: it is not out (nothing to do).
   */
  probeNow(id: string): boolean {
    const s = this.state.get(id);
    if (!s || s.outUntil === undefined || s.outUntil <= this.now()) return false;
    s.outUntil = this.now();
    this.observer?.alert(
      this.platform,
      `account ${id} of platform ${this.platform}: probe requested by the operator; the next create tries it`,
    );
    return true;
  }

  /** The account was throttled (a 429 that created nothing): slowed for `retryAfterMs` (or ACCOUNT_THROTTLE_MS). */
  throttled(id: string, retryAfterMs?: number): void {
    const s = this.state.get(id);
    if (!s) return;
    const forMs = Math.max(retryAfterMs ?? 0, this.throttleMs);
    s.throttledUntil = this.now() + forMs;
    this.observer?.refusal?.(this.platform, id, 'throttled', `429: slowed for ${Math.round(forMs / 1000)} s`);
  }

  /** Every account as this worker sees it now: in the rotation or out (why, since and until when), throttled. */
  snapshot(): AccountSnapshot[] {
    const now = this.now();
    return this.accounts.map((a) => {
      const s = this.state.get(a.id)!;
      const out = s.outUntil !== undefined && s.outUntil > now;
      return {
        id: a.id,
        weight: a.weight,
        inRotation: !out,
        ...(out ? { outReason: s.outReason, outSince: s.outSince, outUntil: s.outUntil } : {}),
        ...(out && s.outDetail ? { outDetail: s.outDetail } : {}),
        ...(s.throttledUntil !== undefined && s.throttledUntil > now ? { throttledUntil: s.throttledUntil } : {}),
      };
    });
  }

  /** Of `accounts`, each out with why and when it is probed again; empty when at least one is available. */
  private outOf(accounts: readonly PoolAccount[]): { id: string; reason: string; backInMs: number }[] {
    if (accounts.some((a) => this.available(a.id))) return [];
    const now = this.now();
    return accounts.map((a) => {
      const s = this.state.get(a.id)!;
      return { id: a.id, reason: s.outReason ?? 'refused', backInMs: Math.max(0, (s.outUntil ?? now) - now) };
    });
  }

  /** The accounts serving `model` that are out, with why; empty when at least one is available. */
  outFor(model: string): { id: string; reason: string; backInMs: number }[] {
    return this.outOf(this.accounts.filter((a) => this.serves(a, model)));
  }

  /** Why every account of the platform is out (for the worker's /readyz); undefined while one is in the rotation. */
  noAccountAtAll(): string | undefined {
    // A pool is never empty (the constructor refuses one), so an empty list means an account is available.
    const out = this.outOf(this.accounts);
    return out.length === 0
      ? undefined
      : out.map((o) => `${o.id}: ${o.reason}, probed again in ${Math.ceil(o.backInMs / 1000)} s`).join('; ');
  }

  /** Every account serving `model` is out: alerts once (until an account is back), and says when the first returns. */
  noAccount(model: string): { message: string; retryAfterMs: number } {
    const out = this.outFor(model);
    const backInMs = out.length > 0 ? Math.min(...out.map((o) => o.backInMs)) : this.cooldownMs;
    const list = out.map((o) => `${o.id}: ${o.reason}`).join('; ');
    const message = `No account of platform ${this.platform} can take a job for model ${model} now (${list || 'none serves it'}); the task waits within its deadline`;
    if (!this.allOutAlerted) {
      this.allOutAlerted = true;
      this.observer?.alert(this.platform, message);
    }
    // The next try costs no upstream call while every account is out: soon enough to notice one coming back (the
    // activity's failure applies the shortest retry delay, RETRY_AFTER_MIN_MS, to this as to every Retry-After).
    return { message, retryAfterMs: Math.min(backInMs, NO_ACCOUNT_RETRY_MAX_MS) };
  }
}
