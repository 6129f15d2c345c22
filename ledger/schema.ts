/**
 * The ledger's tables as Kysely sees them (ledger/migrations.ts creates them). Money is integer micro-units of
 * its currency (1 USD = 1,000,000), never a float: sums and comparisons stay exact.
 */
import type { ColumnType, Generated } from 'kysely' with { 'resolution-mode': 'import' };

/** PostgreSQL's bigint arrives as a string (node-postgres keeps its 64 bits); we write numbers. */
export type BigIntColumn = ColumnType<string, number | bigint, number | bigint>;
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

import type { Currency } from '../pricing/price';

export { CURRENCIES, type Currency } from '../pricing/price';
export const BUDGET_PERIODS = ['day', 'month', 'total'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** Keys made through the admin API (bootstrap keys from API_KEYS/API_KEYS_FILE are never stored). */
export interface ApiKeysTable {
  id: string;
  /** SHA-256 of the secret: the secret itself is shown once, at creation, and never stored. */
  digest: Buffer;
  models: string[] | null;
  rate_limit_rps: number | null;
  max_inflight: number | null;
  budget_micros: BigIntColumn | null;
  budget_currency: Currency | null;
  budget_period: BudgetPeriod | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Where the key's tasks send their events when a request names no `webhook_url`. */
  webhook_url: ColumnType<string | null, string | null | undefined, string | null>;
  /** The key's own `whsec_` signing secret (null: derived from WEBHOOK_SIGNING_SECRET); kept as is, an HMAC needs it. */
  webhook_secret: ColumnType<string | null, string | null | undefined, string | null>;
  /** The secret a rotation replaced: deliveries carry its signature too until `webhook_secret_previous_until`. */
  webhook_secret_previous: ColumnType<string | null, string | null | undefined, string | null>;
  webhook_secret_previous_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /**
   * Whether a budgeted key may start tasks its budget cannot price (a model without a price, or priced in another
   * currency than the budget's): off unless the operator says so, since such tasks count at zero against it.
   */
  allow_unpriced: ColumnType<boolean, boolean | undefined, boolean>;
  /** Set by DELETE: the key stops authenticating; the row stays, so its ledger keeps a name. */
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Open event streams per API replica (null: KEY_MAX_STREAMS). */
  max_streams: ColumnType<number | null, number | null | undefined, number | null>;
  /** The key's share of free platform slots relative to other waiting keys (capacity/slots.ts); 1 by default. */
  weight: ColumnType<number, number | undefined, number>;
}

/**
 * What a key has committed in one budget period (`2026-11-25`, `2026-11` or `total`) in one currency: the
 * estimates of its tasks still running plus the final costs of those that ended, of the tasks priced in that
 * currency. The reservation is one conditional upsert of this row.
 */
export interface BudgetUsageTable {
  key_id: string;
  period: string;
  currency: Currency;
  committed_micros: BigIntColumn;
}

export const ENTRY_STATES = ['reserved', 'settled', 'released'] as const;
export type EntryState = (typeof ENTRY_STATES)[number];

/** One row per task: its reservation, then its settlement (keyed by task id, so a second write changes nothing). */
export interface LedgerEntriesTable {
  task_id: string;
  key_id: string;
  /** The platform of the model the entry was priced at when reserved (a routed task's: its dearest member's). */
  platform: string;
  /** The model the client named: a catalogue model's id, or a route's name. */
  model: string;
  /** A routed task's route name; null: the task named a catalogue model. */
  route: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * The model that served the task and its platform: a direct task's own (from its reservation), a routed task's
   * member that made its job (from its settlement); null while a routed task runs, or when it made no job.
   */
  served_platform: ColumnType<string | null, string | null | undefined, string | null>;
  served_model: ColumnType<string | null, string | null | undefined, string | null>;
  currency: Currency;
  /** The budget period the task is counted in (null: the key has no budget). */
  budget_period: string | null;
  estimated_micros: BigIntColumn;
  final_micros: BigIntColumn | null;
  state: EntryState;
  /** Outcome once settled: success, failed or cancelled. */
  outcome: string | null;
  seconds: number | null;
  images: number | null;
  tokens: BigIntColumn | null;
  created_at: Timestamp;
  settled_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The fingerprint of the request that reserved the entry (null: written before entries kept one). */
  request_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** Why the task counts at zero (its model has no price, or its price is in another currency than the budget); null: it counts at its cost. */
  unpriced: ColumnType<UnpricedReason | null, UnpricedReason | null | undefined, UnpricedReason | null>;
}

export const UNPRICED_REASONS = ['no_price', 'other_currency'] as const;
export type UnpricedReason = (typeof UNPRICED_REASONS)[number];

/** The console's sign-in sessions (api/console-sessions.ts): kept by the digest of the cookie's value. */
export interface AdminSessionsTable {
  digest: Buffer;
  /** What every state-changing request of the session must echo in X-CSRF-Token. */
  csrf_token: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** One platform account as one worker sees it (activities/accounts.ts), written by that worker every few seconds. */
export interface AccountStatesTable {
  worker_id: string;
  platform: string;
  account: string;
  weight: number;
  /** False while the account is out for its cool-down after a refusal. */
  in_rotation: boolean;
  out_reason: string | null;
  /** The platform's own words for the refusal (its error message); null: none, or a worker older than the column. */
  out_detail: string | null;
  out_since: Date | null;
  out_until: Date | null;
  /** Slowed (a quarter of its weight) until then after a 429 that created nothing; null: not throttled. */
  throttled_until: Date | null;
  updated_at: Timestamp;
}

/** A refusal or a throttle one worker saw from an account (the console's "recent refusals"). */
export interface AccountRefusalsTable {
  id: Generated<string>;
  worker_id: string;
  platform: string;
  account: string;
  kind: 'refused' | 'throttled';
  reason: string;
  at: Date;
}

/**
 * A platform account's concurrency as the slot store (capacity/slots.ts) knows it: the limit the operator configured
 * (null: none) and the one learned from the platform's refusals (null: none learned).
 */
export interface CapacityAccountsTable {
  platform: string;
  account: string;
  configured_limit: number | null;
  learned_limit: number | null;
  /** Jobs created since the learned limit last changed: it is raised by one after enough of them. */
  created_since_change: Generated<number>;
  learned_at: Date | null;
  updated_at: Generated<Date>;
}

/** A slot one task holds on one account: granted (the task has not yet created its job) or active. */
export interface CapacityLeasesTable {
  task_id: string;
  platform: string;
  account: string;
  member: number;
  owner: string;
  state: 'granted' | 'active';
  /** Whether the job was created on it (the count the learned limit is set from). */
  created: Generated<boolean>;
  granted_at: Generated<Date>;
  /** When the task began to wait, if it waited (the wait-time metric). */
  waited_since: Date | null;
  /** When a sweep last found its task running (or, once its task ended, its job still running). */
  checked_at: Date | null;
  /** The job made on it (set when it was created): a sweep can ask the platform whether it still runs. */
  kind: string | null;
  upstream_task_id: string | null;
  /** The task ended while its job ran on (a cancel the platform could not carry out): held until the job ends. */
  task_ended: Generated<boolean>;
}

/** A task waiting for a slot on any of its candidate accounts: first in, first out within a key; fair across keys. */
export interface CapacityWaitersTable {
  task_id: string;
  seq: Generated<string>;
  owner: string;
  weight: number;
  /** Its candidates in preference order (core/capacity.ts SlotCandidate). */
  candidates: unknown;
  /** `<platform>/<account>` of each candidate: the index a freed slot is matched on. */
  accounts: string[];
  enqueued_at: Generated<Date>;
  /** When a sweep last found its task still open. */
  checked_at: Date | null;
}

/** An operator's request to probe an account now (the console's accounts page); every worker acts on it once. */
export interface AccountProbesTable {
  id: Generated<string>;
  platform: string;
  account: string;
  requested_at: Generated<Date>;
}

export interface LedgerSchema {
  api_keys: ApiKeysTable;
  budget_usage: BudgetUsageTable;
  ledger_entries: LedgerEntriesTable;
  admin_sessions: AdminSessionsTable;
  account_states: AccountStatesTable;
  account_refusals: AccountRefusalsTable;
  capacity_accounts: CapacityAccountsTable;
  capacity_leases: CapacityLeasesTable;
  capacity_waiters: CapacityWaitersTable;
  reconciliation_reports: ReconciliationReportsTable;
  reconciliation_differences: ReconciliationDifferencesTable;
  account_probes: AccountProbesTable;
}

/** One reconciliation of a platform account's UTC day (tasks/reconciliation.ts): written once, whole. */
export interface ReconciliationReportsTable {
  id: string;
  platform: string;
  account: string;
  /** The UTC day, YYYY-MM-DD (a date column, read as text). */
  day: ColumnType<string, string, never>;
  /** `not_available`: the platform offers no record the gateway can read (`note` says why). */
  status: 'complete' | 'not_available';
  /** What the platform's record was read from (`V task list`, …). */
  source: string;
  note: string | null;
  platform_jobs: number;
  ledger_tasks: number;
  orphans: number;
  missing: number;
  usage_differences: number;
  total_differences: number;
  created_at: Timestamp;
}

export const DIFFERENCE_KINDS = ['orphan', 'missing', 'usage', 'total'] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

/** One difference a report found. */
export interface ReconciliationDifferencesTable {
  id: Generated<string>;
  report_id: string;
  kind: DifferenceKind;
  upstream_task_id: string | null;
  task_id: string | null;
  model: string | null;
  at: Date | null;
  details: ColumnType<unknown, string, never>;
}

/** Generated is re-exported for tables that gain generated columns. */
export type { Generated };
