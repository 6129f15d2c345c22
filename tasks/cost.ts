/**
 * The cost rule: what a task costs, from the facts of it — the request it was priced at, the member that served
 * it when it named a route, how it ended and what the platform reported it billed. Every figure a task shows or is
 * settled at comes from here: its record's `usage` and `cost` (tasks/record.ts), the sync answer
 * (api/routes/generations.ts) and its ledger entry's final figure (tasks/settlement.ts, the workflow's settlement
 * step). The arithmetic is pure and lives in pricing/cost.ts; the prices are the deployment's (tasks/billing.ts).
 */
import type { Kind, ReportedUsage, ServedBy } from '../core/task';
import { pricedRequest, type PricedRequest, type TaskOutcome, type UsageAndCost } from '../pricing/cost';
import type { TaskPricing } from '../pricing/price-table';

/** What a task's cost is decided by. */
export interface TaskCostFacts {
  /**
   * The request the task is priced at: the validated request or its price-deciding fields (the memo's `billing`).
   * A routed task's is its reservation's (its dearest member's) until it ends.
   */
  request: PricedRequest | { kind: Kind; model: string; [field: string]: unknown };
  /** A routed task's member that served it; absent: a task that named its model, or one no member served. */
  servedBy?: ServedBy;
  /** How the task ended; absent while it runs: the figure is the estimate. */
  outcome?: TaskOutcome;
  /** What the platform reported it billed, where it said. */
  usage?: ReportedUsage;
  /** Whether the platform bills the job of a task that did not succeed (absent: only a success is billed). */
  billed?: boolean;
}

/**
 * A task's usage and cost: the estimate while it runs, its final figure once it ended. A routed task runs at its
 * reservation's estimate; once ended, it costs what the member that served it bills. Throws for a model this
 * deployment's catalogue does not list.
 */
export function taskCost(pricing: TaskPricing, facts: TaskCostFacts): UsageAndCost {
  if (facts.outcome === undefined) return pricing.estimateTaskCost(pricedRequest(facts.request));
  const request = pricedRequest({ ...facts.request, model: facts.servedBy?.model ?? facts.request.model });
  return pricing.finalTaskCost(request, facts.usage ?? {}, facts.outcome, facts.billed);
}
