/**
 * The delivery attempt's own address check: a webhook URL that passed the request-time check is
 * checked again on the address the connection is actually made to, so a name that resolves to a private address
 * by delivery time (DNS rebinding) is refused and nothing is sent. A real receiver on loopback stands where the
 * rebound name points; the resolver stands in for the DNS answer that changed. And what is done with an answer:
 * a redirect is a failed attempt, never followed; a large (or endless) answer is read only up to its bound.
 */
import type { Client } from '@temporalio/client';
import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookActivities, MAX_ANSWER_BYTES } from '../../../webhooks/activities';
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from '../../../core/webhooks';
import type { WebhookSubject } from '../../../webhooks/event-body';
import { derivedWebhookSecret, webhookSecrets } from '../../../webhooks/signing';
import { startReceiver, type Receiver } from '../../support/receiver';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver('/hook');
});
afterAll(() => receiver.close());

const MASTER = 'a-master-secret-for-this-test-0123456789';

type DeliveryDeps = Parameters<typeof createWebhookActivities>[0];

/**
 * The webhook activities as deliverWebhook uses them: a 1 s attempt, the master secret, a successful generation's
 * record, no private origin allowed; `deps` changes any of it.
 */
const deliveryActivities = (deps: Partial<DeliveryDeps> = {}) =>
  createWebhookActivities({
    client: undefined as unknown as Client, // not used by deliverWebhook
    taskQueue: 'unused',
    timing: { attemptTimeoutMs: 1_000, initialIntervalMs: 1, maxIntervalMs: 1, retryForMs: 1 },
    secrets: webhookSecrets({ masterSecret: MASTER, explicit: async () => undefined }),
    readRecord: async (taskId) => ({ kind: 'generation', record: { task_id: taskId, status: 'success', model: 'm' } }),
    allowPrivateOrigins: new Set(),
    ...deps,
  });

const activities = (resolvesTo: string) =>
  deliveryActivities({ resolve: (_host, _opts, callback) => callback(null, [{ address: resolvesTo, family: 4 } as LookupAddress]) });

const send = (url: string, resolvesTo: string) =>
  activities(resolvesTo).deliverWebhook({
    taskId: 'task_x',
    ownerId: 'alice',
    target: { url, events: ['succeeded'] },
    webhookId: 'msg_task_x_succeeded',
    event: 'succeeded',
    occurredAt: new Date().toISOString(),
    attemptTimeoutMs: 1_000,
  });

describe('deliverWebhook: the address check at delivery', () => {
  test('a public name that now resolves to loopback is refused at connect, nothing reaches the receiver', async () => {
    const port = new URL(receiver.url).port;
    const result = await send(`https://hooks.example.com:${port}/hook`, '127.0.0.1');
    expect(result.outcome).toBe('retry');
    expect(result.attempt.error).toMatch(/private address \(127\.0\.0\.1\)/);
    expect(result.attempt.status).toBeUndefined();
    expect(receiver.got).toHaveLength(0);
  });

  test.each(['10.0.0.7', '169.254.169.254'])(
    'a literal private address (%s) in a stored URL is refused before any connection',
    async (ip) => {
      const result = await send(`https://${ip}/hook`, '8.8.8.8');
      expect(result).toMatchObject({ outcome: 'retry', attempt: { error: expect.stringMatching(/private/) } });
    },
  );

  test('the same name resolving to a public address is not refused by the guard (it fails, here, for want of a network)', async () => {
    const result = await send('https://hooks.example.com/hook', '198.41.0.4');
    expect(result.outcome).toBe('retry');
    expect(result.attempt.error).not.toMatch(/private/);
  });
});

describe("deliverWebhook: the event's body, by what the task was created as", () => {
  /** Activities whose record reader answers `subject`, delivering to the loopback receiver (an allowed origin). */
  const toReceiver = (subject: WebhookSubject) =>
    deliveryActivities({ readRecord: async () => subject, allowPrivateOrigins: new Set([new URL(receiver.url).origin]) });
  const deliver = async (subject: WebhookSubject, event: WebhookEvent) => {
    const result = await toReceiver(subject).deliverWebhook({
      taskId: 'task_v',
      ownerId: 'alice',
      target: { url: receiver.url, events: [event] },
      webhookId: `msg_task_v_${event}`,
      event,
      occurredAt: '2026-11-25T07:00:00.000Z',
      attemptTimeoutMs: 1_000,
    });
    expect(result.outcome).toBe('delivered');
    const got = receiver.got.at(-1)!;
    // Verified by the standardwebhooks package with the key's secret, as a receiver does.
    return new Webhook(derivedWebhookSecret(MASTER, 'alice')).verify(got.raw, got.headers as Record<string, string>);
  };

  test.each([
    ['succeeded', 'video.completed'],
    ['failed', 'video.failed'],
    ['running', 'video.in_progress'],
  ] as const)('a task created at /v1/videos: %s is announced as %s with data {id, object: "video"}', async (event, type) => {
    expect(await deliver({ kind: 'video', id: 'task_v' }, event)).toEqual({
      type,
      timestamp: '2026-11-25T07:00:00.000Z',
      data: { id: 'task_v', object: 'video' },
    });
  });

  test('any other task: generation.<event> with the task record', async () => {
    const record = { task_id: 'task_v', status: 'success', model: 'm' };
    expect(await deliver({ kind: 'generation', record }, 'succeeded')).toEqual({
      type: 'generation.succeeded',
      timestamp: '2026-11-25T07:00:00.000Z',
      data: record,
    });
  });
});

