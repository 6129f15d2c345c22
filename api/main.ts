/**
 * API process: Koa in front of Temporal. Stateless, so any number of replicas may run behind a load balancer.
 * On SIGINT/SIGTERM it stops accepting connections and lets in-flight requests finish, bounded by
 * API_SHUTDOWN_GRACE_MS: a second before the grace period ends, sync waits still in progress are answered
 * 503 naming their task_id (the tasks keep running), then remaining connections are closed and it exits.
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { ConfigError } from '../core/config';
import { createLogger } from '../core/logger';
import { namesJobOfOurs } from '../core/task-hints';
import { temporalConnectionOptions } from '../core/temporal-connection';
import { buildCatalogue } from '../platforms';
import { ResultLinks } from '../results/result-links';
import { createResultStore } from '../results/results-config';
import { loadApiConfig } from './api-config';
import { createApp } from './app';
import { createApiServer } from './http-server';
import { KeyStore, parseApiKeysEnv, parseApiKeysFile } from '../keys/api-keys';
import { KeyLimits } from './key-limits';
import { EventStreamSlots } from './event-stream-slots';
import { configureUploadMemory } from './openai-videos/upload-memory';
import { ManagedKeys } from '../keys/managed-keys';
import { TaskLedger } from '../tasks/task-ledger';
import { registerLedgerMetrics } from './ledger-metrics';
import { recordTaskStarted, registry as metricsRegistry } from './api-metrics';
import { InflightLimits } from '../tasks/inflight';
import { TaskStarter } from '../tasks/start';
import { TaskRouting } from '../tasks/routing';
import { loadRoutes } from '../platforms/routes-file';
import { openLedgerDatabase } from '../ledger/database';
import { TaskService } from '../tasks/task-service';
import { WebhookService } from './webhook-service';
import { webhookMasterSecret } from '../core/webhook-config';
import { webhookSecrets } from '../core/webhook-signing';
import { loadTaskPricing } from '../tasks/billing';
import { TaskAdmin } from '../tasks/task-admin';
import { ConsoleSessions } from './console-sessions';
import { AccountStates } from './account-states';
import { defaultConsoleDir } from './console';

async function main(): Promise<void> {
  const config = loadApiConfig();
  const logger = createLogger('api', config.LOG_LEVEL);

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

  const connection = await Connection.connect(temporalConnectionOptions(config));
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  // The result store, read side: GET /v1/generations/:id/content streams from it, task records link to it.
  const resultStore = createResultStore(config);
  let secret: string | Buffer | undefined = config.links.secret;
  if (config.links.mode === 'gateway' && !secret) {
    // Development only (production refuses to start without it, api-config.ts): links die with this process.
    secret = randomBytes(32);
    logger.warn(
      'RESULT_URL_SECRET is not set: result links are signed with a key made up for this process and stop working when it restarts (npm start keeps one in data/dev-result-url-secret)',
    );
  }
  const resultLinks = new ResultLinks({ ...config.links, secret: secret ?? '', store: resultStore });
  const catalogue = buildCatalogue(process.env);
  // PRICES_FILE is read once, at start: a mistake in it stops the API here, naming the entry.
  const pricing = loadTaskPricing(catalogue, process.env);
  // ROUTES_FILE too: a route naming a model the catalogue lacks, or priced in two currencies, stops the API here.
  const routes = loadRoutes(catalogue, process.env);
  const routing = new TaskRouting(routes, catalogue, config.PLATFORMS_ENABLED, pricing);
  const tasks = new TaskService(client, { taskQueue: config.TEMPORAL_TASK_QUEUE, resultLinks, pricing });
  const taskLedger = ledger ? new TaskLedger(ledger, pricing) : undefined;
  if (taskLedger) registerLedgerMetrics(metricsRegistry, keys, taskLedger);
  // Reservations whose workflow never started (the API died in between): released within a few minutes.
  const sweepMs = config.LEDGER_SWEEP_INTERVAL_MS;
  taskLedger?.startSweep({
    intervalMs: sweepMs,
    minAgeMs: 2 * sweepMs,
    readTask: (taskId, ownerId) => tasks.read(taskId, ownerId),
    log: logger,
  });

  // A key's webhook secret: its own (API_KEYS_FILE `webhook_secret`), else derived from WEBHOOK_SIGNING_SECRET.
  const secrets = webhookSecrets({
    masterSecret: webhookMasterSecret(config),
    previousMasterSecret: config.WEBHOOK_SIGNING_SECRET_PREVIOUS,
    explicit: async (keyId) => keys.byId(keyId)?.webhookSecret,
  });

  // What uploads in progress may hold in this process's memory (POST /v1/videos forms).
  configureUploadMemory(config.UPLOADS_MAX_MEMORY_BYTES);
  const webhooks = { secrets, allowPrivateOrigins: config.webhookAllowPrivateOrigins };

  const webhookService = new WebhookService(client, tasks, config.TEMPORAL_TASK_QUEUE);
  // The operator's console: sessions in the shared database, every key's tasks, and the accounts the workers publish.
  const taskAdmin = new TaskAdmin(client, tasks, pricing);
  const consoleSessions = ledger ? new ConsoleSessions(ledger, config.CONSOLE_SESSION_TTL_MS) : undefined;
  const accountStates = ledger
    ? new AccountStates(ledger, (platform, account) => taskAdmin.count({ platform, account, open: true }))
    : undefined;

  const shutdown = new AbortController();
  const app = createApp({
    shutdownSignal: shutdown.signal,
    logger,
    keys,
    tasks,
    results: { store: resultStore, links: resultLinks },
    limits: new KeyLimits({ rps: config.KEY_RATE_LIMIT_RPS }),
    starter: new TaskStarter({
      catalogue,
      enabledPlatforms: config.PLATFORMS_ENABLED,
      inputUrlAllowPrivateOrigins: config.inputUrlAllowPrivateOrigins ?? new Set(),
      webhooks,
      tasks,
      ...(taskLedger ? { ledger: taskLedger } : {}),
      inflight: new InflightLimits(config.KEY_MAX_INFLIGHT, (ownerId) => tasks.countRunning(ownerId)),
      // A routed task is counted under its route (its platform is the member's that serves it, decided later).
      onStarted: (entry, model) => recordTaskStarted({ kind: entry.kind, model, platform: model === entry.id ? entry.platform : 'route' }),
      routing,
    }),
    catalogue,
    routes,
    pricing,
    enabledPlatforms: config.PLATFORMS_ENABLED,
    syncTimeoutMs: config.SYNC_TIMEOUT_MS,
    trustProxy: config.TRUST_PROXY,
    resultRetentionDays: config.RESULT_RETENTION_DAYS,
    callbackEnv: process.env,
    publicBaseUrl: config.links.publicBaseUrl,
    webhooks,
    webhookService,
    streams: new EventStreamSlots({ perKey: config.KEY_MAX_STREAMS, total: config.API_MAX_STREAMS }),
    bodyTimeoutMs: config.BODY_TIMEOUT_MS,
    sseHeartbeatMs: config.SSE_HEARTBEAT_MS,
    checkTemporal: async () => {
      await connection.healthService.check({});
    },
    callbackJobCheck: (platform, hint) => namesJobOfOurs(client, platform, hint),
    adminToken: config.ADMIN_TOKEN,
    managedKeys,
    taskLedger,
    workerReadyUrls: config.workerReadyUrls,
    taskAdmin,
    ...(consoleSessions ? { consoleSessions } : {}),
    ...(accountStates ? { accountStates } : {}),
    ...(config.TEMPORAL_UI_URL ? { temporalUi: { url: config.TEMPORAL_UI_URL, namespace: config.TEMPORAL_NAMESPACE } } : {}),
    consoleDir: defaultConsoleDir(),
  });

  const server = createApiServer(app.callback(), { syncTimeoutMs: config.SYNC_TIMEOUT_MS });

  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.PORT;
  logger.info({ port, platforms: [...config.PLATFORMS_ENABLED] }, `API listening on http://${config.HOST}:${port} (console at /console)`);

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
      managedKeys?.stop();
      taskLedger?.stopSweep();
      void Promise.allSettled([connection.close(), ledger?.close()]).finally(() => {
        logger.info('API stopped');
        process.exit(0);
      });
    });
    server.closeIdleConnections();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
