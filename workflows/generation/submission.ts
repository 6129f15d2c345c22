/**
 * The generation workflow's submit: the job sent upstream once (again only after a transient upstream failure), and
 * the wait for a slot while every account that could serve the task is full (workflows/capacity.ts).
 */
import { CancellationScope, workflowInfo } from '@temporalio/workflow';
import { MAX_TASK_DEADLINE_MS } from '../../core/timeouts';
import type { GenerationInput, SubmitAnswer } from '../../core/task';
import type { SlotWait } from '../capacity';
import { submitDedupKey } from '../dedup-key';
import type { JobCharge } from '../job-charge';
import type { Serving } from '../serving';
import { deadlineExceeded, failFromActivity, isActivityTimeout, lastFailureMessage } from './failures';
import { submitActivity } from './policies';
import { fail } from './records';
import { remaining, type Running, type Submitted } from './run';

/**
 * Submits the job and returns it with the task's timing and deadline (settled by the first submit). Non-cancellable:
 * once a paid submit is on its way we must learn the upstream id, so that a cancel arriving meanwhile can still
 * cancel the upstream job. While every account that could serve the task is full, the submit answers `waiting` and
 * the task waits for a slot (workflows/capacity.ts) — cancellable, since nothing has been sent — then submits again.
 */
export async function submitJob(
  input: GenerationInput,
  known: Running | undefined,
  resubmission: number,
  charge: JobCharge,
  serving: Serving,
  slots: SlotWait,
): Promise<Submitted> {
  const { workflowId, runId } = workflowInfo();
  const dedupKey = submitDedupKey(workflowId, runId, resubmission);
  // The deadline and timing, once a first submit (one that answered `waiting` included) has settled them.
  let settled: Running | undefined = known;
  for (;;) {
    const bound = settled ? remaining(settled.deadlineAt) : MAX_TASK_DEADLINE_MS;
    const answered: Running | undefined = settled;
    const submit = submitActivity(bound, slots.submitPriority());
    const submitted: SubmitAnswer = await CancellationScope.nonCancellable(() =>
      submit({
        platform: input.platform,
        request: input.request,
        ...(input.route ? { members: input.route.members } : {}),
        dedupKey,
        taskId: workflowId,
        owner: input.ownerId,
        ...(input.weight !== undefined ? { weight: input.weight } : {}),
        mayWait: true,
        // The deadline counts from the run's first workflow task (workflow time, so replays agree): a run an operator
        // replayed after an outage (a reset to that task, scripts/replay-failed.ts) gets a deadline of its own.
        ...(answered ? { deadlineAt: answered.deadlineAt } : { taskStartedAt: Date.now() }),
      }),
    ).catch((err) => {
      if (isActivityTimeout(err) && answered) return deadlineExceeded(input, answered, undefined, charge, serving, lastFailureMessage(err));
      return failFromActivity(err, 'submit');
    });
    if ('waiting' in submitted) {
      settled ??= { job: undefined, timing: submitted.timing, deadlineAt: submitted.deadlineAt };
      if (!(await slots.wait(submitted.waiting, settled.deadlineAt))) return capacityTimeout(settled);
      continue;
    }
    return {
      job: { upstreamTaskId: submitted.upstreamTaskId, account: submitted.account, submittedAt: Date.now() },
      timing: settled?.timing ?? submitted.timing,
      deadlineAt: settled?.deadlineAt ?? submitted.deadlineAt,
      ...(submitted.pushHealthy ? { pushHealthy: true } : {}),
      ...(submitted.servedBy ? { servedBy: submitted.servedBy } : {}),
    };
  }
}

/** No slot became free before the deadline: nothing was created upstream, so nothing is charged. */
function capacityTimeout(run: Running): never {
  const minutes = Math.round(run.timing.deadlineMs / 60_000);
  return fail(
    'capacity_timeout',
    `No platform account that can serve this task had a free slot within its deadline (${minutes} min): every one was running ` +
      'as many jobs as it may run at once. Nothing was created upstream and nothing is charged; submit it again later.',
  );
}
