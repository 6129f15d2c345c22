/**
 * The submit on the platforms' capacity (docs/architecture.md, "Capacity"; activities/submit.ts): a task takes a slot
 * on an account with room before its create, or joins the queue and is answered `waiting`. The create and its failover
 * are activities/submit-failover.ts's, by the same rule: a slot is given back at once only on a refusal proving that no
 * job was made on it.
 */
import { log } from '@temporalio/activity';
import type { CapacityGate, SlotCandidate, TaskWaiting } from '../core/capacity';
import { retryable, UpstreamError } from '../platforms/upstream-error';
import type { PoolAccount } from './accounts';
import { sendOrder, type NoAccountLeft, type SubmitMember } from './submit-members';
import { createOn, nothingLeft, refusedWithoutJob } from './submit-failover';
import { afterFinalRefusal } from './submit-lost-answer';
import { memberOf, type Attempt, type JobOnAccount } from './submit-state';

/** How a task asks for slots: whose it is, its weight, and whether its workflow can wait for one (SubmitInput). */
export interface SlotAsk {
  gate: CapacityGate;
  owner: string;
  weight: number;
  mayWait: boolean;
}

/** The submit's answer while the task waits for a slot: its place in the queue, since when. */
export interface Queued {
  waiting: TaskWaiting;
}

/** How many times one attempt sends again after a concurrency refusal before it leaves that account out. */
const OVER_CAPACITY_RETRIES = 3;

/** A concurrency refusal (V's `InflightBatchsizeExceeded`): the account runs fewer jobs at once than its slots said. */
const isOverCapacity = (err: unknown) => err instanceof UpstreamError && err.opts.overCapacity === true;

/**
 * Where the task's job may go, in the order it prefers them: the members in their order (only the one it must stay on,
 * after a create that may have made a job), each member's accounts that serve its model and are in the rotation, by a
 * draw on their weights; less the accounts this attempt left out.
 */
function slotCandidates(a: Attempt, excluded: ReadonlySet<string>): SlotCandidate[] {
  const stay = a.members.find((m) => m.index === a.state.memory.stayOn);
  const out: SlotCandidate[] = [];
  for (const member of stay ? [stay] : sendOrder(a.members, memberOf(a.earlier))) {
    const drawn = new Set<string>();
    for (;;) {
      const account = member.pool.pick(member.entry.id, drawn);
      if (!account) break;
      drawn.add(account.id);
      if (!excluded.has(`${member.index}/${account.id}`))
        out.push({ platform: member.platform, account: account.id, member: member.index });
    }
  }
  return out;
}

/**
 * A create refused without a job: its slot is given back at once (a concurrency refusal also lowers the account's
 * learned limit) and the account is left out of this attempt — but for a concurrency refusal, whose lowered limit
 * now queues the task behind the account's running jobs, unless it keeps refusing. True: the account was left out.
 */
async function slotRefused(
  a: Attempt,
  ask: SlotAsk,
  refused: { member: SubmitMember; account: PoolAccount; err: unknown },
  excluded: Set<string>,
  refusedForCapacity: Map<string, number>,
): Promise<boolean> {
  const overCapacity = isOverCapacity(refused.err);
  await ask.gate.release(a.ctx.taskId, { overCapacity });
  const where = `${refused.member.index}/${refused.account.id}`;
  const refusals = (refusedForCapacity.get(where) ?? 0) + 1;
  refusedForCapacity.set(where, refusals);
  if (overCapacity && refusals <= OVER_CAPACITY_RETRIES) return false;
  excluded.add(where);
  return !overCapacity;
}

/**
 * The create, on a slot (docs/architecture.md, "Capacity"): the task takes a slot on the first candidate account with
 * room — or, with none, joins the queue and answers `waiting` — then creates its job there. A refusal proving that no job
 * was made gives the slot back at once (a concurrency refusal also lowers the account's learned limit) and the task
 * takes another slot or waits; any other failure keeps the slot, since a job may exist on it. A task that already
 * holds a slot (a retried attempt, a grant that woke it) is given the same one.
 */
export async function sendOnSlots(a: Attempt, ask: SlotAsk, now: () => number, lostAnswerSearchMs: number): Promise<JobOnAccount | Queued> {
  const excluded = new Set<string>();
  const refusedForCapacity = new Map<string, number>();
  let lastThrottle: UpstreamError | undefined;
  let firstOut: NoAccountLeft | undefined;
  for (;;) {
    const candidates = slotCandidates(a, excluded);
    if (candidates.length === 0) throw firstOut ?? nothingLeft(a.members[0]!, lastThrottle);
    const answer = await ask.gate.take(
      { taskId: a.ctx.taskId, owner: ask.owner, weight: ask.weight, candidates },
      { mayWait: ask.mayWait },
    );
    if ('waiting' in answer) {
      log.info('Every account that can serve the task is running as many jobs as it may: the task waits for a slot', {
        taskId: a.ctx.taskId,
        accounts: candidates.map((c) => `${c.platform}/${c.account}`),
      });
      return { waiting: { reason: 'platform_capacity', since: answer.waiting.since } };
    }
    if ('full' in answer)
      throw retryable('Every account that can serve the task is running as many jobs as it may', 'CapacityFull', { retryAfterMs: 10_000 });
    const slot = answer.granted;
    const member = a.members.find((m) => m.index === slot.member && m.platform === slot.platform);
    const account = member?.pool.get(slot.account);
    if (!member || !account) {
      // A slot on an account this worker does not have (the fleet's accounts files differ): given back, never used.
      await ask.gate.release(a.ctx.taskId);
      excluded.add(`${slot.member}/${slot.account}`);
      continue;
    }
    let job: JobOnAccount;
    try {
      job = await createOn(a, member, account, now);
    } catch (err) {
      const failover = refusedWithoutJob(a, member, account, err);
      if (!failover) return afterFinalRefusal(a, member, account, err, now, lostAnswerSearchMs);
      if (failover === 'throttled') lastThrottle = err as UpstreamError;
      const leftOut = await slotRefused(a, ask, { member, account, err }, excluded, refusedForCapacity);
      if (leftOut && member.pool.pick(member.entry.id, new Set([account.id])) === undefined) firstOut ??= nothingLeft(member, lastThrottle);
      continue;
    }
    try {
      await ask.gate.created(a.ctx.taskId, { kind: member.entry.kind, upstreamTaskId: job.upstreamTaskId });
    } catch (err) {
      // The job exists and its slot is held either way; only the learned limit's count misses this one.
      log.warn('Could not record the created job on its slot', { taskId: a.ctx.taskId, error: (err as Error).message });
    }
    return job;
  }
}
