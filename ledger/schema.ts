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
  account_probes: AccountProbesTable;
}

/** Generated is re-exported for tables that gain generated columns. */
export type { Generated };
