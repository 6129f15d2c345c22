/**
 * The webhook activities: `announceWebhookEvent` hands an event of a task to its delivery workflow
 * (a local activity of the generation workflow: one marker event in its history, nothing more), `deliverWebhook`
 * makes one signed attempt (workflows/webhook-delivery.ts retries), and `firstWebhookAttempt` makes the final
 * event's first attempt as a step of the task's end, handing the event to the delivery workflow only when it does not
 * deliver (webhooks/first-attempt.ts). The worker adds them to its activities (worker/main.ts); the workflows know
 * them by their signatures (core/webhooks.ts WebhookActivities).
 *
 * An attempt reads the task record at send time (exactly as GET /v1/generations/:id shows it) and the key's
 * signing secret by key id (webhooks/signing.ts), so neither is ever in a workflow's history. It connects only
 * to public addresses, checked on the address it actually connects to (results/address-guard.ts: DNS rebinding),
 * unless the URL's origin is in WEBHOOK_ALLOW_PRIVATE_ORIGINS; it follows no redirect and reads at most
 * MAX_ANSWER_BYTES of the answer.
 */
import type { Client } from '@temporalio/client';
import { Agent, request, type Dispatcher } from 'undici';
import { isPrivateAddress } from '../core/private-address';
import type { DeliveryAttempt, WebhookActivities, WebhookSendInput, WebhookSendResult, WebhookTiming } from '../core/webhooks';
import { guardedLookup, guardedLookupVia, type Resolver } from '../results/address-guard';
import { signalDelivery } from './delivery';
import { webhookEventBody, type WebhookRecordReader } from './event-body';
import { firstAttempt } from './first-attempt';
import { webhookSignature, type WebhookSecrets } from './signing';
import { parseWebhookUrl } from './url';

/** How much of a receiver's answer is read and kept (a status and a short excerpt only). */
export const MAX_ANSWER_BYTES = 1024;
const EXCERPT_CHARS = 200;

/**
 * What an attempt tells the metrics (worker/worker-metrics.ts). An event's fate is not an attempt's to tell: the
 * workflow that settles it reports it — the delivery workflow, or the task's end step for an event its first attempt
 * settled (workflows/sinks.ts, WebhookMetricsSinks) — once, whereas an attempt may be made again for one fate.
 */
export interface WebhookObserver {
  attempt(outcome: WebhookSendResult['outcome'], durationMs: number): void;
}

export interface WebhookDeps {
  client: Client;
  taskQueue: string;
  timing: WebhookTiming;
  secrets: WebhookSecrets;
  readRecord: WebhookRecordReader;
  allowPrivateOrigins: ReadonlySet<string>;
  observer?: WebhookObserver;
  /** How host names are resolved at connect time (default: the system's, dns.lookup); tests stand in a changed DNS answer. */
  resolve?: Resolver;
}

export function createWebhookActivities(deps: WebhookDeps): WebhookActivities {
  const guarded = new Agent({ connect: { lookup: deps.resolve ? guardedLookupVia(deps.resolve) : guardedLookup } });
  const open = new Agent();
  return {
    /** Starts the task's delivery workflow if needed and gives it the event (idempotent: the workflow deduplicates). */
    async announceWebhookEvent(input) {
      const delivery = { taskId: input.taskId, ownerId: input.ownerId, target: input.target, timing: deps.timing };
      await signalDelivery(deps.client, deps.taskQueue, delivery, { event: input.event, occurredAt: input.occurredAt });
    },

    /** One signed attempt; the receiver's answer (or its absence) is the result, never an exception. */
    deliverWebhook,

    /** The final event's first attempt at the task's end, and its hand-over when it does not deliver. */
    firstWebhookAttempt: (input) => firstAttempt(deps, input, deliverWebhook),
  };

  async function deliverWebhook(input: WebhookSendInput): Promise<WebhookSendResult> {
    const started = Date.now();
    const result = await attempt(deps, input, (url) => (deps.allowPrivateOrigins.has(url.origin) ? open : guarded));
    const duration = Date.now() - started;
    result.attempt.duration_ms = duration;
    deps.observer?.attempt(result.outcome, duration);
    return result;
  }
}

async function attempt(deps: WebhookDeps, input: WebhookSendInput, agentFor: (url: URL) => Dispatcher): Promise<WebhookSendResult> {
  const at = new Date().toISOString();
  const failed = (error: string, status?: number, excerpt?: string): WebhookSendResult => ({
    outcome: 'retry',
    attempt: { at, duration_ms: 0, ...(status === undefined ? {} : { status }), error, ...(excerpt ? { response_excerpt: excerpt } : {}) },
  });
  let url: URL;
  try {
    url = parseWebhookUrl(input.target.url, deps.allowPrivateOrigins);
  } catch (err) {
    return failed(`webhook_url refused: ${(err as Error).message}`);
  }
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!deps.allowPrivateOrigins.has(url.origin) && isPrivateAddress(literal))
    return failed(`webhook_url refused: ${url.hostname} is a private address`);
  let keys;
  try {
    keys = await deps.secrets.forKey(input.ownerId);
  } catch (err) {
    // The key store could not be read (its database restarting): retried like an unreachable receiver.
    return failed(`the key's webhook secret could not be read: ${(err as Error).message}`);
  }
  if (!keys) return failed("no webhook signing secret for this key (WEBHOOK_SIGNING_SECRET or the key's webhook_secret)");
  const subject = await deps.readRecord(input.taskId, input.event, input.target.linkBase, input.attemptTimeoutMs, input.taskOpen);
  if (subject === 'superseded') return { outcome: 'superseded', attempt: { at, duration_ms: 0 } };
  if (!subject) return failed('the task could not be read');
  const body = webhookEventBody(input.event, input.occurredAt, subject);
  const timestamp = Math.floor(Date.now() / 1000);
  return send(
    url,
    agentFor(url),
    input.attemptTimeoutMs,
    body,
    {
      'content-type': 'application/json',
      'user-agent': 'mediagate-webhooks',
      'webhook-id': input.webhookId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': webhookSignature(keys, input.webhookId, timestamp, body),
    },
    at,
  );
}

async function send(
  url: URL,
  dispatcher: Dispatcher,
  timeoutMs: number,
  body: string,
  headers: Record<string, string>,
  at: string,
): Promise<WebhookSendResult> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await request(url, {
      method: 'POST',
      headers,
      body,
      dispatcher,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const excerpt = await readExcerpt(res.body);
    const attempt: DeliveryAttempt = { at, duration_ms: 0, status: res.statusCode, ...(excerpt ? { response_excerpt: excerpt } : {}) };
    if (res.statusCode >= 200 && res.statusCode < 300) return { outcome: 'delivered', attempt };
    // 410 Gone: the receiver asks for no more. Redirects (3xx) are not followed: retried.
    if (res.statusCode === 410) return { outcome: 'gone', attempt };
    return { outcome: 'retry', attempt: { ...attempt, error: `HTTP ${res.statusCode}` } };
  } catch (err) {
    const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
    const why = signal.aborted ? `timed out after ${timeoutMs} ms` : (e.cause?.message ?? e.message);
    return { outcome: 'retry', attempt: { at, duration_ms: 0, error: why } };
  }
}

/** The first MAX_ANSWER_BYTES of the answer as text (the rest is discarded unread). */
async function readExcerpt(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= MAX_ANSWER_BYTES) break;
  }
  body.destroy();
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8').slice(0, EXCERPT_CHARS);
}
