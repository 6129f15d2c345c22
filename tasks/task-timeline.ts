/**
 * The timeline of a task's states, from its workflow's history: when it was accepted (pending), each change of
 * GenerationStatus the workflow recorded (running, success, failed, cancelled), and how its run ended. A task an
 * operator replayed shows its current run's story, which starts again from its acceptance.
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { SA } from '../core/search-attributes';

export interface TimelineEntry {
  /** A GenerationStatus value, or how the run closed (completed, failed, cancelled, terminated, timed out, continued). */
  state: string;
  at: string;
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
  if (event.workflowExecutionCompletedEventAttributes) return 'run completed';
  if (event.workflowExecutionFailedEventAttributes) return 'run failed';
  if (event.workflowExecutionCanceledEventAttributes) return 'run cancelled';
  if (event.workflowExecutionTerminatedEventAttributes) return 'run terminated';
  if (event.workflowExecutionTimedOutEventAttributes) return 'run timed out';
  if (event.workflowExecutionContinuedAsNewEventAttributes) return 'continued as new';
  return undefined;
}

export async function taskTimeline(client: Client, desc: WorkflowExecutionDescription): Promise<TimelineEntry[]> {
  const history = await client.workflow.getHandle(desc.workflowId, desc.runId).fetchHistory();
  const entries: TimelineEntry[] = [];
  for (const event of history.events ?? []) {
    const state = stateOf(event);
    // A status upserted again unchanged (a continue-as-new's first upsert) is not a new step.
    if (state !== undefined && entries.at(-1)?.state !== state) entries.push({ state, at: timeOf(event) });
  }
  return entries;
}
