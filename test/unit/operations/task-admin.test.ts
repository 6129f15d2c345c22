/**
 * The operator's task views (operations/task-admin.ts) without a Temporal: the visibility query a filter makes (a model
 * filter finds a routed task by its route's name too; a run that continued as new is not a task of its own), and
 * which run of a replayed task is the task now (the running one, else the one that closed last).
 */
import { currentRuns, operatorQuery } from '../../../operations/task-admin';

test('a model filter matches the model that served a task or the route it named, its value quoted', () => {
  const q = operatorQuery({ model: 'kling-2.1' });
  expect(q).toContain(`(GenerationModel = 'kling-2.1' OR GenerationRoute = 'kling-2.1')`);
  expect(operatorQuery({ model: "x' OR 1=1" })).toContain(`GenerationModel = 'x'' OR 1=1'`);
});

test('a run that continued as new is never listed as a task', () => {
  expect(operatorQuery({})).toContain(`ExecutionStatus != 'ContinuedAsNew'`);
});

const run = (workflowId: string, runId: string, status: string, closedAt?: number) => ({
  workflowId,
  runId,
  status: { name: status },
  closeTime: closedAt === undefined ? undefined : new Date(closedAt),
});

test('a replayed task is its running run, or the run that closed last; a task of one run is that run', () => {
  const current = currentRuns([
    run('a', 'a-failed', 'FAILED', 1_000),
    run('a', 'a-replay', 'RUNNING'),
    run('b', 'b-replay', 'COMPLETED', 5_000),
    run('b', 'b-failed', 'FAILED', 2_000),
    run('c', 'c-only', 'FAILED', 3_000),
  ]);
  expect(Object.fromEntries(current)).toEqual({ a: 'a-replay', b: 'b-replay', c: 'c-only' });
});
