/**
 * Each task's line in the ledger: reserved when the task is accepted, settled when it ends.
 *
 * Reservation: one transaction writing the entry (keyed by task id) and one conditional upsert of the key's budget
 * row — the database adds the estimate only where the sum stays within the budget, under the row's lock, so
 * concurrent submits at the edge cannot overshoot (no read-then-write). A new task id is reserved in one statement
 * (one round trip); the rarer cases — over budget, a repeated id, a never-started entry taken over — in a
 * transaction of several. The entry keeps the fingerprint of
 * the request that reserved it: a repeated Idempotency-Key finds the entry, reserves nothing again, and is told
 * whose request it was (the caller refuses another request under the same key). An entry whose task never
 * started (released as `never_started`) is taken over by the next request under its id, reserved afresh.
 *
 * A budget row counts one currency (its key, period and currency are the row's key): a budget counts what its
 * own currency's prices committed, so a budget whose currency changes starts from zero in the new currency.
 *
 * Settlement is keyed by task id and moves an entry forward only: reserved → settled (success) or released (a
 * failure or cancellation, at its final cost: zero unless the platform billed its job), and released → settled
 * for an outage victim that was replayed under the same task id and succeeded: the entry then counts the
 * released run's cost (zero unless its job was billed) plus the successful job's. A settled entry never changes
 * again, so a second write (an activity retried after a crash) changes nothing. The budget row moves by the
 * difference between what the entry counted before and what it counts now, in the same transaction (for a reserved
 * entry, the common case, in the same statement).
 */
import type { Kysely, RawBuilder, Transaction } from 'kysely' with { 'resolution-mode': 'import' };
import type { LedgerDatabase } from './database';
import type { BudgetSetting } from './keys';
import type { BudgetPeriod, Currency, EntryState, LedgerSchema, UnpricedReason } from './schema';

/** The budget row a moment falls in: the UTC day, the UTC month, or the one row of a total budget. */
export function periodKey(period: BudgetPeriod, at: Date): string {
  const iso = at.toISOString();
  if (period === 'day') return iso.slice(0, 10);
  if (period === 'month') return iso.slice(0, 7);
  return 'total';
}

/**
 * A budget as it stands in the period a moment falls in: what was committed in it (running tasks' estimates
 * included, in the budget's currency) and what is left of it.
 */
export interface BudgetView {
  period: BudgetPeriod;
  /** The budget row the moment falls in (periodKey). */
  periodKey: string;
  budgetMicros: number;
  currency: Currency;
  spentMicros: number;
  /** Never below zero: a final figure above its estimate can take what was spent past the budget. */
  remainingMicros: number;
}

/**
 * The budget view: the one place a budget's spent and remaining are computed — for the reservation's refusal, the
 * admin API's and GET /v1/usage's budget states and the near-budget gauge.
 */
export function budgetView(budget: BudgetSetting, committedMicros: number, at: Date): BudgetView {
  return {
    period: budget.period,
    periodKey: periodKey(budget.period, at),
    budgetMicros: budget.micros,
    currency: budget.currency,
    spentMicros: committedMicros,
    remainingMicros: Math.max(0, budget.micros - committedMicros),
  };
}

export interface NewEntry {
  taskId: string;
  keyId: string;
  /** The platform of the model the estimate was priced at. */
  platform: string;
  /** The model the client named (a route's name for a routed task). */
  model: string;
  /** A routed task's route name. */
  route?: string;
  /** The model that serves the task, when known at reservation (a direct task's own). */
  servedBy?: { platform: string; model: string };
  /** The estimate, in micro-units of `currency` (0 for a model without a price). */
  estimatedMicros: number;
  currency: Currency;
  seconds?: number;
  images?: number;
  tokens?: number;
  /** Why the estimate counts at zero: the model has no price, or its price's currency is not the budget's. */
  unpriced?: UnpricedReason;
  /** The fingerprint of the request that reserved the task (tasks/idempotency.ts). */
  requestHash?: string;
}

/**
 * `reserved`: the entry is this request's (new, or a never-started one taken over); `replayed`: an entry of this
 * task id exists, reserved by the request whose fingerprint is `requestHash` (null: written before entries kept
 * one); `reserved: false`: over budget, nothing written.
 */
