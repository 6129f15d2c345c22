/**
 * Recovering the job an earlier attempt of a submit created when its answer was lost (platform T).
 *
 * T dedups creates on `SessionId`, but not the way one would hope: "如果三天内曾有过相同的识别码的请求，则本次的请求会
 * 返回错误" (CreateAigcVideoTaskRequest/CreateAigcImageTaskRequest.SessionId) — a repeat is refused with an error,
 * not answered with the first TaskId, and the error's code is not documented. So a retried submit whose first
 * attempt created a job would fail while that job runs and is billed. The submit activity therefore asks this
 * lookup whenever an earlier attempt may have reached T (before re-sending, and again when the re-send is
 * refused, whatever the code), and continues with the job it finds.
 *
 * How: T has no "find by SessionId" action, but DescribeTasks lists the sub-application's tasks by creation time
 * (filters CreateTime {After, Before}, Sort, Limit ≤ 100, ScrollToken paging), and each TaskSimpleInfo carries
 * `SessionId` ("用于去重的识别码"). The window starts a little before the first attempt (`since`, allowing for clock
 * skew) and ends now. Should a listing not carry SessionId, the task's DescribeTaskDetail does
 * (AigcVideoTask/AigcImageTask.SessionId): a bounded number of candidates are confirmed there.
 *
 * Safe by construction on T: a SessionId is this submit's own dedup key (workflows/dedup-key.ts: per run and per
 * re-submission), so another task's job can never match; and a lookup that misses (a listing lagging behind, a
 * window with more tasks than the page bound) only lets the re-send through, which T refuses if the first job
 * exists — never a second job.
 *
 * T's event queue is not read here: PullEvents consumes what it returns (for the whole SubAppId, from the pull
 * consumer and anything else using it), holds only completed jobs, and exists only in PULL mode
 * (docs/platforms/t.md#lost-answers, "Why the event queue is not consulted").
 */
import type { Kind } from '../../core/task';
import { toTDescribeCall, toTListCall, type TCall } from './request-body';
import type { DescribeTaskDetailResponse, DescribeTasksResponse } from './wire-types';

/** How far before the first attempt the window opens: our clock (Temporal's) and T's may differ. */
export const LOOKUP_CLOCK_SKEW_MS = 2 * 60_000;
/** Pages of 100 tasks read at most: a sub-application creating more tasks than that in the window is not served. */
export const LOOKUP_MAX_PAGES = 10;
/** Tasks confirmed through DescribeTaskDetail at most, when the listing does not carry SessionId. */
export const LOOKUP_MAX_CONFIRMATIONS = 20;

export interface SessionLookupDeps {
  /** The adapter's signed call: the `Response` object, or a thrown UpstreamError. */
  call(c: TCall): Promise<Record<string, unknown>>;
  subAppId: number;
  now(): number;
}

/** ISO 8601 without milliseconds, as T's examples write it. */
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The TaskId of the `kind` task created since `since` with SessionId `sessionId`, or undefined. */
export async function findTaskBySessionId(
  deps: SessionLookupDeps,
  kind: Kind,
  sessionId: string,
  since: number,
): Promise<string | undefined> {
  const taskType = kind === 'video' ? 'AigcVideoTask' : 'AigcImageTask';
  const window = { after: iso(since - LOOKUP_CLOCK_SKEW_MS), before: iso(deps.now() + LOOKUP_CLOCK_SKEW_MS) };
  const unconfirmed: string[] = [];
  let scrollToken: string | undefined;
  for (let page = 0; page < LOOKUP_MAX_PAGES; page++) {
    const list = (await deps.call(toTListCall(deps.subAppId, window, scrollToken))) as DescribeTasksResponse;
    for (const task of list.TaskSet ?? []) {
      if (!task.TaskId || (task.TaskType !== undefined && task.TaskType !== taskType)) continue;
      if (task.SessionId === sessionId) return task.TaskId;
      // Absent (or null on the wire): this listing does not carry SessionId, DescribeTaskDetail will tell.
      if (typeof task.SessionId !== 'string') unconfirmed.push(task.TaskId);
    }
    scrollToken = list.ScrollToken || undefined;
    if (!scrollToken) break;
  }
  for (const taskId of unconfirmed.slice(0, LOOKUP_MAX_CONFIRMATIONS)) {
    const detail = (await deps.call(toTDescribeCall(taskId, deps.subAppId))) as DescribeTaskDetailResponse;
    const task = kind === 'video' ? detail.AigcVideoTask : detail.AigcImageTask;
    if (task?.SessionId === sessionId) return taskId;
  }
  return undefined;
}
