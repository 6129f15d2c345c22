/**
 * `npm start`: the whole gateway on the embedded default, in one command — the Temporal dev server (SQLite under
 * ./data, Web UI), the upstream simulator (for every platform without configuration), the worker and the API.
 * Prints the API URL, the UI URL and, when it made the key itself, the API key. Each part is supervised: one
 * that dies is restarted (scripts/supervisor.ts); Ctrl-C (SIGINT/SIGTERM) stops every part cleanly.
 *
 * The local stack listens on 127.0.0.1 only (the API and the worker's metrics), unless HOST or
 * WORKER_METRICS_HOST say otherwise. With API_KEYS unset it generates one key and keeps it in data/dev-api-key,
 * so a second `npm start` uses the same key and can read the tasks created by the first.
 *
 * With DATABASE_URL unset it also runs the ledger's PostgreSQL (scripts/embedded-postgres.ts; data in
 * data/postgres, its password in data/dev-database-password) and, with ADMIN_TOKEN unset, makes an admin token
 * (data/dev-admin-token) for the admin API, printed in the banner.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { localOrigin } from '../core/config';
import { loadApiConfig } from '../api/api-config';
import { loadWorkerConfig } from '../worker/worker-config';
import { startProcess } from './child-process';
import { startDevServer } from './dev-server';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres';
import { loadEmbeddedConfig } from './embedded-config';
import { freePort, portIsFree } from './free-port';
import { Supervisor, type Running, type Service } from './supervisor';
import { REPO_ROOT } from './tools';
import { buildConsole } from './build-console';

/**
 * A value a launcher keeps in its data directory, made once (mode 0600): what it generates survives a restart,
 * so keys, signed links and callback URLs handed out before it keep working after it.
 */
export function devFile(dir: string, name: string, make: () => string): string {
  const file = join(dir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const value = make();
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}

/** The API key a launcher makes for itself when API_KEYS is unset. */
export const devApiKey = (dir: string) => devFile(dir, 'dev-api-key', () => `local:sk-${randomBytes(24).toString('base64url')}`);

/**
 * A secret of its own: RESULT_URL_SECRET (signs links to stored results), CALLBACK_SECRET (V's callback tokens),
 * WEBHOOK_SIGNING_SECRET (the keys' webhook secrets derive from it, so they survive a restart), ADMIN_TOKEN (the
 * admin API), the embedded PostgreSQL's password or (`npm run cluster`) MinIO's root password.
 */
export type DevSecretName =
  | 'dev-result-url-secret'
  | 'dev-callback-secret'
  | 'dev-webhook-signing-secret'
  | 'dev-admin-token'
  | 'dev-database-password'
  | 'dev-minio-password';
export const devSecret = (dir: string, name: DevSecretName) => devFile(dir, name, () => randomBytes(48).toString('base64url'));

/**
 * The embedded PostgreSQL: the pinned binaries, its data under the launcher's directory, supervised like the rest.
 * Every line it writes goes to `logFile`; the terminal gets only what concerns the server itself (FATAL, PANIC). Its
 * ERROR lines are its clients' failed statements, each handled by its client — among them the duplicate keys the
 * Temporal server's start-up meets by design — and would only alarm an operator.
 */
export function postgresPart(
  opts: { dataDir: string; port: number; password: string; logFile: string },
  onStarted: (server: EmbeddedPostgres) => void,
): Service {
  const { logFile, ...server } = opts;
  return {
    name: 'postgres',
    async start(): Promise<Running> {
      mkdirSync(dirname(logFile), { recursive: true });
      const running = await startEmbeddedPostgres({
        ...server,
        onLine: (line) => {
          appendFileSync(logFile, `${line}\n`);
          if (/\b(FATAL|PANIC):/.test(line)) process.stdout.write(`[postgres] ${line}\n`);
        },
        log: (message) => console.log(`[postgres] ${message}`),
        ownProcessGroup: true,
      });
      onStarted(running);
      return { pid: running.process.child.pid, exited: running.process.exited, stop: () => running.stop() };
    },
  };
}

/**
 * The embedded PostgreSQL's port: EMBEDDED_POSTGRES_PORT when it is free. Taken, the default (5433, unset) gives way to
 * a free port, and the start says which; a port the operator chose is theirs to change, and the error says how.
 */
export async function embeddedPostgresPort(asked: number, chosenByOperator: boolean): Promise<{ port: number; note?: string }> {
  if (await portIsFree(asked)) return { port: asked };
  if (chosenByOperator) {
    throw new Error(
      `port ${asked} (EMBEDDED_POSTGRES_PORT) is in use on 127.0.0.1: set EMBEDDED_POSTGRES_PORT to a free port, or DATABASE_URL to a PostgreSQL server of your own`,
    );
  }
  const port = await freePort();
  return {
    port,
    note: `Port ${asked}, the embedded PostgreSQL's default, is in use: it listens on 127.0.0.1:${port} instead (EMBEDDED_POSTGRES_PORT chooses one)`,
  };
}

/** The banner's admin line: the token is printed only when the launcher made it (like the API key). */
export function adminLine(generated: string | undefined, keptIn = 'data/dev-admin-token'): string {
  if (!generated) return 'Admin token: ADMIN_TOKEN (not shown)';
  return `Admin token: ${generated}   (kept in ${keptIn})`;
}

/**
 * Push on the embedded default, as production would run it: the simulated platforms announce finished jobs (V
 * per task and B per account to the local API, T through its pull queue, which needs no public URL). Only what
 * the operator left unset, and never for a real account's settings (those are theirs to opt into).
 */
export function pushDefaults(env: NodeJS.ProcessEnv, dataDir: string, port: number, simulated: readonly string[]): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  const unset = (k: string) => !env[k]?.trim();
  if (unset('PUBLIC_BASE_URL')) out.PUBLIC_BASE_URL = `http://127.0.0.1:${port}`;
  if (unset('CALLBACK_SECRET')) out.CALLBACK_SECRET = devSecret(dataDir, 'dev-callback-secret');
  if (simulated.includes('B') && unset('PLATFORM_B_CALLBACKS')) out.PLATFORM_B_CALLBACKS = 'manage';
  if (simulated.includes('T') && unset('PLATFORM_T_EVENTS')) out.PLATFORM_T_EVENTS = 'pull';
  return out;
}

