/**
 * The webhook delivery workflow (workflows/webhook-delivery.ts) on Temporal's time-skipping test server: hours of
 * back-off in milliseconds, the attempt (a local activity) scripted. Covers the exponential back-off, an event given
 * up (`expired`) at the configured bound, a `running` event superseded by the final one, the back-off wait ending as
 * soon as the final event arrives rather than at its timer, and what the workflow tells the metrics: every
 * settlement through its sink, and WebhookPendingSince while an event is being retried. One test runs the real
 * attempt (webhooks/activities.ts) at the default attempt timeout against a receiver that takes 30 s.
 */
import type { Client } from '@temporalio/client';
import { Webhook } from 'standardwebhooks';
import { createWebhookActivities, type WebhookDeps } from '../../webhooks/activities';
import { webhookDeliverySchema } from '../../webhooks/config';
import { webhookDeliveryWorkflowId } from '../../webhooks/delivery';
import { derivedWebhookSecret, webhookSecrets } from '../../webhooks/signing';
import { Worker } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { WEBHOOK_PENDING_SINCE } from '../../core/search-attributes';
import {
  WEBHOOK_DELIVERY_WORKFLOW_TYPE,
  WEBHOOK_EVENT_SIGNAL,
  type WebhookDeliveryInput,
  type WebhookDeliveryMemo,
  type WebhookEvent,
  type WebhookSendInput,
  type WebhookSendResult,
  type WebhookTiming,
} from '../../core/webhooks';
import { useTimeSkipping } from '../support/time-skipping';
import type { WebhookSettlement } from '../../workflows/sinks';
import { startReceiver } from '../support/receiver';

jest.setTimeout(120_000);

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const ts = useTimeSkipping();

/** One attempt as the scripted activity saw it, with the workflow clock (env time) it was made at. */
interface Attempt {
  event: WebhookEvent;
  webhookId: string;
  at: number;
}

/** The receiver's answer to the n-th attempt of an event: an outcome (or one that takes its time). */
type Answer = (event: WebhookEvent, n: number) => WebhookSendResult['outcome'] | Promise<WebhookSendResult['outcome']>;

let counter = 0;

/**
 * A delivery workflow for a fresh task, started as the generation workflow starts it (signal-with-start with its
 * first event), on a worker whose deliverWebhook answers `answer` (or is the real attempt, to `url`); `during` acts
 * while it runs.
 */
async function deliver(
  timing: WebhookTiming,
  events: WebhookEvent[],
  answer: Answer | { real: WebhookDeps; url: string },
  during?: (h: WorkflowHandle, attempts: Attempt[]) => Promise<void>,
) {
  const attempts: Attempt[] = [];
  let real: ReturnType<typeof createWebhookActivities> | undefined;
  const settled: WebhookSettlement[] = [];
  const taskQueue = `wh-test-${++counter}`;
  const taskId = `task_wh_${counter}`;
  const worker = await Worker.create({
    connection: ts.env.nativeConnection,
    taskQueue,
    workflowBundle: ts.bundle,
    activities: {
      async deliverWebhook(input: WebhookSendInput): Promise<WebhookSendResult> {
        const n = attempts.filter((a) => a.event === input.event).length;
        attempts.push({ event: input.event, webhookId: input.webhookId, at: await ts.env.currentTimeMs() });
        if (typeof answer !== 'function') return (real ??= createWebhookActivities(answer.real)).deliverWebhook(input);
        const outcome = await answer(input.event, n);
        return {
          outcome,
          attempt: {
            at: new Date().toISOString(),
            duration_ms: 1,
            ...(outcome === 'retry' ? { status: 503, error: 'HTTP 503' } : { status: 200 }),
          },
        };
      },
    },
    sinks: {
      taskMetrics: { completed: { fn: () => undefined } },
      pushMonitor: { seen: { fn: () => undefined } },
      webhookMetrics: { settled: { fn: (_info, outcome: WebhookSettlement) => void settled.push(outcome) } },
    },
  });
  const url = typeof answer === 'function' ? 'https://hooks.example.com/h' : answer.url;
  const input: WebhookDeliveryInput = { taskId, ownerId: 'alice', target: { url, events }, timing };
  const startedAt = await ts.env.currentTimeMs();
  const handle = await worker.runUntil(async () => {
    const h = await ts.env.client.workflow.signalWithStart(WEBHOOK_DELIVERY_WORKFLOW_TYPE, {
      workflowId: webhookDeliveryWorkflowId(taskId),
      taskQueue,
      args: [input],
      signal: WEBHOOK_EVENT_SIGNAL,
      signalArgs: [{ event: events[0]!, occurredAt: new Date(startedAt).toISOString() }],
    });
    if (during) await during(h, attempts);
    await h.result();
    return h;
  });
  const described = await handle.describe();
  const memo = described.memo as unknown as WebhookDeliveryMemo;
  return { attempts, settled, memo, described, startedAt };
}

