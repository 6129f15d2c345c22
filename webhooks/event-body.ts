/**
 * The body of a webhook event, made at send time: `{type, timestamp, data}` where `data` is the task's record
 * exactly as GET /v1/generations/:id shows it — made by the same builder (tasks/record.ts taskRecordOf), priced with
 * the same PRICES_FILE, its result links based on the origin the client used — or, for a task created at
 * POST /v1/videos, the video, by id, as OpenAI's video webhooks carry it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { TaskMemo } from '../core/task';
import type { WebhookEvent } from '../core/webhooks';
import type { TaskPricing } from '../pricing/price-table';
import type { ResultLinks } from '../results/result-links';
import { queriedProgress } from '../tasks/live-progress';
import { taskRecordOf, toTaskRecord, type RenderResult, type TaskInfo } from '../tasks/record';

/** What an event tells of: a task's record, or — for a task created at POST /v1/videos (its memo's `asked.via`) — the video. */
export type WebhookSubject = { kind: 'generation'; record: Record<string, unknown> } | { kind: 'video'; id: string };

/**
 * The `type` of a video's events. `video.completed` and `video.failed` are OpenAI's own (the `openai` package's
 * webhook endpoint `event_types`); OpenAI has no event for a video in progress, so `video.in_progress` — after the
 * `video` object's status of that name — is this gateway's, sent only to a client that asked for `running`.
 */
export const VIDEO_EVENT_TYPES: Readonly<Record<WebhookEvent, string>> = {
  running: 'video.in_progress',
  succeeded: 'video.completed',
  failed: 'video.failed',
};

/** The body of one event: `{type, timestamp, data}`, a video's as `{id, object: "video"}`. */
export function webhookEventBody(event: WebhookEvent, occurredAt: string, subject: WebhookSubject): string {
  return subject.kind === 'video'
    ? JSON.stringify({ type: VIDEO_EVENT_TYPES[event], timestamp: occurredAt, data: { id: subject.id, object: 'video' } })
    : JSON.stringify({ type: `generation.${event}`, timestamp: occurredAt, data: subject.record });
}

/**
 * What the event tells of, `superseded` for a running event of a task that has ended since, undefined when the task
 * could not be read. `taskOpen`: the attempt is a step of the task's own end (WebhookSendInput.taskOpen).
 */
export type WebhookRecordReader = (
  taskId: string,
  event: WebhookEvent,
  linkBase: string | undefined,
  timeoutMs: number,
  taskOpen?: boolean,
) => Promise<WebhookSubject | 'superseded' | undefined>;

/** How long a `running` event waits for the task's record to say so (its upsert is in the same workflow task). */
const RUNNING_VISIBLE_WAIT_MS = 2_000;

/** The task's record reads as final: its memo says how it ended, even while its workflow still runs (tasks/record.ts). */
const readsAsEnded = (desc: TaskInfo) => ['success', 'failed'].includes(toTaskRecord(desc).status);

/**
 * Reads what an event tells of from the task's workflow. A final event announced to the delivery workflow first
 * waits for the task's workflow to close, so its record is final and a sync caller has its answer before the first
 * attempt. A final event attempted at the task's own end (`taskOpen`) reads the memo at once: the workflow task
 * before the attempt wrote it, and the workflow closes only after the attempt, so waiting would never end. A
 * running event of a task that has ended meanwhile is superseded.
 */
export function taskSubjectReader(client: Client, links: ResultLinks, pricing: TaskPricing): WebhookRecordReader {
  return async (taskId, event, linkBase, timeoutMs, taskOpen = false) => {
    const handle = client.workflow.getHandle(taskId);
    if (event !== 'running' && !taskOpen) await client.withDeadline(Date.now() + timeoutMs, () => handle.result()).catch(() => undefined);
    const waitUntil = Date.now() + RUNNING_VISIBLE_WAIT_MS;
    for (;;) {
      const desc = await handle.describe();
      const memo = (desc.memo ?? {}) as TaskMemo;
      if (event === 'running' && desc.status.name !== 'RUNNING') return 'superseded';
      if (event !== 'running' && desc.status.name === 'RUNNING' && !(taskOpen && readsAsEnded(desc))) return undefined;
      if (event === 'running' && toTaskRecord(desc).status !== 'running' && Date.now() < waitUntil) {
        await sleep(50);
        continue;
      }
      // A task created at POST /v1/videos is announced as the video it is, by id.
      if (memo.asked?.via === 'videos') return { kind: 'video', id: taskId };
      const render: RenderResult = (id, result) => links.render(id, result, linkBase);
      return { kind: 'generation', record: await taskRecordOf(desc, render, pricing, queriedProgress(client)) };
    }
  };
}
