/**
 * The generation workflow on Temporal's time-skipping test server: hours of durable timers in milliseconds, with
 * the activities replaced by scripted fakes (the platforms are not under test here; the workflow's decisions
 * are). Covers the poll loop, the deadline, cancel during a submit, continue-as-new, bounded polls backing off
 * on timers, callbacks waking the task, re-submission after a transient upstream failure, the outputs as the poll
 * kept them, the settlement of the task's ledger entry when it ends, and what a short task costs the cluster in
 * history events.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import type { GenerationInput, PolledStatus, PollTiming, ResultItem, UpstreamStatus } from '../../core/task';
import { useTimeSkipping } from '../support/time-skipping';
import { temporal } from '@temporalio/proto';
import { SA } from '../../core/search-attributes';
import type { generationWorkflow } from '../../workflows/generation';
import { upstreamEventSignal } from '../../workflows/messages';
import { queriedProgress } from '../../tasks/live-progress';
import { liveProgressOf, taskRecordOf, toTaskRecord } from '../../tasks/record';

jest.setTimeout(120_000);

const TIMING: PollTiming = { firstPollDelayMs: 3_000, pollIntervalMs: 5_000, deadlineMs: 3_600_000 };

const ts = useTimeSkipping();

/** What the fake activities saw, with the workflow's clock (env time) of each call. */
interface Calls {
  submits: { dedupKey: string; at: number; deadlineAt?: number; taskStartedAt?: number }[];
  polls: number[];
  /** The account each poll went to. */
  pollAccounts: string[];
  /** The platform, model and serving member each poll was sent with. */
  pollTargets: { platform: string; model: string | undefined; servedBy?: unknown }[];
  cancels: string[];
  /** The platform each cancel went to. */
  cancelPlatforms: string[];
  /** The members each submit was given (a routed task's). */
  submitMembers: (string[] | undefined)[];
  /** Where each settlement step's call said the task was served: its platform, model and serving member. */
  settledAt: { platform: string; model: string; servedBy?: unknown }[];
  /** The settlement step's calls (the settleTask activity): how the task ended and whether its job is billed. */
  ended: { outcome: string; usage: unknown; billed: boolean | undefined }[];
  /** Every attempt of the settlement step, failed ones included. */
  settleAttempts: number;
  /** The settlement step's durable activity has begun. */
  durableSettleStarted?: boolean;
}

type Script = {
  /** Status of the n-th poll (0-based), given the upstream id polled; default: running forever. */
  poll?: (n: number, upstreamTaskId: string) => UpstreamStatus | Promise<UpstreamStatus>;
  /** The n-th submit's job (0-based); default: `job-<n+1>` on account `default`. */
  submit?: (
    n: number,
  ) => Promise<{ upstreamTaskId: string; account?: string; pushHealthy?: boolean; servedBy?: { platform: string; model: string } }>;
  /** The worker's timing the first submit settles (default TIMING). */
  timing?: PollTiming;
  /** Whether the platform accepts a cancel (default: it cannot cancel, as T and B, or V once a job runs). */
  cancel?: (upstreamTaskId: string) => boolean;
  /**
   * Whether an attempt to settle fails (the ledger unreachable): the n-th attempt overall, and where it runs — in the
   * poll that found the job done, in the settlement step's local activity, or in its durable activity. Default: none.
   */
  settleFails?: (n: number, where: 'poll' | 'local' | 'durable') => boolean;
  /** Held by the settlement step's durable activity until it resolves (the test looks at the task meanwhile). */
  durableSettleGate?: Promise<void>;
};

/** A finished job's outputs as the poll activity keeps them (activities/store-results.ts is tested on its own). */
const keptAs = (taskId: string, outputs: { url: string }[]): ResultItem[] =>
  outputs.map((o, i) => ({ url: o.url, stored: true, key: `${taskId}/${i}`, contentType: 'video/mp4', bytes: 10, sha256: 'ab' }));