/** Waits (real time) until `check` holds; the workflow runs meanwhile on the worker. */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The waits between consecutive attempts, in seconds of workflow time, read as the back-off asked for where they
 * match it: the time-skipping server lets real time pass while the workflow and the attempt run, so on a loaded
 * machine a wait reads up to a second or two longer than its timer, never shorter.
 */
const gaps = (attempts: Attempt[], asked: number[]) =>
  attempts.slice(1).map((a, i) => {
    const waited = (a.at - attempts[i]!.at) / 1000;
    return asked[i] !== undefined && waited >= asked[i]! && waited < asked[i]! + 2 ? asked[i] : Math.round(waited);
  });

const signalEvent = (h: WorkflowHandle, event: WebhookEvent, at: number) =>
  h.signal(WEBHOOK_EVENT_SIGNAL, { event, occurredAt: new Date(at).toISOString() });

describe('retries', () => {
  test('a failing receiver is retried with exponential back-off up to the max interval, with the same webhook-id, until a 2xx', async () => {
    const timing = { attemptTimeoutMs: 10_000, initialIntervalMs: MINUTE, maxIntervalMs: 10 * MINUTE, retryForMs: 72 * HOUR };
    const { attempts, memo, settled, described } = await deliver(timing, ['succeeded'], (_e, n) => (n < 6 ? 'retry' : 'delivered'));
    // 1, 2, 4, 8 minutes, then capped at 10.
    const backoff = [60, 120, 240, 480, 600, 600];
    expect(gaps(attempts, backoff)).toEqual(backoff);
    expect(new Set(attempts.map((a) => a.webhookId))).toEqual(new Set([`msg_${memo.delivery.taskId}_succeeded`]));
    expect(memo.delivery.events).toEqual([expect.objectContaining({ event: 'succeeded', state: 'delivered', attempt_count: 7 })]);
    expect(settled).toEqual(['delivered']);
    // Settled: the run carries no WebhookPendingSince any more.
    expect(described.typedSearchAttributes.get(WEBHOOK_PENDING_SINCE)).toBeUndefined();
  });

  test('while an event is being retried its delivery carries WebhookPendingSince, the instant it was queued', async () => {
    const timing = { attemptTimeoutMs: 10_000, initialIntervalMs: HOUR, maxIntervalMs: HOUR, retryForMs: 72 * HOUR };
    let release = false;
    const { settled } = await deliver(
      timing,
      ['succeeded'],
      (_e, n) => (n === 0 || !release ? 'retry' : 'delivered'),
      async (h, attempts) => {
        await until(() => attempts.length === 1, 'the first attempt');
        let since: string | undefined;
        await until(
          async () => (since = (await h.describe()).typedSearchAttributes.get(WEBHOOK_PENDING_SINCE)) !== undefined,
          'WebhookPendingSince',
        );
        // Queued when the workflow took the event, before its first attempt.
        expect(Date.parse(since!)).toBeLessThanOrEqual(attempts[0]!.at);
        expect(since).toBe(new Date(Date.parse(since!)).toISOString());
        release = true;
      },
    );
    expect(settled).toEqual(['delivered']);
  });

  test('an event failing for longer than the retry bound is given up as expired; the run ends; the metrics are told', async () => {
    const timing = { attemptTimeoutMs: 10_000, initialIntervalMs: MINUTE, maxIntervalMs: 10 * MINUTE, retryForMs: HOUR };
    const { attempts, memo, settled, described, startedAt } = await deliver(timing, ['succeeded'], () => 'retry');
    // At 0, 1, 3, 7, 15, 25, 35, 45 and 55 minutes: the next (65) would be past the hour.
    const backoff = [60, 120, 240, 480, 600, 600, 600, 600];
    expect(gaps(attempts, backoff)).toEqual(backoff);
    expect(attempts.at(-1)!.at - startedAt).toBeLessThan(HOUR);
    expect(memo.delivery.events).toEqual([expect.objectContaining({ state: 'expired', attempt_count: 9 })]);
    expect(described.status.name).toBe('COMPLETED');
    expect(settled).toEqual(['expired']);
    expect(described.typedSearchAttributes.get(WEBHOOK_PENDING_SINCE)).toBeUndefined();
  });

  test('410 Gone settles the event at once: no retry', async () => {
    const timing = { attemptTimeoutMs: 10_000, initialIntervalMs: MINUTE, maxIntervalMs: 10 * MINUTE, retryForMs: HOUR };
    const { attempts, memo, settled } = await deliver(timing, ['succeeded'], () => 'gone');
    expect(attempts).toHaveLength(1);
    expect(memo.delivery.events).toEqual([expect.objectContaining({ state: 'gone', attempt_count: 1 })]);
    expect(settled).toEqual(['gone']);
  });
});