/**
 * The banner's key line. The secret is printed only for the key `npm start` generated: an operator's own keys
 * (API_KEYS) are theirs to know, and never echoed to a terminal or a log.
 */
export function keyLine(generated: string | undefined, keptIn = 'data/dev-api-key'): string {
  if (!generated) return 'API key:     one of API_KEYS (not shown)';
  return `API key:     ${generated.split(':').slice(1).join(':')}   (kept in ${keptIn})`;
}

/** The banner's simulator line: which platforms are simulated, and where the worker calls the simulator. */
/** The banner's last lines: a first request to try (with the generated key's secret, if one was made) and how to stop. */
export function tryLines(apiUrl: string, generatedKey: string | undefined): string {
  const secret = generatedKey?.split(':').slice(1).join(':') ?? '$YOUR_KEY';
  return `Try:
  curl -s ${apiUrl}/v1/models -H "Authorization: Bearer ${secret}"

Each part restarts if it dies. Press Ctrl-C to stop.
`;
}

export function simulatedLine(simulated: readonly string[], simBaseUrl: string): string {
  return `Simulated:   ${simulated.length ? `platforms ${simulated.join(', ')} (simulator at ${simBaseUrl})` : 'none'}`;
}

/** A gateway process (`node --import tsx <script>`), its output prefixed, ready when `ready` is printed. */
export function nodePart(name: string, script: string, env: NodeJS.ProcessEnv, ready: RegExp, readyTimeoutMs: number): Service {
  return {
    name,
    start: async (): Promise<Running> => {
      const p = await startProcess({
        name,
        command: process.execPath,
        args: ['--import', 'tsx', join(REPO_ROOT, script)],
        cwd: REPO_ROOT,
        env,
        ready,
        readyTimeoutMs,
        onLine: (line) => process.stdout.write(`[${name}] ${line}\n`),
        detached: true,
      });
      return {
        pid: p.child.pid,
        exited: p.exited,
        stop: async () => {
          await p.stop(20_000);
        },
      };
    },
  };
}

type EmbeddedConfig = ReturnType<typeof loadEmbeddedConfig>;

/**
 * The parts' environment: the operator's, with what a local stack needs and the operator left unset (loopback
 * addresses, a generated API key, admin token and secrets kept in `dataDir`, push announcements for the simulated
 * platforms, the worker's readiness URL).
 */
function launchEnv(dataDir: string) {
  const generatedKey = process.env.API_KEYS?.trim() ? undefined : devApiKey(dataDir);
  const generatedAdminToken = process.env.ADMIN_TOKEN?.trim() ? undefined : devSecret(dataDir, 'dev-admin-token');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // A local stack is for this machine: listen on loopback unless told otherwise.
    HOST: process.env.HOST ?? '127.0.0.1',
    WORKER_METRICS_HOST: process.env.WORKER_METRICS_HOST ?? '127.0.0.1',
    ...(generatedKey ? { API_KEYS: generatedKey } : {}),
    ...(generatedAdminToken ? { ADMIN_TOKEN: generatedAdminToken } : {}),
    ...(process.env.RESULT_URL_SECRET?.trim() ? {} : { RESULT_URL_SECRET: devSecret(dataDir, 'dev-result-url-secret') }),
    ...(process.env.WEBHOOK_SIGNING_SECRET?.trim() ? {} : { WEBHOOK_SIGNING_SECRET: devSecret(dataDir, 'dev-webhook-signing-secret') }),
  };
  const simulated = Object.entries(loadWorkerConfig(env).platforms)
    .filter(([, p]) => p.simulated)
    .map(([id]) => id);
  Object.assign(env, pushDefaults(env, dataDir, loadApiConfig(env).PORT, simulated));
  const workerConfig = loadWorkerConfig(env);
  // The API's /readyz then says which platform has no account in the rotation (the worker knows; api/worker-readiness.ts).
  env.WORKER_READY_URLS ??= `${localOrigin(workerConfig.WORKER_METRICS_HOST, workerConfig.WORKER_METRICS_PORT)}/readyz`;
  return { env, generatedKey, generatedAdminToken, simulated, simBaseUrl: workerConfig.SIM_BASE_URL, apiPort: loadApiConfig(env).PORT };
}

