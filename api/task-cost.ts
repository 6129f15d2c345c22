/**
 * A task record's `usage` and `cost` (docs/api.md "Usage and cost"): the estimate while the task runs, the final
 * figure once it has ended, computed on every read from what the task's memo keeps — the request's price-deciding
 * fields (`billing`, written at start), on success what the platform reported it billed (`result.usage`), and
 * for a task that did not succeed whether the platform bills its job all the same (`charge`, written by
 * workflows/settlement-interceptor.ts) — with this API's prices (pricing/, PRICES_FILE).
 */
import type { GenerationResult, ReportedUsage, TaskMemo } from '../core/task';
import { costJson, pricedRequest, type TaskCost, type TaskOutcome, type TaskUsage } from '../pricing/cost';
import type { TaskPricing } from '../pricing/price-table';

/** The two fields a task record carries. */
export interface RecordCost {
  usage: TaskUsage;
  cost: ReturnType<typeof costJson>;
}

/** How the task ended, if it has: a record's `failed` covers cancelled tasks too. */
export interface TaskEnd {
  /** Set when the task has ended (its workflow closed); absent while it runs: the estimate. */
  outcome?: TaskOutcome;
  /** The recorded result of a task that succeeded (its `usage`: what the platform reported it billed). */
  result?: GenerationResult;
  /** A task that did not succeed whose job the platform bills all the same (memo `charge`), and what it reported. */
  billed?: { usage?: ReportedUsage };
}

/**
 * Usage and cost of a task, or undefined when it cannot be priced: started before tasks kept their `billing`, or
 * for a model this deployment no longer lists.
 */
export function recordCost(
  pricing: TaskPricing | undefined,
  billing: Record<string, unknown> | undefined,
  end: TaskEnd,
): RecordCost | undefined {
  if (!pricing || !billing || typeof billing.model !== 'string' || (billing.kind !== 'video' && billing.kind !== 'image')) return undefined;
  const request = pricedRequest({ ...billing, kind: billing.kind, model: billing.model });
  let priced: { usage: TaskUsage; cost: TaskCost | null };
  try {
    priced = end.outcome
      ? pricing.finalTaskCost(
          request,
          end.result?.usage ?? end.billed?.usage ?? {},
          end.outcome,
          end.outcome === 'success' || end.billed !== undefined,
        )
      : pricing.estimateTaskCost(request);
  } catch {
    return undefined;
  }
  return { usage: priced.usage, cost: costJson(priced.cost) };
}

/**
 * A task record with its `usage` and `cost`, from its workflow's description (status and memo): the one place the
 * API's reads and the worker's webhook deliveries (worker/webhooks.ts) price a record, so both show the same.
 */
export function withTaskCost<T extends { status: string; error?: { code?: string } }>(
  info: { status: { name: string }; memo?: Record<string, unknown> },
  record: T,
  pricing: TaskPricing | undefined,
): T {
  const memo = info.memo as TaskMemo | undefined;
  const end: TaskEnd = { result: info.status.name === 'COMPLETED' ? memo?.result : undefined };
  if (info.status.name !== 'RUNNING')
    end.outcome = record.status === 'success' ? 'success' : record.error?.code === 'cancelled' ? 'cancelled' : 'failed';
  if (end.outcome !== undefined && end.outcome !== 'success' && memo?.charge?.billed === true)
    end.billed = memo.charge.usage ? { usage: memo.charge.usage } : {};
  return withCost(record, recordCost(pricing, memo?.billing, end));
}

/**
 * `body` with `usage` and `cost` added. A platform's own `usage` object in the body (spec 2.3: V's
 * `completion_tokens`, `total_tokens`) keeps its fields; the gateway's units are added beside them.
 */
export function withCost<T extends Record<string, unknown>>(body: T, priced: RecordCost | undefined): T {
  if (!priced) return body;
  const own = typeof body.usage === 'object' && body.usage !== null ? (body.usage as Record<string, unknown>) : {};
  return { ...body, usage: { ...own, ...priced.usage }, cost: priced.cost };
}
