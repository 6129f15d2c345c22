/**
 * The floor: the least a durable generation task can cost on Temporal, written without any gateway code. Create
 * the job upstream in an activity, wait on a durable timer, read its status in a local activity until it is final
 * (waiting again between reads), and — in its second form — download the output and store it in the same local
 * activity that finds the job done. Default worker and activity options, as a team starting from Temporal's
 * samples would have them.
 */
import { proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { FloorActivities } from './activities';

export interface FloorInput {
  prompt: string;
  /** The first wait, then the wait between reads (the gateway's POLL_FIRST_DELAY_MS and POLL_INTERVAL_VIDEO_MS). */
  firstReadMs: number;
  readEveryMs: number;
  /** Download and store the output (the second row of the table: the floor plus keeping the result). */
  keep: boolean;
}

const { createJob } = proxyActivities<FloorActivities>({ startToCloseTimeout: '30s' });
const { readJob } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '60s' });

export async function floorWorkflow(input: FloorInput): Promise<{ id: string; status: string; stored?: number }> {
  const id = await createJob(input.prompt);
  await sleep(input.firstReadMs);
  for (;;) {
    const job = await readJob(id, input.keep);
    if (job.status === 'succeeded' || job.status === 'failed') return { id, ...job };
    await sleep(input.readEveryMs);
  }
}
