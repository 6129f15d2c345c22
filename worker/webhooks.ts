/**
 * The worker's side of client webhooks (activities/webhook-delivery.ts): the keys' signing secrets, the task
 * record as GET /v1/generations/:id renders it, the delivery settings and the metrics.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { WebhookDeps, WebhookRecordReader } from '../activities/webhook-delivery';
import { parseApiKeysFile } from '../api/api-keys';
import { toTaskRecord } from '../api/task-service';
import type { Logger } from '../core/logger';
import type { TaskMemo } from '../core/task';
import { webhookAllowedOrigins, webhookMasterSecret } from '../core/webhook-config';
import { webhookSecrets } from '../core/webhook-signing';
import { ResultLinks, withRequestOrigin } from '../results/result-links';
import { resolveLinks } from '../results/results-config';
import type { ResultStore } from '../results/result-store';
import type { WorkerConfig } from './worker-config';
import type { WorkerMetrics } from './worker-metrics';

/** How long a `running` event waits for the task's memo to say so (its upsert is in the same workflow task). */
const RUNNING_VISIBLE_WAIT_MS = 2_000;

export function webhookDeps(config: WorkerConfig, client: Client, store: ResultStore, metrics: WorkerMetrics, logger: Logger): WebhookDeps {
  const keys = config.API_KEYS_FILE ? parseApiKeysFile(config.API_KEYS_FILE) : [];
  const masterSecret = webhookMasterSecret(config);
  if (!config.WEBHOOK_SIGNING_SECRET && masterSecret) logger.warn('WEBHOOK_SIGNING_SECRET is not set: webhooks are signed with secrets derived from a development constant (npm start keeps one in data/)');
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
      explicit: async (keyId) => keys.find((k) => k.id === keyId)?.webhookSecret,
    }),
    readRecord: taskRecordReader(client, resultLinks(config, store, logger)),
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
 * The task's record at send time, exactly as GET /v1/generations/:id shows it (api/task-service.ts toTaskRecord),
 * with result links based on the origin the client used. A final event first waits for the task's workflow to
 * close, so its record is final and a sync caller has its answer before the first attempt; a running event of a
 * task that has ended meanwhile is superseded.
 */
function taskRecordReader(client: Client, links: ResultLinks): WebhookRecordReader {
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
      const result = desc.status.name === 'COMPLETED' ? memo.result : undefined;
      const rendered = result ? await withRequestOrigin(linkBase ?? '', () => links.render(taskId, result)) : undefined;
      return toTaskRecord(desc, rendered);
    }
  };
}
