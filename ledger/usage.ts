/**
 * Usage from the ledger: tasks, outcomes, units and cost per group (the model the client named, the
 * route, the model that served, the day or the key) over a range of UTC days. A task counts in the day it was accepted; while it runs its cost is its estimate, once it ended
 * its final cost. Reservations that never became a task (the API could not start it) are left out. Costs stay
 * per currency: nothing is converted.
 */
import type { LedgerDatabase } from './database';
import { budgetView, periodKey, type BudgetView } from './entries';
import type { BudgetSetting } from './keys';
import type { Currency } from './schema';

/**
 * `model`: what the client named (a route's name for a routed task); `route`: the route (tasks that named a
 * catalogue model form the group null); `served_model` and `platform`: the catalogue model and the platform that
 * served the task (null: a routed task still running, or one that made no job); `day`; `key`.
 */
export type UsageGroup = 'model' | 'route' | 'served_model' | 'platform' | 'day' | 'key';

export interface UsageQuery {
  /** Only this key's tasks; undefined: every key (the operator's view). */
  keyId?: string;
  /** First and last UTC day, inclusive (YYYY-MM-DD). */
  start: string;
  end: string;
  groupBy: UsageGroup;
}

export interface UsageRow {
  /** The group's value; null: tasks without one (no route; not served). */
  group: string | null;
  tasks: number;
  succeeded: number;
  failed: number;
  running: number;
  /** Tasks without a price (their model, or this case of it, has none): left out of `costMicros`, never counted as money. */
  unpriced: number;
  seconds: number;
  images: number;
  tokens: number;
  /**
   * Micro-units per currency, of the priced tasks only: a currency appears only when a priced task of it is in the
   * group, so a group whose tasks are all unpriced has none (shown as `cost: null`, never as 0).
   */
  costMicros: Partial<Record<Currency, number>>;
}

const GROUP_COLUMN: Record<UsageGroup, string> = {
  model: 'model',
  route: 'route',
  served_model: 'served_model',
  key: 'key_id',
  platform: 'served_platform',
  day: "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
};

/** The day after a YYYY-MM-DD (the range's exclusive end). */
function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** One group's figures in one currency, as the query sums them. */
interface UsageSums {
  grp: string | null;
  currency: Currency;
  tasks: string;
  succeeded: string;
  failed: string;
  running: string;
  unpriced: string;
  priced: string;
  seconds: number | null;
  images: string | null;
  tokens: string | null;
  cost: string | null;
}

/** Adds one currency's sums to its group's row. */
function addSums(row: UsageRow, r: UsageSums): void {
  row.tasks += Number(r.tasks);
  row.succeeded += Number(r.succeeded);
  row.failed += Number(r.failed);
  row.running += Number(r.running);
  row.unpriced += Number(r.unpriced);
  row.seconds += Number(r.seconds ?? 0);
  row.images += Number(r.images ?? 0);
  row.tokens += Number(r.tokens ?? 0);
  // An unpriced task's entry carries a currency only as a placeholder (it counts at zero): no money of it is shown.
  if (Number(r.priced) > 0) row.costMicros[r.currency] = (row.costMicros[r.currency] ?? 0) + Number(r.cost ?? 0);
}

export async function usage(ledger: LedgerDatabase, q: UsageQuery): Promise<UsageRow[]> {
  const { sql } = ledger.k;
  // The group column comes from the fixed table above (never from input); every value is a bound parameter.
  const group = sql.raw(GROUP_COLUMN[q.groupBy]);
  const byKey = q.keyId === undefined ? sql`` : sql`AND key_id = ${q.keyId}`;
  const { rows } = await sql<UsageSums>`
    SELECT ${group} AS grp, currency,
      count(*) AS tasks,
      count(*) FILTER (WHERE outcome = 'success') AS succeeded,
      count(*) FILTER (WHERE outcome IN ('failed', 'cancelled')) AS failed,
      count(*) FILTER (WHERE state = 'reserved') AS running,
      count(*) FILTER (WHERE unpriced = 'no_price') AS unpriced,
      count(*) FILTER (WHERE unpriced IS DISTINCT FROM 'no_price') AS priced,
      sum(seconds) AS seconds, sum(images) AS images, sum(tokens) AS tokens,
      sum(CASE WHEN state = 'reserved' THEN estimated_micros ELSE final_micros END)
        FILTER (WHERE unpriced IS DISTINCT FROM 'no_price') AS cost
    FROM ledger_entries
    WHERE created_at >= ${`${q.start}T00:00:00Z`}::timestamptz AND created_at < ${`${nextDay(q.end)}T00:00:00Z`}::timestamptz
      AND outcome IS DISTINCT FROM 'never_started' ${byKey}
    GROUP BY 1, 2
    ORDER BY 1, 2`.execute(ledger.db);
  const out = new Map<string | null, UsageRow>();
  for (const r of rows) {
    const row = out.get(r.grp) ?? {
      group: r.grp,
      tasks: 0,
      succeeded: 0,
      failed: 0,
      running: 0,
      unpriced: 0,
      seconds: 0,
      images: 0,
      tokens: 0,
      costMicros: {},
    };
    addSums(row, r);
    out.set(r.grp, row);
  }
  return [...out.values()];
}

/**
 * The budgets of these keys as they stand at `at` (the budget view: ledger/entries.ts), in one read of their rows;
 * keys without a budget are left out. `everyKey`: read the period's rows of every key rather than name these keys in
 * the query — for a caller that asks about all of them (the near-budget gauge).
 */
export async function budgetViews(
  ledger: LedgerDatabase,
  keys: readonly { id: string; budget?: BudgetSetting }[],
  at = new Date(),
  everyKey = false,
): Promise<Map<string, BudgetView>> {
  const budgeted = keys.filter((k): k is { id: string; budget: BudgetSetting } => k.budget !== undefined);
  if (budgeted.length === 0) return new Map();
  let q = ledger.db
    .selectFrom('budget_usage')
    .select(['key_id', 'period', 'currency', 'committed_micros'])
    .where('period', 'in', [...new Set(budgeted.map((k) => periodKey(k.budget.period, at)))]);
  if (!everyKey)
    q = q.where(
      'key_id',
      'in',
      budgeted.map((k) => k.id),
    );
  const rowKey = (keyId: string, period: string, currency: string) => `${keyId}\n${period}\n${currency}`;
  const committed = new Map((await q.execute()).map((r) => [rowKey(r.key_id, r.period, r.currency), Number(r.committed_micros)]));
  return new Map(
    budgeted.map((k) => {
      const spent = committed.get(rowKey(k.id, periodKey(k.budget.period, at), k.budget.currency)) ?? 0;
      return [k.id, budgetView(k.budget, spent, at)];
    }),
  );
}
