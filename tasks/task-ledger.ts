/**
 * A task's money at its start: its estimate is reserved against its key's budget before its workflow starts — or
 * the task is refused, nothing started — and given back when the start fails. Reservation and refusal are one
 * transaction (ledger/entries.ts), so no timing of concurrent requests can take a key past its budget.
 *
 * - Over budget: `payment_required`, `budget_exceeded`, with the budget's state.
 * - A budgeted key's request its budget cannot price (the model has no price, or is priced in another currency
 *   than the budget's): `payment_required`, `unpriced_model`, naming the model — a budget fails closed — unless
 *   the key's operator allowed such tasks (`allow_unpriced`); they then count at zero, marked `unpriced`.
 * - An entry of the task id exists (a repeated Idempotency-Key): nothing is reserved again; the caller is told
 *   whose request reserved it, by its fingerprint.
 *
 * What an ended task finally costs is settled by the workflow's settlement step (tasks/settlement.ts); the sweep
 * here is the ledger's reconciliation of reservations nothing else will settle: a workflow that never started (the
 * API died between the reservation and the start), or one that was closed without its settlement step (terminated
 * by an operator, or a run that ended before tasks settled themselves).
 *
 * It is the API's one way into the ledger's database: the budget views, the usage and the reconciliation reports its
 * routes and gauges read are methods here, and the database handle stays inside.
 */
import type { ModelRecord } from '../core/catalogue';
import type { Logger } from '../core/logger';
import type { GenerationRequest } from '../core/task';
import type { ApiKey } from '../keys/api-keys';
import type { LedgerDatabase } from '../ledger/database';
import {
  budgetView,
  committedMicros,
  reserveTask,
  settleTask,
  staleReservations,
  unpricedInPeriod,
  type BudgetView,
  type FinalFigure,
  type Reservation,
} from '../ledger/entries';
import type { BudgetSetting } from '../ledger/keys';
import { latestOrphans, listReports, readReport } from '../ledger/reconciliations';
import { budgetViews, usage, type UsageQuery, type UsageRow } from '../ledger/usage';
import type { UnpricedReason } from '../ledger/schema';
import { decimalOf, micros } from '../pricing/price';
import type { TaskPricing } from '../pricing/price-table';
import { outcomeOf, servedByOf, type TaskRecord } from './record';
import { TaskRefused } from './refusal';

type OverBudget = Extract<Reservation, { reserved: false }>;

/** 402: the estimate does not fit in what remains of the key's budget for the period. */
function budgetExceeded(over: OverBudget, estimateMicros: number): TaskRefused {
  const amount = (m: number) => `${decimalOf(m)} ${over.currency}`;
  return new TaskRefused(
    'payment_required',
    `This task's estimated cost (${amount(estimateMicros)}) exceeds what remains of this API key's ${over.period} budget of ${amount(over.budgetMicros)} (period ${over.periodKey}): ${amount(over.remainingMicros)} remains`,
    {
      code: 'budget_exceeded',
      extra: {
        budget: {
          period: over.period,
          period_start: over.periodKey,
          amount: decimalOf(over.budgetMicros),
          remaining: decimalOf(over.remainingMicros),
          currency: over.currency,
        },
      },
    },
  );
}

/** 402: the key has a budget, and the task's model has no price in the budget's currency to count it with. */
function unpricedModel(
  model: string,
  why: UnpricedReason,
  budget: BudgetSetting,
  priceCurrency: string | undefined,
  pricedCase: string | undefined,
): TaskRefused {
  // A model priced for other cases says which (GEM-3.0 is priced by quality: a request without one has no estimate).
  const reason =
    why === 'no_price'
      ? (pricedCase ?? `has no price this gateway knows`)
      : `is priced in ${priceCurrency}, not in the budget's ${budget.currency}`;
  return new TaskRefused(
    'payment_required',
    `The model '${model}' ${reason}, so this API key's budget cannot count its tasks: a budgeted key may use it only if its operator allows unpriced models (allow_unpriced), or once it has a price (PRICES_FILE)`,
    { param: 'model', code: 'unpriced_model' },
  );
}

/** What a reservation found: the entry is this request's, or an existing entry's request fingerprint. */
export type ReserveOutcome = { reserved: true } | { reserved: false; existingRequestHash: string | null };

export interface SweepOptions {
  /** How often the sweep runs (every API replica runs it; each move is idempotent). */
  intervalMs: number;
  /** How old a reservation must be before its missing workflow counts as "never started". */
  minAgeMs: number;
  /** The task's record as its owner reads it (tasks/task-service.ts read); undefined: no workflow with that id. */
  readTask: (taskId: string, ownerId: string) => Promise<TaskRecord | undefined>;
  log: Logger;
}

export class TaskLedger {
  private sweepTimer?: NodeJS.Timeout;

  constructor(
    /** The ledger's database: the API reads it through the methods below, never by its handle. */
    private readonly ledger: LedgerDatabase,
    private readonly pricing: TaskPricing,
  ) {}

