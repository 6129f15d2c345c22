/**
 * Reconciliation's shared words (tasks/reconciliation.ts does the work, workflows/reconciliation.ts runs it daily
 * and on demand): what is reconciled — one platform account's UTC day — and what a run of it reports back.
 */

/** One platform account. */
export interface ReconcileTarget {
  platform: string;
  account: string;
}

/** One platform account's UTC day (YYYY-MM-DD). */
export interface ReconcileDayInput extends ReconcileTarget {
  day: string;
}

export interface ReconcileDayOutcome {
  reportId: string;
  /** False when the day's report was there already (a second run writes nothing). */
  written: boolean;
  status: 'complete' | 'not_available';
}

/** What the activities need of reconciliation (the worker builds it over the ledger, Temporal and the platforms). */
export interface Reconciliation {
  targets(platform?: string, account?: string): ReconcileTarget[];
  run(input: ReconcileDayInput, heartbeat: () => void): Promise<ReconcileDayOutcome>;
}

/**
 * What a reconciliation workflow is started with: a day (default: yesterday, UTC), optionally only one platform (or
 * one account of it). Nested under `only`, never a top-level `platform`: the workflows' metrics interceptor counts a
 * workflow whose input names a platform as a generation task.
 */
export interface ReconciliationInput {
  day?: string;
  only?: { platform: string; account?: string };
}

export const RECONCILIATION_WORKFLOW_TYPE = 'reconciliationWorkflow';
export const RECONCILIATION_SCHEDULE_ID = 'mediagate-reconciliation';

/** YYYY-MM-DD. */
export const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The UTC day before the one `at` falls in. */
export function dayBefore(at: number): string {
  return new Date(at - 86_400_000).toISOString().slice(0, 10);
}
