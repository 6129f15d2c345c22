/**
 * What a task costs, in one place: the deployment's prices (the platforms' published prices with PRICES_FILE over
 * them: pricing/price-table.ts), an estimate when a task is accepted (what its reservation holds:
 * tasks/task-ledger.ts), its record's usage and cost on every read (tasks/record.ts), and its final cost when it
 * ends (what its settlement writes: tasks/settlement.ts) — the last two by one rule (tasks/cost.ts). The arithmetic
 * itself is pure and lives in pricing/.
 */
import type { Catalogue } from '../core/catalogue';
import { publishedPrices } from '../platforms';
import { TaskPricing } from '../pricing/price-table';

/**
 * The prices every process of a deployment reads once, at start — the API (estimates, records, `GET /v1/models`)
 * and the worker (settlements, webhook payloads) alike: a mistake in PRICES_FILE stops the start, naming the entry.
 */
export function loadTaskPricing(catalogue: Catalogue, env: NodeJS.ProcessEnv): TaskPricing {
  return TaskPricing.load(catalogue, env, publishedPrices());
}
