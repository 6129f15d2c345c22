/**
 * One long-lived consumer of a platform's event queue (T's event notification in PULL mode: no public URL
 * needed): a workflow, so Temporal keeps exactly one running — its fixed id (platformEventsWorkflowId) is
 * started by every worker with "use existing", and survives worker restarts — whose heartbeating activity
 * pulls announcements, hands each to its task's workflow as a signal, and only then confirms it. An
 * announcement lost between the two is pulled again after the queue's visibility timeout: at worst one extra
 * poll. The workflow continues as new every few hours so its history stays small.
 */
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

export interface PlatformEventsInput {
  platform: string;
}

/** Each activity run consumes for a few minutes; a dead worker's is noticed within the heartbeat timeout. */
const { consumePlatformEvents } = proxyActivities<Activities>({
  startToCloseTimeout: '10m',
  heartbeatTimeout: '30s',
  // A platform or Temporal outage must not end the consumer: retried without limit, at most a minute apart.
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '60s' },
});

const RUNS_PER_HISTORY = 50;
const CONSUME_FOR_MS = 5 * 60_000;

export async function platformEventsWorkflow(input: PlatformEventsInput): Promise<void> {
  for (let i = 0; i < RUNS_PER_HISTORY; i++) await consumePlatformEvents({ platform: input.platform, forMs: CONSUME_FOR_MS });
  await continueAsNew<typeof platformEventsWorkflow>(input);
}
