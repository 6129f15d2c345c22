/**
 * The ledger's gauges on the API's /metrics: how many keys have committed more than 80 % of their
 * budget in the current period, and each platform account's orphan jobs in its latest reconciliation report
 * (tasks/reconciliation.ts), read from the database on each scrape (one query each). Spend and tasks by platform
 * and model are counted where tasks are settled, on the worker's /metrics (worker/worker-metrics.ts).
 */
import { Gauge, type Registry } from 'prom-client';
import { periodKey } from '../ledger/entries';
import { budgetRowKey, currentCommitted } from '../ledger/usage';
import { latestOrphans } from '../ledger/reconciliations';
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
  const budgeted = keys.list().filter((k) => k.budget);
  if (budgeted.length === 0) return 0;
  const periods = [...new Set(budgeted.map((k) => periodKey(k.budget!.period, now)))];
  const committed = await currentCommitted(ledger.ledger, periods);
  return budgeted.filter(
    (k) => (committed.get(budgetRowKey(k.id, periodKey(k.budget!.period, now), k.budget!.currency)) ?? 0) > fraction * k.budget!.micros,
  ).length;
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
      for (const r of await latestOrphans(ledger.ledger)) this.set({ platform: r.platform, account: r.account }, r.orphans);
    },
  });
}
