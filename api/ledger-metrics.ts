/**
 * The ledger's gauges on the API's /metrics: how many keys have committed more than 80 % of their
 * budget in the current period, and each platform account's orphan jobs in its latest reconciliation report
 * (tasks/reconciliation.ts), read from the database on each scrape (one query each). Spend and tasks by platform
 * and model are counted where tasks are settled, on the worker's /metrics (worker/worker-metrics.ts).
 */
import { Gauge, type Registry } from 'prom-client';
import type { KeyStore } from '../keys/api-keys';
import type { TaskLedger } from '../tasks/task-ledger';

export const BUDGET_ALERT_FRACTION = 0.8;

/** Keys with a budget whose committed amount is above the fraction of it, now. */
export async function keysNearBudget(
  keys: KeyStore,
  ledger: TaskLedger,
  fraction = BUDGET_ALERT_FRACTION,
  now = new Date(),
): Promise<number> {
  const views = await ledger.budgetViews(keys.list(), now, true);
  return [...views.values()].filter((v) => v.spentMicros > fraction * v.budgetMicros).length;
}

export function registerLedgerMetrics(registry: Registry, keys: KeyStore, ledger: TaskLedger): void {
  new Gauge({
    name: 'mediagate_ledger_keys_over_budget_fraction',
    help: `API keys that have committed more than ${BUDGET_ALERT_FRACTION * 100} % of their budget in the current period`,
    registers: [registry],
    async collect() {
      this.set(await keysNearBudget(keys, ledger));
    },
  });
  new Gauge({
    name: 'mediagate_reconciliation_orphan_jobs',
    help: 'Jobs a platform account ran that no task of this gateway owns, in the account’s latest reconciliation report (alert when above 0)',
    labelNames: ['platform', 'account'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await ledger.latestOrphans()) this.set({ platform: r.platform, account: r.account }, r.orphans);
    },
  });
}
