/**
 * The timeline of a task's states, from its workflow's histories: when it was accepted (pending), each change of
 * GenerationStatus the workflow recorded (running, success, failed, cancelled; a new run's success is in its memo), and
 * how its run ended. A task an
 * operator replayed has several runs of the same workflow id (operations/replay.ts resets the failed run into a new one):
 * the timeline tells every run's story, oldest first, each entry naming its run, so the failed run's history stays
 * in sight after the replay.
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { SA } from '../core/search-attributes';

export interface TimelineEntry {
  /** A GenerationStatus value, or how the run closed (completed, failed, cancelled, terminated, timed out, continued). */
  state: string;
  at: string;
  /** Which run of the task: 1 for the first; a replay's run is the next number. */
  run: number;
  run_id: string;
}

/** A run as visibility lists it. */
export interface TimelineRun {
  runId: string;
  closeTime?: Date | undefined;
  status: { name: string };
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A Keyword search attribute's value as the history carries it (a JSON payload). */
function keyword(payload: temporal.api.common.v1.IPayload | null | undefined): string | undefined {
  if (!payload?.data) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(payload.data).toString('utf8'));
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function timeOf(event: HistoryEvent): string {
  const t = event.eventTime;
  const ms = Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);
  return new Date(ms).toISOString();
}

/** The state an event tells of, if it tells of one. */
function stateOf(event: HistoryEvent): string | undefined {
  if (event.workflowExecutionStartedEventAttributes) return 'pending';
  const upsert = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[SA.status.name];
  if (upsert) return keyword(upsert);
  // New runs record a success only in the memo (workflows/generation/records.ts, patch quieter-task).
  const memoStatus = keyword(event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.status);
  if (memoStatus === 'success') return memoStatus;
  if (event.workflowExecutionCompletedEventAttributes) return 'run completed';
  if (event.workflowExecutionFailedEventAttributes) return 'run failed';
  if (event.workflowExecutionCanceledEventAttributes) return 'run cancelled';
  if (event.workflowExecutionTerminatedEventAttributes) return 'run terminated';
  if (event.workflowExecutionTimedOutEventAttributes) return 'run timed out';
  if (event.workflowExecutionContinuedAsNewEventAttributes) return 'continued as new';
  return undefined;
}

/** One run's entries. */
async function runTimeline(client: Client, workflowId: string, runId: string, run: number): Promise<TimelineEntry[]> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const entries: TimelineEntry[] = [];
  for (const event of history.events ?? []) {
    const state = stateOf(event);
    // A status upserted again unchanged (a continue-as-new's first upsert) is not a new step.
    if (state !== undefined && entries.at(-1)?.state !== state) entries.push({ state, at: timeOf(event), run, run_id: runId });
  }
  return entries;
}

/**
 * The task's timeline over its runs (`runs`: what visibility lists for its workflow id; the described run is
 * added if visibility has not listed it yet), oldest run first: closed runs by when they closed, the running one last.
 */
export async function taskTimeline(
  client: Client,
  desc: WorkflowExecutionDescription,
  runs: readonly TimelineRun[] = [],
): Promise<TimelineEntry[]> {
  const all = runs.some((r) => r.runId === desc.runId) ? [...runs] : [...runs, desc];
  const order = (r: TimelineRun) =>
    r.status.name === 'RUNNING' || r.runId === desc.runId ? Number.POSITIVE_INFINITY : (r.closeTime?.getTime() ?? 0);
  all.sort((a, b) => order(a) - order(b));
  const parts = await Promise.all(all.map((r, i) => runTimeline(client, desc.workflowId, r.runId, i + 1)));
  return parts.flat();
}
