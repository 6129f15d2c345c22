/**
 * The submit activity: creates the upstream job — the one step that costs money — exactly once per task,
 * however often Temporal runs it.
 *
 * An attempt heartbeats while it waits on the platform (every second; the workflow's heartbeat timeout is 5 s),
 * so a worker that dies mid-submit is noticed within seconds and another worker takes over. The heartbeat's
 * details say where the attempt stands: `sending` (a create request is out, no answer yet) or `answered`, and
 * what every later attempt must still know (SubmitMemory: a create went out unanswered; the search began). Those
 * two phases go out with the next tick, not at once: a create answered within the second costs no heartbeat, and a
 * retry that finds no heartbeat at all takes the earlier attempt to have sent a create (`unrecordedAttempt`).
 * A later attempt therefore knows whether an earlier one may have created a job whose answer never arrived:
 *
 * - always, on any attempt after the first, it asks the platform for that job first (`findSubmitted`: T by
 *   SessionId, V and B through their task lists) and adopts it if found;
 * - on platforms where a repeated submit could create a second job (no dedup key: V, B), when the earlier
 *   attempt was cut off mid-request, it first lets that request settle (SUBMIT_SETTLE_MS after it was sent):
 *   a platform registers a create within moments of receiving it, so the reconciliation then sees the job;
 * - when the platform refuses the new attempt with a final error (T answers a repeated SessionId with an error,
 *   not the first job), it asks again before giving up;
 * - when that second look misses too on a platform with a dedup key (T), although an earlier attempt may have
 *   created a job, the refusal is taken for what it most likely is — the platform saying the job exists — and the
 *   submit keeps looking (the next attempts only look, they never send again) for LOST_ANSWER_SEARCH_MS;
 * - when the platform cannot tell within that bound (T's lookup still misses; B's task list shows several
 *   identical jobs), the task ends `upstream_lost` — replayable — with what an operator needs to find the job
 *   (account, dedup key, time window, request digest), counted and alerted (`onLostAnswer`). A second paid job is
 *   never sent on a guess, and a task whose job may be running never fails with the platform's refusal.
 *
 * Over a platform's accounts (activities/accounts.ts, docs/explanations/durability.md#accounts-and-failover), the submit picks a
 * healthy account by weight and fails over to another only on an answer that proves no job was created: a
 * refusal of the account (credentials, balance, overdue) or a throttle (429). A lost answer proves nothing, so
 * the next attempt reconciles on every account the model may have gone to and sends again to the same account.
 * With every account out, the submit waits (a retryable error) within the task's deadline.
 *
 * A routed task (platforms/routes.ts) gives the submit its members — catalogue models on several platforms — in the
 * order its route's policy chose (activities/submit-members.ts), one level above accounts and by the same rule: a
 * member none of whose accounts can take the job now (every one out of the rotation, or refusing or throttling
 * without making a job) hands the task to the next member; a create whose failure does not prove that no job was
 * made (a lost answer, a timeout, a 5xx) keeps the task on its member (`stayOn`), which recovers it there. A worker
 * that dies mid-submit leaves a heartbeat that may be a second stale: the next attempt then looks for the job on
 * every member before sending again. The answer names the member that made the job (`servedBy`).
 *
 * What remains (docs/explanations/durability.md#lost-answers): a create the platform registers more than
 * SUBMIT_SETTLE_MS after receiving it, from an attempt whose worker died, on a platform without a dedup key.
 *
 * The parts: this file is the activity and one attempt's course; activities/submit-state.ts the submit's state and
 * its one transition (`next`); activities/submit-failover.ts the create and its failover over accounts and members;
 * activities/submit-lost-answer.ts the lookups after a lost answer; activities/submit-slots.ts the create on a slot.
 */
import { activityInfo, heartbeat, type Info } from '@temporalio/activity';
import type { CapacityGate } from '../core/capacity';
import type { Catalogue } from '../core/catalogue';
import type { GenerationRequest, Kind, PollTiming, RouteMember, SubmitAnswer, SubmitResult } from '../core/task';
import { UpstreamError } from '../platforms/upstream-error';
import type { AccountPool } from './accounts';
import { sendToMembers } from './submit-failover';
import {
  LOST_ANSWER_SEARCH_MS,
  keepLooking,
  lostReporter,
  pastDeadline,
  reconcile,
  recordedAccount,
  recoverEarlierAttempt,
  type LostAnswerReport,
} from './submit-lost-answer';
import { resolveMembers, servedByOf } from './submit-members';
import { sendOnSlots, type Queued, type SlotAsk } from './submit-slots';
import {
  initialState,
  next,
  recordedAtOnce,
  unrecordedAttempt,
  type Attempt,
  type JobOnAccount,
  type SubmitProgress,
} from './submit-state';

