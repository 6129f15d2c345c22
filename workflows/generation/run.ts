/**
 * What a run of the generation workflow knows about its task as it goes: the upstream job, its timing and deadline,
 * and what a continued run picks up. Shapes and pure helpers only, shared by the workflow's steps.
 */
import type { GenerationInput, GenerationResult, PollTiming, ServedBy, TaskState } from '../../core/task';

/** Where a continued run picks up. */
export interface GenerationResume {
  upstreamTaskId: string;
  /** The account that owns the job. */
  upstreamAccount: string;
  deadlineAt: number;
  state: TaskState;
  /** The timing the first submit settled on. */
  timing: PollTiming;
  /** Jobs submitted again after a transient upstream failure so far. */
  resubmissions?: number;
  /** A routed task's member that made the job (its polls and bill follow it). */
  servedBy?: ServedBy;
}

/** The workflow's signature (workflows/generation.ts), which a continue-as-new starts again. */
export type GenerationWorkflow = (input: GenerationInput, resume?: GenerationResume) => Promise<GenerationResult>;

/** The task's upstream job and the account that owns it: every poll and cancel goes to that account. */
export interface UpstreamJob {
  upstreamTaskId: string;
  account: string;
  /** When this run received the job's id (workflow time); unknown in a continued run. */
  submittedAt?: number;
}

/** What the poll loop knows once the first submit answered: the job, its timing and its deadline. */
export interface Running {
  job: UpstreamJob | undefined;
  timing: PollTiming;
  deadlineAt: number;
  /** The submit's answer said the platform's callbacks are arriving (SubmitResult.pushHealthy). */
  pushHealthy?: boolean;
  /** The submit's answer: the model (a routed task's member) whose platform made the job. */
  servedBy?: ServedBy;
}

/** A task with its job: what every poll needs. */
export type Submitted = Running & { job: UpstreamJob };
export const hasJob = (run: Running | undefined): run is Submitted => run?.job !== undefined;

/** A continued run's job, timing and deadline, as its resume carries them. */
export function resumedRun(resume: GenerationResume | undefined): Running | undefined {
  return (
    resume && {
      job: { upstreamTaskId: resume.upstreamTaskId, account: resume.upstreamAccount },
      timing: resume.timing,
      deadlineAt: resume.deadlineAt,
    }
  );
}

/** Time left before the deadline (workflow time). */
export function remaining(deadlineAt: number): number {
  return deadlineAt - Date.now();
}
