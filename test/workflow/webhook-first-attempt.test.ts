/**
 * The final webhook event's first attempt as a step of the task's own end (workflows/generation/announcement.ts,
 * patches `webhook-first-attempt` and `webhook-attempt-eager`) on Temporal's time-skipping test server. Real parts wherever the behaviour lives:
 * the generation workflow and the delivery workflow (on its own task queue, for what the first attempt hands over),
 * the real webhook activities (webhooks/activities.ts and first-attempt.ts: signed POSTs, the task's record read by
 * the real reader from the workflow's memo while it is still open), a real receiver, and the API's reads of the
 * deliveries (webhooks/deliveries.ts). Only the platform is scripted: a job that succeeds, or fails, at its first poll.
 */
import { Client, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { Webhook } from 'standardwebhooks';
import type { Activities } from '../../activities';
import type { GenerationInput, PolledStatus } from '../../core/task';
import type { WebhookDeliveryInput, WebhookDeliveryMemo, WebhookEvent, WebhookTiming } from '../../core/webhooks';
import type { TaskPricing } from '../../pricing/price-table';
import { DirectoryResultStore } from '../../results/directory-store';
import { ResultLinks } from '../../results/result-links';
import { createWebhookActivities } from '../../webhooks/activities';
import { WebhookService } from '../../webhooks/deliveries';
import { webhookTaskQueue } from '../../core/webhooks';
import { webhookDeliveryWorkflowId } from '../../webhooks/delivery';
import { taskSubjectReader } from '../../webhooks/event-body';
import { derivedWebhookSecret, webhookSecrets } from '../../webhooks/signing';
import type { WebhookSettlement } from '../../workflows/sinks';
import { startReceiver, type Receiver } from '../support/receiver';
import { useTimeSkipping } from '../support/time-skipping';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

jest.setTimeout(120_000);

const ts = useTimeSkipping();
const MASTER = 'a-master-secret-for-this-test-0123456789';
const MINUTE = 60_000;
/** The worker's delivery settings: a minute before the first retry, so a retry that came at once would show. */
const TIMING: WebhookTiming = {
  attemptTimeoutMs: 10_000,
  initialIntervalMs: MINUTE,
  maxIntervalMs: 10 * MINUTE,
  retryForMs: 72 * 60 * MINUTE,
};

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver('/hook');
});
afterAll(() => receiver.close());
afterEach(() => {
  receiver.got.length = 0;
  receiver.answers.length = 0;
});

const links = new ResultLinks({
  mode: 'gateway',
  ttlSeconds: 3600,
  secret: 'workflow-test-link-secret-0123456789',
  store: new DirectoryResultStore(mkdtempSync(join(tmpdir(), 'mediagate-first-attempt-'))),
});

/**
 * The platform, scripted: the job ends at its first poll — or, `runsFirst`, at its second, the first finding it
 * running — succeeded (its output kept, settled by the poll) or failed.
 */
function platform(taskId: string, ends: 'success' | 'failed', runsFirst: boolean): Partial<Activities> {
  let polls = 0;
  return {
    async submitGeneration({ taskStartedAt }) {
      const timing = { firstPollDelayMs: 1_000, pollIntervalMs: 1_000, deadlineMs: 3_600_000 };
      return { upstreamTaskId: 'job-1', account: 'default', timing, deadlineAt: taskStartedAt! + timing.deadlineMs };
    },
    async pollGeneration(): Promise<PolledStatus> {
      if (runsFirst && polls++ === 0) return { state: 'running', progress: 10 };
      if (ends === 'failed') return { state: 'failed', failure: { reason: 'content_policy', message: 'refused', code: 'Sensitive' } };
      const url = 'https://v.example/out.mp4';
      const kept = [{ url, stored: true, key: `${taskId}/0`, contentType: 'video/mp4', bytes: 10, sha256: 'ab' }];
      return { state: 'success', outputs: [{ url }], kept: { data: kept }, settled: true };
    },
    async settleTask() {
      return 'settled';
    },
  };
}

