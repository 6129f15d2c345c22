/**
 * The generation workflow's poll loop: a job submitted (the first, or a new one after a transient upstream failure),
 * then polled on durable timers (workflows/generation/wake.ts) until it succeeds, fails or passes the task's deadline,
 * the run continued as new when its history grows long.
 */
import { log, makeContinueAsNewFunc, sleep, workflowInfo } from '@temporalio/workflow';
import type { GenerationInput, GenerationResult, PolledStatus, PollTiming, TaskState } from '../../core/task';
import { SlotWait } from '../capacity';
import type { JobCharge } from '../job-charge';
import type { Serving } from '../serving';
import { announce } from './announcement';
import {
  deadlineExceeded,
  failFromActivity,
  isActivityTimeout,
  isTransientPollFailure,
  isUpstreamLost,
  lastFailureMessage,
} from './failures';
import { MAX_EVENTS_PER_RUN, MAX_RESUBMISSIONS, pollActivity, pollBackoffMs, RESUBMIT_PAUSE_MS } from './policies';
import { fail, quieterTask, recordJob, setStatus, succeed } from './records';
import { remaining, resumedRun, type GenerationResume, type GenerationWorkflow, type Running, type Submitted } from './run';
import { submitJob } from './submission';
import type { PollWake } from './wake';

/** What the poll loop carries from one turn to the next. */
export interface PollLoop {
  readonly input: GenerationInput;
  readonly charge: JobCharge;
  readonly serving: Serving;
  /** The task's live state, which its query answers with. */
  readonly state: TaskState;
  readonly wake: PollWake;
  /** The wait for a slot on a platform account, when every account that could serve the task is full. */
  readonly slots: SlotWait;
  resubmissions: number;
  failedPolls: number;
  /** Fallback waits in a row since a poll last found callbacks not arriving (the doubling of pushFallbackMs). */
  pushWaits: number;
  /**
   * Set by the first submit (or the continued run's resume): from then on, the task has a timing and a deadline.
   * Its job is the one a cancel of the task cancels upstream, so it changes as soon as the job does.
   */
  run: Running | undefined;
}

/** The loop as a run starts it: a new task, or a continued run picking up its job. */
export function newPollLoop(
  input: GenerationInput,
  resume: GenerationResume | undefined,
  task: Pick<PollLoop, 'charge' | 'serving' | 'state' | 'wake'>,
): PollLoop {
  return {
    input,
    ...task,
    slots: new SlotWait(),
    resubmissions: resume?.resubmissions ?? 0,
    failedPolls: 0,
    pushWaits: 0,
    run: resumedRun(resume),
  };
}

/** A job submitted (the first, or a new one after a transient failure), recorded, then the wait before its first poll. */
export async function submitAndWait(loop: PollLoop): Promise<Submitted> {
  const { input, charge, serving, state } = loop;
  const current = await submitJob(input, loop.run, loop.resubmissions, charge, serving, loop.slots);
  loop.slots.done();
  loop.run = current;
  charge.submitted();
  serving.serve(current.servedBy);
  state.upstreamTaskId = current.job.upstreamTaskId;
  state.upstreamAccount = current.job.account;
  recordJob(input, current.job, serving);
  // While push is healthy the first poll waits the fallback interval too: the job's end will wake the task,
  // and a poll of a job that has just started learns only that it runs.
  const fallback = current.pushHealthy ? current.timing.fallbackPollIntervalMs : undefined;
  await loop.wake.wait(fallback ?? current.timing.firstPollDelayMs, current.deadlineAt);
  return current;
}

/** One poll and what follows it: the task's end (returned), or undefined to poll again (or submit anew). */
export async function pollTurn(loop: PollLoop, current: Submitted): Promise<GenerationResult | undefined> {
  const { input, charge, serving, state, wake } = loop;
  const { timing, deadlineAt } = current;
  if (remaining(deadlineAt) <= 0) return await deadlineExceeded(input, current, wake, charge, serving);
  const polled = await pollJob(loop, current);
  if (!('status' in polled)) return polled.end;
  const status = polled.status;
  if (status.state === 'success') return succeed(state, status, serving);
  if (status.state === 'failed') {
    await resubmitOrFail(loop, current, status);
    return undefined;
  }
  const wasRunning = state.status === 'running';
  setStatus(state, status.state, status.progress);
  if (!wasRunning && state.status === 'running') await announce(input, 'running');

  const info = workflowInfo();
  if (info.historyLength >= (input.maxEventsPerRun ?? MAX_EVENTS_PER_RUN) || info.continueAsNewSuggested) {
    // Memo and search attributes are passed on explicitly: they are the task's record for reads.
    const next = makeContinueAsNewFunc<GenerationWorkflow>({
      memo: info.memo,
      typedSearchAttributes: info.typedSearchAttributes,
    });
    return await next(input, resumeOf(loop, current));
  }
  const fallback = status.pushHealthy ? pushFallbackMs(loop, timing) : undefined;
  if (!status.pushHealthy) loop.pushWaits = 0;
  await wake.wait(fallback ?? timing.pollIntervalMs, deadlineAt);
  return undefined;
}