/** The Temporal dev server as a part; `onUi` learns its UI's URL once it runs. */
function temporalPart(config: EmbeddedConfig, onUi: (url: string | undefined) => void): Service {
  return {
    name: 'temporal',
    async start() {
      const server = await startDevServer({
        address: config.TEMPORAL_ADDRESS,
        dbFile: config.TEMPORAL_DB_FILE,
        namespace: config.TEMPORAL_NAMESPACE,
        uiPort: config.TEMPORAL_UI_PORT,
        output: 'ignore',
        log: (m) => console.log(m),
        ownProcessGroup: true,
      });
      onUi(server.uiUrl);
      const child = server.process;
      const exited = child
        ? new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
            child.once('exit', (code, signal) => r({ code, signal })),
          )
        : new Promise<never>(() => undefined);
      return { pid: child?.pid, exited, stop: () => server.stop() };
    },
  };
}

/** Stops every part on a signal or a failed start, in dependency order, then exits with `code`. */
function shutdownOf(supervisor: Supervisor): (code: number) => Promise<void> {
  let stopping = false;
  return async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping mediagate…');
    // In dependency order: the API first (stop accepting), then the worker (finish in-flight activities), then what
    // they use. Each part runs in a process group of its own, so Ctrl-C reaches only this launcher, not every part at
    // once (PostgreSQL cutting its clients off, workers losing Temporal while they stop).
    await supervisor.stop(['api', 'worker', 'sim', 'temporal', 'postgres']);
    console.log('Stopped.');
    process.exit(code);
  };
}

/** Starts the parts in order (PostgreSQL where no DATABASE_URL is given, Temporal, the simulator, worker, API); returns Temporal's UI URL. */
async function startParts(supervisor: Supervisor, config: EmbeddedConfig, dataDir: string, launch: ReturnType<typeof launchEnv>) {
  const { env, simulated } = launch;
  if (!process.env.DATABASE_URL?.trim()) {
    console.log('Starting PostgreSQL (the ledger)…');
    const password = devSecret(dataDir, 'dev-database-password');
    const { port, note } = await embeddedPostgresPort(config.EMBEDDED_POSTGRES_PORT, Boolean(process.env.EMBEDDED_POSTGRES_PORT?.trim()));
    if (note) console.log(note);
    const logFile = join(dataDir, 'postgres.log');
    await supervisor.add(
      postgresPart({ dataDir: config.EMBEDDED_POSTGRES_DIR, port, password, logFile }, (pg) => (env.DATABASE_URL = pg.url)),
    );
  }
  console.log('Starting the Temporal dev server…');
  let uiUrl: string | undefined;
  await supervisor.add(temporalPart(config, (url) => (uiUrl = url)));
  // A task's page in the console links to its workflow in this UI.
  if (uiUrl) env.TEMPORAL_UI_URL ??= uiUrl;
  if (simulated.length > 0) await supervisor.add(nodePart('sim', 'sim/main.ts', env, /listening on/, 30_000));
  await supervisor.add(nodePart('worker', 'worker/main.ts', env, /Worker started/, 120_000));
  await supervisor.add(nodePart('api', 'api/main.ts', env, /API listening/, 60_000));
  return uiUrl;
}

function printRunning(config: EmbeddedConfig, launch: ReturnType<typeof launchEnv>, uiUrl: string | undefined): void {
  const apiUrl = `http://127.0.0.1:${launch.apiPort}`;
  console.log(`
mediagate is running.
  API:         ${apiUrl}
  Console:     ${apiUrl}/console   (sign in with the admin token)
  Temporal UI: ${uiUrl} (namespace ${config.TEMPORAL_NAMESPACE})
  ${keyLine(launch.generatedKey)}
  ${adminLine(launch.generatedAdminToken)}
  ${simulatedLine(launch.simulated, launch.simBaseUrl)}

${tryLines(apiUrl, launch.generatedKey)}`);
}

async function main(): Promise<void> {
  // The launcher reads each part's configuration only to orchestrate: which parts to start, what to print.
  const config = loadEmbeddedConfig();
  // What npm start generates is kept next to the dev server's database (data/ by default).
  const dataDir = dirname(config.TEMPORAL_DB_FILE);
  const launch = launchEnv(dataDir);
  // The operator's console is served built (dist/console), rebuilt here only when its sources changed.
  buildConsole({ ifStale: true });

  const supervisor = new Supervisor((line) => console.log(line));
  const shutdown = shutdownOf(supervisor);
  // SIGHUP: the terminal closed, which no longer reaches the parts themselves.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(0));
  let uiUrl: string | undefined;
  try {
    uiUrl = await startParts(supervisor, config, dataDir, launch);
  } catch (err) {
    console.error(`Start-up failed: ${(err as Error).message}`);
    await shutdown(1);
    return;
  }
  printRunning(config, launch, uiUrl);
}

if (require.main === module) void main();
