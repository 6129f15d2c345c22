/**
 * `npm run cluster`: the production topology on one machine, as processes — a real Temporal server (built from
 * its Go module, scripts/temporal-server.ts) on PostgreSQL (the embedded default's pinned binaries), MinIO for the
 * results (scripts/minio.ts), the ledger's database on the same PostgreSQL, the simulator for every platform
 * without configuration, two workers, and two API processes behind one port (scripts/balancer.ts). What
 * docker-compose runs in containers, without Docker. Use it to see the gateway as production runs it (several
 * replicas, SQL visibility, S3 results), to try a rolling worker deploy, or to measure beyond the embedded dev
 * server's ceiling; `npm start` stays the quick way to try the API.
 *
 * Everything lives under CLUSTER_DATA_DIR (data/cluster): PostgreSQL's and MinIO's data, the server's config,
 * the ports chosen at the first start (data/cluster/ports.json, kept so restarts find each other), the simulator's jobs, the
 * secrets and the API key it made. Each part is supervised (scripts/supervisor.ts); Ctrl-C stops them all, the APIs
 * first.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadApiConfig } from '../api/api-config';
import { loadWorkerConfig } from '../worker/worker-config';
import { startBalancer, type Balancer } from './balancer';
import { loadEmbeddedConfig } from './embedded-config';
import { freePort } from './free-port';
import { findMinio, startMinio } from './minio';
import { adminLine, devApiKey, devSecret, keyLine, nodePart, postgresPart, pushDefaults, simulatedLine, tryLines } from './start';
import { Supervisor, type Running, type Service } from './supervisor';
import { buildConsole } from './build-console';
import {
  findTemporalServer,
  freeServerPorts,
  startTemporalServer,
  TEMPORAL_SERVER_VERSION,
  type PostgresAccess,
  type TemporalServerPorts,
} from './temporal-server';

/** Workers and API processes the cluster runs: two of each, so one can die while the other serves. */
export const CLUSTER_REPLICAS = 2;
/** The bucket results are kept in. */
export const CLUSTER_BUCKET = 'mediagate-results';

/** The ports a cluster chose once, kept in data/cluster/ports.json: its parts reach each other on them after any restart. */
export interface ClusterPorts {
  postgres: number;
  minio: number;
  sim: number;
  temporal: Omit<TemporalServerPorts, 'frontend'>;
  apis: number[];
  workers: { metrics: number; sdkMetrics: number }[];
}

