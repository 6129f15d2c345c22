/**
 * The submit's state (activities/submit.ts) and the one function that moves it, `next`.
 *
 * Within an attempt the state has two parts. `memory` is what this and every later attempt must still know: an
 * earlier create went out unanswered (`mayHaveCreated`), a create failed without proving that no job was made
 * (`stayOn`: its member), the submit only looks for its job since a refusal of its dedup key (`searchingSince`), and
 * why an earlier attempt failed (`lastError`). `recorded` is what the attempt's heartbeats say: the phase it last
 * recorded (`reconciling`, `sending`, `answered`, `searching`; where a create went), with the memory as it stood
 * then — a fact learnt between two phases goes into the heartbeats with the next phase recorded, or with the failure
 * that ends the attempt. The heartbeat details are the durable part: the next attempt starts from the last one
 * (`initialState`), and their shape (SubmitProgress) is the one every recorded attempt left.
 *
 * The attempt's steps (submit-failover.ts, submit-lost-answer.ts, submit-slots.ts) return or apply events; none
 * writes the state. Memory only ever grows within an attempt: a fact once learnt is never forgotten by a later event.
 */
import type { CreatedJob } from '../core/task';
import type { SubmitContext } from '../platforms/platform';
import type { UpstreamError } from '../platforms/upstream-error';
import type { PoolAccount } from './accounts';
import type { SubmitMember } from './submit-members';

/**
 * Where an attempt stands, as its heartbeats record it for the next attempt; `account` (and `member`, its place in
 * the task's members) is where a create was (or is being) sent, so a retry after a lost answer starts there.
 */
export type SubmitProgress = (
  | { phase: 'reconciling' }
  | { phase: 'sending'; sentAt: number; account?: string; member?: number }
  | { phase: 'answered'; account?: string; member?: number }
  | { phase: 'searching'; account?: string; member?: number }
) &
  SubmitMemory;

/** What every later attempt must still know, whatever its own phase: carried on in every heartbeat. */
export interface SubmitMemory {
  /** Why the last attempt failed (a retryable error): the task's deadline message names it. */
  lastError?: string;
  /** An attempt's create went out and its answer never came: a job may exist upstream. */
  mayHaveCreated?: boolean;
  /**
   * Since when (ms) the submit only looks for its job: the platform refused a re-send for its dedup key while an
   * earlier create may have made the job. No create is sent any more.
   */
  searchingSince?: number;
  /**
   * The member (its place in the task's members) a create went to whose failure does not prove that no job was made
   * (a lost answer, a timeout, a 5xx), as the attempt that saw it recorded (an attempt that fails flushes its last
   * heartbeat): every later attempt stays on that member, never creating the job on another platform.
   */
  stayOn?: number;
}

/** The submit's state within one attempt: what it knows, and what its heartbeats say (see the top of this file). */
export interface SubmitState {
  readonly memory: Readonly<SubmitMemory>;
  readonly recorded: Readonly<SubmitProgress>;
}

/** Where a create goes: the account and the member's place in the task's members. */
interface Target {
  account: string;
  member: number;
}

/** What moves the submit's state: a phase recorded, a fact learnt, or the attempt's failure. */
export type SubmitEvent =
  /** Recorded: the attempt looks for a job an earlier one may have made. */
  | { type: 'reconciling' }
  /** Recorded: a create is going out (a crash from now on may leave a job whose answer never came). */
  | ({ type: 'sending'; sentAt: number } & Target)
  /** Recorded: the platform answered the create (a job or an error): nothing of this attempt is in flight. */
  | ({ type: 'answered' } & Target)
  /** Recorded: the submit only looks for its job on this account (a refused re-send of its dedup key). */
  | ({ type: 'searching' } & Target)
  /** Learnt: a create went out and its answer never came. */
  | { type: 'answerLost' }
  /** Learnt: a create on this member failed without proving that no job was made; the task stays there. */
  | { type: 'mayHaveJobOn'; member: number }
  /** Learnt: the platform refused a re-send for the dedup key while the job may exist; from now on only look. */
  | { type: 'searchBegan'; at: number }
  /** Recorded: the attempt fails with a retryable error, which the next attempts' deadline message names. */
  | { type: 'failed'; error: string };

