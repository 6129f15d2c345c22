/**
 * Recovering the job an earlier attempt of a submit created when its answer was lost (platform V).
 *
 * Ark has no idempotency key, so a create whose answer was lost cannot be deduplicated by the platform: sending
 * it again would be a second paid job. The submit activity asks this lookup before re-sending whenever an earlier
 * attempt may have reached V.
 *
 * What can identify the job: the task list (`GET /contents/generations/tasks`, Tasks.list in the official SDK:
 * page_num, page_size, filter.model, filter.status, filter.task_ids, filter.service_tier) returns task objects
 * that do NOT echo the request's content — no prompt, no image or video URL (ContentGenerationTask's `content` is
 * the output) — so "the echoed content" cannot be matched. What they do echo are the parameters, `seed` among
 * them. So every create carries a seed derived from its dedup key (request-body.ts `markerSeed`: the same on every
 * attempt of one submit, different for every other submit), and a job of the same model, created since the
 * first attempt (less a clock-skew margin), with that seed is this submit's job.
 *
 * Two tasks never adopt each other's job: their dedup keys differ (workflows/dedup-key.ts: per run and per
 * re-submission), so their seeds differ except for a 1 in 2^32 coincidence, and the job must also be of the same
 * model and within the window.
 *
 * A model entry may name an inference endpoint (`ep-…`) instead of a model (models.ts). Whether a task created
 * through one lists the endpoint id or the endpoint's model as its `model` — and so which of them `filter.model`
 * matches — no source states. So for an endpoint the list is read without `filter.model`, and a task showing
 * either is taken on its seed: the endpoint id, or any model name (the gateway does not know which model the
 * account's endpoint serves; the seed and the window identify the job).
 *
 * What is left (docs/platforms/v.md#lost-answers): a job the list does not show yet (if Ark's list
 * lags behind its creates), or beyond the pages read, is not found, and the submit is sent again.
 */
import type { ArkTask, ArkTaskList } from './wire-types';

/** How far before the first attempt the window opens: our clock (Temporal's) and Ark's may differ. */
export const LOOKUP_CLOCK_SKEW_S = 120;
export const LOOKUP_PAGE_SIZE = 100;
/** Pages read at most (of the model's tasks, newest first where Ark sorts so). */
export const LOOKUP_MAX_PAGES = 10;

export interface TaskLookupDeps {
  /** GET of the list with these query parameters: the parsed reply, or a thrown UpstreamError. */
  list(query: URLSearchParams): Promise<ArkTaskList>;
}

/** An Ark inference endpoint id rather than a model name. */
export const isEndpointId = (model: string): boolean => model.startsWith('ep-');

export function listQuery(model: string, page: number): URLSearchParams {
  const query = new URLSearchParams({ page_num: String(page), page_size: String(LOOKUP_PAGE_SIZE) });
  // An endpoint's tasks may list its model's name instead (file comment): no filter, the seed decides.
  if (!isEndpointId(model)) query.set('filter.model', model);
  return query;
}

/** Does `task` carry this submit's marker? */
export function isSubmittedJob(task: ArkTask, want: { model: string; seed: number; sinceS: number }): boolean {
  if (task.seed !== want.seed) return false;
  if (task.model !== undefined && task.model !== want.model && !isEndpointId(want.model)) return false;
  return task.created_at === undefined || task.created_at >= want.sinceS;
}

/** The id of the `model` job created since `since` (ms) carrying `seed`, or undefined. */
export async function findJobBySeed(deps: TaskLookupDeps, model: string, seed: number, since: number): Promise<string | undefined> {
  const sinceS = Math.floor(since / 1000) - LOOKUP_CLOCK_SKEW_S;
  let seen = 0;
  for (let page = 1; page <= LOOKUP_MAX_PAGES; page++) {
    const { items = [], total } = await deps.list(listQuery(model, page));
    const found = items.find((t) => isSubmittedJob(t, { model, seed, sinceS }));
    if (found) return found.id;
    seen += items.length;
    if (items.length < LOOKUP_PAGE_SIZE || (total !== undefined && seen >= total)) return undefined;
    // Ark's order is not documented; when this page runs newest first and already reaches before the window, the
    // pages after it are older still.
    const created = items.map((t) => t.created_at ?? Number.POSITIVE_INFINITY);
    const newestFirst = created.every((c, i) => i === 0 || c <= created[i - 1]!);
    if (newestFirst && created[created.length - 1]! < sinceS) return undefined;
  }
  return undefined;
}
