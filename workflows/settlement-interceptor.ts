/**
 * Workflow interceptor handing each task's end to the ledger (issue 20 §5, §6) through a sink: the worker turns
 * it into the task's final cost and settles its ledger entry (worker/settlement.ts). A sink adds no command to
 * the history, so running tasks and recorded histories replay unchanged, and by default it is not called during
 * replay. Settlement is keyed by task id, so a call repeated for any reason changes nothing; a call lost with a
 * crashed worker is made good by the API's ledger sweep (api/task-ledger.ts), which settles an ended task's
 * reservation from its record.
 *
 * Registered with the workflow bundle like the metrics interceptor (worker/workflow-modules.ts).
 */
import { ApplicationFailure, isCancellation, proxySinks, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import type { GenerationInput, GenerationResult, ReportedUsage } from '../core/task';

export interface LedgerSinks extends Sinks {
  ledger: {
    /** The task (the workflow id) ended: success with what the platform reported, failed or cancelled. */
    taskEnded(platform: string, request: GenerationInput['request'], outcome: 'success' | 'failed' | 'cancelled', usage: ReportedUsage): void;
  };
}

const { ledger } = proxySinks<LedgerSinks>();

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        const task = input.args[0] as Partial<GenerationInput> | undefined;
        if (typeof task?.platform !== 'string' || task.request === undefined) return next(input);
        try {
          const result = (await next(input)) as GenerationResult;
          ledger.taskEnded(task.platform, task.request, 'success', result?.usage ?? {});
          return result;
        } catch (err) {
          // As in the metrics interceptor: ContinueAsNew and workflow-task errors are no end.
          if (err instanceof ApplicationFailure) ledger.taskEnded(task.platform, task.request, 'failed', {});
          else if (isCancellation(err)) ledger.taskEnded(task.platform, task.request, 'cancelled', {});
          throw err;
        }
      },
    },
  ],
});
