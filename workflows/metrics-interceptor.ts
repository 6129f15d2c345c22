/**
 * Workflow interceptor reporting each task's outcome (success, or failed with its FailureReason) to the worker's
 * metrics through a sink. The workflow sandbox cannot touch prom-client; a sink is the SDK's way out, and by
 * default it is not called during replay, so a task evicted from the cache and replayed is not counted twice.
 *
 * Registered with the Worker (interceptors.workflowModules) or baked into the prebuilt bundle
 * (bundleWorkflowCode's workflowInterceptorModules): see worker/workflow-modules.ts.
 */
import { ApplicationFailure, isCancellation, proxySinks, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export interface TaskMetricsSinks extends Sinks {
  taskMetrics: {
    /** `reason` is the FailureReason of a failed task, `none` for a success. */
    completed(platform: string, outcome: 'success' | 'failed', reason: string): void;
  };
}

const { taskMetrics } = proxySinks<TaskMetricsSinks>();

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        const platform = (input.args[0] as { platform?: unknown } | undefined)?.platform;
        if (typeof platform !== 'string') return next(input);
        try {
          const result = await next(input);
          taskMetrics.completed(platform, 'success', 'none');
          return result;
        } catch (err) {
          // ContinueAsNew is neither: the task goes on in a new run. Any other error fails the workflow task,
          // not the workflow, and is retried, so it is no outcome either.
          if (err instanceof ApplicationFailure) taskMetrics.completed(platform, 'failed', err.type ?? 'unknown');
          else if (isCancellation(err)) taskMetrics.completed(platform, 'failed', 'cancelled');
          throw err;
        }
      },
    },
  ],
});
