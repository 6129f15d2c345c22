/**
 * The worker's start-up, one named step each (worker/main.ts runs them in order): the Runtime, the metrics
 * endpoints, the client and what it registers, the result copy, the platforms' adapters and announcements, and
 * the pulled-event consumers. Each step logs what an operator needs to know about it, and nothing else.
 */
import type { Server } from 'node:http';
import { Client, Connection, WorkflowIdConflictPolicy } from '@temporalio/client';
import { Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import type { AccountPools, Adapters } from '../activities';
import { AccountPool } from '../activities/accounts';
import { decorateAdapter } from '../activities/adapter-decorator';
import type { LostAnswerReport } from '../activities/submit';
import type { Logger } from '../core/logger';
import { platformEventsWorkflowId } from '../core/task-hints';
import { temporalConnectionOptions } from '../core/temporal-connection';
import { openLedgerDatabase, type LedgerDatabase } from '../ledger/database';
import type { HttpClient } from '../platforms/http';
import { type CopyLimits, ResultCopier } from '../results/copy';
import { allowedPrivateOrigins, createResultStore } from '../results/results-config';
import type { ResultStore } from '../results/result-store';
import { ensureRetentionSchedule, RETENTION_SCHEDULE_ID } from '../results/retention';
import { ensureReconciliationSchedule } from '../tasks/reconciliation';
import { RECONCILIATION_SCHEDULE_ID } from '../core/reconciliation';
import type { platformEventsWorkflow } from '../workflows/platform-events';
import { ensureSearchAttributes } from './search-attributes';
import { temporalLogger } from './temporal-logger';
import type { WorkerConfig } from './worker-config';
import { metricsObserver, serveMetrics, type WorkerMetrics } from './worker-metrics';

/** The SDK's Runtime: its logs (and the Rust core's warnings) through ours, its metrics on WORKER_SDK_METRICS_PORT. */
export function installRuntime(config: WorkerConfig, logger: Logger): void {
  Runtime.install({
    logger: temporalLogger(logger),
    telemetryOptions: {
      logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }) },
      metrics: { prometheus: { bindAddress: `${config.WORKER_METRICS_HOST}:${config.WORKER_SDK_METRICS_PORT}` } },
    },
  });
}

/** The gateway's own metrics endpoint (WORKER_METRICS_PORT). */
export async function startMetrics(metrics: WorkerMetrics, config: WorkerConfig, logger: Logger): Promise<Server> {
  const server = await serveMetrics(metrics.registry, config.WORKER_METRICS_HOST, config.WORKER_METRICS_PORT, () =>
    metrics.platformsWithoutAccount(),
  );
  logger.info(
    { metricsPort: config.WORKER_METRICS_PORT, sdkMetricsPort: config.WORKER_SDK_METRICS_PORT },
    `Metrics on :${config.WORKER_METRICS_PORT}/metrics (gateway) and :${config.WORKER_SDK_METRICS_PORT}/metrics (Temporal SDK)`,
  );
  return server;
}

/**
 * Where each enabled platform is served from. The simulator is the intended default of `npm start`, whose banner
 * says which platforms it plays: there a simulated platform is an info line. In the production image
 * (NODE_ENV=production, Dockerfile) it is a warning, so a simulator is never mistaken for the real platform.
 */
export function logPlatforms(config: Pick<WorkerConfig, 'platforms' | 'NODE_ENV'>, logger: Logger): void {
  const production = config.NODE_ENV === 'production';
  for (const [platform, p] of Object.entries(config.platforms)) {
    if (!p.simulated) logger.info({ platform, endpoint: p.endpoint }, `Platform ${platform} at ${p.endpoint}`);
    else if (production)
      logger.warn({ platform }, `Platform ${platform} is not configured: it is served by the simulator at ${p.endpoint}`);
    else logger.info({ platform, endpoint: p.endpoint }, `Platform ${platform} is served by the simulator at ${p.endpoint}`);
  }
}

/**
 * A client of the worker's own: it registers the search attributes and the retention schedule at start, then hands
 * pulled platform events on to their tasks (activities/platform-events.ts).
 */
export async function connectClient(config: WorkerConfig, logger: Logger): Promise<Client> {
  const connection = await Connection.connect(temporalConnectionOptions(config));
  const added = await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE);
  if (added.length > 0) logger.info({ added }, 'Registered search attributes');
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}

