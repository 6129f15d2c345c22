/**
 * The worker's side of the ledger (issue 20 §5, §6): when a task ends (workflows/settlement-interceptor.ts), its
 * final cost (pricing/: what the platform reported, else the request; zero for a task whose job the platform
 * does not bill — none created, failed upstream, cancelled upstream — and the job's cost for one it bills
 * although the task did not succeed) is written to its ledger entry, keyed by task id. A write that fails (the
 * database restarting) is retried with backoff for a while; past that, the API's sweep settles the entry from
 * the task's record.
 */
import type { InjectedSinks } from '@temporalio/worker';
import type { Logger } from '../core/logger';
import { openLedgerDatabase } from '../ledger/database';
import type { LedgerDatabase } from '../ledger/database';
import { settleTask, type Settlement } from '../ledger/entries';
import type { TaskPricing } from '../pricing/price-table';
import type { ReportedUsage } from '../core/task';
import type { LedgerSinks } from '../workflows/settlement-interceptor';

/** Retries of a failed settlement write: 1 s doubling to 30 s, about five minutes in all. */
const RETRY = { initialMs: 1_000, maxMs: 30_000, attempts: 14 };

export class TaskSettlement {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    /** The ledger's database (undefined without DATABASE_URL); the webhooks read stored keys' secrets on it too. */
    readonly ledger: LedgerDatabase | undefined,
    private readonly pricing: TaskPricing,
    private readonly log: Logger,
    /** Each settlement written: the worker's spend and task metrics (worker/worker-metrics.ts). */
    private readonly observe: (s: {
      settlement: Settlement;
      platform: string;
      model: string;
      outcome: string;
      micros: number;
      currency?: string;
    }) => void = () => undefined,
  ) {}

  sinks(): InjectedSinks<LedgerSinks> {
    return {
      ledger: {
        taskEnded: {
          fn: (info, platform, request, outcome, usage, billed) => {
            const run = this.settle(info.workflowId, platform, request, outcome, usage, billed).finally(() => this.pending.delete(run));
            this.pending.add(run);
          },
        },
      },
    };
  }

  /** Waits for the settlements still being written. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  /** Drains, then closes the database. */
  async close(): Promise<void> {
    await this.drain();
    await this.ledger?.close();
  }

  private async settle(
    taskId: string,
    platform: string,
    request: Parameters<TaskPricing['finalTaskCost']>[0],
    outcome: 'success' | 'failed' | 'cancelled',
    usage: ReportedUsage,
    billed?: boolean,
  ): Promise<void> {
    if (!this.ledger) return;
    let figure;
    try {
      figure = this.pricing.finalTaskCost(request, usage, outcome, billed);
    } catch (err) {
      this.log.error(
        { taskId, err: (err as Error).message },
        'Could not price the ended task; the ledger sweep settles it from its record',
      );
      return;
    }
    const finalMicros = figure.cost?.amount ?? 0;
    for (let attempt = 1, delay = RETRY.initialMs; ; attempt++, delay = Math.min(RETRY.maxMs, delay * 2)) {
      try {
        const settled = await settleTask(this.ledger, taskId, { outcome, finalMicros, priced: figure.cost !== null, ...figure.usage });
        this.observe({
          settlement: settled,
          platform,
          model: String(request.model),
          outcome,
          micros: finalMicros,
          currency: figure.cost?.currency,
        });
        if (settled === 'unknown_task') this.log.warn({ taskId }, 'Ended task has no ledger entry (started without a ledger?)');
        return;
      } catch (err) {
        if (attempt >= RETRY.attempts) {
          this.log.error(
            { taskId, err: (err as Error).message },
            'Could not settle the ended task; the ledger sweep settles it from its record',
          );
          return;
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }
}

/**
 * The worker's settlement, a start-up step: the ledger's database when DATABASE_URL is set (without it every task
 * end is ignored: there is no ledger), the same prices as the API (PRICES_FILE), metrics of what it settles.
 */
export async function openSettlement(
  config: { DATABASE_URL?: string },
  pricing: TaskPricing,
  metrics: { ledgerObserver(): ConstructorParameters<typeof TaskSettlement>[3] },
  log: Logger,
): Promise<TaskSettlement> {
  const ledger = config.DATABASE_URL
    ? await openLedgerDatabase(config.DATABASE_URL, {
        onError: (err) => log.warn({ err: err.message }, 'Ledger database connection lost; reconnecting on the next write'),
      })
    : undefined;
  return new TaskSettlement(ledger, pricing, log, metrics.ledgerObserver());
}
