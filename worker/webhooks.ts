/**
 * The worker's wiring of client webhooks (webhooks/activities.ts): the keys' signing secrets, the reader of the
 * event's record (webhooks/event-body.ts) with this worker's result links and prices, the delivery settings and
 * the metrics (attempts here; events settled through the delivery workflow's sink; the undelivered backlog from
 * visibility, webhooks/backlog.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Logger } from '../core/logger';
import type { ExplicitWebhookSecret } from '../core/webhook-secret';
import { parseApiKeysFile } from '../keys/api-keys';
import type { LedgerDatabase } from '../ledger/database';
import { keyWebhookSecret } from '../ledger/keys';
import type { TaskPricing } from '../pricing/price-table';
import { ResultLinks } from '../results/result-links';
import { resolveLinks } from '../results/results-config';
import type { ResultStore } from '../results/result-store';
import type { WebhookDeps } from '../webhooks/activities';
import { WebhookBacklog } from '../webhooks/backlog';
import { webhookAllowedOrigins, webhookMasterSecret } from '../webhooks/config';
import { taskSubjectReader } from '../webhooks/event-body';
import { webhookSecrets } from '../webhooks/signing';
import type { WorkerConfig } from './worker-config';
import type { WorkerMetrics } from './worker-metrics';

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
    readRecord: taskSubjectReader(client, resultLinks(config, store, logger), pricing),
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