/**
 * The retention schedule (results/retention.ts): created or brought up to date by every worker at start. A
 * failure (e.g. credentials without schedule rights) must not keep the worker from running tasks: loud, not fatal.
 */
export async function ensureRetention(client: Client, config: WorkerConfig, logger: Logger): Promise<void> {
  try {
    const how = await ensureRetentionSchedule(client, {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      retentionDays: config.RESULT_RETENTION_DAYS,
    });
    logger.info(
      { scheduleId: RETENTION_SCHEDULE_ID, retentionDays: config.RESULT_RETENTION_DAYS },
      config.RESULT_RETENTION_DAYS > 0
        ? `Result retention schedule ${how}: results older than ${config.RESULT_RETENTION_DAYS} days are deleted daily`
        : `Result retention schedule ${how}, paused: RESULT_RETENTION_DAYS=0 keeps results forever`,
    );
  } catch (err) {
    logger.error(
      { err, scheduleId: RETENTION_SCHEDULE_ID },
      'OPERATOR ACTION NEEDED: could not create or update the result retention schedule; stored results are not being deleted',
    );
  }
}

/**
 * The reconciliation schedule (tasks/reconciliation.ts): created or brought up to date by every worker at start, like
 * the retention schedule; a worker without a ledger has nothing to reconcile and leaves it alone. Loud, not fatal.
 */
export async function ensureReconciliation(client: Client, config: WorkerConfig, logger: Logger): Promise<void> {
  if (!config.DATABASE_URL) return;
  try {
    const how = await ensureReconciliationSchedule(client, config.TEMPORAL_TASK_QUEUE);
    logger.info({ scheduleId: RECONCILIATION_SCHEDULE_ID }, `Reconciliation schedule ${how}: every platform account's previous day, daily`);
  } catch (err) {
    logger.error(
      { err, scheduleId: RECONCILIATION_SCHEDULE_ID },
      'OPERATOR ACTION NEEDED: could not create or update the reconciliation schedule; the ledger is not being checked against the platforms',
    );
  }
}

/**
 * The copy's limits from the configuration. The simulator's origin is a private address in development and tests,
 * so, while any platform is simulated, it is the one private origin allowed without being listed.
 */
export function copyLimits(config: WorkerConfig): CopyLimits {
  const simulatedAny = Object.values(config.platforms).some((p) => p.simulated);
  return {
    maxBytes: config.RESULTS_MAX_BYTES,
    connectTimeoutMs: config.RESULTS_CONNECT_TIMEOUT_MS,
    idleTimeoutMs: config.RESULTS_IDLE_TIMEOUT_MS,
    attemptTimeoutMs: config.RESULTS_COPY_TIMEOUT_MS,
    attempts: config.RESULTS_COPY_ATTEMPTS,
    allowPrivateOrigins: allowedPrivateOrigins(config, simulatedAny ? [config.SIM_BASE_URL] : []),
  };
}

/** The result store (results/) and the copier that fills it before a task succeeds. */
export function createResults(config: WorkerConfig, logger: Logger): { store: ResultStore; copier: ResultCopier } {
  const store = createResultStore(config);
  const copier = new ResultCopier(store, copyLimits(config));
  logger.info(
    { store: store.kind, maxBytes: config.RESULTS_MAX_BYTES },
    store.kind === 's3'
      ? `Results kept in bucket ${config.RESULTS_S3_BUCKET}${config.RESULTS_S3_ENDPOINT ? ` at ${config.RESULTS_S3_ENDPOINT}` : ''}`
      : `Results kept in ${config.RESULTS_DIR}`,
  );
  return { store, copier };
}

/**
 * Every enabled platform's accounts and their adapters, each decorated once for metrics and the operator alert on
 * rejected credentials; `adapters` holds each platform's first account (its event queue's).
 */