async function clusterPorts(dir: string): Promise<ClusterPorts> {
  const file = join(dir, 'ports.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as ClusterPorts;
  const { frontend: _frontend, ...temporal } = await freeServerPorts(0);
  const ports: ClusterPorts = {
    postgres: await freePort(),
    minio: await freePort(),
    sim: await freePort(),
    temporal,
    apis: await Promise.all(Array.from({ length: CLUSTER_REPLICAS }, () => freePort())),
    workers: await Promise.all(
      Array.from({ length: CLUSTER_REPLICAS }, async () => ({ metrics: await freePort(), sdkMetrics: await freePort() })),
    ),
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(ports, null, 2)}\n`);
  return ports;
}

/** The frontend port of TEMPORAL_ADDRESS, which must name this machine: the cluster's server listens there. */
function frontendPort(address: string): number {
  const m = /^(127\.0\.0\.1|localhost):(\d+)$/.exec(address);
  if (!m) throw new Error(`TEMPORAL_ADDRESS=${address}: npm run cluster runs its own Temporal server on 127.0.0.1; give 127.0.0.1:<port>`);
  return Number(m[2]);
}

/** The Temporal server, supervised: its lines go to a log file; only fatal ones reach the terminal. */
function temporalPart(opts: { pg: () => PostgresAccess; ports: TemporalServerPorts; dir: string; namespace: string }): Service {
  const logFile = join(opts.dir, 'temporal-server.log');
  return {
    name: 'temporal',
    async start(): Promise<Running> {
      const server = await startTemporalServer({
        pg: opts.pg(),
        ports: opts.ports,
        dir: opts.dir,
        namespace: opts.namespace,
        onLine: (line) => {
          appendFileSync(logFile, `${line}\n`);
          if (/"level":"(fatal|panic)"/.test(line)) process.stdout.write(`[temporal] ${line.slice(0, 400)}\n`);
        },
        log: (m) => console.log(`[temporal] ${m}`),
        ownProcessGroup: true,
      });
      return { pid: server.process.child.pid, exited: server.process.exited, stop: () => server.stop() };
    },
  };
}

function minioPart(opts: { dir: string; port: number; password: string }): Service {
  return {
    name: 'minio',
    async start(): Promise<Running> {
      const minio = await startMinio({
        dataDir: opts.dir,
        port: opts.port,
        credentials: { accessKeyId: 'mediagate', secretAccessKey: opts.password },
        ownProcessGroup: true,
      });
      await minio.createBucket(CLUSTER_BUCKET);
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
        minio.process.once('exit', (code, signal) => r({ code, signal })),
      );
      return { pid: minio.process.pid, exited, stop: () => minio.stop() };
    },
  };
}

type EmbeddedConfig = ReturnType<typeof loadEmbeddedConfig>;

/** The secrets the cluster generates where the operator set none, kept in the cluster's data folder `dir`. */
function clusterSecrets(dir: string) {
  return {
    generatedKey: process.env.API_KEYS?.trim() ? undefined : devApiKey(dir),
    generatedAdminToken: process.env.ADMIN_TOKEN?.trim() ? undefined : devSecret(dir, 'dev-admin-token'),
    pgPassword: devSecret(dir, 'dev-database-password'),
    minioPassword: devSecret(dir, 'dev-minio-password'),
  };
}
type ClusterSecrets = ReturnType<typeof clusterSecrets>;

/** The parts' environment: the operator's, with the cluster's addresses, its result store and the generated secrets. */
function clusterEnv(dir: string, ports: ClusterPorts, frontend: number, secrets: ClusterSecrets, apiPort: number) {
  const { generatedKey, generatedAdminToken } = secrets;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: `127.0.0.1:${frontend}`,
    SIM_HOST: '127.0.0.1',
    SIM_PORT: String(ports.sim),
    // The simulator's jobs with the rest of the cluster's data, not in data/ beside `npm start`'s.
    SIM_DATA_FILE: process.env.SIM_DATA_FILE?.trim() || join(dir, 'sim-jobs.json'),
    WORKER_METRICS_HOST: process.env.WORKER_METRICS_HOST ?? '127.0.0.1',
    RESULTS_S3_BUCKET: CLUSTER_BUCKET,
    RESULTS_S3_ENDPOINT: `http://127.0.0.1:${ports.minio}`,
    RESULTS_S3_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'mediagate',
    AWS_SECRET_ACCESS_KEY: secrets.minioPassword,
    ...(generatedKey ? { API_KEYS: generatedKey } : {}),
    ...(generatedAdminToken ? { ADMIN_TOKEN: generatedAdminToken } : {}),
    ...(process.env.RESULT_URL_SECRET?.trim() ? {} : { RESULT_URL_SECRET: devSecret(dir, 'dev-result-url-secret') }),
    ...(process.env.WEBHOOK_SIGNING_SECRET?.trim() ? {} : { WEBHOOK_SIGNING_SECRET: devSecret(dir, 'dev-webhook-signing-secret') }),
    // Both workers' view of the platforms' accounts (api/worker-readiness.ts).
    WORKER_READY_URLS: process.env.WORKER_READY_URLS ?? ports.workers.map((w) => `http://127.0.0.1:${w.metrics}/readyz`).join(','),
  };
  const simulated = Object.entries(loadWorkerConfig(env).platforms)
    .filter(([, p]) => p.simulated)
    .map(([id]) => id);
  // Platforms announce finished jobs to the port in front of both APIs.
  Object.assign(env, pushDefaults(env, dir, apiPort, simulated));
  return { env, simulated };
}

/** Starts PostgreSQL, the Temporal server, MinIO, the simulator, both workers and both APIs, in that order. */
async function startClusterParts(
  supervisor: Supervisor,
  config: EmbeddedConfig,
  cluster: { dir: string; ports: ClusterPorts; temporalPorts: TemporalServerPorts; secrets: ClusterSecrets },
  launch: ReturnType<typeof clusterEnv>,
): Promise<void> {
  const { dir, ports, temporalPorts, secrets } = cluster;
  const { env, simulated } = launch;
  const pg: PostgresAccess = { host: '127.0.0.1', port: ports.postgres, user: 'mediagate', password: secrets.pgPassword };
  console.log('Starting PostgreSQL (Temporal and the ledger)…');
  await supervisor.add(
    postgresPart(
      { dataDir: join(dir, 'postgres'), port: ports.postgres, password: secrets.pgPassword, logFile: join(dir, 'postgres.log') },
      (server) => (env.DATABASE_URL = server.url),
    ),
  );
  console.log(`Starting the Temporal server ${TEMPORAL_SERVER_VERSION} on PostgreSQL…`);
  await supervisor.add(
    temporalPart({ pg: () => pg, ports: temporalPorts, dir: join(dir, 'temporal'), namespace: config.TEMPORAL_NAMESPACE }),
  );
  console.log('Starting MinIO (the result store)…');
  await supervisor.add(minioPart({ dir: join(dir, 'minio'), port: ports.minio, password: secrets.minioPassword }));
  if (simulated.length > 0) await supervisor.add(nodePart('sim', 'sim/main.ts', env, /listening on/, 30_000));
  for (const [i, w] of ports.workers.entries()) {
    const workerEnv = { ...env, WORKER_METRICS_PORT: String(w.metrics), WORKER_SDK_METRICS_PORT: String(w.sdkMetrics) };
    await supervisor.add(nodePart(`worker-${i + 1}`, 'worker/main.ts', workerEnv, /Worker started/, 120_000));
  }
  for (const [i, port] of ports.apis.entries()) {
    await supervisor.add(
      nodePart(`api-${i + 1}`, 'api/main.ts', { ...env, HOST: '127.0.0.1', PORT: String(port) }, /API listening/, 60_000),
    );
  }
}