function fakeActivities(script: Script, calls: Calls): Partial<Activities> {
  /** One attempt to settle, as tasks/settlement.ts would: recorded, or failed as the script says. */
  const settle = (where: 'poll' | 'local' | 'durable', outcome: string, usage: unknown, billed?: boolean) => {
    if (script.settleFails?.(calls.settleAttempts++, where)) throw new Error('the ledger is unreachable');
    calls.ended.push({ outcome, usage, billed });
  };
  return {
    async submitGeneration({ dedupKey, deadlineAt, taskStartedAt, members }) {
      calls.submits.push({ dedupKey, at: await ts.env.currentTimeMs(), deadlineAt, taskStartedAt });
      calls.submitMembers.push(members?.map((m) => `${m.platform}:${m.model}`));
      const job = script.submit ? await script.submit(calls.submits.length - 1) : { upstreamTaskId: `job-${calls.submits.length}` };
      const timing = script.timing ?? TIMING;
      return { account: 'default', ...job, timing, deadlineAt: deadlineAt ?? taskStartedAt! + timing.deadlineMs };
    },
    async pollGeneration({ upstreamTaskId, account, platform, request, servedBy }) {
      calls.polls.push(await ts.env.currentTimeMs());
      calls.pollAccounts.push(account);
      calls.pollTargets.push({ platform, model: request?.model, ...(servedBy ? { servedBy } : {}) });
      const status = script.poll
        ? await script.poll(calls.polls.length - 1, upstreamTaskId)
        : ({ state: 'running', progress: 10 } as const);
      const polled: PolledStatus = status;
      if (status.state === 'success' && status.outputs?.length) {
        polled.kept = { data: keptAs(`task_wf_${counter}`, status.outputs) };
        // As the real poll does: a job found done is settled in the same step, or reported unsettled.
        try {
          settle('poll', 'success', status.usage ?? {});
          polled.settled = true;
        } catch {
          polled.settled = false;
        }
      }
      return polled;
    },
    async cancelGeneration({ upstreamTaskId, platform }) {
      calls.cancels.push(upstreamTaskId);
      calls.cancelPlatforms.push(platform);
      return { cancelled: script.cancel?.(upstreamTaskId) ?? false };
    },
    async settleTask({ outcome, usage, billed, platform, request, servedBy }) {
      calls.settledAt.push({ platform, model: request.model, ...(servedBy ? { servedBy } : {}) });
      const where = Context.current().info.isLocal ? 'local' : 'durable';
      if (where === 'durable') {
        calls.durableSettleStarted = true;
        await script.durableSettleGate;
      }
      settle(where, outcome, usage, billed);
      return 'settled';
    },
  };
}

const INPUT: GenerationInput = {
  kind: 'video',
  platform: 'V',
  model: 'vendor-video-1-0-pro-250528',
  request: { kind: 'video', model: 'vendor-video-1-0-pro-250528', prompt: 'x' },
  ownerId: 'alice',
};

let counter = 0;

/** Runs the workflow to its end with scripted activities; `during` acts on the handle while it runs. */
async function run(
  script: Script,
  input: Partial<GenerationInput> = {},
  during?: (h: WorkflowHandle<typeof generationWorkflow>, calls: Calls) => Promise<void>,
) {
  const calls: Calls = {
    submits: [],
    polls: [],
    pollAccounts: [],
    pollTargets: [],
    cancels: [],
    cancelPlatforms: [],
    submitMembers: [],
    settledAt: [],
    ended: [],
    settleAttempts: 0,
  };
  const taskQueue = `wf-test-${++counter}`;
  const worker = await Worker.create({
    connection: ts.env.nativeConnection,
    taskQueue,
    workflowBundle: ts.bundle,
    activities: fakeActivities(script, calls),
    sinks: {
      taskMetrics: { completed: { fn: () => undefined } },
      pushMonitor: { seen: { fn: () => undefined } },
    },
  });
  const startedAt = await ts.env.currentTimeMs();
  const outcome = await worker.runUntil(async () => {
    const handle = await ts.env.client.workflow.start<typeof generationWorkflow>('generationWorkflow', {
      taskQueue,
      workflowId: `task_wf_${counter}`,
      args: [{ ...INPUT, ...input }],
    });
    if (during) await during(handle, calls);
    try {
      return { result: await handle.result(), handle };
    } catch (err) {
      return { error: err as WorkflowFailedError, handle };
    }
  });
  return { ...outcome, calls, startedAt };
}

const done = (url = 'https://v.example/out.mp4'): UpstreamStatus => ({ state: 'success', outputs: [{ url }] });
/**
 * The wait before each poll, in whole seconds of workflow time (the first from the submit), or where it ran
 * long, the seconds the schedule asked for. The time-skipping server lets real time pass while anything runs (the
 * workflow start, the submit, each poll), so on a loaded machine a wait reads up to a second or two longer than its
 * timer (30.6 s, 31.2 s) — never shorter, and never as long as the next step of any schedule here (3 → 5 → 30 s).
 */