/**
 * While callbacks arrive the poll is only the safety net for a lost one, and polling a long job every 30 s learns
 * nothing the job's end will not announce: new runs whose timing carries a maximum (patch `quieter-task`, records.ts)
 * double the fallback wait each time in a row, from fallbackPollIntervalMs (30 s: the wait after the submit) to
 * fallbackPollMaxIntervalMs (120 s). A five-minute job is then polled at about 30 s, 90 s and 210 s, and woken by its
 * end, instead of every 30 s; a lost final callback is noticed within the maximum. Timing recorded without a
 * maximum (1.0 runs, a worker without the setting) waits fallbackPollIntervalMs every time, as before.
 */
function pushFallbackMs(loop: PollLoop, timing: PollTiming): number | undefined {
  const first = timing.fallbackPollIntervalMs;
  const max = timing.fallbackPollMaxIntervalMs;
  if (first === undefined || max === undefined || !quieterTask()) return first;
  loop.pushWaits += 1;
  return Math.min(max, first * 2 ** loop.pushWaits);
}

/** Where the next run picks up the task: its job, deadline, state and timing, and what it has done so far. */
function resumeOf(loop: PollLoop, current: Submitted): GenerationResume {
  const { job, timing, deadlineAt } = current;
  return {
    upstreamTaskId: job.upstreamTaskId,
    upstreamAccount: job.account,
    deadlineAt,
    state: loop.state,
    timing,
    ...(loop.resubmissions > 0 ? { resubmissions: loop.resubmissions } : {}),
    ...(loop.serving.servedBy ? { servedBy: loop.serving.servedBy } : {}),
  };
}

/**
 * The job polled: its status, or the task's end (the deadline passed, the poll failed for good), or no end (`end`
 * undefined) after a poll whose own budget ran out (an outage) and the durable backoff that follows it.
 */
async function pollJob(loop: PollLoop, current: Submitted): Promise<{ status: PolledStatus } | { end: GenerationResult | undefined }> {
  const { input, charge, serving, wake } = loop;
  const { job, deadlineAt } = current;
  try {
    const status = await pollActivity(remaining(deadlineAt))({
      platform: serving.platform,
      kind: input.kind,
      ...job,
      request: serving.request,
      ...(serving.servedBy ? { servedBy: serving.servedBy } : {}),
    });
    charge.polled(status);
    loop.failedPolls = 0;
    return { status };
  } catch (err) {
    if (isUpstreamLost(err)) charge.lost();
    if (isActivityTimeout(err) && remaining(deadlineAt) <= 0)
      return { end: await deadlineExceeded(input, current, wake, charge, serving, lastFailureMessage(err)) };
    if (!isTransientPollFailure(err)) return failFromActivity(err, 'poll');
    // The poll's own budget ran out (an outage): back off on a durable timer, then poll again.
    loop.failedPolls += 1;
    const backoff = pollBackoffMs(loop.failedPolls);
    if (remaining(deadlineAt) <= backoff)
      return { end: await deadlineExceeded(input, current, wake, charge, serving, lastFailureMessage(err)) };
    wake.dropTimer();
    await sleep(backoff);
    return { end: undefined };
  }
}

/**
 * A job the platform reports failed: a new one submitted after a pause when the failure is transient and time
 * allows, else the task fails. The loop forgets the failed job before the pause, so a cancel during it cancels nothing.
 */
async function resubmitOrFail(loop: PollLoop, current: Submitted, status: PolledStatus): Promise<void> {
  const { job, timing, deadlineAt } = current;
  const f = status.failure ?? { reason: 'upstream_failed' as const, message: 'The platform reported the job as failed' };
  if (f.resubmit && loop.resubmissions < MAX_RESUBMISSIONS && remaining(deadlineAt) > RESUBMIT_PAUSE_MS + timing.firstPollDelayMs) {
    loop.resubmissions += 1;
    log.warn('The job failed upstream for a transient reason; submitting a new one', {
      upstreamTaskId: job.upstreamTaskId,
      code: f.code,
      resubmissions: loop.resubmissions,
    });
    loop.run = { ...current, job: undefined };
    setStatus(loop.state, 'pending');
    loop.wake.dropTimer();
    await sleep(RESUBMIT_PAUSE_MS);
    return;
  }
  fail(f.reason, f.message, f.code);
}