  /**
   * Reserves the task's estimate under its id for the request with fingerprint `requestHash`, or finds the entry a
   * request made before. Throws TaskRefused (402) when the budget does not cover it or cannot price it. A routed task
   * (`route`: its name) is reserved at its dearest member (`entry`, `request`; tasks/routing.ts), and its entry is
   * named by the route until its settlement says which member served it.
   */
  async reserve(
    key: ApiKey,
    taskId: string,
    requestHash: string,
    entry: ModelRecord,
    request: GenerationRequest,
    route?: string,
  ): Promise<ReserveOutcome> {
    const { usage, cost } = this.pricing.estimateTaskCost(request);
    const unpriced: UnpricedReason | undefined =
      cost === null ? 'no_price' : key.budget && key.budget.currency !== cost.currency ? 'other_currency' : undefined;
    if (unpriced && key.budget && !key.allowUnpriced)
      throw unpricedModel(entry.id, unpriced, key.budget, cost?.currency, this.pricing.unpricedCase(request));
    // The estimate in its own currency: a budget in another currency does not count it (ledger/entries.ts), and usage
    // shows it per currency. A model without a price counts at zero (only for a key without a budget, or one allowed
    // unpriced models).
    const estimatedMicros = cost?.amount ?? 0;
    const reservation = await reserveTask(
      this.ledger,
      {
        taskId,
        keyId: key.id,
        platform: entry.platform,
        model: route ?? entry.id,
        ...(route ? { route } : { servedBy: { platform: entry.platform, model: entry.id } }),
        estimatedMicros,
        currency: cost?.currency ?? key.budget?.currency ?? 'USD',
        requestHash,
        ...usage,
        ...(unpriced ? { unpriced } : {}),
      },
      key.budget,
    );
    if (!reservation.reserved) throw budgetExceeded(reservation, estimatedMicros);
    return reservation.replayed ? { reserved: false, existingRequestHash: reservation.requestHash } : { reserved: true };
  }

  /** A key's budget as it stands in the period `at` falls in (the budget view: ledger/entries.ts). */
  async budgetView(keyId: string, budget: BudgetSetting, at = new Date()): Promise<BudgetView> {
    return budgetView(budget, await committedMicros(this.ledger, keyId, budget, at), at);
  }

  /**
   * The budgets of these keys as they stand at `at`, in one read (keys without a budget are left out); `everyKey`
   * for a caller asking about every key (ledger/usage.ts budgetViews).
   */
  budgetViews(
    keys: readonly { id: string; budget?: BudgetSetting }[],
    at = new Date(),
    everyKey = false,
  ): Promise<Map<string, BudgetView>> {
    return budgetViews(this.ledger, keys, at, everyKey);
  }

  /** How many of the key's tasks in the budget period `at` falls in count at zero (no price, another currency). */
  unpriced(keyId: string, budget: Pick<BudgetSetting, 'period'>, at = new Date()): Promise<number> {
    return unpricedInPeriod(this.ledger, keyId, budget.period, at);
  }

  /** The ledger's tasks, units and cost per group over a range of days (GET /v1/usage, GET /admin/v1/usage). */
  usage(q: UsageQuery): Promise<UsageRow[]> {
    return usage(this.ledger, q);
  }

  /** The reconciliation reports, newest day first, a page at a time (GET /admin/v1/reconciliations). */
  reconciliationReports(q: Parameters<typeof listReports>[1]): ReturnType<typeof listReports> {
    return listReports(this.ledger, q);
  }

  /** One reconciliation report with its differences, or undefined (GET /admin/v1/reconciliations/:id). */
  reconciliationReport(id: string): ReturnType<typeof readReport> {
    return readReport(this.ledger, id);
  }

  /** The orphan jobs of each platform account's latest reconciliation report (the API's gauge). */
  latestOrphans(): ReturnType<typeof latestOrphans> {
    return latestOrphans(this.ledger);
  }

  /** Gives a reservation back: its workflow was not started. */
  async releaseUnstarted(taskId: string): Promise<void> {
    await settleTask(this.ledger, taskId, { outcome: 'never_started', finalMicros: 0 });
  }

  /**
   * One pass of the sweep over reservations older than `minAgeMs`: no workflow → released; an ended task →
   * settled from its record (what its settlement step would have written); a running one is left alone. Returns how
   * many entries it moved.
   */
  async sweep(opts: Pick<SweepOptions, 'minAgeMs' | 'readTask'>): Promise<number> {
    let moved = 0;
    for (const { task_id: taskId, key_id: keyId } of await staleReservations(this.ledger, new Date(Date.now() - opts.minAgeMs))) {
      const record = await opts.readTask(taskId, keyId);
      const outcome = record ? outcomeOf(record) : 'never_started';
      if (outcome === undefined) continue;
      const cost = record?.cost as { amount: number; estimated: boolean } | null | undefined;
      const finalMicros = cost && !cost.estimated ? micros(cost.amount) : 0;
      const usage = (record?.usage ?? {}) as { seconds?: number; images?: number; tokens?: number };
      const priced = record && cost !== undefined ? { priced: cost !== null } : {};
      const served = servedByOf(record);
      const final: FinalFigure = { outcome, finalMicros, ...priced, ...usage, ...(served ? { servedBy: served } : {}) };
      if ((await settleTask(this.ledger, taskId, final)) !== 'unchanged') moved++;
    }
    return moved;
  }

  startSweep(opts: SweepOptions): void {
    this.sweepTimer = setInterval(() => {
      this.sweep(opts).then(
        (n) =>
          n > 0 &&
          opts.log.warn(
            { entries: n },
            'Ledger sweep settled or released reservations no task settles: workflows that never started, or were closed without settling',
          ),
        (err: Error) => opts.log.warn({ err: err.message }, 'Ledger sweep failed; retrying at the next interval'),
      );
    }, opts.intervalMs);
    this.sweepTimer.unref();
  }

  stopSweep(): void {
    clearInterval(this.sweepTimer);
  }
}
