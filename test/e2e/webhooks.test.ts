/**
 * Client webhooks on the shared stack: signed per Standard Webhooks and verified here with the
 * `standardwebhooks` package (not our code), delivered after the task is final — a receiver reading the task inside
 * its handler finds it so, while the task still makes that first attempt — retried with the same webhook-id
 * until a 2xx, stopped by a 410, retried after a timeout, listed and redelivered; private URLs refused.
 * The receiver is a real HTTP server on loopback, whose origin the stack allows (test/support/global-setup.ts).
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import OpenAI from 'openai';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_PENDING_SINCE } from '../../core/search-attributes';
import { WEBHOOK_EVENT_SIGNAL } from '../../core/webhooks';
import { oldestPendingSince, pendingAtOrBefore } from '../../webhooks/backlog';
import { webhookTaskQueue } from '../../core/webhooks';
import { webhookDeliveryWorkflowId } from '../../webhooks/delivery';
import { adminCall, makeKey } from '../support/admin-api';
import { startReceiver, type Received, type Receiver } from '../support/receiver';
import { withoutTokens } from '../support/result-links';
import { sharedStack } from '../support/shared-stack';
import { ERIN_WEBHOOK_SECRETS, TEST_KEYS } from '../support/stack';
import { sleep, waitFor } from '../support/wait-for';
import { WEBHOOK_RECEIVER_PORT_ENV } from '../support/global-setup';
import { temporalClient, type TemporalTestClient } from '../support/temporal';

const { api, apiUrl, temporalAddress } = sharedStack();
const alice = api('alice');
const V_MODEL = 'vendor-video-1-0-pro-250528';

let receiver: Receiver;
let aliceSecret: string;

beforeAll(async () => {
  receiver = await startReceiver('/hooks', Number(process.env[WEBHOOK_RECEIVER_PORT_ENV]));
  const r = await alice.get('/v1/webhooks/default/secret');
  expect(r.status).toBe(200);
  aliceSecret = r.body.key;
});
afterAll(() => receiver.close());

/** A task with a webhook to its own path on the receiver; its deliveries are told apart by that path. */
async function startTask(path: string, extra: Record<string, unknown> = {}, who = alice, prompt = 'a kite over dunes [sim:duration=1200]') {
  const r = await who.post('/v1/async/videos/generations', {
    model: V_MODEL,
    prompt,
    duration: 5,
    webhook_url: `${receiver.url}/${path}`,
    ...extra,
  });
  expect(r.status).toBe(200);
  return r.body.task_id as string;
}
/** Deliveries by the task they carry (its record, or a video task's `{id, object: "video"}`). */
const deliveriesOf = (taskId: string): Received[] =>
  receiver.got.filter((g) => g.body?.data?.task_id === taskId || g.body?.data?.id === taskId);

function verify(g: Received, secret: string): unknown {
  return new Webhook(secret).verify(g.raw, g.headers as Record<string, string>);
}