// What the rest of the worker names of the submit, from where it always did.
export { LOST_ANSWER_SEARCH_MS, type LostAnswerReport } from './submit-lost-answer';

export interface SubmitInput {
  platform: string;
  request: GenerationRequest;
  /**
   * A routed task's members (core/task.ts TaskRoute), in the order to try them; absent: the job is created on
   * `platform` for `request`'s model.
   */
  members?: RouteMember[];
  /** Stable per workflow run and re-submission (workflows/dedup-key.ts): the platform's dedup key where it has one. */
  dedupKey: string;
  /** The task id (workflow id). */
  taskId: string;
  /** When the task's deadline passes (ms since the epoch), once known: a re-submission's. */
  deadlineAt?: number;
  /** The first submit's: when the run began (workflow time of its first workflow task), from which the worker's deadline counts. */
  taskStartedAt?: number;
  /** The API key's id: the capacity queue is fair across keys (absent in runs started before it: one shared key). */
  owner?: string;
  /** The key's weight in that fair share (default 1). */
  weight?: number;
  /**
   * The workflow can wait for a slot (patch `capacity`): with every account full, the submit answers `waiting` and the
   * task is queued. Without it (a workflow of an older build), a full platform is a retryable error, as before.
   */
  mayWait?: boolean;
}

/** How often the submit heartbeats while it waits on the platform (the workflow's heartbeat timeout is 5 s). */
export const SUBMIT_HEARTBEAT_MS = 1_000;

export interface SubmitDeps {
  catalogue: Catalogue;
  /** The worker's timing for a new task of this kind and platform (POLL_*, TASK_DEADLINE_*, the fallback when push is on). */
  timingFor(kind: Kind, platform: string): PollTiming;
  /** The platform's accounts (activities/accounts.ts; one account: AccountPool.single). */
  poolFor(platform: string): AccountPool;
  now?: () => number;
  /** A task ended `upstream_lost` because its job could not be found: the worker counts it and alerts the operator. */
  onLostAnswer?: (report: LostAnswerReport) => void;
  /** LOST_ANSWER_SEARCH_MS, shorter in tests. */
  lostAnswerSearchMs?: number;
  /** The platforms' capacity (capacity/dispatcher.ts); absent (no database): accounts' limits are not enforced. */
  capacity?: CapacityGate;
}

/**
 * The submit activity's call: a workflow that can wait for a slot (`mayWait`) may be answered `waiting`; any other
 * caller is answered with a job or an error.
 */
export interface SubmitActivity {
  (input: SubmitInput & { mayWait: true }): Promise<SubmitAnswer>;
  (input: SubmitInput): Promise<SubmitResult>;
}

/** The submit's answer for the job it created or found, with the timing of the platform that made it. */
function answerOf(job: JobOnAccount, input: SubmitInput, timing: PollTiming, deadlineAt: number): SubmitResult {
  return {
    upstreamTaskId: job.upstreamTaskId,
    account: job.account,
    // A routed task's member that made the job (the workflow's polls, cancels and bill follow it).
    ...(input.members ? { servedBy: servedByOf(job.member) } : {}),
    timing,
    deadlineAt,
  };
}

/** How this submit asks for slots, when the worker has the platforms' capacity. */
function slotAsk(capacity: CapacityGate | undefined, input: SubmitInput): SlotAsk | undefined {
  if (!capacity?.counts(input.request)) return undefined;
  return { gate: capacity, owner: input.owner ?? 'unknown', weight: input.weight ?? 1, mayWait: input.mayWait === true };
}

/** What the previous attempt last recorded; when it recorded nothing, what a retry must assume it did (submit-state.ts). */
function earlierRecord(info: Info): SubmitProgress | undefined {
  if (info.attempt === 1) return undefined;
  return (info.heartbeatDetails as SubmitProgress | undefined) ?? unrecordedAttempt(info.currentAttemptScheduledTimestampMs);
}

