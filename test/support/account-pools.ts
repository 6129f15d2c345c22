/**
 * The submit activity with several accounts of one platform, against the real simulator (its further accounts
 * `one` and `two`, sim/accounts.ts): a pool of the two, the submit's input, and what the simulator saw — whose
 * jobs it holds and which account signed each request. Shared by test/unit/activities/submit.accounts*.test.ts.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { AccountPool } from '../../activities/accounts';
import { createSubmitActivity } from '../../activities/submit';
import type { PlatformAdapter } from '../../platforms/platform';
import type { PollTiming, SubmitResult } from '../../core/task';
import { catalogue, normalised, type Kind } from './platform-kit';

export type AccountName = 'one' | 'two';

/** Accounts one and two of a platform; the weighted draw always lands on the first candidate (one, unless excluded). */
export function twoAccountPool(platform: string, adapterOf: (name: AccountName) => PlatformAdapter): AccountPool {
  const account = (id: AccountName) => ({ id, weight: 1, adapter: adapterOf(id) });
  return new AccountPool(platform, [account('one'), account('two')], { random: () => 0, cooldownMs: 60_000 });
}

/** The worker's timing every submit in these tests settles (a submit returns it with the job). */
export const SUBMIT_TIMING: PollTiming = { firstPollDelayMs: 3_000, pollIntervalMs: 5_000, deadlineMs: 3_600_000 };

/** The submit activity drawing from `pool`. */
export const submitFrom = (pool: AccountPool) => createSubmitActivity({ catalogue, timingFor: () => SUBMIT_TIMING, poolFor: () => pool });

/** The submit activity's input for a spec request body of `platform`'s model. */
export function submitInput(platform: string, kind: Kind, body: Record<string, unknown>, dedupKey: string) {
  return { platform, request: normalised(kind, body).request, dedupKey, taskId: `task-${dedupKey}`, taskStartedAt: Date.now() };
}

/** Runs a submit once, as attempt `attempt`. */
export async function runSubmit(
  submit: ReturnType<typeof submitFrom>,
  input: ReturnType<typeof submitInput>,
  attempt = 1,
): Promise<SubmitResult> {
  return (await new MockActivityEnvironment({ attempt }).run(submit, input)) as SubmitResult;
}

/** How many of `platform`'s jobs the simulator holds per owner, the owner read from a job's meta by `ownerOf`. */
export async function jobsByOwner(
  simUrl: string,
  platform: string,
  ownerOf: (meta: Record<string, unknown>) => unknown,
): Promise<Record<string, number>> {
  const jobs = (await (await fetch(`${simUrl}/_sim/jobs?platform=${platform}`)).json()) as { meta: Record<string, unknown> }[];
  const out: Record<string, number> = {};
  for (const j of jobs) {
    const owner = String(ownerOf(j.meta) ?? '?');
    out[owner] = (out[owner] ?? 0) + 1;
  }
  return out;
}

/** A request as the simulator recorded it (sim/host.ts RecordedRequest). */
export interface SimRecordedRequest {
  headers: Record<string, string>;
  body?: unknown;
  /** The HTTP status it answered, and its JSON answer. */
  status?: number;
  response?: unknown;
}

/** The requests of `op` the simulator recorded for `platform`, oldest first. */
export async function recordedRequests(simUrl: string, platform: string, op: string): Promise<SimRecordedRequest[]> {
  return (await (await fetch(`${simUrl}/_sim/requests?platform=${platform}&op=${op}`)).json()) as SimRecordedRequest[];
}
