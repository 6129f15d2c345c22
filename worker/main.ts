/**
 * Worker process: installs the Runtime (logs through pino), connects to Temporal, registers the search
 * attributes if missing, and runs the generation workflow and the platform activities until SIGINT/SIGTERM.
 * On a signal the worker stops polling, lets in-flight activities finish for up to WORKER_SHUTDOWN_GRACE_MS,
 * and exits: nothing is lost, since Temporal hands unfinished work to another worker.
 */
import { Connection } from '@temporalio/client';
import { NativeConnection, Runtime, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import { createActivities } from '../activities';
import { createAdapters } from '../activities/adapters';
import { createHttpClient } from '../activities/http';
import { defaultCatalogue } from '../core/catalogue';
import { loadConfig } from '../core/config';
import { createLogger } from '../core/logger';
import { temporalConnectionOptions } from '../core/temporal-connection';
import { ensureSearchAttributes } from './search-attributes';
import { temporalLogger } from './temporal-logger';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('worker', config.LOG_LEVEL);

  Runtime.install({
    logger: temporalLogger(logger),
    telemetryOptions: { logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }) } },
  });

  for (const [platform, p] of Object.entries(config.platforms)) {
    if (p.simulated) logger.warn({ platform }, `Platform ${platform} is not configured: it is served by the simulator at ${config.SIM_BASE_URL}`);
  }

  const connOpts = temporalConnectionOptions(config);
  const clientConnection = await Connection.connect(connOpts);
  const added = await ensureSearchAttributes(clientConnection, config.TEMPORAL_NAMESPACE);
  if (added.length > 0) logger.info({ added }, 'Registered search attributes');
  await clientConnection.close();

  const connection = await NativeConnection.connect(connOpts);
  const http = createHttpClient({
    connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: config.UPSTREAM_RESPONSE_TIMEOUT_MS,
  });
  const alerted = new Set<string>();
  const adapters = createAdapters(config, http, (platform, code, message) => {
    const key = `${platform}:${code}`;
    if (alerted.has(key)) return;
    alerted.add(key);
    logger.error({ platform, code }, `OPERATOR ACTION NEEDED: platform ${platform} rejected our credentials or account (${code}): ${message}`);
  });

  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    ...(process.env.WORKFLOW_BUNDLE_PATH
      ? { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH } }
      : { workflowsPath: require.resolve('../workflows') }),
    activities: createActivities({ catalogue: defaultCatalogue, adapters }),
    shutdownGraceTime: config.WORKER_SHUTDOWN_GRACE_MS,
  });

  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, address: config.TEMPORAL_ADDRESS, platforms: Object.keys(config.platforms) }, 'Worker started');
  try {
    await worker.run();
  } finally {
    await connection.close();
    await http.close();
    logger.info('Worker stopped');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