export function createSubmitActivity({
  catalogue,
  timingFor,
  poolFor,
  now = Date.now,
  onLostAnswer,
  lostAnswerSearchMs = LOST_ANSWER_SEARCH_MS,
  capacity,
}: SubmitDeps): SubmitActivity {
  return async function submitGeneration(input: SubmitInput): Promise<SubmitAnswer> {
    const { request, dedupKey, taskId } = input;
    const info = activityInfo();
    const earlier = earlierRecord(info);
    let state = initialState(earlier);
    const { memory } = state;
    // Before the heartbeat ticker starts: a platform this worker lacks throws here, and must not leave it running.
    const members = resolveMembers(
      catalogue,
      poolFor,
      input.members ?? [{ platform: input.platform, model: request.model, request }],
      memory.mayHaveCreated === true || memory.stayOn !== undefined,
    );
    // The task's timing is settled here, by its first submit, and recorded in the history with the job: its deadline
    // (the same for every platform of a kind) now, its polling once the serving member is known.
    const firstTiming = timingFor(request.kind, members[0]!.platform);
    const deadlineAt = input.deadlineAt ?? (input.taskStartedAt ?? info.scheduledTimestampMs) + taskDeadlineMs(request, firstTiming);
    const ticker = setInterval(() => heartbeat(state.recorded), SUBMIT_HEARTBEAT_MS);
    const attempt: Attempt = {
      members,
      ctx: { taskId, dedupKey, deadlineAt },
      number: info.attempt,
      since: info.scheduledTimestampMs,
      earlier,
      get state() {
        return state;
      },
      apply(event) {
        const before = state.recorded;
        state = next(state, event);
        // A phase is heartbeated at once unless the ticker records it; a fact learnt goes out with the next phase.
        if (state.recorded !== before && recordedAtOnce(event)) heartbeat(state.recorded);
      },
      lost: lostReporter(info.scheduledTimestampMs, dedupKey, taskId, now, onLostAnswer),
    };
    try {
      const job = await submitOnce(attempt, deadlineAt, firstTiming, now, lostAnswerSearchMs, slotAsk(capacity, input));
      if ('waiting' in job) return { waiting: job.waiting, timing: firstTiming, deadlineAt };
      return answerOf(job, input, timingFor(request.kind, job.member.platform), deadlineAt);
    } catch (err) {
      // A retried attempt may start past the deadline: it then says why the submit could not get through.
      if (err instanceof UpstreamError && err.retryable) attempt.apply({ type: 'failed', error: err.message });
      // Any other failure (a database error, a bug) records where the attempt stood, so that the next attempt does not
      // take it for a worker that died in its first second (unrecordedAttempt) when nothing was sent.
      else heartbeat(state.recorded);
      throw err;
    } finally {
      clearInterval(ticker);
    }
  } as SubmitActivity;
}

/**
 * How long the task may take: the worker's deadline for its kind, or, for a request that names the platform's own
 * window (`deadline_seconds`: V's offline tier, docs/platforms/v.md#the-offline-tier), that window plus the worker's
 * deadline as a margin, so the platform's `expired` is seen before the task's own deadline would end it.
 */
export function taskDeadlineMs(request: GenerationRequest, timing: PollTiming): number {
  const own = (request as { deadline_seconds?: unknown }).deadline_seconds;
  return typeof own === 'number' ? own * 1000 + timing.deadlineMs : timing.deadlineMs;
}

/** One attempt's course: past the deadline only a lookup; after an earlier attempt, its job looked for first; then a send. */
async function submitOnce(
  a: Attempt,
  deadlineAt: number,
  timing: PollTiming,
  now: () => number,
  searchMs: number,
  ask: SlotAsk | undefined,
): Promise<JobOnAccount | Queued> {
  if (now() >= deadlineAt) return pastDeadline(a, timing, deadlineAt, now, searchMs);
  if (a.number > 1) {
    a.apply({ type: 'reconciling' });
    if (a.state.memory.searchingSince !== undefined) {
      // Only look, on the member and account the refused re-send went to: nothing is sent again.
      const { member, account } = recordedAccount(a);
      return (
        (await reconcile(a, 'the platform refused to create it again', { member, account })) ??
        keepLooking(a, member, account, searchMs, now)
      );
    }
    const adopted = await recoverEarlierAttempt(a, now);
    if (adopted) {
      await ask?.gate.created(a.ctx.taskId, { kind: adopted.member.entry.kind, upstreamTaskId: adopted.upstreamTaskId });
      return adopted;
    }
  }
  return ask ? sendOnSlots(a, ask, now, searchMs) : sendToMembers(a, now, searchMs);
}
