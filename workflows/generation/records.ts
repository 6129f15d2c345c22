/**
 * The task's record as the generation workflow writes it: status, progress, job, result and error in the memo and
 * search attributes (what the API reads, with no worker needed), and one log line per status change.
 */
import { ApplicationFailure, log, patched, upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { SA, type GenerationStatus } from '../../core/search-attributes';
import type { FailureReason, GenerationInput, GenerationResult, PolledStatus, TaskError, TaskState } from '../../core/task';
import { endsInSuccess } from '../../core/task';
import type { Serving } from '../serving';
import type { UpstreamJob } from './run';

/**
 * Routes: a task started with a route (core/task.ts TaskRoute) gives its submit the route's members, and the submit
 * answers which one made the job (activities/submit.ts). New runs record that member where operators and readers
 * see it — the `GenerationModel` and `GenerationPlatform` search attributes (beside the `GenerationRoute` the API
 * set) and `servedBy` in the memo — as soon as the submit answers (patch `routes`); polls, cancels and the
 * settlement go to that member's platform whatever the patch. Only routed tasks take the patch, so a task that
 * named its model keeps its history as it was.
 */
export const ROUTES = 'routes';

/**
 * The job, where readers and platforms' callbacks find it: its upstream id and account (core/task-hints.ts finds the
 * task by its upstream id and platform) and, for a routed task (patch `routes`), the member that made it.
 */
export function recordJob(input: GenerationInput, job: UpstreamJob, serving: Serving): void {
  const served = input.route !== undefined && serving.servedBy !== undefined && patched(ROUTES) ? serving.servedBy : undefined;
  upsertSearchAttributes([
    { key: SA.upstreamTaskId, value: job.upstreamTaskId },
    { key: SA.upstreamAccount, value: job.account },
    ...(served
      ? [
          { key: SA.model, value: served.model },
          { key: SA.platform, value: served.platform },
        ]
      : []),
  ]);
  if (served) upsertMemo({ servedBy: served });
}

/**
 * A quieter task (patch `quieter-task`): new runs write visibility only where a reader needs it (below), and poll less
 * while a platform's callbacks arrive (workflows/generation/polling.ts pushFallbackMs). One patch for both, because
 * every patch costs each new run a marker and an upsert of Temporal's own TemporalChangeVersion search attribute.
 *
 * Visibility writes only where a reader needs one. New runs write the search attribute GenerationStatus when the
 * status changes (the task lists' `pending`/`running` filters, and the single-task read, tasks/record.ts, read it
 * there) and the memo only when the task ends (its result or error, which reads need without a worker). Progress is
 * never written, since it changes with every poll of a platform that reports it: the single-task read asks the task's
 * `taskState` query for it (tasks/live-progress.ts). A task that succeeds writes no GenerationStatus at its end: its
 * closed run's ExecutionStatus is what the filters read (tasks/task-service.ts filterClauses). So a task that runs
 * and succeeds writes three times after its start — its job, `running`, its result — however long it runs, plus the
 * patch's own upsert while the patch is in the code. Runs without the marker write status and progress to the memo
 * as they change.
 */
export const QUIETER_TASK = 'quieter-task';

/** Whether this run is a quieter task (records its marker the first time a new run asks). */
export const quieterTask = (): boolean => patched(QUIETER_TASK);

/**
 * Status and progress as they change. `state` is the one the task's query answers with, so it is updated in place.
 * The 1.0 shape also records both in the memo (and status in a search attribute), so a read needs no worker for
 * progress either; progress moves in coarse steps, so that is a few events per task, not one per poll.
 */
export function setStatus(state: TaskState, status: 'pending' | 'running', progress?: number): void {
  const pct = progress === undefined ? state.progress : Math.max(0, Math.min(100, Math.round(progress)));
  if (state.status === status && state.progress === pct) return;
  if (state.status !== status) {
    upsertSearchAttributes([{ key: SA.status, value: status }]);
    logTransition(status);
  }
  state.status = status;
  state.progress = pct;
  if (!quieterTask()) upsertMemo({ status, progress: pct });
}

/**
 * The job succeeded: its outputs as the poll kept them (each copied into the result store, or the platform's link
 * marked `stored: false` with the reason: nothing is lost if a copy fails), recorded in the memo for reads.
 */
export function succeed(state: TaskState, status: PolledStatus, serving: Serving): GenerationResult {
  const kept = status.kept;
  if (!endsInSuccess(status) || !kept) return fail('upstream_failed', 'The platform reported success but returned no result URL');
  state.status = 'success';
  state.progress = 100;
  const result = resultOf(status, kept, serving);
  // A closed run's ExecutionStatus says `success` to every filter: new runs write no search attribute for it.
  if (!quieterTask()) upsertSearchAttributes([{ key: SA.status, value: 'success' }]);
  upsertMemo({ status: 'success', progress: 100, result });
  logTransition('success');
  return result;
}

/** The task's result from the poll that found its job done. */
function resultOf(status: PolledStatus, kept: NonNullable<PolledStatus['kept']>, serving: Serving): GenerationResult {
  const result: GenerationResult = { created: Math.floor(Date.now() / 1000), data: kept.data };
  if (status.extras) result.extras = status.extras;
  if (kept.lastFrame) result.lastFrame = kept.lastFrame;
  // What the platform reported it billed, kept with the result: the task's final cost follows it (tasks/record.ts).
  if (status.usage) result.usage = status.usage;
  // A routed task's result names its member, whose bill is the task's (a sync answer's cost).
  if (serving.servedBy) result.servedBy = serving.servedBy;
  return result;
}

/**
 * Records the end of a task that did not succeed: `failed` in the memo (the API's status) and, in Temporal's
 * views, `failed` or, for the client's cancel, `cancelled` (core/search-attributes.ts, GENERATION_STATUSES).
 */
export function markFailed(error: TaskError, searchStatus: Extract<GenerationStatus, 'failed' | 'cancelled'> = 'failed'): void {
  upsertSearchAttributes([
    { key: SA.status, value: searchStatus },
    { key: SA.failureReason, value: error.code },
  ]);
  upsertMemo({ status: 'failed', error });
  logTransition(searchStatus, searchStatus === 'cancelled' ? undefined : error.code);
}

/** The task fails: recorded as failed, then ended with the ApplicationFailure that is the task's error. */
export function fail(reason: FailureReason, message: string, upstreamCode?: string): never {
  markFailed({ message, code: reason, ...(upstreamCode ? { upstream_code: upstreamCode } : {}) });
  throw ApplicationFailure.create({ type: reason, message, nonRetryable: true, details: upstreamCode ? [{ code: upstreamCode }] : [] });
}

/**
 * One line a person can read per status change, at info: task, platform, model, status, upstream job and time since
 * the task was created. Through the workflow's `log`, which is silent on replay, so each change is told once.
 */
export function logTransition(status: string, reason?: string): void {
  const info = workflowInfo();
  const fields = {
    taskId: info.workflowId,
    platform: info.typedSearchAttributes.get(SA.platform) ?? '-',
    model: info.typedSearchAttributes.get(SA.model) ?? '-',
    status,
    ...(reason ? { reason } : {}),
    upstreamTaskId: info.typedSearchAttributes.get(SA.upstreamTaskId) ?? '-',
    elapsedMs: Date.now() - info.startTime.getTime(),
  };
  const why = reason ? ` (${reason})` : '';
  log.info(
    `Task ${fields.taskId} ${status}${why}: platform ${fields.platform}, model ${fields.model}, upstream ${fields.upstreamTaskId}, after ${(fields.elapsedMs / 1000).toFixed(1)} s`,
    fields,
  );
}
