/**
 * Client webhooks and event streams under faults and load, on a stack of their own: the final event's first attempt
 * started eagerly at the task's end (as every activity the task schedules), a receiver
 * down for 60 s then up, a worker SIGKILLed between attempts, a worker SIGKILLed during the first attempt a task
 * makes at its end, 300 tasks with webhooks at once, and the event stream read by two clients through two API
 * processes (and closed at the sync bound by a third API with a short one). Every delivery is verified with the
 * `standardwebhooks` package against the key's secret.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { Webhook } from 'standardwebhooks';
import { ApiClient } from '../support/client';
import { metric, scrape } from '../support/metrics';
import { startReceiver, type Received, type Receiver } from '../support/receiver';
import { openEvents } from '../support/sse';
import { freePort, TEST_KEYS } from '../support/stack';
import { useStack } from '../support/use-stack';
import { sleep, waitFor } from '../support/wait-for';
import { webhookDeliveryWorkflowId } from '../../webhooks/delivery';

jest.setTimeout(600_000);

const V_MODEL = 'vendor-video-1-0-pro-250528';
let receiverPort = 0;
const gw = useStack(async () => {
  receiverPort = await freePort();
  return {
    name: 'webhooks',
    apis: 2,
    simJobDurationMs: 800,
    temporalMetrics: true,
    env: {
      WEBHOOK_ALLOW_PRIVATE_ORIGINS: `http://127.0.0.1:${receiverPort}`,
      WEBHOOK_RETRY_INITIAL_MS: '1000',
      WEBHOOK_RETRY_MAX_INTERVAL_MS: '5000',
      WEBHOOK_ATTEMPT_TIMEOUT_MS: '3000',
      KEY_MAX_INFLIGHT: '0',
    },
  };
});

let secret: string;
beforeAll(async () => {
  secret = (await gw.alice.get('/v1/webhooks/default/secret')).body.key;
});

const receiverUrl = () => `http://127.0.0.1:${receiverPort}/hooks`;
/** Tasks with a webhook asking for `events` (by default all three: every event through the delivery workflow). */
async function startTasks(
  n: number,
  tag: string,
  api: ApiClient = gw.alice,
  events: string[] = ['running', 'succeeded', 'failed'],
): Promise<string[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const r = await api.post('/v1/async/videos/generations', {
        model: V_MODEL,
        prompt: `${tag} ${i}${i % 10 === 9 ? ' [sim:fail=content_policy]' : ''}`,
        duration: 5,
        webhook_url: receiverUrl(),
        webhook_events: events,
      });
      expect(r.status).toBe(200);
      return r.body.task_id as string;
    }),
  );
}

/** Every delivery verified (standardwebhooks), grouped by webhook-id; the final event of every task received. */
function checkAll(receiver: Receiver, taskIds: string[]): Map<string, Received[]> {
  const byId = new Map<string, Received[]>();
  for (const g of receiver.got) {
    new Webhook(secret).verify(g.raw, g.headers as Record<string, string>);
    const id = String(g.headers['webhook-id']);
    byId.set(id, [...(byId.get(id) ?? []), g]);
  }
  for (const taskId of taskIds) {
    const mine = receiver.got.filter((g) => g.body.data.task_id === taskId);
    const types = mine.map((g) => g.body.type);
    expect(types.filter((t) => t !== 'generation.running')).toHaveLength(1);
    // A running event, if delivered at all, came before the final one.
    const running = types.indexOf('generation.running');
    if (running >= 0) expect(running).toBeLessThan(types.length - 1);
  }
  return byId;
}
const finalsOf = (receiver: Receiver, taskIds: string[]) =>
  taskIds.filter((id) => receiver.got.some((g) => g.body.data.task_id === id && g.body.type !== 'generation.running')).length;

