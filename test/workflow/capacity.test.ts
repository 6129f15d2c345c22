/**
 * A task waiting for platform capacity (workflows/capacity.ts), on Temporal's time-skipping test server with scripted
 * activities: the submit answers `waiting` while every account is full, the task's record says so and since when, a
 * grant (the `capacityGranted` signal) wakes it to submit again, the deadline fails it `capacity_timeout` with nothing
 * created, a cancel while it waits creates nothing, and a task that never waits records no marker of the patch.
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import type { Activities } from '../../activities';
import type { GenerationInput, PollTiming, SubmitAnswer, TaskMemo } from '../../core/task';
import { toTaskRecord } from '../../tasks/record';
import type { generationWorkflow } from '../../workflows/generation';
import { capacityGrantedSignal } from '../../workflows/messages';
import { useTimeSkipping } from '../support/time-skipping';

jest.setTimeout(120_000);

const TIMING: PollTiming = { firstPollDelayMs: 3_000, pollIntervalMs: 5_000, deadlineMs: 3_600_000 };
const INPUT: GenerationInput = {
  kind: 'video',
  platform: 'V',
  model: 'vendor-video-1-0-pro-250528',
  request: { kind: 'video', model: 'vendor-video-1-0-pro-250528', prompt: 'x' },
  ownerId: 'alice',
  weight: 2,
};

const ts = useTimeSkipping();
let counter = 0;

interface Seen {
  submits: { owner?: string; weight?: number; mayWait?: boolean; deadlineAt?: number }[];
  ended: string[];
}

/** Activities whose submit answers `waiting` until `slotsFree()` says a slot is there, then creates job-1. */
function activities(slotsFree: () => boolean, seen: Seen): Partial<Activities> {
  return {
    submitGeneration: (async (input: {
      owner?: string;
      weight?: number;
      mayWait?: boolean;
      deadlineAt?: number;
      taskStartedAt?: number;
    }) => {
      seen.submits.push({ owner: input.owner, weight: input.weight, mayWait: input.mayWait, deadlineAt: input.deadlineAt });
      const deadlineAt = input.deadlineAt ?? input.taskStartedAt! + TIMING.deadlineMs;
      const answer: SubmitAnswer = slotsFree()
        ? { upstreamTaskId: 'job-1', account: 'default', timing: TIMING, deadlineAt }
        : { waiting: { reason: 'platform_capacity', since: input.taskStartedAt ?? 1 }, timing: TIMING, deadlineAt };
      return answer;
    }) as Activities['submitGeneration'],
    async pollGeneration() {
      return {
        state: 'success',
        outputs: [{ url: 'https://v.example/out.mp4' }],
        kept: { data: [{ url: 'https://v.example/out.mp4' }] },
        settled: true,
      };
    },
    async cancelGeneration() {
      return { cancelled: false };
    },
    async settleTask({ outcome }) {
      seen.ended.push(outcome);
      return 'settled';
    },
  };
}

async function run(slotsFree: () => boolean, during: (h: WorkflowHandle<typeof generationWorkflow>) => Promise<void>) {
  const seen: Seen = { submits: [], ended: [] };
  const taskQueue = `capacity-test-${++counter}`;
  const worker = await Worker.create({
    connection: ts.env.nativeConnection,
    taskQueue,
    workflowBundle: ts.bundle,
    activities: activities(slotsFree, seen),
    sinks: { taskMetrics: { completed: { fn: () => undefined } }, pushMonitor: { seen: { fn: () => undefined } } },
  });
  return worker.runUntil(async () => {
    const handle = await ts.env.client.workflow.start<typeof generationWorkflow>('generationWorkflow', {
      taskQueue,
      workflowId: `task_capacity_${counter}`,
      args: [INPUT],
    });
    await during(handle);
    try {
      return { result: await handle.result(), handle, seen };
    } catch (err) {
      return { error: err as WorkflowFailedError, handle, seen };
    }
  });
}

async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the condition never held');
}

const markers = async (h: WorkflowHandle) => {
  const history = await h.fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_MARKER_RECORDED)
    .flatMap((e) => Object.values(e.markerRecordedEventAttributes?.details ?? {}))
    .flatMap((p) => p.payloads ?? [])
    .map((p) => Buffer.from(p.data ?? []).toString('utf8'));
};

/** The priority key each submit activity was scheduled with, from the task's history (undefined: none set). */
const submitPriorities = async (h: WorkflowHandle) => {
  const history = await h.fetchHistory();
  return (history.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'submitGeneration')
    .map((a) => a!.priority?.priorityKey || undefined);
};

test('a task that finds every account full waits, says so in its record, and submits again when a slot is granted', async () => {
  let free = false;
  const { result, handle, seen } = await run(
    () => free,
    async (h) => {
      await waitUntil(async () => ((await h.describe()).memo as TaskMemo | undefined)?.waiting !== undefined);
      const record = toTaskRecord(await h.describe());
      expect(record.status).toBe('pending');
      expect(record.waiting).toEqual({ reason: 'platform_capacity', since: expect.any(Number) });
      expect(record.message).toMatch(/^Waiting for platform capacity since /);
      free = true;
      await h.signal(capacityGrantedSignal);
    },
  );
  expect(result?.data[0]?.url).toBe('https://v.example/out.mp4');
  // The first submit settled the deadline; the second carries it, with the key and its weight, and may wait again.
  expect(seen.submits).toHaveLength(2);
  expect(seen.submits.map((s) => [s.owner, s.weight, s.mayWait])).toEqual([
    ['alice', 2, true],
    ['alice', 2, true],
  ]);
  expect(seen.submits[1]!.deadlineAt).toEqual(expect.any(Number));
  // Once it has its slot, its record no longer says it waits.
  expect(((await handle.describe()).memo as TaskMemo).waiting).toBeUndefined();
  expect((await markers(handle)).some((m) => m.includes('capacity'))).toBe(true);
  // The granted submit was scheduled first in the task queue (priority key 1); the first one at the task's own.
  expect(await submitPriorities(handle)).toEqual([undefined, 1]);
  expect((await markers(handle)).some((m) => m.includes('capacity-granted-first'))).toBe(true);
});

test('a task that gets no slot before its deadline fails capacity_timeout, created nothing, and settles at nothing', async () => {
  const { error, seen } = await run(
    () => false,
    async () => undefined,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect((error!.cause as { type?: string }).type).toBe('capacity_timeout');
  expect(error!.cause?.message).toMatch(/No platform account .* had a free slot within its deadline \(60 min\).*Nothing was created/);
  // One submit (the one that queued it): nothing was sent again, and the end step gave its queue place back.
  expect(seen.submits).toHaveLength(1);
  expect(seen.ended).toEqual(['failed']);
});

test('a waiting task that is cancelled submits nothing more and ends cancelled', async () => {
  const { error, seen } = await run(
    () => false,
    async (h) => {
      await waitUntil(async () => ((await h.describe()).memo as TaskMemo | undefined)?.waiting !== undefined);
      await h.cancel();
    },
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(seen.submits).toHaveLength(1);
  expect(seen.ended).toEqual(['cancelled']);
});

test('a task that never waits records no marker of the capacity patch and keeps its history as before', async () => {
  const { result, handle, seen } = await run(
    () => true,
    async () => undefined,
  );
  expect(result?.data).toHaveLength(1);
  expect(seen.submits).toHaveLength(1);
  expect((await markers(handle)).some((m) => m.includes('capacity'))).toBe(false);
});
