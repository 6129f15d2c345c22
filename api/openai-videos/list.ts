/**
 * GET /v1/videos: the key's video tasks (whichever endpoint created them) by creation time, newest first
 * (`order=asc`: oldest first), `limit` at a time after the cursor `after` (a video id), in OpenAI's list
 * envelope `{object: "list", data, first_id, last_id, has_more}` (the SDKs' ConversationCursorPage follows
 * `last_id` while `has_more`).
 *
 * Temporal's SQL visibility cannot sort by start time (ORDER BY is Elasticsearch-only); it lists running tasks
 * first, then closed ones by close time, newest first. A task closes after it starts, so once the tasks being
 * read closed before the `limit + 1`-th newest start collected so far, no later one can be newer: newest-first
 * pages stop reading there. Oldest-first pages read every task after the cursor.
 */
import { z } from 'zod';
import type { Kind } from '../../core/task';
import { invalidRequest } from '../api-error';
import { describeIssue } from '../../core/describe-issue';
import { TASK_ID } from '../http/task-id';
import type { TaskView } from '../../tasks/record';

export const videoListQuerySchema = z.strictObject({
  after: z
    .string()
    .regex(TASK_ID, { message: 'must be a video id' })
    .optional()
    .describe("List the videos after this one (a video id: the previous page's last_id)"),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, { message: 'must be a whole number' })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: 'must be at least 1' }).max(100, { message: 'must be at most 100' }))
    .optional()
    .describe('1 to 100 (default 20)'),
  order: z.enum(['asc', 'desc']).optional().describe('By creation time: desc (newest first, the default) or asc'),
});

export interface VideoListQuery {
  after?: string;
  limit: number;
  order: 'asc' | 'desc';
}

export function parseVideoListQuery(query: Record<string, string | string[] | undefined>): VideoListQuery {
  const repeated = Object.entries(query).find(([, v]) => Array.isArray(v));
  if (repeated) throw invalidRequest(`${repeated[0]} is given more than once`, repeated[0]);
  const parsed = videoListQuerySchema.safeParse(query);
  if (!parsed.success) {
    const { param, message, code } = describeIssue(parsed.error.issues[0]!, query);
    throw invalidRequest(message, param, code);
  }
  return { after: parsed.data.after, limit: parsed.data.limit ?? 20, order: parsed.data.order ?? 'desc' };
}

/** The tasks the list reads from: TaskService.views and view (tasks/task-service.ts). */
export interface TaskViews {
  view(taskId: string, ownerId: string): Promise<TaskView | undefined>;
  views(ownerId: string, filter: { kind: Kind; startedBefore?: Date; startedAfter?: Date }): AsyncIterable<TaskView>;
}

/** Newest first: later start, then the larger id (a stable order for tasks started in the same millisecond). */
function newerFirst(a: TaskView, b: TaskView): number {
  return (
    b.startTime.getTime() - a.startTime.getTime() ||
    (a.record.task_id < b.record.task_id ? 1 : a.record.task_id > b.record.task_id ? -1 : 0)
  );
}

/** One page of the key's videos and whether more follow. */
export async function listVideoPage(tasks: TaskViews, ownerId: string, q: VideoListQuery): Promise<{ page: TaskView[]; hasMore: boolean }> {
  const cursor = q.after === undefined ? undefined : await tasks.view(q.after, ownerId);
  if (q.after !== undefined && (!cursor || cursor.memo.kind !== 'video'))
    throw invalidRequest(`after names no video of yours: '${q.after}'`, 'after');
  const inOrder = q.order === 'desc' ? newerFirst : (a: TaskView, b: TaskView) => newerFirst(b, a);
  const beyond = (v: TaskView) => !cursor || inOrder(cursor, v) < 0;
  const wanted = q.limit + 1;
  const kept: TaskView[] = [];
  const filter = {
    kind: 'video' as const,
    ...(cursor ? (q.order === 'desc' ? { startedBefore: cursor.startTime } : { startedAfter: cursor.startTime }) : {}),
  };
  for await (const v of tasks.views(ownerId, filter)) {
    if (!beyond(v)) continue;
    const threshold = kept.length >= wanted ? kept[wanted - 1]!.startTime : undefined;
    if (q.order === 'desc' && threshold && v.closeTime && v.closeTime < threshold) break;
    const at = kept.findIndex((k) => inOrder(v, k) < 0);
    kept.splice(at < 0 ? kept.length : at, 0, v);
    if (kept.length > wanted) kept.pop();
  }
  return { page: kept.slice(0, q.limit), hasMore: kept.length > q.limit };
}