function pollWaits(polls: number[], startedAt: number, schedule: readonly number[]): number[] {
  return polls.map((t, i) => {
    const waited = (t - (i === 0 ? startedAt : polls[i - 1]!)) / 1000;
    const asked = schedule[i];
    return asked !== undefined && waited >= asked && waited < asked + 2 ? asked : Math.round(waited);
  });
}

describe('the poll loop', () => {
  test('first poll after 3 s, then every 5 s, until success; the result is the outputs as the poll kept them', async () => {
    const { result, calls, startedAt, handle } = await run({ poll: (n) => (n < 3 ? { state: 'running', progress: 20 * n } : done()) });
    expect(result?.data).toEqual([
      { url: 'https://v.example/out.mp4', stored: true, key: `${handle.workflowId}/0`, contentType: 'video/mp4', bytes: 10, sha256: 'ab' },
    ]);
    expect(calls.submits).toHaveLength(1);
    expect(pollWaits(calls.polls, calls.submits[0]!.at, [3, 5, 5, 5])).toEqual([3, 5, 5, 5]);
    // The first submit carries the task's start, from which the worker's deadline counts; every poll goes to its account.
    expect(calls.submits[0]!.deadlineAt).toBeUndefined();
    expect(Math.abs(calls.submits[0]!.taskStartedAt! - startedAt)).toBeLessThan(2_000);
    expect(new Set(calls.pollAccounts)).toEqual(new Set(['default']));
  });

  test('a success whose outputs could not be kept (none returned) fails the task: nothing to show the client', async () => {
    const { error } = await run({ poll: () => ({ state: 'success', outputs: [] }) });
    expect((error!.cause as { type?: string }).type).toBe('upstream_failed');
  });

  test("what the platform reported it billed travels from the poll into the result and the memo (the task's final cost)", async () => {
    const { result, handle } = await run({ poll: () => ({ ...done(), usage: { tokens: 244_800 } }) });
    expect(result?.usage).toEqual({ tokens: 244_800 });
    expect((await handle.describe()).memo).toMatchObject({ status: 'success', result: { usage: { tokens: 244_800 } } });
  });

  test('a platform failure fails the task with its reason', async () => {
    const { error } = await run({
      poll: () => ({ state: 'failed', failure: { reason: 'content_policy', message: 'refused', code: 'Sensitive' } }),
    });
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error!.cause as { type?: string }).type).toBe('content_policy');
  });
});

describe('the deadline', () => {
  test('a job that never finishes fails deadline_exceeded after the hour, and its upstream job is cancelled', async () => {
    const { error, calls, startedAt } = await run({});
    expect((error!.cause as { type?: string }).type).toBe('deadline_exceeded');
    expect(error!.cause?.message).toMatch(/did not finish within the task deadline \(60 min\)/);
    expect(calls.cancels).toEqual(['job-1']);
    expect(calls.polls.at(-1)! - startedAt).toBeLessThanOrEqual(TIMING.deadlineMs);
    // Spec polling: one poll per 5 s over the hour (give or take the first delay).
    expect(calls.polls.length).toBeGreaterThanOrEqual(700);
  });
});

