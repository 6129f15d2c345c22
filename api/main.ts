/**
 * API process: Koa in front of Temporal. Stateless, so any number of replicas may run behind a load balancer.
 * On SIGINT/SIGTERM it stops accepting connections and lets in-flight requests finish, bounded by
 * API_SHUTDOWN_GRACE_MS: a second before the grace period ends, sync waits still in progress are answered
 * 503 naming their task_id (the tasks keep running), then remaining connections are closed and it exits.
 */
import { startReconciliation } from '../tasks/reconciliation';
import { AdminAuthThrottle } from './admin-throttle';
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { ConfigError } from '../core/config';
import { createLogger } from '../core/logger';
import { namesJobOfOurs } from '../core/task-hints';
import { temporalConnectionOptions } from '../core/temporal-connection';
import { ResultLinks } from '../results/result-links';
import { createResultStore } from '../results/results-config';
import type { Server } from 'node:http';
import { loadApiConfig, type ApiConfig } from './api-config';
import { createApp } from './app';
import type { AppDeps } from './context';
import { createApiServer } from './http-server';
import { KeyStore, parseApiKeysEnv, parseApiKeysFile } from '../keys/api-keys';
import { KeyLimits } from './key-limits';
import { EventStreamSlots } from './event-stream-slots';
import { configureUploadMemory } from './openai-videos/upload-memory';
import { ManagedKeys } from '../keys/managed-keys';
import { TaskLedger } from '../tasks/task-ledger';
import { registerLedgerMetrics } from './ledger-metrics';
import { ApiMetrics } from './api-metrics';
import { InflightLimits } from '../tasks/inflight';
import { TaskStarter } from '../tasks/start';
import { announcedEnds, type AnnouncedEnd } from '../capacity/announced-ends';
import { GrantNotifier } from '../capacity/grant-notifier';
import { SlotStore } from '../capacity/slots';
import { temporalGrantSignal } from '../capacity/temporal-grants';
import { TaskRouting } from '../tasks/routing';
import { openLedgerDatabase, type LedgerDatabase } from '../ledger/database';
import { TaskService } from '../tasks/task-service';
import { WebhookService } from '../webhooks/deliveries';
import { webhookMasterSecret } from '../webhooks/config';
import { webhookSecrets } from '../webhooks/signing';
import { webhookTargets } from '../webhooks/targets';
import { TaskChanges } from './task-changes';
import { TaskAdmin } from '../operations/task-admin';
import { ConsoleSessions } from './console-sessions';
import { AccountStates } from './account-states';
import { defaultConsoleDir } from './console';

type Logger = ReturnType<typeof createLogger>;

/** The API keys: from API_KEYS and API_KEYS_FILE, plus the admin API's keys in the ledger's database (DATABASE_URL). */
async function openKeys(config: ApiConfig, logger: Logger) {
  const keys = new KeyStore([
    ...(config.API_KEYS ? parseApiKeysEnv(config.API_KEYS) : []),
    ...(config.API_KEYS_FILE ? parseApiKeysFile(config.API_KEYS_FILE) : []),
  ]);
  // The ledger's database (DATABASE_URL): the admin API's keys, read now and every KEYS_REFRESH_MS.
  const ledger = config.DATABASE_URL
    ? await openLedgerDatabase(config.DATABASE_URL, {
        onError: (err) => logger.warn({ err: err.message }, 'Ledger database connection lost; reconnecting on the next query'),
      })
    : undefined;
  const managedKeys = ledger ? new ManagedKeys(ledger, keys, logger) : undefined;
  await managedKeys?.start(config.KEYS_REFRESH_MS);
  if (keys.size === 0 && !config.ADMIN_TOKEN) {
    throw new ConfigError(
      'Invalid configuration:\n  API_KEYS: no API key configured (set API_KEYS or API_KEYS_FILE, or ADMIN_TOKEN and DATABASE_URL to make keys through the admin API)',
    );
  }
  return { keys, ledger, managedKeys };
}

/** The result store, read side: GET /v1/generations/:id/content streams from it, task records link to it. */
function openResults(config: ApiConfig, logger: Logger) {
  const store = createResultStore(config);
  let secret: string | Buffer | undefined = config.links.secret;
  if (config.links.mode === 'gateway' && !secret) {
    // Development only (production refuses to start without it, api-config.ts): links die with this process.
    secret = randomBytes(32);
    logger.warn(
      'RESULT_URL_SECRET is not set: result links are signed with a key made up for this process and stop working when it restarts (npm start keeps one in data/dev-result-url-secret)',
    );
  }
  return { store, links: new ResultLinks({ ...config.links, secret: secret ?? '', store }) };
}