/** What an earlier attempt's heartbeat says every later attempt must still know. */
function memoryFrom(earlier: SubmitProgress | undefined): SubmitMemory {
  return {
    ...(earlier?.phase === 'sending' || earlier?.mayHaveCreated ? { mayHaveCreated: true } : {}),
    ...(earlier?.searchingSince !== undefined ? { searchingSince: earlier.searchingSince } : {}),
    ...(earlier?.lastError !== undefined ? { lastError: earlier.lastError } : {}),
    ...(earlier?.stayOn !== undefined ? { stayOn: earlier.stayOn } : {}),
  };
}

/**
 * Whether an event's record is heartbeated at once. `sending` and `answered` are not: the attempt's ticker records the
 * phase it is in every SUBMIT_HEARTBEAT_MS (activities/submit.ts), so a create the platform answers within that costs
 * the Temporal server no heartbeat — one write less per task. A record the next attempt cannot do without goes out at
 * once: the failure that ends an attempt (with everything it learnt), a search, a reconciliation.
 */
export const recordedAtOnce = (event: SubmitEvent): boolean => event.type !== 'sending' && event.type !== 'answered';

/**
 * What a retry takes an earlier attempt that recorded nothing to have done: sent a create, at the latest when this
 * attempt was scheduled. Since `sending` waits for the ticker (recordedAtOnce), a worker that died within its first
 * SUBMIT_HEARTBEAT_MS of a create leaves no heartbeat; the retry then lets that create settle, looks for its job on
 * every member and account, and remembers that a job may exist — as after any create cut off mid-request.
 */
export const unrecordedAttempt = (scheduledAt: number): SubmitProgress => ({ phase: 'sending', sentAt: scheduledAt });

/** An attempt's first state, from the previous attempt's last heartbeat (none on the first attempt). */
export function initialState(earlier: SubmitProgress | undefined): SubmitState {
  const memory = memoryFrom(earlier);
  return { memory, recorded: { phase: 'reconciling', ...memory } };
}

/** The state after one event: the submit's only transition. A fact learnt leaves `recorded` as it is (the same object). */
export function next(state: SubmitState, event: SubmitEvent): SubmitState {
  const { memory, recorded } = state;
  switch (event.type) {
    case 'answerLost':
      return { memory: { ...memory, mayHaveCreated: true }, recorded };
    case 'mayHaveJobOn':
      return { memory: { ...memory, stayOn: event.member }, recorded };
    case 'searchBegan':
      return { memory: { ...memory, searchingSince: event.at }, recorded };
    case 'reconciling':
      return { memory, recorded: { ...memory, phase: 'reconciling' } };
    case 'sending':
      return { memory, recorded: { ...memory, phase: 'sending', sentAt: event.sentAt, account: event.account, member: event.member } };
    case 'answered':
    case 'searching':
      return { memory, recorded: { ...memory, phase: event.type, account: event.account, member: event.member } };
    case 'failed':
      return { memory, recorded: { ...memory, ...recorded, lastError: event.error } };
  }
}

/** The account an earlier attempt's heartbeat names, if any. */
export const accountOf = (p: SubmitProgress | undefined) => (p && p.phase !== 'reconciling' ? p.account : undefined);
/** The member an earlier attempt sent to (runs recorded before routes name none: the task's only member). */
export const memberOf = (p: SubmitProgress | undefined) => (p && p.phase !== 'reconciling' ? (p.member ?? 0) : undefined);

/** A job the submit created or found, the account it is on and the member (the task's model, or a route's) it serves. */
export type JobOnAccount = CreatedJob & { account: string; member: SubmitMember };

/** One attempt of a submit: what its steps share. */
export interface Attempt {
  /** What the job may be created on: the task's model, or its route's members this worker reaches, in order. */
  members: SubmitMember[];
  ctx: SubmitContext;
  /** Temporal's attempt number (1: nothing can have been sent before) and when the first attempt was scheduled. */
  number: number;
  since: number;
  /** What the previous attempt's last heartbeat recorded. */
  earlier: SubmitProgress | undefined;
  /** The submit's state now; moved only by `apply`. */
  readonly state: SubmitState;
  /** Moves the state by an event (`next`); what it records is heartbeated at once (recordedAtOnce) or at the next tick. */
  apply(event: SubmitEvent): void;
  /** The task ends `upstream_lost` with everything an operator needs to find the job on `account`; counted and alerted. */
  lost(member: SubmitMember, account: PoolAccount, reason: string, why: string, code?: string): UpstreamError;
}