describe('webhooks', () => {
  test('running then succeeded, each signed (verified by standardwebhooks), the body the record as GET shows it, after the task is final', async () => {
    const taskId = await startTask('ok', { webhook_events: ['running', 'succeeded'] });
    await waitFor(async () => deliveriesOf(taskId).length >= 2, 30_000);
    const [running, succeeded] = deliveriesOf(taskId);
    expect(verify(running!, aliceSecret)).toMatchObject({ type: 'generation.running' });
    expect(verify(succeeded!, aliceSecret)).toMatchObject({ type: 'generation.succeeded' });
    expect(running!.body.data).toMatchObject({ task_id: taskId, status: 'running', progress: expect.stringMatching(/%$/) });
    expect(succeeded!.body.timestamp).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
    const now = await alice.get(`/v1/generations/${taskId}`);
    expect(withoutTokens(succeeded!.body.data)).toEqual(withoutTokens(now.body));
    expect(succeeded!.body.data.status).toBe('success');
    // One event, one webhook-id, distinct per event.
    expect(running!.headers['webhook-id']).not.toBe(succeeded!.headers['webhook-id']);
    await sleep(1_000);
    expect(deliveriesOf(taskId)).toHaveLength(2);
  });

  test('a task started with a route: its payload names the route as its model and the member that served it', async () => {
    const taskId = await startTask('routed', { model: 'hailuo-2.3', action: 'text_to_video', duration: 6 });
    await waitFor(async () => deliveriesOf(taskId).length >= 1, 30_000);
    const [succeeded] = deliveriesOf(taskId);
    expect(verify(succeeded!, aliceSecret)).toMatchObject({ type: 'generation.succeeded' });
    // Its first member (T) serves it unless T's one slot is busy with another file's task: then B's member does.
    expect(succeeded!.body.data).toMatchObject({ task_id: taskId, status: 'success', model: 'hailuo-2.3' });
    expect([
      { platform: 'T', model: 'VendorH-2.3' },
      { platform: 'B', model: 'H23' },
    ]).toContainEqual(succeeded!.body.data.served_by);
    expect(withoutTokens(succeeded!.body.data)).toEqual(withoutTokens((await alice.get(`/v1/generations/${taskId}`)).body));
  });

  test('a webhook without running: a receiver reading the task inside its handler finds it final while the task makes that attempt; the deliveries list the attempt, with no delivery workflow', async () => {
    const temporal = await temporalClient(temporalAddress);
    try {
      let release!: () => void;
      receiver.gates.push(new Promise<void>((r) => (release = r)));
      const taskId = await startTask('read-inside');
      await waitFor(async () => deliveriesOf(taskId).length >= 1, 30_000);
      // The receiver holds its answer and reads the task, as a handler does; the attempt is a step of the task's end.
      const [inside, run] = await Promise.all([
        alice.get(`/v1/generations/${taskId}`),
        temporal.client.workflow.getHandle(taskId).describe(),
      ]);
      release();
      expect(run.status.name).toBe('RUNNING');
      expect(inside.body.status).toBe('success');
      expect(withoutTokens(deliveriesOf(taskId)[0]!.body.data)).toEqual(withoutTokens(inside.body));
      await temporal.client.workflow.getHandle(taskId).result();
      const listed = (await alice.get(`/v1/generations/${taskId}/deliveries`)).body;
      expect(listed).toMatchObject({ task_id: taskId, webhook_url: `${receiver.url}/read-inside` });
      expect(listed.data).toEqual([
        {
          webhook_id: deliveriesOf(taskId)[0]!.headers['webhook-id'],
          event: 'succeeded',
          state: 'delivered',
          occurred_at: expect.any(String),
          attempt_count: 1,
          attempts: [{ at: expect.any(String), duration_ms: expect.any(Number), status: 200, response_excerpt: '{}' }],
        },
      ]);
      await expect(temporal.client.workflow.getHandle(webhookDeliveryWorkflowId(taskId)).describe()).rejects.toBeInstanceOf(
        WorkflowNotFoundError,
      );
    } finally {
      await temporal.close();
    }
  });

  test('a failing receiver is retried with the same webhook-id until a 2xx; the attempts are listed; redeliver sends it again', async () => {
    receiver.answers.push(500, 503);
    const taskId = await startTask('flaky');
    await waitFor(async () => deliveriesOf(taskId).length >= 3, 30_000);
    const got = deliveriesOf(taskId);
    expect(new Set(got.map((g) => g.headers['webhook-id'])).size).toBe(1);
    for (const g of got) expect(verify(g, aliceSecret)).toMatchObject({ type: 'generation.succeeded' });

    const listed = await waitFor(async () => {
      const r = await alice.get(`/v1/generations/${taskId}/deliveries`);
      return r.body.data?.[0]?.state === 'delivered' && r.body;
    }, 10_000);
    expect(listed).toMatchObject({ task_id: taskId, webhook_url: `${receiver.url}/flaky` });
    expect(listed.data[0]).toMatchObject({ event: 'succeeded', webhook_id: got[0]!.headers['webhook-id'], attempt_count: 3 });
    expect(listed.data[0].attempts.map((a: { status?: number }) => a.status)).toEqual([500, 503, 200]);
    expect(listed.data[0].attempts[0]).toEqual({
      at: expect.any(String),
      duration_ms: expect.any(Number),
      status: 500,
      error: 'HTTP 500',
      response_excerpt: '{}',
    });

    const again = await alice.post(`/v1/generations/${taskId}/deliveries/redeliver`, {});
    expect(again.status).toBe(202);
    await waitFor(async () => deliveriesOf(taskId).length >= 4, 15_000);
    expect(deliveriesOf(taskId)[3]!.headers['webhook-id']).toBe(got[0]!.headers['webhook-id']);
    // Another key's task reads as missing.
    expect((await api('bob').get(`/v1/generations/${taskId}/deliveries`)).status).toBe(404);
    expect((await api('bob').post(`/v1/generations/${taskId}/deliveries/redeliver`, {})).status).toBe(404);
  });

  test('410 Gone stops the retries', async () => {
    receiver.answers.push(410);
    const taskId = await startTask('gone');
    await waitFor(async () => deliveriesOf(taskId).length >= 1, 30_000);
    await sleep(2_500);
    expect(deliveriesOf(taskId)).toHaveLength(1);
    const r = await alice.get(`/v1/generations/${taskId}/deliveries`);
    expect(r.body.data[0]).toMatchObject({ state: 'gone', attempt_count: 1 });
  });

  test('a receiver slower than the attempt timeout is retried', async () => {
    receiver.delays.push(4_000);
    const taskId = await startTask('slow');
    await waitFor(async () => deliveriesOf(taskId).length >= 2, 30_000);
    const r = await waitFor(async () => {
      const d = await alice.get(`/v1/generations/${taskId}/deliveries`);
      return d.body.data?.[0]?.state === 'delivered' && d.body;
    }, 10_000);
    expect(r.data[0].attempts[0]).toMatchObject({ error: expect.stringMatching(/timed out after 2000 ms/) });
    expect(r.data[0].attempts[0].status).toBeUndefined();
    expect(r.data[0].attempts[1]).toMatchObject({ status: 200 });
  });

  test('a key with its own secret mid-rotation: both signatures are sent, each verifies alone', async () => {
    const erin = api('erin');
    expect((await erin.get('/v1/webhooks/default/secret')).body).toEqual({ key: ERIN_WEBHOOK_SECRETS.current });
    const taskId = await startTask('erin', {}, erin);
    await waitFor(async () => deliveriesOf(taskId).length >= 1, 30_000);
    const [g] = deliveriesOf(taskId);
    expect(String(g!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(g!, ERIN_WEBHOOK_SECRETS.current)).toMatchObject({ type: 'generation.succeeded' });
    expect(verify(g!, ERIN_WEBHOOK_SECRETS.previous)).toMatchObject({ type: 'generation.succeeded' });
    expect(() => verify(g!, aliceSecret)).toThrow();
  });

  test('a failed task sends generation.failed', async () => {
    const taskId = await startTask('failed', {}, alice, 'a forbidden thing [sim:fail=content_policy]');
    await waitFor(async () => deliveriesOf(taskId).length >= 1, 30_000);
    const [g] = deliveriesOf(taskId);
    expect(verify(g!, aliceSecret)).toMatchObject({
      type: 'generation.failed',
      data: { task_id: taskId, status: 'failed', error: { code: 'content_policy' } },
    });
  });

  test("a task cancelled by its client sends generation.failed with the cancel's error", async () => {
    const taskId = await startTask('cancelled', {}, alice, 'a very long take [sim:duration=60000]');
    await waitFor(async () => (await alice.get(`/v1/generations/${taskId}`)).body.status === 'running', 30_000);
    expect((await alice.post(`/v1/generations/${taskId}/cancel`, {})).status).toBe(200);
    await waitFor(async () => deliveriesOf(taskId).length >= 1, 30_000);
    const [g] = deliveriesOf(taskId);
    expect(verify(g!, aliceSecret)).toMatchObject({
      type: 'generation.failed',
      data: { task_id: taskId, status: 'failed', error: { code: 'cancelled' } },
    });
  });

  test('the final event announced again while its attempt is on the wire: every request the receiver got is an attempt counted, and no workflow task of the delivery failed', async () => {
    const temporal = await temporalClient(temporalAddress);
    try {
      let release!: () => void;
      // The first attempt, at the task's end, is refused: the delivery workflow makes the next, which the receiver holds.
      receiver.answers.push(500);
      receiver.gates.push(Promise.resolve(), new Promise<void>((r) => (release = r)));
      const taskId = await startTask('announced-twice');
      await waitFor(async () => deliveriesOf(taskId).length >= 2, 30_000);
      // The receiver holds its answer; meanwhile the event is announced again, as a retried announcement does.
      const delivery = temporal.client.workflow.getHandle(webhookDeliveryWorkflowId(taskId));
      await delivery.signal(WEBHOOK_EVENT_SIGNAL, { event: 'succeeded', occurredAt: new Date().toISOString() });
      release();
      await delivery.result();
      const listed = (await alice.get(`/v1/generations/${taskId}/deliveries`)).body;
      expect(listed.data).toEqual([expect.objectContaining({ event: 'succeeded', state: 'delivered' })]);
      // A send happens once per attempt, and every attempt is counted: one each unless an attempt timed out.
      expect(deliveriesOf(taskId)).toHaveLength(listed.data[0].attempt_count);
      const history = await delivery.fetchHistory();
      expect((history.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
    } finally {
      await temporal.close();
    }
  });

  test("deliveries run on a task queue of their own, beside the generation tasks': the workers poll both", async () => {
    const temporal = await temporalClient(temporalAddress);
    try {
      // Refused at the task's end: retried by a delivery workflow.
      receiver.answers.push(500);
      const taskId = await startTask('own-queue');
      await waitFor(async () => deliveriesOf(taskId).length >= 2, 30_000);
      const [task, delivery] = await Promise.all([
        temporal.client.workflow.getHandle(taskId).describe(),
        temporal.client.workflow.getHandle(webhookDeliveryWorkflowId(taskId)).describe(),
      ]);
      expect(delivery.taskQueue).toBe(webhookTaskQueue(task.taskQueue));
      expect(delivery.taskQueue).not.toBe(task.taskQueue);
    } finally {
      await temporal.close();
    }
  });

  test.each([
    ['https://127.0.0.1/hook', /private/],
    ['https://localhost:8443/hook', /private or local/],
    ['https://169.254.169.254/latest/meta-data', /private/],
    ['https://[::1]/hook', /private/],
    // IPv6 spellings that carry a private IPv4 address: 6to4 and IPv4-translated loopback, NAT64 of the metadata
    // address, Teredo with a loopback client.
    ['https://[2002:7f00:1::]/hook', /private/],
    ['https://[::ffff:0:7f00:1]/hook', /private/],
    ['https://[64:ff9b::a9fe:a9fe]/latest/meta-data', /private/],
    ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook', /private/],
    ['http://example.com/hook', /https.*WEBHOOK_ALLOW_PRIVATE_ORIGINS=http:\/\/example\.com/],
    ['http://127.0.0.1:8765/hook', /https.*WEBHOOK_ALLOW_PRIVATE_ORIGINS=http:\/\/127\.0\.0\.1:8765/],
    ['not a url', /absolute URL/],
  ])('webhook_url %s is refused with 400 naming webhook_url', async (url, why) => {
    const r = await alice.post('/v1/async/videos/generations', { model: V_MODEL, prompt: 'x', duration: 5, webhook_url: url });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ param: 'webhook_url', type: 'invalid_request_error', message: expect.stringMatching(why) });
  });

  test('webhook_events outside the three events is refused naming webhook_events', async () => {
    const r = await alice.post('/v1/async/videos/generations', {
      model: V_MODEL,
      prompt: 'x',
      duration: 5,
      webhook_url: `${receiver.url}/x`,
      webhook_events: ['done'],
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ param: 'webhook_events' });
  });
});

describe('a key kept in the database (admin API): its default webhook_url and its own secret, rotated; the backlog in visibility', () => {
  let temporal: TemporalTestClient;
  beforeAll(async () => {
    temporal = await temporalClient(temporalAddress);
  });
  afterAll(() => temporal.close());

  /**
   * The task's and its deliveries' histories as text (what an operator with Temporal access reads): the task's holds
   * the first attempt at its end; a delivery workflow's, when one was needed, the others.
   */
  const histories = async (taskId: string) => {
    const delivery = temporal.client.workflow.getHandle(webhookDeliveryWorkflowId(taskId));
    const started = await delivery.describe().then(
      () => true,
      (err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      },
    );
    return JSON.stringify([
      await temporal.client.workflow.getHandle(taskId).fetchHistory(),
      started ? await delivery.fetchHistory() : null,
    ]);
  };

  test("a task naming no webhook_url is delivered to the key's; after a rotation deliveries carry both signatures; no secret in any history", async () => {
    const id = `e2e-hooked-${Date.now()}`;
    const key = await makeKey(apiUrl, { id, webhook_url: `${receiver.url}/dbkey` });
    expect((await adminCall(apiUrl, 'GET', `/admin/v1/keys/${id}`)).body.webhook_url).toBe(`${receiver.url}/dbkey`);
    const before = (await key.get('/v1/webhooks/default/secret')).body.key as string;

    const first = await key.post('/v1/async/videos/generations', {
      model: V_MODEL,
      prompt: 'a key default hook [sim:duration=800]',
      duration: 5,
    });
    expect(first.status).toBe(200);
    await waitFor(async () => deliveriesOf(first.body.task_id).length >= 1, 30_000);
    const [plain] = deliveriesOf(first.body.task_id);
    expect(plain!.headers['webhook-signature']).not.toContain(' ');
    expect(verify(plain!, before)).toMatchObject({ type: 'generation.succeeded', data: { task_id: first.body.task_id } });

    expect((await adminCall(apiUrl, 'PATCH', `/admin/v1/keys/${id}`, { rotate_webhook_secret: true })).status).toBe(200);
    const after = (await key.get('/v1/webhooks/default/secret')).body.key as string;
    expect(after).toMatch(/^whsec_/);
    expect(after).not.toBe(before);

    const second = await key.post('/v1/async/videos/generations', {
      model: V_MODEL,
      prompt: 'a rotated hook [sim:duration=800]',
      duration: 5,
    });
    await waitFor(async () => deliveriesOf(second.body.task_id).length >= 1, 30_000);
    const [rotated] = deliveriesOf(second.body.task_id);
    expect(String(rotated!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(rotated!, after)).toMatchObject({ type: 'generation.succeeded' });
    expect(verify(rotated!, before)).toMatchObject({ type: 'generation.succeeded' });

    for (const taskId of [first.body.task_id, second.body.task_id]) {
      const text = await histories(taskId);
      for (const secret of [before, after]) expect(text).not.toContain(secret.slice('whsec_'.length));
    }
  });

  test("an event being retried is found in Temporal's visibility by the workers' backlog query (WebhookPendingSince), and no longer once delivered", async () => {
    const startedAt = Date.now();
    receiver.answers.push(...Array.from({ length: 10 }, () => 503));
    const taskId = await startTask('backlog');
    const workflowId = webhookDeliveryWorkflowId(taskId);
    // The workers' own queries (webhooks/backlog.ts), narrowed to this task's delivery.
    const count = async (query: string) => (await temporal.client.workflow.count(`${query} AND WorkflowId = '${workflowId}'`)).count;
    await waitFor(async () => deliveriesOf(taskId).length >= 1, 30_000);
    await waitFor(async () => (await count(pendingAtOrBefore(Date.now()))) === 1, 10_000);
    const since = (await temporal.client.workflow.getHandle(workflowId).describe()).typedSearchAttributes.get(WEBHOOK_PENDING_SINCE);
    expect(Date.parse(since!)).toBeGreaterThanOrEqual(startedAt);
    expect(Date.parse(since!)).toBeLessThanOrEqual(deliveriesOf(taskId)[0]!.at);
    // Found by counting on the real server, to within a second.
    const oldest = await oldestPendingSince(count, Date.now());
    expect(oldest).toBeGreaterThanOrEqual(Date.parse(since!));
    expect(oldest! - Date.parse(since!)).toBeLessThanOrEqual(1_000);
    // Delivered after the refusals: the attribute is cleared, the query finds nothing.
    await waitFor(async () => (await alice.get(`/v1/generations/${taskId}/deliveries`)).body.data?.[0]?.state === 'delivered', 30_000);
    await waitFor(async () => (await oldestPendingSince(count, Date.now())) === undefined, 10_000);
    expect(
      (await temporal.client.workflow.getHandle(workflowId).describe()).typedSearchAttributes.get(WEBHOOK_PENDING_SINCE),
    ).toBeUndefined();
  });
});

describe('videos created at /v1/videos are announced as videos', () => {
  const openai = new OpenAI({ apiKey: TEST_KEYS.alice.secret, baseURL: `${apiUrl}/v1`, maxRetries: 0 });

  test('the openai SDK (a form) with webhook_url and webhook_events: video.in_progress, then video.completed with {id, object: "video"}', async () => {
    // webhook_url and webhook_events are the gateway's own fields beside OpenAI's; the SDK sends them in its form
    // (videos.create is always multipart), the list as repeated `webhook_events[]`.
    const created = await openai.videos.create({
      model: V_MODEL,
      prompt: 'a video with a webhook [sim:duration=1200]',
      seconds: '4',
      webhook_url: `${receiver.url}/videos-form`,
      webhook_events: ['running', 'succeeded'],
    } as OpenAI.Videos.VideoCreateParams);
    await waitFor(async () => deliveriesOf(created.id).length >= 2, 30_000);
    const [running, completed] = deliveriesOf(created.id);
    expect(verify(running!, aliceSecret)).toEqual({
      type: 'video.in_progress',
      timestamp: expect.any(String),
      data: { id: created.id, object: 'video' },
    });
    expect(verify(completed!, aliceSecret)).toEqual({
      type: 'video.completed',
      timestamp: expect.any(String),
      data: { id: created.id, object: 'video' },
    });
    // What a receiver does next: the video by its id, completed before the event was sent.
    expect(await openai.videos.retrieve(created.id)).toMatchObject({ id: created.id, status: 'completed' });
    // The record lists an event once the workflow task after its attempt completes, a moment after the receiver has it.
    const listed = await waitFor(async () => {
      const data = (await alice.get(`/v1/generations/${created.id}/deliveries`)).body.data as { event: string; state: string }[];
      return data.length === 2 && data.every((e) => e.state === 'delivered') && data;
    }, 10_000);
    expect(listed.map((e) => e.event)).toEqual(['running', 'succeeded']);
  });

  test("video.completed at the task's end: the OpenAI SDK's videos.retrieve inside the receiver's handler finds the video completed", async () => {
    let release!: () => void;
    receiver.gates.push(new Promise<void>((r) => (release = r)));
    const created = await openai.videos.create({
      model: V_MODEL,
      prompt: 'a video read inside its webhook [sim:duration=800]',
      seconds: '4',
      webhook_url: `${receiver.url}/videos-inside`,
    } as OpenAI.Videos.VideoCreateParams);
    await waitFor(async () => deliveriesOf(created.id).length >= 1, 30_000);
    const inside = await openai.videos.retrieve(created.id).finally(release);
    expect(verify(deliveriesOf(created.id)[0]!, aliceSecret)).toMatchObject({ type: 'video.completed', data: { id: created.id } });
    expect(inside).toMatchObject({ id: created.id, status: 'completed', completed_at: expect.any(Number) });
    expect(await openai.videos.retrieve(created.id)).toMatchObject({ completed_at: inside.completed_at });
  });

  test('a JSON request with webhook_url: a failed video is announced as video.failed', async () => {
    const r = await alice.post('/v1/videos', {
      model: V_MODEL,
      prompt: 'a forbidden video [sim:fail=content_policy]',
      seconds: '4',
      webhook_url: `${receiver.url}/videos-json`,
    });
    expect(r.status).toBe(200);
    const { id } = r.body as { id: string };
    await waitFor(async () => deliveriesOf(id).length >= 1, 30_000);
    const [failed] = deliveriesOf(id);
    expect(failed!.raw).not.toContain('task_id');
    expect(verify(failed!, aliceSecret)).toEqual({ type: 'video.failed', timestamp: expect.any(String), data: { id, object: 'video' } });
    expect((await openai.videos.retrieve(id)).status).toBe('failed');
  });

  test('a task made at /v1/videos/generations stays a generation: generation.succeeded with its record', async () => {
    const taskId = await startTask('not-a-video');
    await waitFor(async () => deliveriesOf(taskId).length >= 1, 30_000);
    expect(verify(deliveriesOf(taskId)[0]!, aliceSecret)).toMatchObject({ type: 'generation.succeeded', data: { task_id: taskId } });
  });
});
