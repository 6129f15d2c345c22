/**
 * The ledger against the platforms' own records: for one UTC day (yesterday by default: the schedule's run) and
 * every platform account the worker knows (or one platform's), one activity per account writes that account's
 * report (tasks/reconciliation.ts). The accounts go one after another, so the platforms' rate limits hold however
 * many there are. Each activity is idempotent (a report is written once, whole), so a retry after a worker died
 * mid-run ends with one complete report. Deterministic: the day comes from the workflow's own clock.
 */
import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { dayBefore, type ReconcileDayOutcome, type ReconcileTarget, type ReconciliationInput } from '../core/reconciliation';

const { reconciliationTargets } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5s', maximumInterval: '1 minute' },
});

const { reconcileAccountDay } = proxyActivities<Activities>({
  // A week of an account's jobs listed at the platform's rate limit; every request heartbeats, so a worker that died
  // mid-run is noticed within half a minute and the account's day is reconciled again, from the start.
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '10s', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 20 },
});

/** An account whose day could not be reconciled (its platform refused the listing for good, say): run it again on demand. */
export interface ReconcileFailure extends ReconcileTarget {
  error: string;
}

export async function reconciliationWorkflow(
  input: ReconciliationInput = {},
): Promise<{ day: string; reports: ReconcileDayOutcome[]; failed: ReconcileFailure[] }> {
  const day = input.day ?? dayBefore(Date.now());
  const targets = await reconciliationTargets(input.only?.platform, input.only?.account);
  const reports: ReconcileDayOutcome[] = [];
  const failed: ReconcileFailure[] = [];
  for (const target of targets) {
    try {
      reports.push(await reconcileAccountDay({ ...target, day }));
    } catch (err) {
      // One account's final failure (its retries spent, or a refusal that no retry mends) does not keep the others
      // from being reconciled; it is in the run's result, and the account has no report for the day.
      if (!(err instanceof ActivityFailure)) throw err;
      failed.push({ ...target, error: err.cause?.message ?? err.message });
    }
  }
  return { day, reports, failed };
}