interface Ended {
  taskId: string;
  taskQueue: string;
  outcome: 'success' | 'failed';
  /** Outcomes the attempts reported to the observer (every attempt, on any queue). */
  attempts: string[];
  /** Events settled, as the workflows told the metrics' sink. */
  settled: WebhookSettlement[];
  /** The delivery workflow's memo once it has ended, or undefined when none was started. */
  delivery: WebhookDeliveryMemo | undefined;
  deliveryHandle: WorkflowHandle;
  history: temporal.api.history.v1.IHistoryEvent[];
  service: WebhookService;
}

let counter = 0;

/** What a test may change of the task: its webhook's events, how its job ends, the first attempt's activity. */
interface TaskOptions {
  events?: WebhookEvent[];
  ends?: 'success' | 'failed';
  firstAttempt?: (real: Activities['firstWebhookAttempt']) => Activities['firstWebhookAttempt'];
}

/**
 * A worker on the tasks' queue and one on the deliveries' queue, both with the scripted platform and the real webhook
 * activities (`firstAttempt` may stand in for the first attempt's), reporting attempts and settlements to `seen`.
 */
async function workers(taskQueue: string, taskId: string, opts: TaskOptions, seen: Pick<Ended, 'attempts' | 'settled'>) {
  // The activities' own client is a plain one: a wait of theirs on the task's result must not skip the server's time
  // (the time-skipping client's waits do) while the workflow task that runs them is open.
  const activityClient = new Client({ connection: ts.env.connection, namespace: ts.env.namespace });
  const hooks = createWebhookActivities({
    client: activityClient,
    taskQueue,
    timing: TIMING,
    secrets: webhookSecrets({ masterSecret: MASTER, explicit: async () => undefined }),
    readRecord: taskSubjectReader(activityClient, links, undefined as unknown as TaskPricing),
    allowPrivateOrigins: new Set([new URL(receiver.url).origin]),
    observer: { attempt: (outcome) => void seen.attempts.push(outcome) },
  });
  const activities = {
    ...platform(taskId, opts.ends ?? 'success', opts.events?.includes('running') ?? false),
    ...hooks,
    ...(opts.firstAttempt ? { firstWebhookAttempt: opts.firstAttempt(hooks.firstWebhookAttempt) } : {}),
  };
  const sinks = {
    taskMetrics: { completed: { fn: () => undefined } },
    pushMonitor: { seen: { fn: () => undefined } },
    webhookMetrics: { settled: { fn: (_info: unknown, outcome: WebhookSettlement) => void seen.settled.push(outcome) } },
  };
  return Promise.all(
    [taskQueue, webhookTaskQueue(taskQueue)].map((q) =>
      Worker.create({ connection: ts.env.nativeConnection, taskQueue: q, workflowBundle: ts.bundle, activities, sinks }),
    ),
  );
}

/**
 * A task with a webhook to the receiver, run to its end, then its delivery workflow, if one was started, to its end;
 * `after` acts while the workers still run.
 */
async function endTask(opts: TaskOptions = {}, after?: (ended: Ended) => Promise<void>): Promise<Ended> {
  const taskQueue = `wh-first-${++counter}`;
  const taskId = `task_first_${counter}`;
  const seen = { attempts: [] as string[], settled: [] as WebhookSettlement[] };
  const client: Client = ts.env.client;
  const [tasks, deliveries] = await workers(taskQueue, taskId, opts, seen);
  const input: GenerationInput = {
    kind: 'video',
    platform: 'V',
    model: 'vendor-video-1-0-pro-250528',
    request: { kind: 'video', model: 'vendor-video-1-0-pro-250528', prompt: 'x' },
    ownerId: 'alice',
    webhook: { url: receiver.url, events: opts.events ?? ['succeeded', 'failed'] },
  };
  return tasks!.runUntil(() =>
    deliveries!.runUntil(async () => {
      const handle = await client.workflow.start('generationWorkflow', { taskQueue, workflowId: taskId, args: [input] });
      const outcome = await handle.result().then(
        () => 'success' as const,
        () => 'failed' as const,
      );
      const deliveryHandle = client.workflow.getHandle(webhookDeliveryWorkflowId(taskId));
      const delivery = await deliveryHandle.result().then(
        async () => (await deliveryHandle.describe()).memo as unknown as WebhookDeliveryMemo,
        (err: unknown) => {
          if (err instanceof WorkflowNotFoundError) return undefined;
          throw err;
        },
      );
      const history = (await handle.fetchHistory()).events ?? [];
      const ended = {
        taskId,
        taskQueue,
        outcome,
        ...seen,
        delivery,
        deliveryHandle,
        history,
        service: new WebhookService(client, taskQueue),
      };
      if (after) await after(ended);
      return ended;
    }),
  );
}