/** The task ledger, where there is a database, with its metrics and its sweep of reservations whose workflow never started. */
function openTaskLedger(
  config: ApiConfig,
  ledger: LedgerDatabase | undefined,
  keys: KeyStore,
  tasks: TaskService,
  logger: Logger,
  metrics: ApiMetrics,
) {
  const taskLedger = ledger ? new TaskLedger(ledger, config.pricing) : undefined;
  if (taskLedger) registerLedgerMetrics(metrics.registry, keys, taskLedger);
  // Reservations whose workflow never started (the API died in between): released within a few minutes.
  const sweepMs = config.LEDGER_SWEEP_INTERVAL_MS;
  taskLedger?.startSweep({
    intervalMs: sweepMs,
    minAgeMs: 2 * sweepMs,
    // The sweep reads only a task's status: no links to render.
    readTask: (taskId, ownerId) => tasks.read(taskId, ownerId, undefined),
    log: logger,
  });
  return taskLedger;
}

/** Webhook signing: a key's own secret (API_KEYS_FILE `webhook_secret`), else derived from WEBHOOK_SIGNING_SECRET. */
function webhookSettings(config: ApiConfig, keys: KeyStore) {
  const secrets = webhookSecrets({
    masterSecret: webhookMasterSecret(config),
    previousMasterSecret: config.WEBHOOK_SIGNING_SECRET_PREVIOUS,
    explicit: async (keyId) => keys.byId(keyId)?.webhookSecret,
  });
  return { secrets, allowPrivateOrigins: config.webhookAllowPrivateOrigins };
}

/** The ONE start path every door calls (tasks/start.ts), with this process's limits and routes. */
function taskStarter(
  config: ApiConfig,
  tasks: TaskService,
  webhooks: AppDeps['webhooks'],
  taskLedger: TaskLedger | undefined,
  metrics: ApiMetrics,
) {
  const { catalogue, pricing, routes } = config;
  return new TaskStarter({
    catalogue,
    enabledPlatforms: config.PLATFORMS_ENABLED,
    inputUrlAllowPrivateOrigins: config.inputUrlAllowPrivateOrigins ?? new Set(),
    webhooks: webhookTargets(webhooks),
    tasks,
    ...(taskLedger ? { ledger: taskLedger } : {}),
    inflight: new InflightLimits(config.KEY_MAX_INFLIGHT, (ownerId) => tasks.countRunning(ownerId)),
    // A routed task is counted under its route (its platform is the member's that serves it, decided later).
    onStarted: (entry, model) =>
      metrics.recordTaskStarted({ kind: entry.kind, model, platform: model === entry.id ? entry.platform : 'route' }),
    routing: new TaskRouting(routes, catalogue, config.PLATFORMS_ENABLED, pricing),
  });
}

/** The operator's console: sessions in the shared database, every key's tasks, and the accounts the workers publish. */
function consoleParts(config: ApiConfig, client: Client, tasks: TaskService, ledger: LedgerDatabase | undefined) {
  const taskAdmin = new TaskAdmin(client, tasks, config.pricing);
  // Sessions are bound to the admin token (api/console-sessions.ts): none without one, and a new one ends them all.
  const consoleSessions =
    ledger && config.ADMIN_TOKEN ? new ConsoleSessions(ledger, config.CONSOLE_SESSION_TTL_MS, config.ADMIN_TOKEN) : undefined;
  const accountStates = ledger
    ? new AccountStates(ledger, (platform, account) => taskAdmin.count({ platform, account, open: true }), new SlotStore(ledger))
    : undefined;
  return {
    taskAdmin,
    ...(consoleSessions ? { consoleSessions } : {}),
    ...(accountStates ? { accountStates } : {}),
    ...(config.TEMPORAL_UI_URL ? { temporalUi: { url: config.TEMPORAL_UI_URL, namespace: config.TEMPORAL_NAMESPACE } } : {}),
    consoleDir: defaultConsoleDir(),
  };
}

/** Slots freed the moment a platform announces a job ended, granted to the next waiting tasks from here. */
function announcedEndsOn(ledger: LedgerDatabase, client: Client, logger: Logger, metrics: ApiMetrics): AnnouncedEnd {
  const store = new SlotStore(ledger);
  return announcedEnds(store, new GrantNotifier(store, temporalGrantSignal(client, logger), logger, (g) => metrics.recordCapacityGrant(g)));
}

