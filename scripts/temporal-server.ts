/**
 * A real Temporal server on PostgreSQL, the production shape (docker-compose runs the same version in
 * containers): the server and its SQL tool built from their Go module (`go.temporal.io/server`, pinned to
 * docker-compose's TEMPORAL_VERSION, checked by test/unit/scripts/temporal-server.test.ts) into the gitignored .tools/,
 * as MinIO is (scripts/minio.ts). Used by `npm run cluster` (scripts/cluster.ts), the topology system test and
 * the cluster benchmarks.
 *
 *   npm run temporal-server:install      # builds it if missing (about 3 minutes cold on 2 cores), prints its path
 *
 * startTemporalServer() brings a cluster up on a PostgreSQL it is given: the `temporal` and `temporal_visibility`
 * databases created and migrated with Temporal's own `temporal-sql-tool` (its embedded postgresql/v12 schemas,
 * as deploy/temporal/setup-postgres.sh does with admin-tools), a config file written next to the data, the
 * server started (frontend, history, matching and worker services in one process), the namespace created and
 * the gateway's search attributes registered (SQL visibility), as deploy/temporal/create-namespace.sh does.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection, isGrpcServiceError } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { msToTs } from '@temporalio/common/lib/time';
import { ensureSearchAttributes } from '../worker/search-attributes';
import { startProcess, type StartedProcess } from './child-process';
import { EAGER_ACTIVITIES, TASK_QUEUE_DISPATCH, waitForTemporal } from './dev-server';
import { freePort, freePortAtMost } from './free-port';
import { installGoTools, TOOLS, works, type Log } from './tools';

export const TEMPORAL_SERVER_MODULE = 'go.temporal.io/server';
/** The Temporal server docker-compose runs (TEMPORAL_VERSION's default there); a unit test keeps the two equal. */
export const TEMPORAL_SERVER_VERSION = 'v1.30.1';
const DIR_NAME = `temporal-server-${TEMPORAL_SERVER_VERSION.slice(1)}`;
const DIR = join(TOOLS, DIR_NAME);
export const TEMPORAL_SERVER_BIN = join(DIR, 'temporal-server');
export const TEMPORAL_SQL_TOOL_BIN = join(DIR, 'temporal-sql-tool');

export const TEMPORAL_SERVER_INSTALL_HINT = `The Temporal server is not built: run \`npm run temporal-server:install\` (needs Go ≥ 1.25; builds ${TEMPORAL_SERVER_MODULE}@${TEMPORAL_SERVER_VERSION} into .tools/, about 3 minutes)`;

/**
 * The history shards of a cluster this project creates. Fixed when the cluster's database is first set up (a
 * server refuses to start on a database made with another count), so chosen once: 4, as Temporal's own
 * development configuration and the temporalio/server image's default (docker-compose's
 * TEMPORAL_HISTORY_SHARDS), enough to spread one machine's load (docs/explanations/sizing.md).
 */
export const HISTORY_SHARDS = 4;

const execFileAsync = promisify(execFile);
/** gRPC status ALREADY_EXISTS: the namespace was made by an earlier start. */
const GRPC_ALREADY_EXISTS = 6;

/** The pinned server and SQL tool, building them when missing (unless install is false); undefined when that fails here. */
export function findTemporalServer(opts: { install?: boolean; log?: Log } = {}): { server: string; sqlTool: string } | undefined {
  const log = opts.log ?? ((m) => console.error(m));
  const found = () =>
    existsSync(TEMPORAL_SERVER_BIN) && existsSync(TEMPORAL_SQL_TOOL_BIN) && works(TEMPORAL_SQL_TOOL_BIN, ['--help'])
      ? { server: TEMPORAL_SERVER_BIN, sqlTool: TEMPORAL_SQL_TOOL_BIN }
      : undefined;
  if (found()) return found();
  if (opts.install === false) return undefined;
  log(`Building the Temporal server ${TEMPORAL_SERVER_VERSION} with Go into ${DIR} (about 3 minutes on a cold build cache)`);
  installGoTools({
    dir: DIR_NAME,
    packages: [
      `${TEMPORAL_SERVER_MODULE}/cmd/server@${TEMPORAL_SERVER_VERSION}`,
      `${TEMPORAL_SERVER_MODULE}/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`,
    ],
    rename: { server: 'temporal-server', sql: 'temporal-sql-tool' },
    what: `the Temporal server ${TEMPORAL_SERVER_VERSION}`,
    log,
  });
  return found();
}