export function createAdapters(
  config: WorkerConfig,
  http: HttpClient,
  metrics: WorkerMetrics,
  logger: Logger,
): { adapters: Adapters; pools: AccountPools } {
  const observer = metricsObserver(
    metrics,
    (platform, code, message) => {
      logger.error(
        { platform, code },
        `OPERATOR ACTION NEEDED: platform ${platform} rejected our credentials or account (${code}): ${message}`,
      );
    },
    (platform, code, message) => {
      logger.warn(
        { platform, code },
        `OPERATOR NOTICE: platform ${platform} answered ${code}, which an operator should know of; its tasks are retried, nothing has failed: ${message}`,
      );
    },
  );
  const health = metrics.accountHealthObserver((platform, message) => logger.error({ platform }, `OPERATOR ACTION NEEDED: ${message}`));
  const options = { observer: health, cooldownMs: config.ACCOUNT_COOLDOWN_MS, throttleMs: config.ACCOUNT_THROTTLE_MS };
  const adapters: Adapters = {};
  const pools: AccountPools = {};
  for (const [platform, p] of Object.entries(config.platforms)) {
    if (p.accounts) {
      const accounts = p.accounts.map((a) => ({
        id: a.id,
        weight: a.weight,
        ...(a.models ? { models: a.models } : {}),
        adapter: decorateAdapter(platform, a.createAdapter({ http }), observer),
      }));
      pools[platform] = new AccountPool(platform, accounts, options);
      adapters[platform] = accounts[0]!.adapter;
      logger.info(
        { platform, accounts: accounts.map((a) => ({ id: a.id, weight: a.weight, models: a.models ?? 'all' })) },
        `Platform ${platform} spreads its jobs over ${accounts.length} accounts`,
      );
    } else {
      adapters[platform] = decorateAdapter(platform, p.createAdapter({ http }), observer);
      pools[platform] = AccountPool.single(platform, adapters[platform], options);
    }
  }
  metrics.platformsWithoutAccount = () => {
    const out: Record<string, string> = {};
    for (const [platform, pool] of Object.entries(pools)) {
      const why = pool?.noAccountAtAll();
      if (why !== undefined) out[platform] = why;
    }
    return out;
  };
  return { adapters, pools };
}

/**
 * A task ended `upstream_lost` because the job its lost create answer may have made could not be found
 * (activities/submit.ts): `mediagate_upstream_lost_total{platform,reason}`, and the operator alert — every time,
 * since each one names a job someone must look for (account, dedup key, window, request digest).
 */
export function lostAnswerReporter(metrics: WorkerMetrics, logger: Logger): (report: LostAnswerReport) => void {
  return (report) => {
    metrics.upstreamLost.inc({ platform: report.platform, reason: report.reason });
    const { message, ...fields } = report;
    logger.error(fields, `OPERATOR ACTION NEEDED: ${message}`);
  };
}

/**
 * Where a platform's announcements are an account setting (T's event notification, B's callback URL), set it now.
 * A failure leaves polling alone to find finished jobs: loud, not fatal.
 */
export async function configureAnnouncements(config: WorkerConfig, http: HttpClient, logger: Logger): Promise<void> {
  for (const [platform, p] of Object.entries(config.platforms)) {
    if (!p.push || !p.configurePush) continue;
    try {
      const done = await p.configurePush({ http });
      logger.info({ platform }, `Platform ${platform} announces finished jobs to the gateway${done ? `: ${done}` : ''}`);
    } catch (err) {
      logger.error(
        { platform, err: (err as Error).message },
        `OPERATOR ACTION NEEDED: could not configure platform ${platform}'s announcements; its tasks rely on polling: ${(err as Error).message}`,
      );
    }
  }
}

/**
 * Aborted on the signals that stop the worker (the Runtime's own handlers start the shutdown): the event consumer
 * hands its work back at once instead of holding the stop for WORKER_SHUTDOWN_GRACE_MS.
 */
export function stopSignal(): AbortSignal {
  const stopping = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stopping.abort());
  return stopping.signal;
}

/**
 * One consumer per platform whose events are pulled (T in PULL mode): a workflow with a fixed id, so however many
 * workers start it, Temporal runs exactly one, and it survives any worker's restart.
 */
export async function startEventConsumers(client: Client, adapters: Adapters, config: WorkerConfig, logger: Logger): Promise<void> {
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
}

/**
 * The ledger's database when DATABASE_URL is set (without it there is no ledger: every settlement is a no-op, and
 * there are no shared slots, account states or reconciliation): the worker's one pool, handed to the settlement,
 * the capacity, the accounts' states, the webhooks' secrets and the reconciliation, and closed when the worker stops.
 */
export async function openLedger(config: { DATABASE_URL?: string }, log: Logger): Promise<LedgerDatabase | undefined> {
  if (!config.DATABASE_URL) return undefined;
  return openLedgerDatabase(config.DATABASE_URL, {
    onError: (err) => log.warn({ err: err.message }, 'Ledger database connection lost; reconnecting on the next write'),
  });
}
