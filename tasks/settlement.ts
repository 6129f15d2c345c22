/**
 * When a task ends, its ledger entry is settled to its final cost: by the poll that finds a success (in the same
 * local activity that keeps its outputs), or by the workflow's settlement step at any other end
 * (workflows/generation/settlement.ts), retried by Temporal until the ledger has it. The workflow hands over facts
 * only (the serving member's platform and request, how the task ended, what the platform reported); the cost rule
 * prices them (tasks/cost.ts). The final cost is what the platform reported it billed, else what the request asked
 * for (pricing/cost.ts); zero for a task whose job the platform does not bill (none created, failed upstream,
 * cancelled upstream) and the job's cost for one it bills although the task did not succeed (a job a platform could
 * not stop runs to its end).
 *
 * The write is keyed by task id and moves an entry forward only (ledger/entries.ts settleTask), so a step that
 * runs again — retried after a database outage, or on another worker after a crash — changes nothing.
 */
import type { Logger } from '../core/logger';
import type { SettleInput } from '../core/task';
import type { LedgerDatabase } from '../ledger/database';
import { settleTask, type Settlement } from '../ledger/entries';
import type { TaskPricing } from '../pricing/price-table';
import { taskCost } from './cost';

/** What was settled, for the worker's spend and task metrics (worker/worker-metrics.ts). */
export interface SettlementObservation {
  settlement: Settlement;
  platform: string;
  model: string;
  outcome: string;
  micros: number;
  currency?: string;
}

export class TaskSettlement {
  constructor(
    /**
     * The ledger's database (undefined without DATABASE_URL: there is no ledger, and nothing to settle): the
     * worker's, which opens and closes it (worker/start-up.ts openLedger) and hands it to its other parts itself.
     */
    private readonly ledger: LedgerDatabase | undefined,
    private readonly pricing: TaskPricing,
    private readonly log: Logger,
    private readonly observe: (o: SettlementObservation) => void = () => undefined,
  ) {}

  /**
   * Settles the ended task's entry. A failed write throws, for the step to be retried; a task that cannot be priced
   * (its model is no longer in this deployment's catalogue) is settled at zero, unpriced, and said so.
   */
  async settle(input: SettleInput): Promise<Settlement | 'no_ledger'> {
    if (!this.ledger) return 'no_ledger';
    let figure;
    try {
      figure = taskCost(this.pricing, {
        request: input.request,
        servedBy: input.servedBy,
        outcome: input.outcome,
        usage: input.usage,
        billed: input.billed,
      });
    } catch (err) {
      this.log.error(
        { taskId: input.taskId, err: (err as Error).message },
        'Could not price the ended task; its ledger entry is settled at zero, unpriced',
      );
      figure = { usage: {}, cost: null };
    }
    const finalMicros = figure.cost?.amount ?? 0;
    const settled = await settleTask(this.ledger, input.taskId, {
      outcome: input.outcome,
      finalMicros,
      priced: figure.cost !== null,
      ...figure.usage,
      ...(input.servedBy ? { servedBy: input.servedBy } : {}),
    });
    this.observe({
      settlement: settled,
      platform: input.platform,
      model: input.request.model,
      outcome: input.outcome,
      micros: finalMicros,
      currency: figure.cost?.currency,
    });
    if (settled === 'unknown_task') this.log.warn({ taskId: input.taskId }, 'Ended task has no ledger entry (started without a ledger?)');
    return settled;
  }
}