export type Reservation =
  { reserved: true; replayed: false } | { reserved: true; replayed: true; requestHash: string | null } | ({ reserved: false } & BudgetView);

class OverBudget extends Error {}

/**
 * Reserves a task's estimate against the key's budget (if it has one, in the estimate's currency: an amount in
 * another currency is not converted and counts as zero). Over budget: nothing is written.
 */
export async function reserveTask(
  ledger: LedgerDatabase,
  entry: NewEntry,
  budget: BudgetSetting | undefined,
  now = new Date(),
): Promise<Reservation> {
  const counted = budget !== undefined && budget.currency === entry.currency;
  const period = budget ? periodKey(budget.period, now) : null;
  const columns = entryColumns(entry, counted ? period : null, now);
  const row = { task_id: entry.taskId, ...columns };
  const quick = counted ? await reserveCountedAtOnce(ledger, row, entry, budget, period!) : await insertNewEntry(ledger.db, row);
  if (quick) return { reserved: true, replayed: false };
  try {
    return await ledger.db.transaction().execute(async (tx) => {
      const existing = await claimEntry(tx, row);
      if (existing) return { reserved: true as const, replayed: true as const, requestHash: existing.requestHash };
      if (counted && !(await addWithinBudget(ledger, tx, entry, budget, period!))) throw new OverBudget();
      return { reserved: true as const, replayed: false as const };
    });
  } catch (err) {
    if (!(err instanceof OverBudget)) throw err;
    return { reserved: false, ...budgetView(budget!, await committedMicros(ledger, entry.keyId, budget!, now), now) };
  }
}

type EntryRow = ReturnType<typeof entryColumns> & { task_id: string };

/**
 * The entry inserted when its task id is new; false when the id has an entry. Alone, it is the whole reservation of a
 * key without a counted budget (one round trip); in the transaction below, the first step of claiming the id.
 */