describe('deliverWebhook: the key store unreadable', () => {
  test("a failed read of the key's secrets (its database away) is retried, and nothing is sent unsigned or signed otherwise", async () => {
    const before = receiver.got.length;
    const result = await deliveryActivities({
      secrets: webhookSecrets({
        masterSecret: MASTER,
        explicit: async () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:5433');
        },
      }),
      readRecord: async () => ({ kind: 'video', id: 'task_v' }),
      allowPrivateOrigins: new Set([new URL(receiver.url).origin]),
    }).deliverWebhook({
      taskId: 'task_v',
      ownerId: 'alice',
      target: { url: receiver.url, events: ['succeeded'] },
      webhookId: 'msg_task_v_succeeded',
      event: 'succeeded',
      occurredAt: new Date().toISOString(),
      attemptTimeoutMs: 1_000,
    });
    expect(result).toMatchObject({
      outcome: 'retry',
      attempt: { error: expect.stringMatching(/webhook secret could not be read: connect ECONNREFUSED/) },
    });
    expect(receiver.got.length).toBe(before);
  });
});

describe("deliverWebhook: the receiver's answer", () => {
  /** A receiver answering every POST with `answer`; counts the requests per path. */
  async function answering(answer: (req: IncomingMessage, res: ServerResponse) => void) {
    const hits: string[] = [];
    const closed: Promise<void>[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url ?? '');
      closed.push(new Promise((r) => res.once('close', () => r())));
      req.resume();
      req.once('end', () => answer(req, res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      origin,
      hits,
      closed,
      close: () =>
        new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
    };
  }
  const attemptTo = (origin: string) =>
    deliveryActivities({
      timing: { attemptTimeoutMs: 5_000, initialIntervalMs: 1, maxIntervalMs: 1, retryForMs: 1 },
      allowPrivateOrigins: new Set([origin]),
    }).deliverWebhook({
      taskId: 'task_a',
      ownerId: 'alice',
      target: { url: `${origin}/hook`, events: ['succeeded'] },
      webhookId: 'msg_task_a_succeeded',
      event: 'succeeded',
      occurredAt: new Date().toISOString(),
      attemptTimeoutMs: 5_000,
    });

  test.each([301, 302, 303, 307, 308])(
    'a %i redirect is not followed: a failed attempt (retried), the Location never called',
    async (status) => {
      const r = await answering((_req, res) => res.writeHead(status, { location: '/elsewhere' }).end('moved'));
      try {
        const result = await attemptTo(r.origin);
        expect(result).toMatchObject({ outcome: 'retry', attempt: { status, error: `HTTP ${status}`, response_excerpt: 'moved' } });
        expect(r.hits).toEqual(['/hook']);
      } finally {
        await r.close();
      }
    },
  );

  test('a large answer: only MAX_ANSWER_BYTES are read and a short excerpt kept; the rest is never read', async () => {
    // An answer with no end: an attempt that read it all would never finish.
    let written = 0;
    const r = await answering((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const more = () => {
        while (!res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) break;
        }
        if (!res.destroyed) res.once('drain', more);
      };
      more();
    });
    try {
      const t0 = Date.now();
      const result = await attemptTo(r.origin);
      expect(result.outcome).toBe('delivered');
      expect(result.attempt).toMatchObject({ status: 200, response_excerpt: 'x'.repeat(200) });
      expect(Date.now() - t0).toBeLessThan(3_000);
      // The connection is dropped rather than drained: the receiver sees it close while still writing.
      await r.closed[0];
      expect(written).toBeGreaterThan(MAX_ANSWER_BYTES);
    } finally {
      await r.close();
    }
  });

  test('a large answer with an error status: the same bound; the excerpt is its first 200 characters', async () => {
    const body = JSON.stringify({ error: 'overloaded', detail: 'y'.repeat(5 * 1024 * 1024) });
    const r = await answering((_req, res) => res.writeHead(503, { 'content-type': 'application/json' }).end(body));
    try {
      const result = await attemptTo(r.origin);
      expect(result).toMatchObject({ outcome: 'retry', attempt: { status: 503, error: 'HTTP 503', response_excerpt: body.slice(0, 200) } });
    } finally {
      await r.close();
    }
  });
});