function printClusterRunning(
  config: EmbeddedConfig,
  cluster: { dir: string; ports: ClusterPorts; secrets: ClusterSecrets; apiPort: number },
  launch: ReturnType<typeof clusterEnv>,
): void {
  const { dir, ports, secrets, apiPort } = cluster;
  const { env, simulated } = launch;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  console.log(`
The mediagate cluster is running.
  API:         ${apiUrl}   (one port in front of ${ports.apis.length} API processes on ${ports.apis.join(', ')})
  Console:     ${apiUrl}/console   (sign in with the admin token; either API process serves it)
  Temporal:    ${env.TEMPORAL_ADDRESS} (server ${TEMPORAL_SERVER_VERSION} on PostgreSQL 127.0.0.1:${ports.postgres}, ${config.TEMPORAL_NAMESPACE} namespace)
               npm run temporal:cli -- workflow list --address ${env.TEMPORAL_ADDRESS}
  Workers:     ${ports.workers.length} (metrics on ${ports.workers.map((w) => w.metrics).join(', ')})
  Results:     MinIO ${env.RESULTS_S3_ENDPOINT}, bucket ${CLUSTER_BUCKET}
  ${keyLine(secrets.generatedKey, join(config.CLUSTER_DATA_DIR, 'dev-api-key'))}
  ${adminLine(secrets.generatedAdminToken, join(config.CLUSTER_DATA_DIR, 'dev-admin-token'))}
  ${simulatedLine(simulated, loadWorkerConfig(env).SIM_BASE_URL)}
  Data:        ${dir}

${tryLines(apiUrl, secrets.generatedKey)}`);
}

async function main(): Promise<void> {
  const config = loadEmbeddedConfig();
  const dir = resolve(config.CLUSTER_DATA_DIR);
  console.log('Finding the pinned Temporal server and MinIO (built with Go into .tools/ on first use: a few minutes)…');
  if (!findTemporalServer() || !findMinio()) {
    console.error('The Temporal server or MinIO could not be built here (Go ≥ 1.25 and the Go module proxy are needed).');
    process.exit(1);
  }
  const ports = await clusterPorts(dir);
  const temporalPorts: TemporalServerPorts = { frontend: frontendPort(config.TEMPORAL_ADDRESS), ...ports.temporal };
  const secrets = clusterSecrets(dir);
  const apiPort = loadApiConfig(process.env).PORT;
  const host = process.env.HOST ?? '127.0.0.1';
  const launch = clusterEnv(dir, ports, temporalPorts.frontend, secrets, apiPort);
  // The operator's console is served built (dist/console) by both APIs, rebuilt here only when its sources changed.
  buildConsole({ ifStale: true });

  const supervisor = new Supervisor((line) => console.log(line));
  let balancer: Balancer | undefined;
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping the cluster…');
    await balancer?.stop();
    // In dependency order, each part in a process group of its own so that Ctrl-C reaches only this launcher: the
    // APIs, the workers (they finish their activities while Temporal still answers), what they use, then the
    // Temporal server, and PostgreSQL last, when nothing is connected to it any more.
    await supervisor.stop(['api-1', 'api-2', 'worker-1', 'worker-2', 'sim', 'minio', 'temporal', 'postgres']);
    console.log('Stopped.');
    process.exit(code);
  };
  // SIGHUP: the terminal closed, which no longer reaches the parts themselves.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(0));
  try {
    await startClusterParts(supervisor, config, { dir, ports, temporalPorts, secrets }, launch);
    balancer = await startBalancer({ host, port: apiPort, backends: () => ports.apis });
  } catch (err) {
    console.error(`Start-up failed: ${(err as Error).message}`);
    await shutdown(1);
    return;
  }
  printClusterRunning(config, { dir, ports, secrets, apiPort }, launch);
}

if (require.main === module) void main();
