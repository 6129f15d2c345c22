/**
 * What a task's Temporal history says, summed over its runs (continue-as-new): events, polls, signals, events by
 * type. Shared by the `history` and `push` bench parts.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

export interface TaskHistory {
  events: number;
  /** pollGeneration local activities (a `core_local_activity` marker each; a webhook announcement's marker is not a poll). */
  polls: number;
  /** upstreamEvent signals (callbacks handed on). */
  signals: number;
  runs: number;
  byType: Record<string, number>;
}

function isPoll(e: temporal.api.history.v1.IHistoryEvent): boolean {
  if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'pollGeneration') return true;
  const marker = e.markerRecordedEventAttributes;
  if (marker?.markerName !== 'core_local_activity') return false;
  const data = marker.details?.data?.payloads?.[0]?.data;
  if (!data) return false;
  try {
    return (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type === 'pollGeneration';
  } catch {
    return false;
  }
}

/** A task's history over all its runs (continue-as-new followed backwards from the last run). */
export async function taskHistory(client: Client, taskId: string): Promise<TaskHistory> {
  const out: TaskHistory = { events: 0, polls: 0, signals: 0, runs: 0, byType: {} };
  let runId: string | undefined = (await client.workflow.getHandle(taskId).describe()).runId;
  while (runId && out.runs < 20) {
    const history: temporal.api.history.v1.IHistory = await client.workflow.getHandle(taskId, runId).fetchHistory();
    const list = history.events ?? [];
    out.runs += 1;
    out.events += list.length;
    for (const e of list) {
      const type = temporal.api.enums.v1.EventType[e.eventType ?? 0]?.replace(/^EVENT_TYPE_/, '') ?? String(e.eventType);
      out.byType[type] = (out.byType[type] ?? 0) + 1;
      if (isPoll(e)) out.polls += 1;
      if (e.workflowExecutionSignaledEventAttributes) out.signals += 1;
    }
    runId = list[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return out;
}
