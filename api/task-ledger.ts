/**
 * The API's side of the ledger (issue 20 §5, §6): a task's estimate is reserved against its key's budget before
 * its workflow starts (402 `budget_exceeded` when it does not fit: no workflow, no upstream job), released when
 * the start fails, and — for an API that died between the two — released by a periodic sweep once the
 * reservation is older than a start can take and no workflow with its id exists. Settlement at the task's end is
 * the worker's (worker/settlement.ts); the same sweep settles an ended task whose settlement was lost with its
 * worker, from the task's record (the same final cost the worker would have written).
 */
import type { ModelRecord } from '../core/catalogue';
import type { Logger } from '../core/logger';
import type { GenerationRequest } from '../core/task';
import type { LedgerDatabase } from '../ledger/database';
import { committedMicros, reserveTask, settleTask, staleReservations, unpricedInPeriod, type Reservation } from '../ledger/entries';
import type { BudgetPeriod } from '../ledger/schema';
import { decimalOf, micros } from '../pricing/price';
import type { TaskPricing } from '../pricing/price-table';
import { ApiError, type ErrorBody } from './api-error';
import type { ApiKey } from './api-keys';
import type { TaskRecord } from './task-service';

/** 402: the estimate does not fit in what remains of the key's budget for the period. */
export class BudgetExceeded extends ApiError {
  constructor(
    readonly over: Extract<Reservation, { reserved: false }>,
    estimateMicros: number,
  ) {
    const amount = (m: number) => `${decimalOf(m)} ${over.currency}`;
    super(
      402,
      'invalid_request_error',
      `This task's estimated cost (${amount(estimateMicros)}) exceeds what remains of this API key's ${over.period} budget of ${amount(over.budgetMicros)} (period ${over.periodKey}): ${amount(over.remainingMicros)} remains`,
      { code: 'budget_exceeded' },
    );
  }

  override toBody(): ErrorBody {
    const body = super.toBody() as ErrorBody & { error: { budget?: unknown } };
    body.error.budget = {
      period: this.over.period,
      period_start: this.over.periodKey,
      amount: decimalOf(this.over.budgetMicros),
      remaining: decimalOf(this.over.remainingMicros),
      currency: this.over.currency,
    };
    return body;
  }
}

export interface SweepOptions {
  /** How often the sweep runs (every API replica runs it; the release is idempotent). */
  intervalMs: number;
  /** How old a reservation must be before its missing workflow counts as "never started". */
  minAgeMs: number;
  /** The task's record as its owner reads it (api/task-service.ts read); undefined: no workflow with that id. */
  readTask: (taskId: string, ownerId: string) => Promise<TaskRecord | undefined>;
  log: Logger;
}

export class TaskLedger {
  private sweepTimer?: NodeJS.Timeout;

  constructor(
    readonly ledger: LedgerDatabase,
    private readonly pricing: TaskPricing,
  ) {}

  /** Reserves the task's estimate (idempotent per task id); throws BudgetExceeded (402) when it does not fit. */
  async reserve(key: ApiKey, taskId: string, entry: ModelRecord, request: GenerationRequest): Promise<void> {
    const { usage, cost } = this.pricing.estimateTaskCost(request);
    // A model without a price counts at zero (docs/api.md "Usage and cost"), and so does a price in another currency
    // than the budget's: its tasks are recorded all the same, marked `unpriced` so that usage says so.
    const estimatedMicros = cost?.amount ?? 0;
    const unpriced = cost === null ? 'no_price' : key.budget && key.budget.currency !== cost.currency ? 'other_currency' : undefined;
    const reservation = await reserveTask(
      this.ledger,
      {
        taskId,
        keyId: key.id,
        platform: entry.platform,
        model: entry.id,
        estimatedMicros,
        currency: cost?.currency ?? key.budget?.currency ?? 'USD',
        ...usage,
        ...(unpriced ? { unpriced } : {}),
      },
      key.budget,
    );
    if (!reservation.reserved) throw new BudgetExceeded(reservation, estimatedMicros);
  }

  /** What a key has committed in the budget period `at` falls in (micro-units). */
  committed(keyId: string, period: BudgetPeriod, at = new Date()): Promise<number> {
    return committedMicros(this.ledger, keyId, period, at);
  }

  /** How many of the key's tasks in the budget period `at` falls in count at zero (no price, another currency). */
  unpriced(keyId: string, period: BudgetPeriod, at = new Date()): Promise<number> {
    return unpricedInPeriod(this.ledger, keyId, period, at);
  }

  /** Gives a reservation back: its workflow could not be started. */
  async releaseUnstarted(taskId: string): Promise<void> {
    await settleTask(this.ledger, taskId, { outcome: 'never_started', finalMicros: 0 });
  }

  /**
   * One pass of the sweep over reservations older than `minAgeMs`: no workflow → released; an ended task →
   * settled from its record; a running one is left alone. Returns how many entries it moved.
   */
  async sweep(opts: Pick<SweepOptions, 'minAgeMs' | 'readTask'>): Promise<number> {
    let moved = 0;
    for (const { task_id: taskId, key_id: keyId } of await staleReservations(this.ledger, new Date(Date.now() - opts.minAgeMs))) {
      const record = await opts.readTask(taskId, keyId);
      if (record && record.status !== 'success' && record.status !== 'failed') continue;
      const outcome = !record
        ? 'never_started'
        : record.status === 'success'
          ? 'success'
          : record.error?.code === 'cancelled'
            ? 'cancelled'
            : 'failed';
      const cost = record?.cost as { amount: number; estimated: boolean } | null | undefined;
      const finalMicros = cost && !cost.estimated ? micros(cost.amount) : 0;
      const usage = (record?.usage ?? {}) as { seconds?: number; images?: number; tokens?: number };
      const priced = record && cost !== undefined ? { priced: cost !== null } : {};
      if ((await settleTask(this.ledger, taskId, { outcome, finalMicros, ...priced, ...usage })) !== 'unchanged') moved++;
    }
    return moved;
  }

  startSweep(opts: SweepOptions): void {
    this.sweepTimer = setInterval(() => {
      this.sweep(opts).then(
        (n) => n > 0 && opts.log.warn({ entries: n }, 'Ledger sweep settled or released reservations the normal path missed'),
        (err: Error) => opts.log.warn({ err: err.message }, 'Ledger sweep failed; retrying at the next interval'),
      );
    }, opts.intervalMs);
    this.sweepTimer.unref();
  }

  stopSweep(): void {
    clearInterval(this.sweepTimer);
  }
}