const typeOf = (e: temporal.api.history.v1.IHistoryEvent) => temporal.api.enums.v1.EventType[e.eventType ?? 0]!.replace(/^EVENT_TYPE_/, '');

/** The activity type of a local activity's marker, the patch id of a patch marker. */
function markerOf(e: temporal.api.history.v1.IHistoryEvent): string | undefined {
  const m = e.markerRecordedEventAttributes;
  const payload = m?.details?.data?.payloads?.[0] ?? m?.details?.['patch-data']?.payloads?.[0];
  if (!payload?.data) return undefined;
  const data = JSON.parse(Buffer.from(payload.data).toString('utf8')) as { activity_type?: string; id?: string };
  return data.activity_type ?? `patch:${data.id}`;
}

/** A marker's step (above), or an activity's as `activity:<type>` where it is scheduled. */
function stepOf(e: temporal.api.history.v1.IHistoryEvent): string | undefined {
  const scheduled = e.activityTaskScheduledEventAttributes?.activityType?.name;
  return scheduled ? `activity:${scheduled}` : markerOf(e);
}

/** The steps of a run after its job's submit (an activity every run schedules first). */
const markers = (history: temporal.api.history.v1.IHistoryEvent[]) =>
  history.map(stepOf).filter((m) => m !== undefined && m !== 'activity:submitGeneration');

const verified = (i = 0) =>
  new Webhook(derivedWebhookSecret(MASTER, 'alice')).verify(receiver.got[i]!.raw, receiver.got[i]!.headers as Record<string, string>);