/** The settings createApp reads straight from the configuration. */
function configuredDeps(config: ApiConfig) {
  return {
    catalogue: config.catalogue,
    routes: config.routes,
    pricing: config.pricing,
    enabledPlatforms: config.PLATFORMS_ENABLED,
    syncTimeoutMs: config.SYNC_TIMEOUT_MS,
    trustProxy: config.TRUST_PROXY,
    resultRetentionDays: config.RESULT_RETENTION_DAYS,
    callbackReceivers: config.callbackReceivers,
    publicBaseUrl: config.links.publicBaseUrl,
    limits: new KeyLimits({ rps: config.KEY_RATE_LIMIT_RPS }),
    streams: new EventStreamSlots({ perKey: config.KEY_MAX_STREAMS, total: config.API_MAX_STREAMS }),
    bodyTimeoutMs: config.BODY_TIMEOUT_MS,
    sseHeartbeatMs: config.SSE_HEARTBEAT_MS,
    adminToken: config.ADMIN_TOKEN,
    adminThrottle: new AdminAuthThrottle(config.ADMIN_AUTH_FAILURES_PER_MINUTE),
    workerReadyUrls: config.workerReadyUrls,
  };
}

/**
 * On SIGINT/SIGTERM: no new connections; a second before the grace ends, sync waits are answered (`shutdown`);
 * at its end the remaining connections are closed; then the keys' refresh, the sweep and the connections stop.
 */
function stopOnSignals(server: Server, config: ApiConfig, logger: Logger, shutdown: AbortController, closeAll: () => Promise<unknown>) {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'Stopping: no new connections, finishing in-flight requests');
    const answerWaits = setTimeout(() => shutdown.abort(), Math.max(0, config.API_SHUTDOWN_GRACE_MS - 1_000));
    answerWaits.unref();
    const force = setTimeout(() => {
      logger.warn('Grace period over: closing remaining connections');
      server.closeAllConnections();
    }, config.API_SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(() => {
      void closeAll().finally(() => {
        logger.info('API stopped');
        process.exit(0);
      });
    });
    server.closeIdleConnections();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

async function main(): Promise<void> {
  const config = loadApiConfig();
  const logger = createLogger('api', config.LOG_LEVEL);
  const { keys, ledger, managedKeys } = await openKeys(config, logger);
  const connection = await Connection.connect(temporalConnectionOptions(config));
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  const results = openResults(config, logger);
  const tasks = new TaskService(client, { taskQueue: config.TEMPORAL_TASK_QUEUE, resultLinks: results.links, pricing: config.pricing });
  // This process's metrics, handed to everything that records (api/api-metrics.ts).
  const metrics = new ApiMetrics();
  const taskLedger = openTaskLedger(config, ledger, keys, tasks, logger, metrics);
  const webhooks = webhookSettings(config, keys);
  // What uploads in progress may hold in this process's memory (POST /v1/videos forms).
  configureUploadMemory(config.UPLOADS_MAX_MEMORY_BYTES);

  const shutdown = new AbortController();
  const app = createApp({
    ...configuredDeps(config),
    ...consoleParts(config, client, tasks, ledger),
    shutdownSignal: shutdown.signal,
    logger,
    keys,
    tasks,
    results,
    starter: taskStarter(config, tasks, webhooks, taskLedger, metrics),
    metrics,
    webhooks,
    webhookService: new WebhookService(client, config.TEMPORAL_TASK_QUEUE),
    taskChanges: new TaskChanges(client, tasks),
    checkTemporal: async () => {
      await connection.healthService.check({});
    },
    callbackJobCheck: (platform, hint) => namesJobOfOurs(client, platform, hint),
    ...(ledger ? { announcedEnd: announcedEndsOn(ledger, client, logger, metrics) } : {}),
    managedKeys,
    taskLedger,
    reconciliations: { start: (input) => startReconciliation(client, config.TEMPORAL_TASK_QUEUE, input) },
  });

  const server = createApiServer(app.callback(), { syncTimeoutMs: config.SYNC_TIMEOUT_MS });
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.PORT;
  logger.info({ port, platforms: [...config.PLATFORMS_ENABLED] }, `API listening on http://${config.HOST}:${port} (console at /console)`);
  stopOnSignals(server, config, logger, shutdown, () => {
    managedKeys?.stop();
    taskLedger?.stopSweep();
    return Promise.allSettled([connection.close(), ledger?.close()]);
  });
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
