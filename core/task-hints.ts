/**
 * Handing a platform's announcement on to the task it concerns, shared by the API (pushed callbacks,
 * api/routes/callbacks.ts) and the worker (pulled events, activities/platform-events.ts): find the task — by its
 * id, or by the platform's job id through the `GenerationUpstreamTaskId` search attribute — and send its workflow
 * the `upstreamEvent` signal. Temporal accepting the signal is the durable hand-off; the workflow then polls.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { SA } from './search-attributes';
import { UPSTREAM_EVENT_SIGNAL, WORKFLOW_TYPE } from './task';

export interface TaskHint {
  taskId?: string;
  upstreamTaskId?: string;
}

/** The one consumer of a platform's event queue (workflows/platform-events.ts) runs under this workflow id. */
export const platformEventsWorkflowId = (platform: string): string => `platform-events-${platform}`;

/** signalled: handed on; unknown: no such running task (or unusable ids); closed: the task has already finished. */
export type HintOutcome = 'signalled' | 'unknown' | 'closed';

/** Ids as the gateway and the platforms make them; anything else cannot name a task and never reaches a query. */
const SAFE_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

export async function hintTask(client: Client, platform: string, hint: TaskHint): Promise<HintOutcome> {
  let workflowId = hint.taskId && SAFE_ID.test(hint.taskId) ? hint.taskId : undefined;
  if (!workflowId && hint.upstreamTaskId && SAFE_ID.test(hint.upstreamTaskId)) {
    const query = `${SA.upstreamTaskId.name} = '${hint.upstreamTaskId}' AND ${SA.platform.name} = '${platform}' AND WorkflowType = '${WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'`;
    for await (const w of client.workflow.list({ query, pageSize: 2 })) {
      workflowId = w.workflowId;
      break;
    }
  }
  if (!workflowId) return 'unknown';
  try {
    await client.workflow.getHandle(workflowId).signal(UPSTREAM_EVENT_SIGNAL, { platform, upstreamTaskId: hint.upstreamTaskId });
    return 'signalled';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'closed';
    throw err;
  }
}

/**
 * Whether an announcement names a job of ours: a generation task of `platform` recorded `hint.upstreamTaskId` as its
 * job (GenerationUpstreamTaskId), and, when the hint names a task too, it is that task. Job ids are the platform's
 * and Temporal's only (no answer of the API shows one), so a caller who merely knows a task id cannot pass this:
 * it tells a platform whose genuine announcements fail verification from a forger (api/callback-verification.ts).
 */
export async function namesJobOfOurs(client: Client, platform: string, hint: TaskHint): Promise<boolean> {
  const job = hint.upstreamTaskId;
  if (!job || !SAFE_ID.test(job)) return false;
  if (hint.taskId !== undefined) {
    if (!SAFE_ID.test(hint.taskId)) return false;
    try {
      const d = await client.workflow.getHandle(hint.taskId).describe();
      return (
        d.type === WORKFLOW_TYPE &&
        d.typedSearchAttributes.get(SA.platform) === platform &&
        d.typedSearchAttributes.get(SA.upstreamTaskId) === job
      );
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }
  const { count } = await client.workflow.count(
    `${SA.upstreamTaskId.name} = '${job}' AND ${SA.platform.name} = '${platform}' AND WorkflowType = '${WORKFLOW_TYPE}'`,
  );
  return count > 0;
}
