/**
 * Worker process: installs the Runtime (logs through pino, SDK metrics on WORKER_SDK_METRICS_PORT), serves the
 * gateway's metrics (WORKER_METRICS_PORT), connects to Temporal, registers the search attributes if missing,
 * and runs the generation workflow and the platform activities until SIGINT/SIGTERM.
 * On a signal the worker stops polling, lets in-flight activities finish for up to WORKER_SHUTDOWN_GRACE_MS,
 * and exits: nothing is lost, since Temporal hands unfinished work to another worker.
 * Each step is a named function in worker/start-up.ts (the workflow code: worker/workflow-bundle.ts).
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { ConfigError } from '../core/config';
import { createLogger } from '../core/logger';
import { hintTask } from '../core/task-hints';
import { createWebhookActivities } from '../webhooks/activities';
import { webhookTaskQueue } from '../core/webhooks';
import { temporalConnectionOptions } from '../core/temporal-connection';
import { createHttpClient } from '../platforms/http';
import { PushMonitor } from './push-monitor';
import { TaskSettlement } from '../tasks/settlement';
import { Reconciler } from '../tasks/reconciliation';
import type { LedgerDatabase } from '../ledger/database';
import { AccountStatePublisher } from './account-states';
import { openCapacity } from './capacity';
import {
  configureAnnouncements,
  connectClient,
  createAdapters,
  createResults,
  ensureReconciliation,
  ensureRetention,
  installRuntime,
  logPlatforms,
  lostAnswerReporter,
  openLedger,
  startEventConsumers,
  startMetrics,
  stopSignal,
} from './start-up';
import { loadWorkerConfig, type WorkerConfig } from './worker-config';
import { WorkerMetrics } from './worker-metrics';
import { webhookDeps } from './webhooks';
import { workflowCode } from './workflow-bundle';

/** Watches whether the platforms that announce their jobs (push) still do. */
function pushMonitorFor(config: WorkerConfig): PushMonitor {
  const pushConfigured = new Set(
    Object.entries(config.platforms)
      .filter(([, p]) => p.push)
      .map(([id]) => id),
  );
  return new PushMonitor(pushConfigured, config.PUSH_HEALTH_WINDOW_MS);
}

type Logger = ReturnType<typeof createLogger>;

/** What the worker runs on, each started by its named step (worker/start-up.ts), in order. */
async function startParts(config: WorkerConfig, logger: Logger) {
  installRuntime(config, logger);
  const metrics = new WorkerMetrics();
  const metricsServer = await startMetrics(metrics, config, logger);
  logPlatforms(config, logger);
  const client = await connectClient(config, logger);
  await ensureRetention(client, config, logger);
  await ensureReconciliation(client, config, logger);
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  const http = createHttpClient({
    connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: config.UPSTREAM_RESPONSE_TIMEOUT_MS,
  });
  const results = createResults(config, logger);
  const { adapters, pools } = createAdapters(config, http, metrics, logger);
  await configureAnnouncements(config, http, logger);
  // One catalogue and one price table (PRICES_FILE) for the activities, the settlement and the webhooks' records.
  const { catalogue, pricing } = config;
  const ledger = await openLedger(config, logger);
  const settlement = new TaskSettlement(ledger, pricing, logger, metrics.ledgerObserver());
  // The accounts' states for the operator's console, through the database every API replica reads.
  const accountStates = ledger ? new AccountStatePublisher(ledger, pools, logger) : undefined;
  if (accountStates) metrics.onAccountRefusal = (...args) => accountStates.refusal(...args);
  accountStates?.start();
  // Each account's slots and the tasks waiting for one, shared by every worker through the same database.
  const capacity = await openCapacity(ledger, client, config.platforms, pools, metrics, logger, config.CAPACITY_FLEX_JOBS);
  return {
    accountStates,
    capacity,
    metrics,
    metricsServer,
    client,
    connection,
    http,
    results,
    adapters,
    pools,
    pushMonitor: pushMonitorFor(config),
    catalogue,
    pricing,
    ledger,
    settlement,
  };
}