test("a task's activities, the final event's first attempt among them, start in the server's answer to the workflow task that schedules them", async () => {
  // Eager activity execution (scripts/dev-server.ts EAGER_ACTIVITIES): the server counts each activity it hands back
  // in its answer to a completed workflow task instead of queueing it.
  const eager = async () => metric(await scrape(gw.stack.temporalMetricsUrl), 'activity_eager_execution');
  const receiver = await startReceiver('/hooks', receiverPort);
  try {
    const before = await eager();
    const [id] = await startTasks(1, 'eager', gw.alice, ['succeeded', 'failed']);
    await waitFor(async () => finalsOf(receiver, [id!]) === 1, 60_000);
    checkAll(receiver, [id!]);
    // Its two activities, its submit and its first webhook attempt (its polls are local activities), each handed to
    // the worker that completed the workflow task scheduling it. The server's metrics are reported every second or so.
    await waitFor(async () => (await eager()) - before >= 2, 10_000);
  } finally {
    await receiver.close();
  }
});

describe('durable delivery', () => {
  test('receiver down for 60 s, then up: every event acknowledged exactly once, every attempt with the same webhook-id', async () => {
    const taskIds = await startTasks(10, 'down-then-up');
    await sleep(60_000);
    // Any worker tells how long the oldest undelivered event has waited (read from visibility): most of the outage.
    const oldest = () =>
      scrape(gw.stack.workers.at(-1)!.metricsUrl).then((page) => metric(page, 'mediagate_webhook_oldest_undelivered_age_seconds'));
    expect(await oldest()).toBeGreaterThan(45);
    const receiver = await startReceiver('/hooks', receiverPort);
    try {
      await waitFor(async () => finalsOf(receiver, taskIds) === taskIds.length, 60_000);
      const byId = checkAll(receiver, taskIds);
      for (const [, got] of byId) expect(got).toHaveLength(1);
      // The attempts while it was down are listed under the same event, refused, then the 2xx.
      const d = await gw.alice.get(`/v1/generations/${taskIds[0]}/deliveries`);
      const final = d.body.data.find((e: { event: string }) => e.event !== 'running');
      expect(final.state).toBe('delivered');
      expect(final.attempt_count).toBeGreaterThan(3);
      expect(final.attempts.at(-1).status).toBe(200);
      expect(final.attempts[0]).toMatchObject({ error: expect.stringMatching(/ECONNREFUSED|connect/) });
      await waitFor(async () => (await oldest()) === 0, 10_000);
    } finally {
      await receiver.close();
    }
  });

  test('the worker SIGKILLed between attempts: a new worker delivers', async () => {
    const receiver = await startReceiver('/hooks', receiverPort);
    try {
      receiver.answers.push(...Array.from({ length: 6 }, () => 503));
      const [taskId] = await startTasks(1, 'kill-between-attempts');
      await waitFor(async () => receiver.got.some((g) => g.body.data.task_id === taskId && g.body.type === 'generation.succeeded'), 30_000);
      await gw.stack.workers[0]!.kill();
      await sleep(3_000);
      await gw.stack.startWorker();
      await waitFor(
        async () =>
          (await gw.alice.get(`/v1/generations/${taskId}/deliveries`)).body.data.find(
            (e: { event: string; state: string }) => e.event === 'succeeded' && e.state === 'delivered',
          ),
        90_000,
      );
      const finals = receiver.got.filter((g) => g.body.data.task_id === taskId && g.body.type === 'generation.succeeded');
      expect(new Set(finals.map((g) => g.headers['webhook-id'])).size).toBe(1);
      expect(finals.at(-1)!.body.data.status).toBe('success');
    } finally {
      await receiver.close();
    }
  });

  test('the worker SIGKILLed while the first attempt at the task end is on the wire: a new worker makes it again, with the same webhook-id; no delivery workflow', async () => {
    const receiver = await startReceiver('/hooks', receiverPort);
    try {
      // The first answer never comes: the worker dies holding the attempt, its activity not completed.
      receiver.gates.push(new Promise(() => undefined));
      const taskId = (await startTasks(1, 'kill-during-first-attempt', gw.alice, ['succeeded', 'failed']))[0]!;
      const finals = () => receiver.got.filter((g) => g.body.data.task_id === taskId && g.body.type === 'generation.succeeded');
      await waitFor(async () => finals().length === 1, 30_000);
      await gw.stack.restartWorker();
      // The attempt's time runs out (its start-to-close bound) and the new worker makes it again.
      await waitFor(async () => finals().length >= 2, 90_000);
      await gw.client.workflow.getHandle(taskId).result();
      expect(new Set(finals().map((g) => g.headers['webhook-id']))).toEqual(new Set([`msg_${taskId}_succeeded`]));
      for (const g of finals()) new Webhook(secret).verify(g.raw, g.headers as Record<string, string>);
      // The attempt the task recorded is the one answered; it was delivered, so no delivery workflow was started.
      const listed = (await gw.alice.get(`/v1/generations/${taskId}/deliveries`)).body.data;
      expect(listed).toEqual([expect.objectContaining({ event: 'succeeded', state: 'delivered', attempt_count: 1 })]);
      await expect(gw.client.workflow.getHandle(webhookDeliveryWorkflowId(taskId)).describe()).rejects.toBeInstanceOf(
        WorkflowNotFoundError,
      );
    } finally {
      await receiver.close();
    }
  });

  test('Temporal restarted between attempts: still delivered, with the same webhook-id', async () => {
    const receiver = await startReceiver('/hooks', receiverPort);
    try {
      receiver.answers.push(...Array.from({ length: 4 }, () => 503));
      const [taskId] = await startTasks(1, 'temporal-restart-between-attempts');
      const finals = () => receiver.got.filter((g) => g.body.data.task_id === taskId && g.body.type === 'generation.succeeded');
      await waitFor(async () => finals().length >= 1, 30_000);
      await gw.stack.temporal.stop();
      await sleep(2_000);
      await gw.stack.startTemporal();
      // Delivered: an attempt after the four refusals was answered 200.
      await waitFor(async () => receiver.got.length > 4 && receiver.answers.length === 0 && finals().length >= 2, 120_000);
      await waitFor(
        async () =>
          (await gw.alice.get(`/v1/generations/${taskId}/deliveries`)).body.data?.find(
            (e: { event: string; state: string }) => e.event === 'succeeded' && e.state === 'delivered',
          ),
        60_000,
      );
      expect(new Set(finals().map((g) => g.headers['webhook-id'])).size).toBe(1);
    } finally {
      await receiver.close();
    }
  });

  test('300 tasks with webhooks at once: every final event delivered, signed; the metrics count them', async () => {
    const receiver = await startReceiver('/hooks', receiverPort);
    try {
      const taskIds = await startTasks(300, 'three-hundred');
      await waitFor(async () => finalsOf(receiver, taskIds) === taskIds.length, 300_000);
      checkAll(receiver, taskIds);
      const page = await scrape(gw.stack.workers.at(-1)!.metricsUrl);
      expect(metric(page, 'mediagate_webhook_deliveries_total', { outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
      expect(metric(page, 'mediagate_webhook_attempts_total')).toBeGreaterThanOrEqual(metric(page, 'mediagate_webhook_deliveries_total'));
    } finally {
      await receiver.close();
    }
  });
});

describe('the event stream across API processes', () => {
  test('two clients on two API processes both see the end', async () => {
    const [taskId] = await startTasks(1, 'two-streams [sim:duration=2500]');
    const urls = gw.stack.apiPorts.map((p) => `http://127.0.0.1:${p}/v1/generations/${taskId}/events`);
    const streams = await Promise.all(urls.map((u) => openEvents(u, TEST_KEYS.alice.secret)));
    await Promise.all(streams.map((s) => s.ended));
    for (const s of streams) {
      expect(s.messages.at(-1)!.data).toMatchObject({ task_id: taskId, status: 'success' });
      expect(s.messages.map((m) => m.data.status)).toContain('running');
    }
  });

  test('a stream that reaches the sync bound ends with an event saying so', async () => {
    const port = await freePort();
    await gw.stack.startApi(port, { SYNC_TIMEOUT_MS: '2000' });
    const r = await gw.alice.post('/v1/async/videos/generations', {
      model: V_MODEL,
      prompt: 'a long one [sim:duration=20000]',
      duration: 5,
    });
    const stream = await openEvents(`http://127.0.0.1:${port}/v1/generations/${r.body.task_id}/events`, TEST_KEYS.alice.secret);
    await stream.ended;
    const last = stream.messages.at(-1)!;
    expect(last.event).toBe('timeout');
    expect(last.data.message).toMatch(/reconnect/);
  });
});
