/**
 * Workflow interceptor handing each task's end to the ledger (issue 20 §5, §6) through a sink: the worker turns
 * it into the task's final cost and settles its ledger entry (worker/settlement.ts). A sink adds no command to
 * the history, so running tasks and recorded histories replay unchanged, and by default it is not called during
 * replay. Settlement is keyed by task id, so a call repeated for any reason changes nothing; a call lost with a
 * crashed worker is made good by the API's ledger sweep (api/task-ledger.ts), which settles an ended task's
 * reservation from its record.
 *
 * A task that did not succeed may still be billed: a platform bills a job it could not stop (T and B have no
 * cancel, V cancels only a queued job). So the interceptor watches, without changing them, the activities that
 * decide it — the submit (a job now exists), each poll (the job failed or succeeded upstream, the platform lost
 * it, what it reported it billed), the cancel (whether the platform accepted it) — and reports at the end
 * whether the job is billed. It also writes that to the task's memo (`charge`, core/task.ts TaskCharge), so the
 * task record's cost and the API's sweep see the same figure: one memo upsert, on tasks that did not succeed only.
 *
 * Registered with the workflow bundle like the metrics interceptor (worker/workflow-modules.ts).
 */
import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxySinks,
  upsertMemo,
  type Sinks,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import type { GenerationInput, GenerationResult, ReportedUsage, TaskCharge, UpstreamStatus } from '../core/task';

export interface LedgerSinks extends Sinks {
  ledger: {
    /**
     * The task (the workflow id) ended: success with what the platform reported, failed or cancelled. `billed`
     * (absent: only a success is) says whether the platform bills the task's job although it did not succeed.
     */
    taskEnded(
      platform: string,
      request: GenerationInput['request'],
      outcome: 'success' | 'failed' | 'cancelled',
      usage: ReportedUsage,
      billed?: boolean,
    ): void;
  };
}

const { ledger } = proxySinks<LedgerSinks>();

/** The task's current upstream job, as the activities' answers tell it. */
class JobWatch {
  job: TaskCharge['job'];
  usage: ReportedUsage | undefined;

  constructor(resume: { upstreamTaskId?: unknown } | undefined) {
    // A continued run carries its job on.
    this.job = typeof resume?.upstreamTaskId === 'string' ? 'running' : 'none';
  }

  answered(activity: string, result: unknown): void {
    if (activity === 'submitGeneration' && typeof (result as { upstreamTaskId?: unknown } | undefined)?.upstreamTaskId === 'string') {
      // A new job (also after a transient upstream failure): what an earlier one reported is not its.
      this.job = 'running';
      this.usage = undefined;
    } else if (activity === 'pollGeneration' && result) {
      const status = result as UpstreamStatus;
      if (status.usage) this.usage = status.usage;
      if (status.state === 'success') this.job = 'succeeded';
      else if (status.state === 'failed') this.job = 'failed';
    } else if (activity === 'cancelGeneration' && (result as { cancelled?: unknown } | undefined)?.cancelled === true) {
      this.job = 'cancelled';
    }
  }

  failed(activity: string, err: unknown): void {
    // The platform answered that it does not know the job (after the poll's grace): nothing of it is billed.
    const cause = err instanceof ActivityFailure ? err.cause : err;
    if (activity === 'pollGeneration' && cause instanceof ApplicationFailure && cause.type === 'upstream_lost') this.job = 'lost';
  }

  charge(): TaskCharge {
    const billed = this.job === 'running' || this.job === 'succeeded';
    return { job: this.job, billed, ...(billed && this.usage ? { usage: this.usage } : {}) };
  }

  /** Watches an activity's answer on the side; the promise the workflow awaits is returned as it is. */
  observe(activity: string, answer: Promise<unknown>): Promise<unknown> {
    answer.then(
      (result) => this.answered(activity, result),
      (err: unknown) => this.failed(activity, err),
    );
    return answer;
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  let watch = new JobWatch(undefined);
  return {
    inbound: [
      {
        async execute(input, next) {
          const task = input.args[0] as Partial<GenerationInput> | undefined;
          if (typeof task?.platform !== 'string' || task.request === undefined) return next(input);
          watch = new JobWatch(input.args[1] as { upstreamTaskId?: unknown } | undefined);
          try {
            const result = (await next(input)) as GenerationResult;
            ledger.taskEnded(task.platform, task.request, 'success', result?.usage ?? {});
            return result;
          } catch (err) {
            // As in the metrics interceptor: ContinueAsNew and workflow-task errors are no end.
            const outcome = err instanceof ApplicationFailure ? 'failed' : isCancellation(err) ? 'cancelled' : undefined;
            if (outcome) {
              const charge = watch.charge();
              upsertMemo({ charge });
              ledger.taskEnded(task.platform, task.request, outcome, charge.usage ?? {}, charge.billed);
            }
            throw err;
          }
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => watch.observe(input.activityType, next(input)),
        scheduleLocalActivity: (input, next) => watch.observe(input.activityType, next(input)),
      },
    ],
  };
};