type Parts = Awaited<ReturnType<typeof startParts>>;

/**
 * The Temporal workers: one on the task queue of the generation tasks, one on the webhook deliveries' own
 * (core/webhooks.ts webhookTaskQueue), so a delivery never waits behind a backlog of tasks; both run the same
 * workflows and activities over the same parts.
 */
async function createWorkers(config: WorkerConfig, p: Parts, logger: Logger): Promise<Worker[]> {
  const code = await workflowCode(config.WORKFLOW_BUNDLE_PATH, logger);
  const activities = createActivities({
    catalogue: p.catalogue,
    adapters: p.adapters,
    pools: p.pools,
    timing: config.timing,
    push: p.pushMonitor,
    fallbackPollIntervalMs: config.POLL_FALLBACK_INTERVAL_MS,
    fallbackPollMaxIntervalMs: config.POLL_FALLBACK_MAX_INTERVAL_MS,
    upstreamLostGraceMs: config.UPSTREAM_LOST_GRACE_MS,
    lostAnswerSearchMs: config.LOST_ANSWER_SEARCH_MS,
    results: { store: p.results.store, copier: p.results.copier, observer: p.metrics.resultObserver() },
    hint: (platform, hint) => hintTask(p.client, platform, hint),
    stopping: stopSignal(),
    onLostAnswer: lostAnswerReporter(p.metrics, logger),
    settle: (input) => p.settlement.settle(input),
    ...(p.capacity ? { capacity: p.capacity } : {}),
    ...(p.ledger ? { reconciliation: reconcilerFor(p, p.ledger) } : {}),
  });
  const options = {
    connection: p.connection,
    namespace: config.TEMPORAL_NAMESPACE,
    ...code,
    // Client webhooks' activities beside the tasks' (webhooks/activities.ts).
    activities: {
      ...activities,
      ...createWebhookActivities(webhookDeps(config, p.client, p.results.store, p.metrics, logger, p.pricing, p.ledger)),
    },
    sinks: { ...p.metrics.sinks(), pushMonitor: { seen: { fn: (_info: unknown, platform: string) => p.pushMonitor.seen(platform) } } },
    shutdownGraceTime: config.WORKER_SHUTDOWN_GRACE_MS,
    maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
  };
  return Promise.all([
    Worker.create({ ...options, taskQueue: config.TEMPORAL_TASK_QUEUE }),
    Worker.create({ ...options, taskQueue: webhookTaskQueue(config.TEMPORAL_TASK_QUEUE) }),
  ]);
}

/** The ledger against the platforms' records, over every account of every platform this worker serves. */
function reconcilerFor(p: Parts, ledger: LedgerDatabase): Reconciler {
  const accounts = Object.fromEntries(
    Object.entries(p.pools).flatMap(([platform, pool]) =>
      pool ? [[platform, pool.accounts.map((a) => ({ id: a.id, adapter: a.adapter }))]] : [],
    ),
  );
  return new Reconciler({ ledger, client: p.client, accounts, onReport: (r) => p.metrics.reconciled(r) });
}

/** Everything the worker opened, closed once it has stopped. */
async function closeParts(p: Parts): Promise<void> {
  await p.client.connection.close();
  await p.connection.close();
  await p.http.close();
  await p.results.copier.close();
  await p.results.store.close?.();
  await p.accountStates?.stop();
  await p.capacity?.stop();
  await p.ledger?.close();
  await new Promise((resolve) => p.metricsServer.close(resolve));
}

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const logger = createLogger('worker', config.LOG_LEVEL);
  const parts = await startParts(config, logger);
  const workers = await createWorkers(config, parts, logger);
  await startEventConsumers(parts.client, parts.adapters, config, logger);
  logger.info(
    { taskQueue: config.TEMPORAL_TASK_QUEUE, address: config.TEMPORAL_ADDRESS, platforms: Object.keys(config.platforms) },
    'Worker started',
  );
  try {
    await Promise.all(workers.map((w) => w.run()));
  } finally {
    await closeParts(parts);
    logger.info('Worker stopped');
  }
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
