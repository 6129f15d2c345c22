/**
 * Worker process: installs the Runtime (logs through pino, SDK metrics on WORKER_SDK_METRICS_PORT), serves the
 * gateway's metrics (WORKER_METRICS_PORT), connects to Temporal, registers the search attributes if missing,
 * and runs the generation workflow and the platform activities until SIGINT/SIGTERM.
 * On a signal the worker stops polling, lets in-flight activities finish for up to WORKER_SHUTDOWN_GRACE_MS,
 * and exits: nothing is lost, since Temporal hands unfinished work to another worker.
 */
import { Client, Connection, WorkflowIdConflictPolicy } from '@temporalio/client';
import { NativeConnection, Runtime, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import { createActivities, type Adapters } from '../activities';
import { decorateAdapter } from '../activities/adapter-decorator';
import { ConfigError } from '../core/config';
import { createLogger } from '../core/logger';
import { hintTask, platformEventsWorkflowId } from '../core/task-hints';
import { temporalConnectionOptions } from '../core/temporal-connection';
import { buildCatalogue } from '../platforms';
import { createHttpClient } from '../platforms/http';
import { ResultCopier } from '../results/copy';
import { allowedPrivateOrigins, createResultStore } from '../results/results-config';
import { ensureRetentionSchedule, RETENTION_SCHEDULE_ID } from '../results/retention';
import { ensureSearchAttributes } from './search-attributes';
import { temporalLogger } from './temporal-logger';
import { loadWorkerConfig } from './worker-config';
import { PushMonitor } from './push-monitor';
import { metricsObserver, serveMetrics, WorkerMetrics } from './worker-metrics';
import { workflowInterceptorModules, workflowsPath } from './workflow-modules';
import type { platformEventsWorkflow } from '../workflows/platform-events';

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const logger = createLogger('worker', config.LOG_LEVEL);

  Runtime.install({
    logger: temporalLogger(logger),
    telemetryOptions: {
      logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }) },
      metrics: { prometheus: { bindAddress: `${config.WORKER_METRICS_HOST}:${config.WORKER_SDK_METRICS_PORT}` } },
    },
  });
  const metrics = new WorkerMetrics();
  const metricsServer = await serveMetrics(metrics.registry, config.WORKER_METRICS_HOST, config.WORKER_METRICS_PORT);
  logger.info(
    { metricsPort: config.WORKER_METRICS_PORT, sdkMetricsPort: config.WORKER_SDK_METRICS_PORT },
    `Metrics on :${config.WORKER_METRICS_PORT}/metrics (gateway) and :${config.WORKER_SDK_METRICS_PORT}/metrics (Temporal SDK)`,
  );

  for (const [platform, p] of Object.entries(config.platforms)) {
    if (p.simulated) logger.warn({ platform }, `Platform ${platform} is not configured: it is served by the simulator at ${p.endpoint}`);
    else logger.info({ platform, endpoint: p.endpoint }, `Platform ${platform} at ${p.endpoint}`);
  }

  const connOpts = temporalConnectionOptions(config);
  // A client of the worker's own: search attributes and the retention schedule at start, then handing pulled
  // platform events on to their tasks (activities/platform-events.ts).
  const clientConnection = await Connection.connect(connOpts);
  const client = new Client({ connection: clientConnection, namespace: config.TEMPORAL_NAMESPACE });
  const added = await ensureSearchAttributes(clientConnection, config.TEMPORAL_NAMESPACE);
  if (added.length > 0) logger.info({ added }, 'Registered search attributes');
  // The retention schedule (results/retention.ts): created or brought up to date by every worker at start. A
  // failure (e.g. credentials without schedule rights) must not keep the worker from running tasks: loud, not fatal.
  try {
    const how = await ensureRetentionSchedule(client, { taskQueue: config.TEMPORAL_TASK_QUEUE, retentionDays: config.RESULT_RETENTION_DAYS });
    logger.info(
      { scheduleId: RETENTION_SCHEDULE_ID, retentionDays: config.RESULT_RETENTION_DAYS },
      config.RESULT_RETENTION_DAYS > 0
        ? `Result retention schedule ${how}: results older than ${config.RESULT_RETENTION_DAYS} days are deleted daily`
        : `Result retention schedule ${how}, paused: RESULT_RETENTION_DAYS=0 keeps results forever`,
    );
  } catch (err) {
    logger.error({ err, scheduleId: RETENTION_SCHEDULE_ID }, 'OPERATOR ACTION NEEDED: could not create or update the result retention schedule; stored results are not being deleted');
  }

  const connection = await NativeConnection.connect(connOpts);
  const http = createHttpClient({
    connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: config.UPSTREAM_RESPONSE_TIMEOUT_MS,
  });
  const observer = metricsObserver(metrics, (platform, code, message) => {
    logger.error({ platform, code }, `OPERATOR ACTION NEEDED: platform ${platform} rejected our credentials or account (${code}): ${message}`);
  });
  const pushConfigured = new Set(Object.entries(config.platforms).filter(([, p]) => p.push).map(([id]) => id));
  const pushMonitor = new PushMonitor(pushConfigured, config.PUSH_HEALTH_WINDOW_MS);
  // The result store (results/): where outputs are copied before a task succeeds. The simulator's origin is a
  // private address in development and tests, so it is the one private origin allowed without being listed.
  const resultStore = createResultStore(config);
  const simulatedAny = Object.values(config.platforms).some((p) => p.simulated);
  const copier = new ResultCopier(resultStore, {
    maxBytes: config.RESULTS_MAX_BYTES,
    connectTimeoutMs: config.RESULTS_CONNECT_TIMEOUT_MS,
    idleTimeoutMs: config.RESULTS_IDLE_TIMEOUT_MS,
    attemptTimeoutMs: config.RESULTS_COPY_TIMEOUT_MS,
    attempts: config.RESULTS_COPY_ATTEMPTS,
    allowPrivateOrigins: allowedPrivateOrigins(config, simulatedAny ? [config.SIM_BASE_URL] : []),
  });
  logger.info(
    { store: resultStore.kind, maxBytes: config.RESULTS_MAX_BYTES },
    resultStore.kind === 's3' ? `Results kept in bucket ${config.RESULTS_S3_BUCKET}${config.RESULTS_S3_ENDPOINT ? ` at ${config.RESULTS_S3_ENDPOINT}` : ''}` : `Results kept in ${config.RESULTS_DIR}`,
  );
  const adapters: Adapters = {};
  for (const [platform, p] of Object.entries(config.platforms)) adapters[platform] = decorateAdapter(platform, p.createAdapter({ http }), observer);

  // Where a platform's announcements are an account setting (T's event notification, B's callback URL), set it
  // now. A failure leaves polling alone to find finished jobs: loud, not fatal.
  for (const [platform, p] of Object.entries(config.platforms)) {
    if (!p.push || !p.configurePush) continue;
    try {
      await p.configurePush({ http });
      logger.info({ platform }, `Platform ${platform} announces finished jobs to the gateway`);
    } catch (err) {
      logger.error({ platform, err: (err as Error).message }, `OPERATOR ACTION NEEDED: could not configure platform ${platform}'s announcements; its tasks rely on polling`);
    }
  }

  // Aborted on the signals that stop the worker (the Runtime's own handlers start the shutdown): the event
  // consumer hands its work back at once instead of holding the stop for WORKER_SHUTDOWN_GRACE_MS.
  const stopping = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stopping.abort());

  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    ...(config.WORKFLOW_BUNDLE_PATH
      ? { workflowBundle: { codePath: config.WORKFLOW_BUNDLE_PATH } }
      : { workflowsPath, interceptors: { workflowModules: workflowInterceptorModules } }),
    activities: createActivities({
      catalogue: buildCatalogue(process.env),
      adapters,
      timing: config.timing,
      push: pushMonitor,
      fallbackPollIntervalMs: config.POLL_FALLBACK_INTERVAL_MS,
      upstreamLostGraceMs: config.UPSTREAM_LOST_GRACE_MS,
      results: { store: resultStore, copier, observer: metrics.resultObserver() },
      hint: (platform, hint) => hintTask(client, platform, hint),
      stopping: stopping.signal,
    }),
    sinks: { ...metrics.sinks(), pushMonitor: { seen: { fn: (_info, platform: string) => pushMonitor.seen(platform) } } },
    shutdownGraceTime: config.WORKER_SHUTDOWN_GRACE_MS,
  });

  // One consumer per platform whose events are pulled (T in PULL mode): a workflow with a fixed id, so however
  // many workers start it, Temporal runs exactly one, and it survives any worker's restart.
  for (const [platform, adapter] of Object.entries(adapters)) {
    if (!adapter?.events) continue;
    await client.workflow.start<typeof platformEventsWorkflow>('platformEventsWorkflow', {
      workflowId: platformEventsWorkflowId(platform),
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args: [{ platform }],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      staticSummary: `Consumes platform ${platform}'s event queue and wakes the tasks it names`,
    });
    logger.info({ platform, workflowId: platformEventsWorkflowId(platform) }, `Consuming platform ${platform}'s event queue`);
  }

  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, address: config.TEMPORAL_ADDRESS, platforms: Object.keys(config.platforms) }, 'Worker started');
  try {
    await worker.run();
  } finally {
    await clientConnection.close();
    await connection.close();
    await http.close();
    await copier.close();
    await resultStore.close?.();
    await new Promise((resolve) => metricsServer.close(resolve));
    logger.info('Worker stopped');
  }
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
