/**
 * Recovering the job an earlier attempt of a submit created when its answer was lost (platform B).
 *
 * B has no idempotency key or client token (docs/platforms/b.md#lost-answers): a create whose answer was lost (timeout, reset, a worker that
 * died mid-call) cannot be deduplicated by the platform, and sending it again is a second billed job. So before
 * re-sending, the submit activity asks here: the account's tasks created since the first attempt (less a
 * clock-skew margin) are listed (`GET /v2/tasks?beginTime=…`, paged with marker, docs/platforms/b.md#task-query [OFF]), and each one's
 * echoed request (`videoGenerateTaskInfo.videoGenerateTaskInput`, from the task detail: list items carry only
 * basic information [OFF Fm4axtv8o]) is compared with the body this submit sends — the whole body, model and
 * TaskInput, key order aside. An exact match is preferred: two different requests never adopt each other's job.
 *
 * Whether B echoes the request exactly is not documented: it may fill in its defaults for the settings left out,
 * or drop the fields it ignores (unknown names). So when no echo matches exactly, a normalised comparison
 * (`echoMatches`) counts: every member present on both sides must be equal (recursively, arrays element by
 * element), members only the echo has (defaults) or only our body has (dropped) are passed over, and the model
 * must be the same. Still unique where it matters: the prompt, the images and every setting we send and B keeps
 * are compared.
 *
 * Identical bodies are the hard part: two tasks that send the very same request (same prompt, images, options)
 * within one window create jobs B cannot tell apart. Where the model has a seed field (Veo [3P]) every submit
 * sends its own seed (request-body.ts `markerSeed`), so its body is unique and the match exact. Elsewhere:
 *  - a job this worker knows belongs to another submit is skipped, one it knows is this submit's is taken
 *    (job-claims.ts);
 *  - of the rest, exactly one match is adopted; several are ambiguous: none is adopted and nothing is sent again
 *    (a second paid job on a guess); the submit ends the task `upstream_lost` with what an operator needs to find
 *    the job (activities/submit.ts).
 * What is left is written in docs/platforms/b.md#lost-answers.
 */
import { bceTimestamp } from './signing';
import type { JobClaims } from './job-claims';
import { asObject } from './replies';
import { UpstreamError } from '../upstream-error';

/** How far before the first attempt the window opens: our clock and B's may differ (createTime is in seconds). */
export const CLOCK_SKEW_MARGIN_MS = 60_000;
/** The list's largest page [OFF]. */
export const LIST_PAGE_SIZE = 100;
/** Pages read at most: 2,000 tasks created within one submit's window is far beyond any account we serve. */
export const MAX_LIST_PAGES = 20;
/** Task details fetched at once. */
export const DETAIL_CONCURRENCY = 4;

export interface TaskLookup {
  /** `GET /v2/tasks` with these query parameters: the parsed answer, or a thrown UpstreamError. */
  list(query: ReadonlyArray<readonly [string, string]>): Promise<unknown>;
  /** `GET /v2/tasks/{id}`: the parsed answer, or undefined when the task is not (or no longer) known. */
  detail(taskId: string): Promise<unknown>;
}

/** JSON with sorted keys and null members left out (B omits nulls in what it shows), for comparison. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const o = asObject(value);
  if (o) {
    const keys = Object.keys(o)
      .filter((k) => o[k] !== null && o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function sameRequest(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

/**
 * The normalised comparison (file comment): `echo` shows the request `sent` with defaults filled in or ignored
 * fields dropped, and nothing different. Null members count as absent, as in `canonical`.
 */
export function echoMatches(echo: unknown, sent: unknown): boolean {
  const e = asObject(echo);
  const s = asObject(sent);
  if (!e || !s || e.model !== s.model) return false;
  let compared = 0;
  const matches = (a: unknown, b: unknown): boolean => {
    if (Array.isArray(a) || Array.isArray(b)) {
      return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => matches(x, b[i]));
    }
    const ao = asObject(a);
    const bo = asObject(b);
    if (ao || bo) {
      if (!ao || !bo) return false;
      return Object.keys(ao).every(
        (k) => ao[k] === null || ao[k] === undefined || bo[k] === null || bo[k] === undefined || matches(ao[k], bo[k]),
      );
    }
    compared++;
    return a === b;
  };
  // The model and at least one more value compared: an echo sharing nothing else with our body is no match.
  return matches(e, s) && compared >= 2;
}

/**
 * The requests a task detail (or a list item, should B ever include it there) echoes:
 * `videoGenerateTaskInput: {type: "文生视频", textToVideoRequest: {…}}` — every member but `type` [OFF callback].
 */
export function echoedRequests(task: unknown): unknown[] {
  const input = asObject(asObject(asObject(task)?.videoGenerateTaskInfo)?.videoGenerateTaskInput);
  return input
    ? Object.entries(input)
        .filter(([k, v]) => k !== 'type' && asObject(v) !== undefined)
        .map(([, v]) => v)
    : [];
}

/** Ids of the tasks created since `since` (ms, less the margin) whose echoed request is `body` (exactly, else normalised). */
export async function findTasksWithBody(lookup: TaskLookup, body: unknown, since: number): Promise<string[]> {
  const beginTime = bceTimestamp(Math.floor((since - CLOCK_SKEW_MARGIN_MS) / 1000) * 1000);
  const items: Record<string, unknown>[] = [];
  let marker: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const query: [string, string][] = [
      ['beginTime', beginTime],
      ['maxSize', String(LIST_PAGE_SIZE)],
    ];
    if (marker) query.push(['marker', marker]);
    const answer = asObject(await lookup.list(query)) ?? {};
    const data: unknown[] = Array.isArray(answer.data) ? answer.data : [];
    for (const item of data) {
      const o = asObject(item);
      if (typeof o?.taskId === 'string') items.push(o);
    }
    marker = typeof answer.nextMarker === 'string' && answer.nextMarker !== '' ? answer.nextMarker : undefined;
    if (answer.isTruncated !== true || !marker) break;
  }

  const exact: string[] = [];
  const normalised: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      const id = item.taskId as string;
      const listed = echoedRequests(item);
      const echoed = listed.length > 0 ? listed : echoedRequests(await lookup.detail(id));
      if (echoed.some((r) => sameRequest(r, body))) exact.push(id);
      else if (echoed.some((r) => echoMatches(r, body))) normalised.push(id);
    }
  };
  await Promise.all(Array.from({ length: Math.min(DETAIL_CONCURRENCY, items.length) }, worker));
  // An exact echo is the stronger evidence: normalised ones count only when no echo is exact.
  return exact.length > 0 ? exact : normalised;
}

/**
 * Which of the matching jobs this submit (`owner`) adopts: the one this worker saw it create, else the only one
 * no other submit is known to own, else none. Several no one owns are ambiguous: an `upstream_lost` error.
 */
export function chooseJob(matches: readonly string[], owner: string, claims: JobClaims): string | undefined {
  const mine = matches.find((id) => claims.ownerOf(id) === owner);
  if (mine) return mine;
  const free = matches.filter((id) => claims.ownerOf(id) === undefined);
  if (free.length > 1) {
    // Sending again would be a second paid job on a guess, adopting one might hand this task another's result.
    throw new UpstreamError(
      `Platform B lists ${free.length} jobs with this very request since the first attempt (${free.join(', ')}); which one is this task's cannot be told`,
      {
        retryable: false,
        reason: 'upstream_lost',
        code: 'ambiguous',
      },
    );
  }
  return free[0];
}