async function insertNewEntry(db: Kysely<LedgerSchema>, row: EntryRow): Promise<boolean> {
  const inserted = await db
    .insertInto('ledger_entries')
    .values(row)
    .onConflict((oc) => oc.column('task_id').doNothing())
    .returning('task_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * The common case of a counted budget in one round trip — one statement, so one transaction: the estimate added to
 * the budget row where the sum stays within the budget (the same conditional upsert as addWithinBudget, under the
 * row's lock), and the entry inserted only if it was. Every round trip is a wait for two processes to be scheduled,
 * which on a busy host is most of what a reservation costs; the transaction below takes four.
 *
 * True: reserved. False: nothing is left written, and the transaction below decides — over budget, an entry of the
 * id that exists (a repeated Idempotency-Key; the budget is not touched when the entry was there before the
 * statement began), or a never-started entry to take over. One timing needs a correction: two requests under the
 * same new id at the same moment may both add their estimate before one of them loses the entry's insert; the loser
 * takes its estimate back at once. Until then the budget counts one estimate too many, which can refuse a
 * concurrent request but never lets one through.
 */
async function reserveCountedAtOnce(
  ledger: LedgerDatabase,
  row: EntryRow,
  entry: NewEntry,
  budget: BudgetSetting,
  period: string,
): Promise<boolean> {
  const { sql } = ledger.k;
  // json_populate_record types each value by the table's own column (a parameter in a SELECT list has no type).
  const result = await sql<{ counted: boolean; claimed: boolean }>`
    WITH counted AS (
      ${withinBudgetUpsert(ledger, entry, budget, period, sql`AND NOT EXISTS (SELECT 1 FROM ledger_entries WHERE task_id = ${entry.taskId})`)}
    ), claimed AS (
      INSERT INTO ledger_entries
      SELECT * FROM json_populate_record(NULL::ledger_entries, ${JSON.stringify(row)}::json)
      WHERE EXISTS (SELECT 1 FROM counted)
      ON CONFLICT (task_id) DO NOTHING
      RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM counted) AS counted, EXISTS (SELECT 1 FROM claimed) AS claimed`.execute(ledger.db);
  const { counted, claimed } = result.rows[0]!;
  if (counted && !claimed) {
    await moveBudgetRow(ledger, ledger.db, { keyId: entry.keyId, period, currency: budget.currency }, -entry.estimatedMicros);
  }
  return counted && claimed;
}

/** A new entry's columns (all but its task id), reserved now. */
function entryColumns(entry: NewEntry, budgetPeriod: string | null, now: Date) {
  return {
    key_id: entry.keyId,
    platform: entry.platform,
    model: entry.model,
    route: entry.route ?? null,
    served_platform: entry.servedBy?.platform ?? null,
    served_model: entry.servedBy?.model ?? null,
    currency: entry.currency,
    budget_period: budgetPeriod,
    estimated_micros: entry.estimatedMicros,
    state: 'reserved' as const,
    seconds: entry.seconds ?? null,
    images: entry.images ?? null,
    tokens: entry.tokens ?? null,
    unpriced: entry.unpriced ?? null,
    request_hash: entry.requestHash ?? null,
    created_at: now,
  };
}

/**
 * Writes the entry under its task id for this request, or finds the entry a request made before (returned, with that
 * request's fingerprint). An entry whose task never started is free again: it is taken over, reserved afresh.
 */
async function claimEntry(tx: Transaction<LedgerSchema>, row: EntryRow): Promise<{ requestHash: string | null } | undefined> {
  const { task_id: taskId, ...columns } = row;
  // A concurrent insert of the same task id waits here for the other transaction to end: if it commits, this one
  // finds its entry; if it rolls back (over budget), this one inserts.
  if (await insertNewEntry(tx, row)) return undefined;
  const existing = await tx
    .selectFrom('ledger_entries')
    .select(['state', 'outcome', 'request_hash'])
    .where('task_id', '=', taskId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  if (existing.state !== 'released' || existing.outcome !== 'never_started') return { requestHash: existing.request_hash };
  await tx
    .updateTable('ledger_entries')
    .set({ ...columns, outcome: null, final_micros: null, settled_at: null })
    .where('task_id', '=', taskId)
    .execute();
  return undefined;
}

/**
 * The conditional upsert, as a statement of its own or a part of a larger one: adds the estimate to the period's row
 * only where the sum stays within the budget, under the row's lock. `onlyIf` adds a condition to the first insert of
 * the period's row (the row's update is bounded by the budget alone).
 */
function withinBudgetUpsert(
  ledger: LedgerDatabase,
  entry: NewEntry,
  budget: BudgetSetting,
  period: string,
  onlyIf?: RawBuilder<unknown>,
): RawBuilder<{ committed_micros: string }> {
  const { sql } = ledger.k;
  return sql<{ committed_micros: string }>`
    INSERT INTO budget_usage (key_id, period, currency, committed_micros)
    SELECT ${entry.keyId}, ${period}, ${budget.currency}, ${entry.estimatedMicros}::bigint
    WHERE ${entry.estimatedMicros}::bigint <= ${budget.micros}::bigint ${onlyIf ?? sql``}
    ON CONFLICT (key_id, period, currency) DO UPDATE
      SET committed_micros = budget_usage.committed_micros + EXCLUDED.committed_micros
      WHERE budget_usage.committed_micros + EXCLUDED.committed_micros <= ${budget.micros}::bigint
    RETURNING committed_micros`;
}

/** The transaction's step: the conditional upsert; false when the estimate does not fit. */
async function addWithinBudget(
  ledger: LedgerDatabase,
  tx: Transaction<LedgerSchema>,
  entry: NewEntry,
  budget: BudgetSetting,
  period: string,
): Promise<boolean> {
  const row = await withinBudgetUpsert(ledger, entry, budget, period).execute(tx);
  return row.rows.length === 1;
}

/** Moves a budget row by `deltaMicros` (a settlement's difference, or an estimate taken back). */
async function moveBudgetRow(
  ledger: LedgerDatabase,
  db: Kysely<LedgerSchema>,
  row: { keyId: string; period: string; currency: string },
  deltaMicros: number,
): Promise<void> {
  const { sql } = ledger.k;
  await sql`UPDATE budget_usage SET committed_micros = committed_micros + ${deltaMicros}::bigint
    WHERE key_id = ${row.keyId} AND period = ${row.period} AND currency = ${row.currency}`.execute(db);
}

export interface FinalFigure {
  outcome: 'success' | 'failed' | 'cancelled' | 'never_started';
  /** The final cost in micro-units of the entry's currency (0 for a failure the platform did not charge). */
  finalMicros: number;
  /** False when the final figure has no price (the model has none): the task counts at zero. */
  priced?: boolean;
  seconds?: number;
  images?: number;
  tokens?: number;
  /** A routed task's member that served it (a direct task's was written at reservation). */
  servedBy?: { platform: string; model: string };
}

export type Settlement = 'settled' | 'released' | 'unchanged' | 'unknown_task';

/** Settles (or releases) a task's entry; see the file's comment for the transitions. Idempotent per task id. */
export async function settleTask(ledger: LedgerDatabase, taskId: string, final: FinalFigure, now = new Date()): Promise<Settlement> {
  return (await settleReserved(ledger, taskId, final, now)) ?? settleInTransaction(ledger, taskId, final, now);
}

/**
 * The settlement of nearly every task, a reserved entry's, in one statement (one round trip instead of a transaction
 * of four or five): the entry moves to its final state, and its budget row by the final figure's difference from the
 * estimate, as settleInTransaction would. The entry's row is locked first, then the budget row, the transaction's
 * order. Undefined when the entry is not reserved (unknown, settled, released, or settled by a concurrent call, which
 * this one waited for): the transaction decides those.
 */
async function settleReserved(ledger: LedgerDatabase, taskId: string, final: FinalFigure, now: Date): Promise<Settlement | undefined> {
  const { sql } = ledger.k;
  const next: EntryState = final.outcome === 'success' ? 'settled' : 'released';
  const finalMicros = sql`${final.finalMicros}::bigint`;
  const { rows } = await sql<{ settled: number }>`
    WITH entry AS (
      UPDATE ledger_entries SET
        state = ${next}, outcome = ${final.outcome}, final_micros = ${finalMicros}, settled_at = ${now},
        unpriced = CASE WHEN ${final.priced ?? null}::boolean IS FALSE THEN 'no_price'
                        WHEN ${final.priced ?? null}::boolean IS TRUE AND unpriced = 'no_price' THEN NULL
                        ELSE unpriced END,
        served_platform = COALESCE(${final.servedBy?.platform ?? null}, served_platform),
        served_model = COALESCE(${final.servedBy?.model ?? null}, served_model),
        seconds = COALESCE(${final.seconds ?? null}::double precision, seconds),
        images = COALESCE(${final.images ?? null}::integer, images),
        tokens = COALESCE(${final.tokens ?? null}::bigint, tokens)
      WHERE task_id = ${taskId} AND state = 'reserved'
      RETURNING key_id, budget_period, currency, estimated_micros
    ), budget AS (
      UPDATE budget_usage SET committed_micros = budget_usage.committed_micros + (${finalMicros} - entry.estimated_micros)
      FROM entry
      WHERE entry.budget_period IS NOT NULL AND ${finalMicros} <> entry.estimated_micros
        AND budget_usage.key_id = entry.key_id AND budget_usage.period = entry.budget_period
        AND budget_usage.currency = entry.currency
    )
    SELECT count(*)::integer AS settled FROM entry`.execute(ledger.db);
  return rows[0]?.settled === 1 ? next : undefined;
}

/** Any settlement: the entry read under its lock, moved forward only (the file's comment), its budget row by the difference. */
async function settleInTransaction(ledger: LedgerDatabase, taskId: string, final: FinalFigure, now: Date): Promise<Settlement> {
  return ledger.db.transaction().execute(async (tx) => {
    const entry = await tx.selectFrom('ledger_entries').selectAll().where('task_id', '=', taskId).forUpdate().executeTakeFirst();
    if (!entry) return 'unknown_task';
    const next: EntryState = final.outcome === 'success' ? 'settled' : 'released';
    const forward = entry.state === 'reserved' || (entry.state === 'released' && next === 'settled');
    if (!forward) return 'unchanged';
    const countedBefore = entry.state === 'reserved' ? Number(entry.estimated_micros) : Number(entry.final_micros ?? 0);
    // A replayed task's earlier run whose job the platform billed: its cost and units stay, the new job's add.
    const earlierBilled = entry.state === 'released' && countedBefore > 0;
    const plus = (mine: number, before: number | string | null) => mine + (earlierBilled ? Number(before ?? 0) : 0);
    const finalMicros = plus(final.finalMicros, entry.final_micros);
    // A figure without a price counts at zero (no_price); one priced at last (a per-token price estimated without
    // tokens per second) no longer does; a price in another currency than the budget's stays at zero.
    const unpriced = final.priced === false ? 'no_price' : final.priced === true && entry.unpriced === 'no_price' ? null : entry.unpriced;
    await tx
      .updateTable('ledger_entries')
      .set({
        state: next,
        outcome: final.outcome,
        final_micros: finalMicros,
        settled_at: now,
        unpriced,
        ...(final.servedBy ? { served_platform: final.servedBy.platform, served_model: final.servedBy.model } : {}),
        ...(final.seconds !== undefined ? { seconds: plus(final.seconds, entry.seconds) } : {}),
        ...(final.images !== undefined ? { images: plus(final.images, entry.images) } : {}),
        ...(final.tokens !== undefined ? { tokens: plus(final.tokens, entry.tokens) } : {}),
      })
      .where('task_id', '=', taskId)
      .execute();
    const delta = finalMicros - countedBefore;
    if (entry.budget_period !== null && delta !== 0) {
      await moveBudgetRow(ledger, tx, { keyId: entry.key_id, period: entry.budget_period, currency: entry.currency }, delta);
    }
    return next;
  });
}

/** Entries still reserved since before `cutoff`: candidates for the sweep of tasks that never started. */
export async function staleReservations(ledger: LedgerDatabase, cutoff: Date, limit = 500): Promise<{ task_id: string; key_id: string }[]> {
  return ledger.db
    .selectFrom('ledger_entries')
    .select(['task_id', 'key_id'])
    .where('state', '=', 'reserved')
    .where('created_at', '<', cutoff)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/** The UTC range of the budget period a moment falls in ([from, to); a total budget's is unbounded). */
export function periodRange(period: BudgetPeriod, at: Date): { from?: Date; to?: Date } {
  if (period === 'total') return {};
  const from = new Date(`${periodKey(period, at)}${period === 'day' ? '' : '-01'}T00:00:00Z`);
  const to = new Date(from);
  if (period === 'day') to.setUTCDate(to.getUTCDate() + 1);
  else to.setUTCMonth(to.getUTCMonth() + 1);
  return { from, to };
}

/**
 * How many of a key's tasks in the budget period a moment falls in count at zero (`unpriced`: the model has no
 * price, or its price's currency is not the budget's), for the budget's state in GET /v1/usage.
 */
export async function unpricedInPeriod(ledger: LedgerDatabase, keyId: string, period: BudgetPeriod, at = new Date()): Promise<number> {
  const { from, to } = periodRange(period, at);
  let q = ledger.db
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('key_id', '=', keyId)
    .where('unpriced', 'is not', null)
    .where((eb) => eb.or([eb('outcome', 'is', null), eb('outcome', '!=', 'never_started')]));
  if (from) q = q.where('created_at', '>=', from);
  if (to) q = q.where('created_at', '<', to);
  const row = await q.executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** What a key has committed in the budget row a moment falls in (micro-units of the budget's currency). */
export async function committedMicros(
  ledger: LedgerDatabase,
  keyId: string,
  budget: Pick<BudgetSetting, 'period' | 'currency'>,
  at = new Date(),
): Promise<number> {
  const row = await ledger.db
    .selectFrom('budget_usage')
    .select('committed_micros')
    .where('key_id', '=', keyId)
    .where('period', '=', periodKey(budget.period, at))
    .where('currency', '=', budget.currency)
    .executeTakeFirst();
  return Number(row?.committed_micros ?? 0);
}
