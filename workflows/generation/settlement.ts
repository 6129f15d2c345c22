/**
 * Settlement: when a task ends, its ledger entry is settled to its final cost (tasks/settlement.ts), before its
 * final webhook event. A task that succeeds is settled by the poll that found its job done, in the same local
 * activity that kept its outputs (activities/index.ts pollGeneration): no event of its own. Otherwise — a task that
 * failed or was cancelled, or a success whose poll could not reach the ledger — settlement is a step of its own at
 * the task's end (patch `settlement-step`): a local activity, one marker event in the workflow task that ended the
 * task, and, if the ledger cannot be written within its bound (a database outage), an activity Temporal retries for
 * up to a day; the task's record is final meanwhile (its memo says how it ended). Runs recorded before the step
 * (1.0) replay without it.
 */
import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  isCancellation,
  log,
  patched,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { GenerationInput, GenerationResult, ReportedUsage, SettleInput, TaskEndOutcome } from '../../core/task';
import type { JobCharge } from '../job-charge';
import type { Serving } from '../serving';
import { announce } from './announcement';
import { settleDurably, settleInTask } from './policies';

export const SETTLEMENT_STEP = 'settlement-step';

/** How a task's run ended with an error: failed, cancelled, or not an end (continue-as-new, a workflow-task error). */
export function endOf(err: unknown): Exclude<TaskEndOutcome, 'success'> | undefined {
  if (err instanceof ContinueAsNew) return undefined;
  return err instanceof ApplicationFailure ? 'failed' : isCancellation(err) ? 'cancelled' : undefined;
}

/** A task that succeeded: settled now unless the poll that found its job done settled it already. Nothing cancels it. */
export async function settleSucceeded(charge: JobCharge, serving: Serving, result: GenerationResult): Promise<void> {
  if (!charge.settledByPoll() && patched(SETTLEMENT_STEP))
    await CancellationScope.nonCancellable(() => settle(serving, 'success', result.usage ?? {}));
}

/** A task that failed or was cancelled: its job's charge recorded and settled, then its `failed` event announced. */
export async function endedWithoutSuccess(
  input: GenerationInput,
  outcome: Exclude<TaskEndOutcome, 'success'>,
  charge: JobCharge,
  serving: Serving,
): Promise<void> {
  const taskCharge = charge.charge();
  if (patched(SETTLEMENT_STEP)) {
    upsertMemo({ charge: taskCharge });
    await settle(serving, outcome, taskCharge.usage ?? {}, taskCharge.billed);
    if (input.webhook) await announce(input, 'failed');
  } else {
    // The 1.0 shape: the event, then the charge in the memo (the ledger was settled outside the history).
    if (input.webhook) await announce(input, 'failed');
    upsertMemo({ charge: taskCharge });
  }
}

/** What the ledger is told of the task's end. */
function settlementOf(serving: Serving, outcome: TaskEndOutcome, usage: ReportedUsage, billed?: boolean): SettleInput {
  return {
    taskId: workflowInfo().workflowId,
    platform: serving.platform,
    request: serving.request,
    ...(serving.servedBy ? { servedBy: serving.servedBy } : {}),
    outcome,
    usage,
    ...(billed !== undefined ? { billed } : {}),
  };
}

async function settle(serving: Serving, outcome: TaskEndOutcome, usage: ReportedUsage, billed?: boolean): Promise<void> {
  const settlement = settlementOf(serving, outcome, usage, billed);
  try {
    await settleInTask(settlement);
    return;
  } catch {
    // The ledger was not reachable within the local bound: the durable retries take over.
  }
  try {
    await settleDurably(settlement);
  } catch (err) {
    // A day without the ledger: the task's outcome must not change; the ledger's sweep settles it from its record.
    log.error('Could not settle the task in the ledger', { outcome, error: err instanceof Error ? err.message : String(err) });
  }
}