describe('a task whose webhook did not ask for running: the final event attempted at its end', () => {
  test("a receiver answering 200: one POST, signed, carrying the final record; no delivery workflow; the attempt an activity on the task's own queue, scheduled with the final memo", async () => {
    const ended = await endTask();
    expect(ended.outcome).toBe('success');
    expect(receiver.got).toHaveLength(1);
    expect(receiver.got[0]!.headers['webhook-id']).toBe(`msg_${ended.taskId}_succeeded`);
    // Read from the memo while the run was open: final, its output rendered into the gateway's link as a read shows it.
    expect(verified()).toMatchObject({
      type: 'generation.succeeded',
      data: { task_id: ended.taskId, status: 'success', data: [{ url: expect.stringMatching(/\/content\?index=0&token=/) }] },
    });
    expect(ended.delivery).toBeUndefined();
    expect(ended.attempts).toEqual(['delivered']);
    expect(ended.settled).toEqual(['delivered']);

    const types = ended.history.map(typeOf);
    const finalMemo = types.lastIndexOf('WORKFLOW_PROPERTIES_MODIFIED');
    const attempt = ended.history.find((e) => stepOf(e) === 'activity:firstWebhookAttempt')!;
    expect(markers(ended.history).slice(-5)).toEqual([
      'pollGeneration',
      'patch:quieter-task',
      'patch:webhook-first-attempt',
      'patch:webhook-attempt-eager',
      'activity:firstWebhookAttempt',
    ]);
    // The task's own queue, so the worker that completes the workflow task can start it at once (eager execution).
    expect(attempt.activityTaskScheduledEventAttributes!.taskQueue!.name).toBe(ended.taskQueue);
    expect(finalMemo).toBeGreaterThan(0);
    // The final memo and the attempt's scheduling in one workflow task (no timer between them), then the run's end.
    expect(types.slice(finalMemo)).toEqual([
      'WORKFLOW_PROPERTIES_MODIFIED',
      'MARKER_RECORDED', // each patch,
      'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES', // and its TemporalChangeVersion
      'MARKER_RECORDED',
      'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
      'ACTIVITY_TASK_SCHEDULED',
      'ACTIVITY_TASK_STARTED',
      'ACTIVITY_TASK_COMPLETED',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
      'WORKFLOW_TASK_COMPLETED',
      'WORKFLOW_EXECUTION_COMPLETED',
    ]);
    expect(types).not.toContain('WORKFLOW_TASK_FAILED');
  });

  test('GET .../deliveries reads the attempt from the task history; a redelivery starts a delivery run carrying it, same webhook-id', async () => {
    await endTask({}, async ({ taskId, service, deliveryHandle }) => {
      expect(await service.deliveries(taskId)).toEqual({
        webhook_url: receiver.url,
        events: [
          expect.objectContaining({ webhook_id: `msg_${taskId}_succeeded`, event: 'succeeded', state: 'delivered', attempt_count: 1 }),
        ],
      });
      expect((await service.deliveries(taskId))!.events[0]!.attempts).toEqual([
        { at: expect.any(String), duration_ms: expect.any(Number), status: 200, response_excerpt: '{}' },
      ]);
      expect(await service.redeliver(taskId)).toMatchObject({ event: 'succeeded', state: 'pending' });
      await deliveryHandle.result();
      expect(receiver.got.map((g) => g.headers['webhook-id'])).toEqual([`msg_${taskId}_succeeded`, `msg_${taskId}_succeeded`]);
      const record = await service.deliveries(taskId);
      expect(record!.events).toEqual([expect.objectContaining({ state: 'delivered', attempt_count: 2 })]);
    });
  });

  test('a receiver answering 500: the delivery workflow starts with the event and its first attempt, and makes the second after the first back-off, same webhook-id', async () => {
    receiver.answers.push(500);
    const ended = await endTask({}, async ({ taskId, service }) => {
      expect((await service.deliveries(taskId))!.events).toEqual([expect.objectContaining({ state: 'delivered', attempt_count: 2 })]);
    });
    expect(receiver.got.map((g) => g.headers['webhook-id'])).toEqual([`msg_${ended.taskId}_succeeded`, `msg_${ended.taskId}_succeeded`]);
    expect(ended.attempts).toEqual(['retry', 'delivered']);
    // Settled by the delivery workflow alone: the end step told the metrics nothing of an event it handed over.
    expect(ended.settled).toEqual(['delivered']);
    expect(ended.delivery!.delivery.events).toEqual([
      expect.objectContaining({
        event: 'succeeded',
        state: 'delivered',
        attempt_count: 2,
        attempts: [expect.objectContaining({ status: 500 }), expect.objectContaining({ status: 200 })],
      }),
    ]);
    const delivery = (await ended.deliveryHandle.fetchHistory()).events ?? [];
    const started = delivery[0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    const carried = ts.env.client.options.loadedDataConverter.payloadConverter.fromPayload<WebhookDeliveryInput>(started);
    expect(carried.events).toEqual([
      expect.objectContaining({
        state: 'pending',
        attempt_count: 1,
        attempts: [expect.objectContaining({ status: 500, error: 'HTTP 500' })],
      }),
    ]);
    // The run's first timer is the first back-off (a minute), before its one attempt.
    const timer = delivery.findIndex((e) => e.timerStartedEventAttributes);
    expect(Number(delivery[timer]!.timerStartedEventAttributes!.startToFireTimeout!.seconds)).toBe(TIMING.initialIntervalMs / 1000);
    expect(markers(delivery)).toEqual(['patch:webhook-first-attempt', 'deliverWebhook', 'patch:webhook-close-after-attempt']);
    expect(delivery.findIndex((e) => markerOf(e) === 'deliverWebhook')).toBeGreaterThan(timer);
  });

  test('a failed task whose receiver answers 410: its failed event attempted after its settlement, gone, no delivery workflow; the deliveries say so', async () => {
    receiver.answers.push(410);
    const ended = await endTask({ ends: 'failed' }, async ({ taskId, service }) => {
      expect((await service.deliveries(taskId))!.events).toEqual([
        expect.objectContaining({ event: 'failed', state: 'gone', attempt_count: 1 }),
      ]);
    });
    expect(ended.outcome).toBe('failed');
    expect(verified()).toMatchObject({ type: 'generation.failed', data: { status: 'failed', error: { code: 'content_policy' } } });
    expect(ended.delivery).toBeUndefined();
    expect(ended.settled).toEqual(['gone']);
    expect(markers(ended.history)).toEqual([
      'pollGeneration',
      'patch:settlement-step',
      'settleTask',
      'patch:webhook-first-attempt',
      'patch:webhook-attempt-eager',
      'activity:firstWebhookAttempt',
    ]);
  });

  test('the activity lost after its POST is run again: the receiver gets the same webhook-id twice, the history keeps one attempt', async () => {
    let calls = 0;
    const ended = await endTask({
      firstAttempt: (real) => async (input) => {
        const record = await real(input);
        if (++calls === 1) throw new Error('the worker was lost before its workflow task completed');
        return record;
      },
    });
    expect(receiver.got.map((g) => g.headers['webhook-id'])).toEqual([`msg_${ended.taskId}_succeeded`, `msg_${ended.taskId}_succeeded`]);
    expect(markers(ended.history).filter((m) => m === 'activity:firstWebhookAttempt')).toHaveLength(1);
    const attempt = ended.history.find((e) => stepOf(e) === 'activity:firstWebhookAttempt')!;
    const started = ended.history.filter((e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(attempt.eventId));
    expect(started.map((e) => e.activityTaskStartedEventAttributes!.attempt)).toEqual([2]);
    expect(ended.delivery).toBeUndefined();
  });

  test('the activity failing every time: the event is announced to the delivery workflow as before, which delivers it', async () => {
    const ended = await endTask({
      firstAttempt: () => async () => {
        throw new Error('Temporal did not take the hand-over');
      },
    });
    // The activity's failure after its tries, then the announcement.
    expect(markers(ended.history).slice(-5)).toEqual([
      'patch:quieter-task',
      'patch:webhook-first-attempt',
      'patch:webhook-attempt-eager',
      'activity:firstWebhookAttempt',
      'announceWebhookEvent',
    ]);
    expect(ended.history.map(typeOf)).toContain('ACTIVITY_TASK_FAILED');
    expect(ended.delivery!.delivery.events).toEqual([expect.objectContaining({ state: 'delivered', attempt_count: 1 })]);
    expect(receiver.got).toHaveLength(1);
  });
});

describe('a task whose webhook asked for running', () => {
  test('keeps the delivery workflow for every event, in order: no attempt of its own, no patch', async () => {
    const ended = await endTask({ events: ['running', 'succeeded'] });
    // (quieter-task is the record's patch, taken by every new run; no patch of the webhook's.)
    expect(markers(ended.history).filter((m) => m !== 'pollGeneration')).toEqual([
      'patch:quieter-task',
      'announceWebhookEvent',
      'announceWebhookEvent',
    ]);
    expect(ended.delivery!.delivery.events!.map((e) => e.event)).toEqual(['running', 'succeeded']);
    expect(ended.delivery!.delivery.events!.at(-1)).toMatchObject({ state: 'delivered', attempt_count: 1 });
    expect(receiver.got.at(-1)!.body).toMatchObject({ type: 'generation.succeeded', data: { status: 'success' } });
  });
});