/** Where the cluster's PostgreSQL is, and a role that may create databases. */
export interface PostgresAccess {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** The two databases a Temporal server on SQL needs, and the embedded schema each is migrated with. */
const DATABASES = [
  { name: 'temporal', schema: 'postgresql/v12/temporal' },
  { name: 'temporal_visibility', schema: 'postgresql/v12/visibility' },
] as const;

/**
 * Creates and migrates the server's databases with Temporal's own SQL tool: a database whose schema already
 * updates cleanly is left as it is (so a restart, or a newer server, only migrates forward).
 */
export async function setupTemporalSchema(sqlTool: string, pg: PostgresAccess, log: Log): Promise<void> {
  for (const db of DATABASES) {
    const sql = (...args: string[]) =>
      execFileAsync(
        sqlTool,
        ['--plugin', 'postgres12', '--ep', pg.host, '-p', String(pg.port), '-u', pg.user, '--pw', pg.password, '--db', db.name, ...args],
        { timeout: 120_000 },
      );
    if (!(await databaseExists(pg, db.name))) {
      log(`Temporal: creating database ${db.name}`);
      await sql('create-database');
    }
    if (!(await hasSchemaVersion(pg, db.name))) await sql('setup-schema', '-v', '0.0');
    await sql('update-schema', '--schema-name', db.schema);
  }
}

async function withPg<T>(pg: PostgresAccess, database: string, fn: (c: PgClient) => Promise<T>): Promise<T> {
  const client = new PgClient({ host: pg.host, port: pg.port, user: pg.user, password: pg.password, database });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const databaseExists = (pg: PostgresAccess, name: string) =>
  withPg(pg, 'postgres', async (c) => ((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0) > 0);

const hasSchemaVersion = (pg: PostgresAccess, database: string) =>
  withPg(
    pg,
    database,
    async (c) => ((await c.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'schema_version'")).rowCount ?? 0) > 0,
  );

/** The ports a server listens on (all 127.0.0.1). Kept across restarts: clients and the membership ring use them. */
export interface TemporalServerPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
  /** The server's own Prometheus metrics (/metrics): persistence latency, shard and task-queue figures. */
  metrics: number;
}

/** Free ports for a server; membership ports ≤ 32767, as the server stores them in a SMALLINT column. */
export async function freeServerPorts(frontend?: number): Promise<TemporalServerPorts> {
  const next = () => freePort();
  const membership = () => freePortAtMost(32_767);
  return {
    frontend: frontend ?? (await next()),
    frontendHttp: await next(),
    frontendMembership: await membership(),
    history: await next(),
    historyMembership: await membership(),
    matching: await next(),
    matchingMembership: await membership(),
    worker: await next(),
    workerMembership: await membership(),
    metrics: await next(),
  };
}

/**
 * The server's configuration: config/development-postgres12.yaml of the pinned version with our ports, our
 * PostgreSQL and HISTORY_SHARDS, archival off. Written as JSON, which the server's YAML reader takes as is.
 */
export function serverConfig(pg: PostgresAccess, ports: TemporalServerPorts, dynamicConfigFile: string): Record<string, unknown> {
  const sql = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${pg.host}:${pg.port}`,
      connectProtocol: 'tcp',
      user: pg.user,
      password: pg.password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const service = (grpcPort: number, membershipPort: number, extra: Record<string, unknown> = {}) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...extra },
  });
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: HISTORY_SHARDS,
      datastores: { 'postgres-default': sql('temporal', 20), 'postgres-visibility': sql('temporal_visibility', 10) },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      metrics: { prometheus: { framework: 'tally', timerType: 'histogram', listenAddress: `127.0.0.1:${ports.metrics}` } },
    },
    services: {
      frontend: service(ports.frontend, ports.frontendMembership, { httpPort: ports.frontendHttp }),
      matching: service(ports.matching, ports.matchingMembership),
      history: service(ports.history, ports.historyMembership),
      worker: service(ports.worker, ports.workerMembership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${ports.frontend}` },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
    dynamicConfigClient: { filepath: dynamicConfigFile, pollInterval: '10s' },
  };
}

/**
 * Dynamic configuration: long ids allowed (config/dynamicconfig/development-sql.yaml's limit, so the gateway's HMAC task ids fit), and
 * the visibility rate raised as on the embedded dev server (scripts/dev-server.ts), so listing tasks under load
 * is not throttled at the default 10/s per namespace; task queues by priority and fairness, and activities started
 * eagerly, as there.
 */
export const DYNAMIC_CONFIG: Record<string, { value: unknown }[]> = {
  'limit.maxIDLength': [{ value: 255 }],
  'frontend.namespaceRPS.visibility': [{ value: 2000 }],
  'frontend.namespaceBurstRatio.visibility': [{ value: 2 }],
  ...Object.fromEntries(Object.entries({ ...TASK_QUEUE_DISPATCH, ...EAGER_ACTIVITIES }).map(([key, value]) => [key, [{ value }]])),
};

export interface TemporalServerOptions {
  pg: PostgresAccess;
  ports: TemporalServerPorts;
  /** Holds the config files (the data itself lives in PostgreSQL). */
  dir: string;
  namespace: string;
  /** How long finished workflows are kept (Temporal's namespace retention). */
  retention?: `${number}d`;
  onLine?: (line: string) => void;
  log?: Log;
  /** A process group of its own, so a terminal's Ctrl-C reaches only the launcher, which stops the parts in order. */
  ownProcessGroup?: boolean;
}

export interface TemporalServer {
  address: string;
  metricsUrl: string;
  process: StartedProcess;
  stop(): Promise<void>;
}

/** The databases, the config, the server process, then the namespace and search attributes; resolves once it serves. */
export async function startTemporalServer(opts: TemporalServerOptions): Promise<TemporalServer> {
  const log = opts.log ?? (() => undefined);
  const tools = findTemporalServer({ install: false });
  if (!tools) throw new Error(TEMPORAL_SERVER_INSTALL_HINT);
  await setupTemporalSchema(tools.sqlTool, opts.pg, log);
  mkdirSync(opts.dir, { recursive: true });
  const dynamicConfigFile = join(opts.dir, 'dynamicconfig.yaml');
  const configFile = join(opts.dir, 'temporal-server.yaml');
  writeFileSync(dynamicConfigFile, JSON.stringify(DYNAMIC_CONFIG, null, 2));
  writeFileSync(configFile, JSON.stringify(serverConfig(opts.pg, opts.ports, dynamicConfigFile), null, 2), { mode: 0o600 });
  const address = `127.0.0.1:${opts.ports.frontend}`;
  const metricsUrl = `http://127.0.0.1:${opts.ports.metrics}/metrics`;
  const launch = () =>
    startProcess({
      name: 'temporal-server',
      command: tools.server,
      args: ['--config-file', configFile, '--allow-no-auth', 'start'],
      cwd: opts.dir,
      env: { PATH: process.env.PATH ?? '' },
      // It logs at warn (above), silent when all is well: ready is its frontend answering a health check and its
      // own system worker running (systemWorkerStarted says why both).
      ready: async () => (await waitForTemporal(address, 2_000).then(() => true)) && systemWorkerStarted(metricsUrl),
      readyTimeoutMs: 120_000,
      onLine: opts.onLine,
      detached: opts.ownProcessGroup,
    });
  let server = await launch();
  try {
    const added = await ensureNamespace(address, opts.namespace, opts.retention ?? '7d', log);
    if (added > 0) {
      // Every service caches the search attributes for a minute (common/searchattribute/manager.go): on the first
      // set-up, a restart makes them usable at once instead of after that minute.
      log('Temporal: restarting once so every service reads the new search attributes');
      await server.stop(20_000);
      server = await launch();
    }
  } catch (err) {
    await server.stop(10_000);
    throw err;
  }
  return {
    address,
    metricsUrl,
    get process() {
      return server;
    },
    stop: async () => {
      await server.stop(20_000);
    },
  };
}

/**
 * Whether the server's worker service has started its system worker (namespace temporal-system, task queue
 * default-worker-tq), as its metrics show: the last step of a start. The frontend answers health checks before
 * that, and until then the server is still fragile: a database outage while the worker service starts makes the
 * whole process exit ("Unable to start worker", a fatal of service/worker/worker.go), which the topology test saw
 * when PostgreSQL crashed seconds after a server restart.
 */
export async function systemWorkerStarted(metricsUrl: string): Promise<boolean> {
  const page = await fetch(metricsUrl, { signal: AbortSignal.timeout(2_000) }).then(
    (r) => r.text(),
    () => '',
  );
  return /^temporal_worker_start\{[^}]*namespace="temporal_system"[^}]*task_queue="default_worker_tq"/m.test(page);
}

/**
 * The namespace (made once, with its retention) and the gateway's search attributes (SQL visibility keeps them per
 * namespace); returns how many attributes it added. A namespace just made takes a moment to reach the frontend's
 * cache, so what depends on it is retried, within a bound.
 */
async function ensureNamespace(address: string, namespace: string, retention: `${number}d`, log: Log): Promise<number> {
  const connection = await Connection.connect({ address });
  try {
    const service = connection.workflowService;
    try {
      await service.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(retention) });
      log(`Temporal: namespace ${namespace} created (retention ${retention})`);
    } catch (err) {
      if (!(isGrpcServiceError(err) && err.code === GRPC_ALREADY_EXISTS)) throw err;
    }
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        const added = await ensureSearchAttributes(connection, namespace);
        if (added.length > 0) log(`Temporal: search attributes registered: ${added.join(', ')}`);
        return added.length;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  const found = findTemporalServer();
  if (!found) {
    console.error(TEMPORAL_SERVER_INSTALL_HINT);
    process.exit(1);
  }
  console.log(found.server);
}
