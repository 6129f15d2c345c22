/**
 * A Temporal client stand-in for unit tests of the code that starts and reads tasks (tasks/task-service.ts, and
 * tasks/start.ts through it): it records every start with its options, keeps each started workflow as Temporal would
 * describe it (its memo and search attributes as started, running until a test closes it), and refuses a second
 * start under a workflow id as REJECT_DUPLICATE does. Visibility (count, list) answers what a test scripts, and
 * records the query it was asked. The e2e and system projects run the same code against a real Temporal.
 */
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { TypedSearchAttributes, type SearchAttributePair } from '@temporalio/common';

/** One start the code under test sent: the workflow type and its options, exactly as given. */
export interface RecordedStart {
  workflowType: string;
  options: WorkflowStartOptions & { typedSearchAttributes?: SearchAttributePair[] };
}

export interface RecordingTemporal {
  client: Client;
  starts: RecordedStart[];
  /** Every deadline a call was bounded by (milliseconds from the call's start). */
  deadlines: number[];
  /** Every visibility query asked (count and list). */
  queries: string[];
  /** The workflows started (by id), as describe answers them. */
  workflows: Map<string, WorkflowExecutionDescription>;
  /** Closes a started workflow as Temporal would show it (`COMPLETED`, `FAILED`…), its memo changed by `memo`. */
  close(workflowId: string, status: string, memo?: Record<string, unknown>): void;
}

export interface RecordingTemporalOptions {
  /** What `workflow.count` answers (default 0). */
  count?: (query: string) => number;
  /** What `workflow.list` yields (default: nothing). */
  list?: (query: string) => WorkflowExecutionDescription[];
  /** Every start fails with this error, and no workflow is made (Temporal unreachable). */
  refuseStarts?: Error;
  /** Every start makes its workflow, but its answer is this error (an answer lost on the way back). */
  loseStartAnswers?: Error;
}

/** The description Temporal gives of a workflow just started with these options. */
function describedAsStarted(workflowType: string, options: RecordedStart['options']): WorkflowExecutionDescription {
  return {
    type: workflowType,
    workflowId: options.workflowId,
    runId: `run-${options.workflowId}`,
    taskQueue: options.taskQueue,
    status: { code: 1, name: 'RUNNING' },
    startTime: new Date(),
    executionTime: new Date(),
    historyLength: 1,
    memo: options.memo,
    typedSearchAttributes: new TypedSearchAttributes(options.typedSearchAttributes ?? []),
  } as unknown as WorkflowExecutionDescription;
}

export function recordingTemporal(opts: RecordingTemporalOptions = {}): RecordingTemporal {
  const starts: RecordedStart[] = [];
  const deadlines: number[] = [];
  const queries: string[] = [];
  const workflows = new Map<string, WorkflowExecutionDescription>();
  const workflow = {
    async start(workflowType: string, options: RecordedStart['options']) {
      starts.push({ workflowType, options });
      if (opts.refuseStarts) throw opts.refuseStarts;
      if (workflows.has(options.workflowId))
        throw new WorkflowExecutionAlreadyStartedError('Workflow execution already started', options.workflowId, workflowType);
      workflows.set(options.workflowId, describedAsStarted(workflowType, options));
      if (opts.loseStartAnswers) throw opts.loseStartAnswers;
      return { workflowId: options.workflowId };
    },
    getHandle(workflowId: string) {
      return {
        async describe() {
          const found = workflows.get(workflowId);
          if (!found) throw new WorkflowNotFoundError('Workflow not found', workflowId, undefined);
          return found;
        },
      };
    },
    async count(query: string) {
      queries.push(query);
      return { count: opts.count?.(query) ?? 0, groups: [] };
    },
    async *list({ query }: { query: string }) {
      queries.push(query);
      yield* opts.list?.(query) ?? [];
    },
  };
  const client = {
    workflow,
    async withDeadline<T>(deadline: number, call: () => Promise<T>): Promise<T> {
      deadlines.push(deadline - Date.now());
      return call();
    },
  } as unknown as Client;
  const close = (workflowId: string, status: string, memo: Record<string, unknown> = {}) => {
    const found = workflows.get(workflowId)!;
    workflows.set(workflowId, {
      ...found,
      status: { ...found.status, name: status },
      closeTime: new Date(),
      memo: { ...found.memo, ...memo },
    } as WorkflowExecutionDescription);
  };
  return { client, starts, deadlines, queries, workflows, close };
}
