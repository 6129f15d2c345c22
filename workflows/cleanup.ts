/**
 * The daily result cleanup: started by the retention schedule (results/retention.ts, id
 * `mediagate-results-retention`), it runs one activity that deletes stored results older than the retention.
 * Deleting is idempotent, so the activity may simply be retried; its heartbeats show how far it got.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

type CleanupInput = Parameters<Activities['cleanupResults']>[0];
type CleanupReport = Awaited<ReturnType<Activities['cleanupResults']>>;

const { cleanupResults } = proxyActivities<Activities>({
  // A listing and deletion pass over a week of results; batches of 1,000 heartbeat as they go.
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '30s', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 5 },
});

export async function resultsCleanupWorkflow(input: CleanupInput): Promise<CleanupReport> {
  return cleanupResults(input);
}