describe('cancel', () => {
  test('cancel during a paid submit waits for the upstream id, then cancels that job and fails cancelled', async () => {
    let release!: () => void;
    const submitted = new Promise<void>((r) => (release = r));
    const { error, calls, handle } = await run(
      {
        submit: async () => {
          await submitted;
          return { upstreamTaskId: 'job-slow' };
        },
      },
      {},
      async (handle) => {
        // Let the submit start, then cancel while it is in flight, then let it answer.
        await new Promise((r) => setTimeout(r, 500));
        await handle.cancel();
        release();
      },
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(calls.cancels).toEqual(['job-slow']);
    expect(calls.polls).toHaveLength(0);
    // The API's record says failed (memo), while Temporal's views tell the client's cancel from a failure.
    const described = await handle.describe();
    expect(described.status.name).toBe('CANCELLED');
    expect(described.typedSearchAttributes.get(SA.status)).toBe('cancelled');
    expect(described.typedSearchAttributes.get(SA.failureReason)).toBe('cancelled');
    expect(described.memo).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
  });
});

describe('continue-as-new', () => {
  test('a long job continues as new with its upstream job and deadline, never submitting again', async () => {
    const { result, calls, handle } = await run(
      { poll: (n) => (n < 40 ? { state: 'running', progress: 50 } : done()) },
      { maxEventsPerRun: 60 },
    );
    expect(result?.data[0]?.url).toBe('https://v.example/out.mp4');
    expect(calls.submits).toHaveLength(1);
    // The first run ended by continuing as new; the task's result came from a later run.
    const first = await ts.env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).fetchHistory();
    expect(first.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
  });
});

describe('bounded polls', () => {
  test('a poll that keeps failing transiently backs off on durable timers and the task still succeeds', async () => {
    const fail = () => Promise.reject(new Error('platform down'));
    // 9 failing attempts: three bounded local polls of 3 attempts each, then success.
    const { result, calls } = await run({ poll: (n) => (n < 9 ? (fail() as never) : done()) });
    expect(result?.data[0]?.url).toBe('https://v.example/out.mp4');
    expect(calls.polls.length).toBe(10);
    // Between bounded polls the workflow waits on durable timers: 2 s, then 4 s (skipped time).
    const gaps = calls.polls.slice(1).map((t, i) => t - calls.polls[i]!);
    expect(gaps.filter((g) => g >= 2_000)).toHaveLength(3);
  });
});

describe('callbacks', () => {
  test('a callback ends the wait at once: the poll follows the hint, not the 5 s timer', async () => {
    const timing = { ...TIMING, pollIntervalMs: 60_000, firstPollDelayMs: 60_000 };
    const { result, calls, startedAt } = await run({ timing, poll: () => done() }, {}, async (handle) => {
      await new Promise((r) => setTimeout(r, 300));
      await handle.signal(upstreamEventSignal, { platform: 'V', upstreamTaskId: 'job-1' });
    });
    expect(result?.data[0]?.url).toBe('https://v.example/out.mp4');
    expect(calls.polls[0]! - startedAt).toBeLessThan(60_000);
  });

  const PUSH_TIMING: PollTiming = { ...TIMING, fallbackPollIntervalMs: 30_000 };

  test('push healthy at submit: the first poll, like the others, waits the 30 s fallback (the end will wake the task)', async () => {
    const { result, calls } = await run({
      timing: PUSH_TIMING,
      submit: async () => ({ upstreamTaskId: 'job-1', pushHealthy: true }),
      poll: (n) => (n < 2 ? { state: 'running', pushHealthy: true } : done()),
    });
    expect(result?.data[0]?.url).toBe('https://v.example/out.mp4');
    expect(pollWaits(calls.polls, calls.submits[0]!.at, [30, 30, 30])).toEqual([30, 30, 30]);
  });

  test("push configured but no callbacks seen yet: the spec's 3 s, then 5 s, until polls say push is healthy", async () => {
    const { calls } = await run({
      timing: PUSH_TIMING,
      poll: (n) => (n < 2 ? { state: 'running' } : n < 3 ? { state: 'running', pushHealthy: true } : done()),
    });
    expect(pollWaits(calls.polls, calls.submits[0]!.at, [3, 5, 5, 30])).toEqual([3, 5, 5, 30]);
  });

  test('push healthy, with a maximum: each fallback wait in a row doubles, 30 s, 60 s, 120 s, then stays at 120 s', async () => {
    const { result, calls, handle } = await run({
      timing: { ...PUSH_TIMING, fallbackPollMaxIntervalMs: 120_000 },
      submit: async () => ({ upstreamTaskId: 'job-1', pushHealthy: true }),
      poll: (n) => (n < 4 ? { state: 'running', pushHealthy: true } : done()),
    });
    expect(result?.data[0]?.url).toBe('https://v.example/out.mp4');
    expect(pollWaits(calls.polls, calls.submits[0]!.at, [30, 60, 120, 120, 120])).toEqual([30, 60, 120, 120, 120]);
    expect(await markers(handle)).toContain('patch:quieter-task');
  });

  test('the doubling starts again when a poll finds callbacks no longer arriving', async () => {
    const { calls } = await run({
      timing: { ...PUSH_TIMING, fallbackPollMaxIntervalMs: 120_000 },
      submit: async () => ({ upstreamTaskId: 'job-1', pushHealthy: true }),
      poll: (n) => (n === 2 ? { state: 'running' } : n < 5 ? { state: 'running', pushHealthy: true } : done()),
    });
    expect(pollWaits(calls.polls, calls.submits[0]!.at, [30, 60, 120, 5, 60, 120])).toEqual([30, 60, 120, 5, 60, 120]);
  });

  test('push healthy at submit and the job ends early: its callback ends the 30 s wait, one poll in all', async () => {
    const { result, calls, startedAt } = await run(
      { timing: PUSH_TIMING, submit: async () => ({ upstreamTaskId: 'job-1', pushHealthy: true }), poll: () => done() },
      {},
      async (handle) => {
        await new Promise((r) => setTimeout(r, 300));
        await handle.signal(upstreamEventSignal, { platform: 'V', upstreamTaskId: 'job-1' });
      },
    );
    expect(result?.data[0]?.url).toBe('https://v.example/out.mp4');
    expect(calls.polls).toHaveLength(1);
    expect(calls.polls[0]! - startedAt).toBeLessThan(30_000);
  });
});

describe('re-submission', () => {
  test('a transient upstream failure submits a new job with its own dedup key, and the task succeeds', async () => {
    const { result, calls } = await run({
      poll: (_n, id) =>
        id === 'job-1'
          ? { state: 'failed', failure: { reason: 'upstream_failed', message: 'busy', code: 'RequestLimitExceeded', resubmit: true } }
          : done(),
    });
    expect(result?.data[0]?.url).toBe('https://v.example/out.mp4');
    expect(calls.submits).toHaveLength(2);
    expect(calls.submits[1]!.dedupKey).not.toBe(calls.submits[0]!.dedupKey);
    // The new job runs under the deadline the first submit settled.
    expect(calls.submits[1]!.deadlineAt).toBe(calls.submits[0]!.taskStartedAt! + TIMING.deadlineMs);
  });

  test('re-submissions are bounded: the fourth transient failure fails the task', async () => {
    const { error, calls } = await run({
      poll: () => ({
        state: 'failed',
        failure: { reason: 'upstream_failed', message: 'busy', code: 'RequestLimitExceeded', resubmit: true },
      }),
    });
    expect((error!.cause as { type?: string }).type).toBe('upstream_failed');
    expect(calls.submits).toHaveLength(4);
  });
});

describe('what a task costs the cluster', () => {
  const PUSH_TIMING: PollTiming = { ...TIMING, fallbackPollIntervalMs: 30_000 };
  const eventTypes = async (h: WorkflowHandle) =>
    ((await h.fetchHistory()).events ?? []).map((e) => temporal.api.enums.v1.EventType[e.eventType!]!.replace('EVENT_TYPE_', ''));
  /** The job's end is announced while the task waits on its fallback timer (not while it submits). */
  const wokenByCallback = (poll: Script['poll']) =>
    run({ timing: PUSH_TIMING, submit: async () => ({ upstreamTaskId: 'job-1', pushHealthy: true }), poll }, {}, async (handle) => {
      for (let i = 0; i < 100 && !(await eventTypes(handle)).includes('TIMER_STARTED'); i++) await new Promise((r) => setTimeout(r, 50));
      await handle.signal(upstreamEventSignal, { platform: 'V', upstreamTaskId: 'job-1' });
    });

  test('a short task woken by its callback: 21 history events, the timer it cut short never cancelled', async () => {
    const { result, handle } = await wokenByCallback(() => done());
    expect(result?.data[0]?.stored).toBe(true);
    expect(await eventTypes(handle)).toEqual([
      'WORKFLOW_EXECUTION_STARTED',
      ...['WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_COMPLETED'],
      'ACTIVITY_TASK_SCHEDULED', // the submit, which also settles the task's timing
      'ACTIVITY_TASK_STARTED',
      'ACTIVITY_TASK_COMPLETED',
      ...['WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_COMPLETED'],
      'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES', // the upstream id and account: callbacks find the task by them
      'TIMER_STARTED', // the fallback wait
      'WORKFLOW_EXECUTION_SIGNALED', // the job's end, announced
      ...['WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_COMPLETED'],
      'MARKER_RECORDED', // the poll, which kept the outputs
      'MARKER_RECORDED', // the patch quieter-task: success is told by the run's close, not an upsert…
      'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES', // …and the SDK's TemporalChangeVersion for it, while the patch is in the code
      'WORKFLOW_PROPERTIES_MODIFIED', // the memo: the result for reads
      'WORKFLOW_EXECUTION_COMPLETED',
    ]);
  });

  test('a task that runs, reports progress and succeeds writes visibility three times after its start (and its patch)', async () => {
    let finish = false;
    const { result, handle } = await run(
      { poll: (n) => (finish ? done() : { state: 'running', progress: n === 0 ? 10 : 35 }) },
      {},
      async (h, c) => {
        // Two polls have answered (10 %, then 35 %): the second's progress is what the workflow knows now.
        while (c.polls.length < 3) await ts.env.sleep(1_000);
        const described = await h.describe();
        expect(described.typedSearchAttributes.get(SA.status)).toBe('running');
        expect(described.memo ?? {}).not.toHaveProperty('progress'); // no memo write while it runs
        expect(toTaskRecord(described)).toMatchObject({ status: 'running', progress: '0%' });
        const record = await taskRecordOf(described, async () => ({ data: [], extras: {} }), undefined, queriedProgress(ts.env.client));
        expect(record).toMatchObject({ status: 'running', progress: '35%' });
        finish = true;
      },
    );
    expect(result?.data).toHaveLength(1);
    const writes = ((await handle.fetchHistory()).events ?? []).flatMap((e) => {
      const sa = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
      const memo = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields;
      return sa
        ? [`search attributes: ${Object.keys(sa).sort().join(', ')}`]
        : memo
          ? [`memo: ${Object.keys(memo).sort().join(', ')}`]
          : [];
    });
    expect(writes).toEqual([
      'search attributes: GenerationUpstreamTaskId, UpstreamAccount', // the job: callbacks find the task by it
      'search attributes: GenerationStatus', // running: the task lists' filter
      'search attributes: TemporalChangeVersion', // the SDK's, for the patch quieter-task (gone when it is retired)
      'memo: progress, result, status', // the end: the result, for reads without a worker
    ]);
    expect(toTaskRecord(await handle.describe())).toMatchObject({ status: 'success' });
  });

  test('no worker answers the progress query (every worker down): the read goes on without it, within its bound', async () => {
    const handle = await ts.env.client.workflow.start<typeof generationWorkflow>('generationWorkflow', {
      taskQueue: `no-worker-${++counter}`,
      workflowId: `task_wf_${counter}`,
      args: [INPUT],
      typedSearchAttributes: [{ key: SA.status, value: 'running' }],
    });
    const described = await handle.describe();
    expect(await liveProgressOf(described, queriedProgress(ts.env.client, 500))).toBeUndefined();
    expect(
      await taskRecordOf(described, async () => ({ data: [], extras: {} }), undefined, queriedProgress(ts.env.client, 500)),
    ).toMatchObject({
      status: 'running',
      progress: '0%',
    });
    await handle.terminate();
  });

  test('a task that waits again cancels the timer a callback cut short, in the workflow task that starts the next', async () => {
    const { result, handle } = await wokenByCallback((n) => (n === 0 ? { state: 'running', progress: 50, pushHealthy: true } : done()));
    expect(result?.data[0]?.url).toBe('https://v.example/out.mp4');
    const types = await eventTypes(handle);
    expect(types.filter((t) => t === 'TIMER_CANCELED')).toHaveLength(1);
    // The cut-short timer never fires: the second wait's timer is the only one that did.
    expect(types.filter((t) => t === 'TIMER_FIRED')).toHaveLength(1);
    // Both commands of one workflow task: the next wait's timer, and the cancel of the one cut short.
    const canceled = types.indexOf('TIMER_CANCELED');
    expect(types.slice(canceled - 1, canceled + 1)).toEqual(['TIMER_STARTED', 'TIMER_CANCELED']);
  });
});

/**
 * What the settlement step settles a task at (workflows/job-charge.ts): a success is billed; a task that did not
 * succeed is billed only while its upstream job runs on — a platform that cannot cancel it, or one that refuses
 * (V once a job runs) — and the memo's `charge` says so for the task record's cost.
 */
describe('what a task that did not succeed is billed', () => {
  const afterFirstPoll = async (handle: WorkflowHandle<typeof generationWorkflow>, calls: Calls) => {
    while (calls.polls.length === 0) await ts.env.sleep(1_000);
    await handle.cancel();
  };
  const chargeOf = async (handle: WorkflowHandle<typeof generationWorkflow>) => (await handle.describe()).memo?.charge;

  test('a success: billed, what the platform reported', async () => {
    const { calls, handle } = await run({ poll: () => ({ ...done(), usage: { tokens: 10 } }) });
    expect(calls.ended).toEqual([{ outcome: 'success', usage: { tokens: 10 }, billed: undefined }]);
    expect(await chargeOf(handle)).toBeUndefined();
  });

  test('cancelled while its job runs on a platform that cannot cancel it: billed', async () => {
    const { calls, handle } = await run({}, {}, afterFirstPoll);
    expect(calls.cancels).toEqual(['job-1']);
    expect(calls.ended).toEqual([{ outcome: 'cancelled', usage: {}, billed: true }]);
    expect(await chargeOf(handle)).toEqual({ job: 'running', billed: true });
  });

  test('cancelled, and the platform accepted the cancel (a queued job on V): not billed', async () => {
    const { calls, handle } = await run({ poll: () => ({ state: 'pending' }), cancel: () => true }, {}, afterFirstPoll);
    expect(calls.cancels).toEqual(['job-1']);
    expect(calls.ended).toEqual([{ outcome: 'cancelled', usage: {}, billed: false }]);
    expect(await chargeOf(handle)).toEqual({ job: 'cancelled', billed: false });
  });

  test('cancelled before its job existed (its first job failed upstream, the next not yet submitted): not billed', async () => {
    const transient = {
      state: 'failed' as const,
      failure: { reason: 'upstream_unavailable' as const, message: 'busy', code: 'RequestLimitExceeded', resubmit: true },
    };
    const { calls, handle } = await run({ poll: () => transient }, {}, afterFirstPoll);
    expect(calls.submits).toHaveLength(1);
    expect(calls.cancels).toEqual([]);
    expect(calls.ended).toEqual([{ outcome: 'cancelled', usage: {}, billed: false }]);
    expect(await chargeOf(handle)).toEqual({ job: 'failed', billed: false });
  });

  test('the deadline passes while the job runs and cannot be cancelled: billed', async () => {
    const { error, calls, handle } = await run({ timing: { ...TIMING, deadlineMs: 60_000 } });
    expect((error!.cause as { type?: string }).type).toBe('deadline_exceeded');
    expect(calls.ended).toEqual([{ outcome: 'failed', usage: {}, billed: true }]);
    expect(await chargeOf(handle)).toEqual({ job: 'running', billed: true });
  });

  test('the job failed upstream, or the platform no longer knows it: not billed', async () => {
    const refused = await run({ poll: () => ({ state: 'failed', failure: { reason: 'content_policy', message: 'refused' } }) });
    expect(refused.calls.ended).toEqual([{ outcome: 'failed', usage: {}, billed: false }]);
    expect(await chargeOf(refused.handle)).toEqual({ job: 'failed', billed: false });
    const lost = await run({
      poll: () => Promise.reject(ApplicationFailure.create({ type: 'upstream_lost', message: 'no such task', nonRetryable: true })),
    });
    expect((lost.error!.cause as { type?: string }).type).toBe('upstream_lost');
    expect(lost.calls.ended).toEqual([{ outcome: 'failed', usage: {}, billed: false }]);
    expect(await chargeOf(lost.handle)).toEqual({ job: 'lost', billed: false });
  });
});

/** The markers a task's history recorded, in order: `core_local_activity`, or a patch as `patch:<id>`. */
const markers = async (handle: WorkflowHandle<typeof generationWorkflow>) =>
  (await handle.fetchHistory())
    .events!.filter((e) => e.markerRecordedEventAttributes)
    .map((e) => {
      const marker = e.markerRecordedEventAttributes!;
      const patch = marker.details?.['patch-data']?.payloads?.[0]?.data;
      return patch ? `patch:${(JSON.parse(Buffer.from(patch).toString('utf8')) as { id: string }).id}` : marker.markerName!;
    });

describe('the settlement step', () => {
  const durableSettlements = async (handle: WorkflowHandle<typeof generationWorkflow>) =>
    (await handle.fetchHistory()).events!.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'settleTask').length;

  test('a success is settled by the poll that found its job done: once, and no event of its own', async () => {
    const { result, calls, handle } = await run({ poll: () => ({ ...done(), usage: { tokens: 7 } }) });
    expect(result?.data).toHaveLength(1);
    expect(calls.ended).toEqual([{ outcome: 'success', usage: { tokens: 7 }, billed: undefined }]);
    // The poll's, then the record's patch (its success in the memo alone): nothing of settlement's own.
    expect(await markers(handle)).toEqual(['core_local_activity', 'patch:quieter-task']);
  });

  test('a failure is settled by a step of its own: the patch marker and one local activity, once', async () => {
    const { error, calls, handle } = await run({
      poll: () => ({ state: 'failed', failure: { reason: 'content_policy', message: 'refused' } }),
    });
    expect((error!.cause as { type?: string }).type).toBe('content_policy');
    expect(calls.ended).toEqual([{ outcome: 'failed', usage: {}, billed: false }]);
    expect(await markers(handle)).toEqual(['core_local_activity', 'patch:settlement-step', 'core_local_activity']);
    expect(await durableSettlements(handle)).toBe(0);
  });

  test('a success whose poll could not reach the ledger: the step settles it, retried until the ledger answers', async () => {
    const { result, calls, handle } = await run({ poll: () => done(), settleFails: (n) => n < 2 });
    expect(result?.data).toHaveLength(1);
    expect(calls.settleAttempts).toBe(3);
    expect(calls.ended).toEqual([{ outcome: 'success', usage: {}, billed: undefined }]);
    expect(await markers(handle)).toEqual(['core_local_activity', 'patch:quieter-task', 'patch:settlement-step', 'core_local_activity']);
  });

  test('a ledger unreachable past the local bound: the durable activity settles it; meanwhile the record is final', async () => {
    let ledgerBack!: () => void;
    const durableSettleGate = new Promise<void>((resolve) => (ledgerBack = resolve));
    const { result, calls, handle } = await run(
      { poll: () => done(), settleFails: (_n, where) => where !== 'durable', durableSettleGate },
      {},
      async (h, c) => {
        // The task has ended (its memo says so) while its workflow still settles: its record reads as ended.
        while (!c.durableSettleStarted) await ts.env.sleep(1_000);
        const described = await h.describe();
        expect(described.status.name).toBe('RUNNING');
        expect(toTaskRecord(described)).toMatchObject({ status: 'success', data: [{ url: 'https://v.example/out.mp4' }] });
        ledgerBack();
      },
    );
    expect(result?.data).toHaveLength(1);
    expect(calls.ended).toEqual([{ outcome: 'success', usage: {}, billed: undefined }]);
    expect(await durableSettlements(handle)).toBe(1);
  });
});