describe('a running event and the final one', () => {
  const timing = { attemptTimeoutMs: 10_000, initialIntervalMs: HOUR, maxIntervalMs: HOUR, retryForMs: 72 * HOUR };

  test("a running event backing off is superseded the moment the final event arrives, which goes out at once, not at the running event's timer", async () => {
    let signalledAt = 0;
    const { attempts, memo, settled } = await deliver(
      timing,
      ['running', 'succeeded'],
      (event) => (event === 'running' ? 'retry' : 'delivered'),
      async (h, seen) => {
        // The running event failed once and now waits an hour before its next attempt.
        await until(() => seen.length === 1, "the running event's first attempt");
        await until(async () => (await h.describe()).typedSearchAttributes.get(WEBHOOK_PENDING_SINCE) !== undefined, 'the back-off');
        signalledAt = await ts.env.currentTimeMs();
        await signalEvent(h, 'succeeded', signalledAt);
      },
    );
    expect(attempts.map((a) => a.event)).toEqual(['running', 'succeeded']);
    // Woken by the final event: within seconds of it (real time passing on the test server), not an hour later.
    expect(attempts[1]!.at - signalledAt).toBeLessThan(MINUTE);
    expect(memo.delivery.events!.map((e) => [e.event, e.state, e.attempt_count])).toEqual([
      ['running', 'superseded', 1],
      ['succeeded', 'delivered', 1],
    ]);
    expect(settled).toEqual(['superseded', 'delivered']);
  });

  test('the final event arriving during a running attempt that fails: the running event is not retried, the final one goes out at once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let signalledAt = 0;
    const { attempts, memo, settled } = await deliver(
      timing,
      ['running', 'succeeded'],
      async (event) => {
        if (event !== 'running') return 'delivered';
        await gate;
        return 'retry';
      },
      async (h, seen) => {
        await until(() => seen.length === 1, "the running event's attempt to start");
        signalledAt = await ts.env.currentTimeMs();
        await signalEvent(h, 'succeeded', signalledAt);
        release();
      },
    );
    // Never a running attempt after the final one; each event with its own webhook-id.
    expect(attempts.map((a) => a.event)).toEqual(['running', 'succeeded']);
    expect(attempts.map((a) => a.webhookId)).toEqual([`msg_${memo.delivery.taskId}_running`, `msg_${memo.delivery.taskId}_succeeded`]);
    expect(attempts[1]!.at - signalledAt).toBeLessThan(MINUTE);
    expect(memo.delivery.events!.map((e) => e.state)).toEqual(['superseded', 'delivered']);
    expect(settled).toEqual(['superseded', 'delivered']);
  });

  test('a running event delivered, then the final one: both delivered, in order', async () => {
    const { attempts, memo, settled } = await deliver(
      timing,
      ['running', 'succeeded'],
      () => 'delivered',
      async (h, seen) => {
        await until(() => seen.length === 1, 'the running event');
        await signalEvent(h, 'succeeded', await ts.env.currentTimeMs());
      },
    );
    expect(attempts.map((a) => a.event)).toEqual(['running', 'succeeded']);
    expect(memo.delivery.events!.map((e) => e.state)).toEqual(['delivered', 'delivered']);
    expect(settled).toEqual(['delivered', 'delivered']);
  });
});

