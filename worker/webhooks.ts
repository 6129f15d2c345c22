/**
 * The worker's side of client webhooks (activities/webhook-delivery.ts): the keys' signing secrets, the task
 * record as GET /v1/generations/:id renders it, the delivery settings and the metrics (attempts here; events
 * settled through the delivery workflow's sink; the undelivered backlog from visibility, worker/webhook-backlog.ts).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { WebhookDeps, WebhookRecordReader } from '../activities/webhook-delivery';
import { parseApiKeysFile } from '../keys/api-keys';
import { withTaskCost } from '../tasks/record';
import { toTaskRecord } from '../tasks/record';
import type { Logger } from '../core/logger';
import type { TaskMemo } from '../core/task';
import { webhookAllowedOrigins, webhookMasterSecret } from '../core/webhook-config';
import { webhookSecrets, type ExplicitWebhookSecret } from '../core/webhook-signing';
import type { LedgerDatabase } from '../ledger/database';
import { keyWebhookSecret } from '../ledger/keys';
import { ResultLinks, withRequestOrigin } from '../results/result-links';
import { resolveLinks } from '../results/results-config';
import type { TaskPricing } from '../pricing/price-table';
import type { ResultStore } from '../results/result-store';
import { WebhookBacklog } from './webhook-backlog';
import type { WorkerConfig } from './worker-config';
import type { WorkerMetrics } from './worker-metrics';

/** How long a `running` event waits for the task's memo to say so (its upsert is in the same workflow task). */
const RUNNING_VISIBLE_WAIT_MS = 2_000;

/**
 * A key's own webhook secret, read at send time: an API_KEYS_FILE entry's (a bootstrap key's id wins, as on the
 * API), else the stored key's in the ledger's database (rotated through the admin API), read on every attempt so a
 * rotation applies to the next one. A failed read throws (the attempt is retried): falling back to the derived
 * secret would sign with one the receiver may not know.
 */
function explicitWebhookSecret(
  config: WorkerConfig,
  ledger: LedgerDatabase | undefined,
): (keyId: string) => Promise<ExplicitWebhookSecret | undefined> {
  const fileKeys = config.API_KEYS_FILE ? parseApiKeysFile(config.API_KEYS_FILE) : [];
  return async (keyId) => {
    const fileKey = fileKeys.find((k) => k.id === keyId);
    if (fileKey) return fileKey.webhookSecret;
    return ledger ? keyWebhookSecret(ledger, keyId) : undefined;
  };
}

export function webhookDeps(
  config: WorkerConfig,
  client: Client,
  store: ResultStore,
  metrics: WorkerMetrics,
  logger: Logger,
  pricing: TaskPricing,
  ledger?: LedgerDatabase,
): WebhookDeps {
  const masterSecret = webhookMasterSecret(config);
  if (!config.WEBHOOK_SIGNING_SECRET && masterSecret)
    logger.warn(
      'WEBHOOK_SIGNING_SECRET is not set: webhooks are signed with secrets derived from a development constant (npm start keeps one in data/)',
    );
  metrics.webhookBacklog = new WebhookBacklog(async (query) => (await client.workflow.count(query)).count, {
    refreshMs: 10_000,
    timeoutMs: 5_000,
    onError: (err) =>
      logger.warn(
        { err },
        'The webhook backlog could not be read from Temporal visibility: mediagate_webhook_oldest_undelivered_age_seconds keeps its last value',
      ),
  });
  return {
    client,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    timing: {
      attemptTimeoutMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS,
      initialIntervalMs: config.WEBHOOK_RETRY_INITIAL_MS,
      maxIntervalMs: config.WEBHOOK_RETRY_MAX_INTERVAL_MS,
      retryForMs: config.WEBHOOK_RETRY_FOR_MS,
    },
    secrets: webhookSecrets({
      masterSecret,
      previousMasterSecret: config.WEBHOOK_SIGNING_SECRET_PREVIOUS,
      explicit: explicitWebhookSecret(config, ledger),
    }),
    readRecord: taskRecordReader(client, resultLinks(config, store, logger), pricing),
    allowPrivateOrigins: webhookAllowedOrigins(config),
    observer: metrics.webhookObserver(),
  };
}

function resultLinks(config: WorkerConfig, store: ResultStore, logger: Logger): ResultLinks {
  const links = resolveLinks(config);
  let secret: string | Buffer | undefined = links.secret;
  if (links.mode === 'gateway' && !secret) {
    secret = randomBytes(32);
    logger.warn('RESULT_URL_SECRET is not set on the worker: result links in webhook deliveries will not open on the API');
  }
  return new ResultLinks({ ...links, secret: secret ?? '', store });
}

/**
 * What an event tells of, read at send time: the task's record exactly as GET /v1/generations/:id shows it (tasks/record.ts toTaskRecord,
 * priced by tasks/record.ts withTaskCost with the same PRICES_FILE as the API),
 * with result links based on the origin the client used. A final event first waits for the task's workflow to
 * close, so its record is final and a sync caller has its answer before the first attempt; a running event of a
 * task that has ended meanwhile is superseded.
 */
function taskRecordReader(client: Client, links: ResultLinks, pricing: TaskPricing): WebhookRecordReader {
  return async (taskId, event, linkBase, timeoutMs) => {
    const handle = client.workflow.getHandle(taskId);
    if (event !== 'running') await client.withDeadline(Date.now() + timeoutMs, () => handle.result()).catch(() => undefined);
    const waitUntil = Date.now() + RUNNING_VISIBLE_WAIT_MS;
    for (;;) {
      const desc = await handle.describe();
      const memo = (desc.memo ?? {}) as TaskMemo;
      if (event === 'running' && desc.status.name !== 'RUNNING') return 'superseded';
      if (event !== 'running' && desc.status.name === 'RUNNING') return undefined;
      if (event === 'running' && memo.status !== 'running' && Date.now() < waitUntil) {
        await sleep(50);
        continue;
      }
      // A task created at POST /v1/videos is announced as the video it is, by id.
      if (memo.asked?.via === 'videos') return { kind: 'video', id: taskId };
      const result = desc.status.name === 'COMPLETED' ? memo.result : undefined;
      const rendered = result ? await withRequestOrigin(linkBase ?? '', () => links.render(taskId, result)) : undefined;
      return { kind: 'generation', record: withTaskCost(desc, toTaskRecord(desc, rendered), pricing) };
    }
  };
}
