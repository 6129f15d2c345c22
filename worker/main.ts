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
import { temporalConnectionOptions } from '../core/temporal-connection';
import { buildCatalogue } from '../platforms';
import { TaskPricing } from '../pricing/price-table';
import { createHttpClient } from '../platforms/http';
import { PushMonitor } from './push-monitor';
import { openSettlement } from './settlement';
import {
  configureAnnouncements,
  connectClient,
  createAdapters,
  createResults,
  ensureRetention,
  installRuntime,
  logPlatforms,
  lostAnswerReporter,
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

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const logger = createLogger('worker', config.LOG_LEVEL);
  installRuntime(config, logger);
  const metrics = new WorkerMetrics();
  const metricsServer = await startMetrics(metrics, config, logger);
  logPlatforms(config, logger);

  const client = await connectClient(config, logger);
  await ensureRetention(client, config, logger);
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  const http = createHttpClient({
    connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: config.UPSTREAM_RESPONSE_TIMEOUT_MS,
  });
  const pushMonitor = pushMonitorFor(config);
  const results = createResults(config, logger);
  const { adapters, pools } = createAdapters(config, http, metrics, logger);
  await configureAnnouncements(config, http, logger);
  const stopping = stopSignal();
  // One catalogue and one price table (PRICES_FILE) for the activities, the settlement and the webhooks' records.
  const catalogue = buildCatalogue(process.env);
  const pricing = TaskPricing.load(catalogue, process.env);
  const settlement = await openSettlement(config, pricing, metrics, logger);
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    ...(await workflowCode(config.WORKFLOW_BUNDLE_PATH, logger)),
    activities: createActivities({
      catalogue,
      adapters,
      pools,
      timing: config.timing,
      push: pushMonitor,
      fallbackPollIntervalMs: config.POLL_FALLBACK_INTERVAL_MS,
      upstreamLostGraceMs: config.UPSTREAM_LOST_GRACE_MS,
      lostAnswerSearchMs: config.LOST_ANSWER_SEARCH_MS,
      results: { store: results.store, copier: results.copier, observer: metrics.resultObserver() },
      hint: (platform, hint) => hintTask(client, platform, hint),
      stopping,
      onLostAnswer: lostAnswerReporter(metrics, logger),
      webhooks: webhookDeps(config, client, results.store, metrics, logger, pricing, settlement.ledger),
    }),
    sinks: {
      ...metrics.sinks(),
      ...settlement.sinks(),
      pushMonitor: { seen: { fn: (_info, platform: string) => pushMonitor.seen(platform) } },
    },
    shutdownGraceTime: config.WORKER_SHUTDOWN_GRACE_MS,
  });
  await startEventConsumers(client, adapters, config, logger);

  logger.info(
    { taskQueue: config.TEMPORAL_TASK_QUEUE, address: config.TEMPORAL_ADDRESS, platforms: Object.keys(config.platforms) },
    'Worker started',
  );
  try {
    await worker.run();
  } finally {
    await client.connection.close();
    await connection.close();
    await http.close();
    await results.copier.close();
    await results.store.close?.();
    await settlement.close();
    await new Promise((resolve) => metricsServer.close(resolve));
    logger.info('Worker stopped');
  }
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
