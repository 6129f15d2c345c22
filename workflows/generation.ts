/**
 * The generation workflow: one for every model and platform. Submit the job upstream once, then poll it on
 * durable timers until it succeeds, fails, is cancelled, or passes its deadline. Platform-agnostic: it sees
 * only the normalised request and normalised upstream statuses (core/task.ts).
 *
 * A task *is* this workflow: task_id is the workflow ID, its result is the generation result, and its failure
 * (an ApplicationFailure whose type is a FailureReason) is the task's error.
 *
 * This file reads as the workflow's sequence of steps; each step lives in workflows/generation/: the activities and
 * their policies (policies.ts), the submit and the wait for a slot (submission.ts), the poll loop (polling.ts) and
 * its wake-up by callbacks (wake.ts), the task's record (records.ts), its failures (failures.ts), its settlement
 * (settlement.ts) and its webhook events (announcement.ts).
 */
import { CancellationScope, isCancellation, setHandler } from '@temporalio/workflow';
import type { GenerationInput, GenerationResult, TaskState } from '../core/task';
import { JobCharge } from './job-charge';
import { taskStateQuery } from './messages';
import { Serving } from './serving';
import { announce } from './generation/announcement';
import { cancelUpstream } from './generation/failures';
import { newPollLoop, pollTurn, submitAndWait, type PollLoop } from './generation/polling';
import { logTransition, markFailed } from './generation/records';
import { hasJob, type GenerationResume } from './generation/run';
import { endedWithoutSuccess, endOf, settleSucceeded } from './generation/settlement';
import { listenForCallbacks } from './generation/wake';

export type { GenerationResume } from './generation/run';

/**
 * The task, settled in the ledger when it ends, then its final webhook event (when it has a webhook): succeeded, or
 * failed (a cancel included). Once the task has ended, nothing cancels what follows.
 */
export async function generationWorkflow(input: GenerationInput, resume?: GenerationResume): Promise<GenerationResult> {
  const charge = new JobCharge(resume !== undefined);
  const serving = new Serving(input, resume?.servedBy);
  let result: GenerationResult;
  try {
    result = await runGeneration(input, resume, charge, serving);
  } catch (err) {
    const outcome = endOf(err);
    if (outcome) await CancellationScope.nonCancellable(() => endedWithoutSuccess(input, outcome, charge, serving));
    throw err;
  }
  await settleSucceeded(charge, serving, result);
  await announce(input, 'succeeded');
  return result;
}

/** The task's run: its state readable by query, then submit and poll turns until the task ends (or continues as new). */
async function runGeneration(
  input: GenerationInput,
  resume: GenerationResume | undefined,
  charge: JobCharge,
  serving: Serving,
): Promise<GenerationResult> {
  const state: TaskState = resume?.state ?? { status: 'pending' };
  if (!resume) logTransition('pending');
  setHandler(taskStateQuery, () => state);
  const wake = listenForCallbacks();
  const loop = newPollLoop(input, resume, { charge, serving, state, wake });
  try {
    for (;;) {
      const current = hasJob(loop.run) ? loop.run : await submitAndWait(loop);
      const end = await pollTurn(loop, current);
      if (end) return end;
    }
  } catch (err) {
    if (isCancellation(err)) await CancellationScope.nonCancellable(() => cancelled(loop));
    throw err;
  }
}

/** The client cancelled the task: its job (if it has one) cancelled upstream where the platform allows, and recorded. */
async function cancelled(loop: PollLoop): Promise<void> {
  if (loop.run?.job) await cancelUpstream(loop.input, loop.serving, loop.run.job, loop.charge);
  markFailed({ message: "The task was cancelled at the client's request", code: 'cancelled' }, 'cancelled');
}