describe('a task started with a route', () => {
  const member = (platform: string, model: string) => ({
    platform,
    model,
    request: { kind: 'video' as const, model, prompt: 'x', duration: 6 },
  });
  const ROUTED: Partial<GenerationInput> = {
    platform: 'T',
    model: 'VendorH-2.3',
    request: member('T', 'VendorH-2.3').request,
    route: { name: 'hailuo-2.3', members: [member('T', 'VendorH-2.3'), member('B', 'H23')] },
  };
  const servedByB = async () => ({ upstreamTaskId: 'tsk-b', servedBy: { platform: 'B', model: 'H23' } });

  test('the submit gets the members; the member that made the job is recorded and every poll and the bill follow it', async () => {
    const { result, calls, handle } = await run(
      { submit: servedByB, poll: (n) => (n < 1 ? { state: 'running', progress: 50 } : done()) },
      ROUTED,
    );
    expect(calls.submitMembers).toEqual([['T:VendorH-2.3', 'B:H23']]);
    expect(calls.pollTargets).toEqual([
      { platform: 'B', model: 'H23', servedBy: { platform: 'B', model: 'H23' } },
      { platform: 'B', model: 'H23', servedBy: { platform: 'B', model: 'H23' } },
    ]);
    expect(result?.servedBy).toEqual({ platform: 'B', model: 'H23' });
    const described = await handle.describe();
    expect(described.memo).toMatchObject({ servedBy: { platform: 'B', model: 'H23' } });
    expect(described.typedSearchAttributes.get(SA.model)).toBe('H23');
    expect(described.typedSearchAttributes.get(SA.platform)).toBe('B');
    // One marker of the patch, in the workflow task that received the submit's answer.
    expect((await markers(handle)).filter((m) => m === 'patch:routes')).toHaveLength(1);
  });

  test('a routed task that fails is settled on its member’s platform, naming the member', async () => {
    const { error, calls } = await run(
      { submit: servedByB, poll: () => ({ state: 'failed', failure: { reason: 'content_policy', message: 'refused' } }) },
      ROUTED,
    );
    expect((error!.cause as { type?: string }).type).toBe('content_policy');
    expect(calls.settledAt).toEqual([{ platform: 'B', model: 'H23', servedBy: { platform: 'B', model: 'H23' } }]);
  });

  test('cancelled while its job runs on B: the cancel goes to B', async () => {
    const { calls } = await run({ submit: servedByB }, ROUTED, async (h, c) => {
      while (c.polls.length === 0) await ts.env.sleep(1_000);
      await h.cancel();
    });
    expect(calls.cancels).toEqual(['tsk-b']);
    expect(calls.cancelPlatforms).toEqual(['B']);
  });

  test('a task that named its model takes no routes patch and gives its submit no members', async () => {
    const { calls, handle } = await run({ poll: () => done() });
    expect(calls.submitMembers).toEqual([undefined]);
    expect(await markers(handle)).not.toContain('patch:routes');
  });
});