describe('a slow receiver, with the real attempt and the default settings', () => {
  test("a receiver taking 30 s: the attempt is cut at the default timeout (10 s, within the issue's 10–15 s) and retried; the retry, answered at once, is delivered with the same webhook-id", async () => {
    const defaults = webhookDeliverySchema.parse({});
    expect(defaults.WEBHOOK_ATTEMPT_TIMEOUT_MS).toBeGreaterThanOrEqual(10_000);
    expect(defaults.WEBHOOK_ATTEMPT_TIMEOUT_MS).toBeLessThanOrEqual(15_000);
    const timing: WebhookTiming = {
      attemptTimeoutMs: defaults.WEBHOOK_ATTEMPT_TIMEOUT_MS,
      initialIntervalMs: defaults.WEBHOOK_RETRY_INITIAL_MS,
      maxIntervalMs: defaults.WEBHOOK_RETRY_MAX_INTERVAL_MS,
      retryForMs: defaults.WEBHOOK_RETRY_FOR_MS,
    };
    const receiver = await startReceiver('/hook');
    receiver.delays.push(30_000);
    const master = 'a-master-secret-for-this-test-0123456789';
    try {
      const t0 = Date.now();
      const { memo, settled } = await deliver(timing, ['succeeded'], {
        url: receiver.url,
        real: {
          client: undefined as unknown as Client, // not used by deliverWebhook
          taskQueue: 'unused',
          timing,
          secrets: webhookSecrets({ masterSecret: master, explicit: async () => undefined }),
          readRecord: async (taskId) => ({ kind: 'generation', record: { task_id: taskId, status: 'success' } }),
          allowPrivateOrigins: new Set([new URL(receiver.url).origin]),
        },
      });
      const [first, second] = memo.delivery.events![0]!.attempts;
      expect(first).toMatchObject({ error: `timed out after ${timing.attemptTimeoutMs} ms` });
      expect(first!.status).toBeUndefined();
      expect(first!.duration_ms).toBeGreaterThanOrEqual(timing.attemptTimeoutMs - 50);
      expect(first!.duration_ms).toBeLessThan(15_000);
      expect(second).toMatchObject({ status: 200 });
      expect(memo.delivery.events![0]).toMatchObject({ state: 'delivered', attempt_count: 2 });
      expect(settled).toEqual(['delivered']);
      // The receiver saw both attempts, one event: the same webhook-id, each signed.
      expect(receiver.got).toHaveLength(2);
      expect(new Set(receiver.got.map((g) => g.headers['webhook-id'])).size).toBe(1);
      for (const g of receiver.got) new Webhook(derivedWebhookSecret(master, 'alice')).verify(g.raw, g.headers as Record<string, string>);
      // Not held for the receiver's 30 s.
      expect(Date.now() - t0).toBeLessThan(25_000);
    } finally {
      await receiver.close();
    }
  });
});

describe('a signal arriving while an attempt sends', () => {
  const timing = { attemptTimeoutMs: 10_000, initialIntervalMs: MINUTE, maxIntervalMs: 10 * MINUTE, retryForMs: HOUR };

  /** The causes of the run's failed workflow tasks (none in normal operation). */
  async function failedWorkflowTasks(h: WorkflowHandle): Promise<string[]> {
    const history = await h.fetchHistory();
    return (history.events ?? [])
      .filter((e) => e.workflowTaskFailedEventAttributes)
      .map((e) => String(e.workflowTaskFailedEventAttributes!.cause));
  }

  /**
   * An answer that, on its first call only, has `signal` land while the attempt is on the wire (Temporal takes it
   * before the attempt answers), then delivers; `handle` is read once the run has one.
   */
  function signalDuringFirstAttempt(
    handle: () => WorkflowHandle | undefined,
    signal: (h: WorkflowHandle, at: number) => Promise<void>,
  ): Answer {
    let signalled = false;
    return async () => {
      if (!signalled) {
        signalled = true;
        await until(() => handle() !== undefined, 'the handle');
        await signal(handle()!, await ts.env.currentTimeMs());
      }
      return 'delivered' as const;
    };
  }

  test('the final event announced again while its attempt sends (a retried announcement): sent once, its one attempt counted, no workflow task failed', async () => {
    let handle: WorkflowHandle | undefined;
    const answer = signalDuringFirstAttempt(
      () => handle,
      (h, at) => signalEvent(h, 'succeeded', at),
    );
    const { attempts, memo, settled } = await deliver(timing, ['succeeded'], answer, async (h) => {
      handle = h;
    });
    expect(attempts.map((a) => a.event)).toEqual(['succeeded']);
    expect(memo.delivery.events).toEqual([expect.objectContaining({ event: 'succeeded', state: 'delivered', attempt_count: 1 })]);
    expect(settled).toEqual(['delivered']);
    expect(await failedWorkflowTasks(handle!)).toEqual([]);
  });

  test('the final event arriving while the running event sends: each sent once and counted once, no workflow task failed', async () => {
    let handle: WorkflowHandle | undefined;
    const answer = signalDuringFirstAttempt(
      () => handle,
      (h, at) => signalEvent(h, 'succeeded', at),
    );
    const { attempts, memo, settled } = await deliver(timing, ['running', 'succeeded'], answer, async (h) => {
      handle = h;
    });
    expect(attempts.map((a) => a.event)).toEqual(['running', 'succeeded']);
    expect(memo.delivery.events!.map((e) => [e.event, e.state, e.attempt_count])).toEqual([
      ['running', 'delivered', 1],
      ['succeeded', 'delivered', 1],
    ]);
    expect(settled).toEqual(['delivered', 'delivered']);
    expect(await failedWorkflowTasks(handle!)).toEqual([]);
  });
});
