/**
 * Runs the embedded Temporal dev server: SQLite file (tasks survive a restart), optional Web UI, the gateway's
 * search attributes registered. Uses the Temporal CLI (scripts/temporal-cli.ts); if it cannot be found or
 * installed, falls back to the Temporal SDK, which downloads the same dev server (needs internet).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ALL_SEARCH_ATTRIBUTES } from '../core/search-attributes';
import { ensureSearchAttributes } from '../worker/search-attributes';
import { findTemporalCli, TEMPORAL_CLI_VERSION } from './temporal-cli';

export interface DevServerOptions {
  /** host:port for the frontend gRPC service. */
  address: string;
  /** SQLite database file; its directory is created. */
  dbFile: string;
  namespace: string;
  /** Web UI port, or false for none. */
  uiPort: number | false;
  /** Where the server's own output goes. */
  output?: 'inherit' | 'ignore';
  log?: (msg: string) => void;
  /** A process group of its own, so a terminal's Ctrl-C reaches only the launcher, which stops the parts in order. */
  ownProcessGroup?: boolean;
  /**
   * The server's own Prometheus metrics on this port (its persistence and visibility requests by operation: what the
   * benchmarks read to count a task's writes); absent: none.
   */
  metricsPort?: number;
}

export interface DevServer {
  address: string;
  uiUrl?: string;
  /** 'cli' (our pinned CLI) or 'sdk-download' (fallback). */
  via: 'cli' | 'sdk-download';
  process?: ChildProcess;
  stop(): Promise<void>;
}

/**
 * How the server's task queues dispatch (https://docs.temporal.io/develop/task-queue-priority-fairness): by priority
 * key, so a task granted a platform slot submits ahead of a burst's backlog (workflows/capacity.ts), and, within a
 * priority, round-robin over fairness keys — one per API key (tasks/task-queue-share.ts) — so one key's
 * burst does not hold another key's tasks behind it. A self-hosted server needs both switched on; a server
 * that lacks them dispatches first in, first out, as before. Set them on a production cluster too
 * (docs/guides/run.md "Temporal"), which scripts/temporal-server.ts does.
 */
export const TASK_QUEUE_DISPATCH = { 'matching.useNewMatcher': true, 'matching.enableFairness': true } as const;

/**
 * Eager activity execution: when a worker completes a workflow task that schedules an activity on its own task queue
 * and has a free activity slot, the server hands the activity back in its answer instead of queueing it
 * (`system.enableActivityEagerExecution`, off by default on every Temporal server; the SDK asks for it by default,
 * `allowEagerDispatch`). A task's activities run on its own queue, each scheduled by a workflow task: its submit (a
 * granted one above all, whose slot idles upstream until it runs) and the final event's first webhook attempt
 * (workflows/generation/announcement.ts); its polls are local activities already. Each skips the task queue's round
 * trip and the server's matching work. Set it on a production cluster too (docs/guides/run.md "Temporal").
 */
export const EAGER_ACTIVITIES = { 'system.enableActivityEagerExecution': true } as const;

/**
 * Dev-server tuning: the default visibility rate (100/s) throttles task listing under load; task queues dispatch by
 * priority and by fairness key (TASK_QUEUE_DISPATCH); activities start eagerly (EAGER_ACTIVITIES).
 */
const DYNAMIC_CONFIG = [
  'frontend.namespaceRPS.visibility=2000',
  'frontend.namespaceBurstRatio.visibility=2',
  ...Object.entries({ ...TASK_QUEUE_DISPATCH, ...EAGER_ACTIVITIES }).map(([key, value]) => `${key}=${String(value)}`),
];

/**
 * SQLite in write-ahead-log mode with `synchronous=NORMAL`: a workflow start commits in ~6 ms instead of ~21 ms
 * (p50 on this project's machines), and every layer above inherits the speed-up. It stays durable across a crash
 * or SIGKILL of the server (the fault tests restart it on the same file); only an OS crash or power loss can
 * drop the last commits — acceptable for the embedded dev server, whose production counterpart is PostgreSQL.
 */
const SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'];

const extraArgs = [
  ...DYNAMIC_CONFIG.flatMap((v) => ['--dynamic-config-value', v]),
  ...SQLITE_PRAGMAS.flatMap((p) => ['--sqlite-pragma', p]),
];

function splitAddress(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  return { host: address.slice(0, i) || '127.0.0.1', port: Number(address.slice(i + 1)) };
}

export async function waitForTemporal(address: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  while (Date.now() < deadline) {
    try {
      const conn = await Connection.connect({ address, connectTimeout: 2_000 });
      await conn.healthService.check({});
      await conn.close();
      return;
    } catch (err) {
      lastErr = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`Temporal at ${address} did not become ready within ${timeoutMs} ms: ${String(lastErr)}`);
}

async function registerSearchAttributes(address: string, namespace: string): Promise<void> {
  const conn = await Connection.connect({ address });
  try {
    await ensureSearchAttributes(conn, namespace);
  } finally {
    await conn.close();
  }
}

/** Where the CLI is not found: the same dev server, downloaded and started by the Temporal SDK. */
async function startThroughSdk(
  opts: DevServerOptions,
  { host, port, dbFile, uiUrl }: { host: string; port: number; dbFile: string; uiUrl: string | undefined },
  log: (m: string) => void,
): Promise<DevServer> {
  log('Temporal CLI unavailable: starting the dev server through the Temporal SDK download');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'cached-download', version: TEMPORAL_CLI_VERSION },
      ip: host,
      port,
      namespace: opts.namespace,
      dbFilename: dbFile,
      ...(opts.uiPort === false ? {} : { ui: true, uiPort: opts.uiPort }),
      searchAttributes: ALL_SEARCH_ATTRIBUTES,
      extraArgs: [...extraArgs, ...metricsArgs(opts)],
    },
  });
  await registerSearchAttributes(opts.address, opts.namespace);
  return { address: opts.address, uiUrl, via: 'sdk-download', stop: () => env.teardown() };
}

const metricsArgs = (opts: DevServerOptions) => (opts.metricsPort === undefined ? [] : ['--metrics-port', String(opts.metricsPort)]);

/** The CLI's `server start-dev` arguments: the address, database, namespace, UI and the search attributes. */
function cliArgs(opts: DevServerOptions, host: string, port: number, dbFile: string): string[] {
  return [
    'server',
    'start-dev',
    '--ip',
    host,
    '--port',
    String(port),
    '--db-filename',
    dbFile,
    '--namespace',
    opts.namespace,
    '--log-level',
    'warn',
    ...(opts.uiPort === false ? ['--headless'] : ['--ui-port', String(opts.uiPort)]),
    ...metricsArgs(opts),
    ...ALL_SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=Keyword`]),
    ...extraArgs,
  ];
}

export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const log = opts.log ?? ((m: string) => console.error(m));
  const { host, port } = splitAddress(opts.address);
  const dbFile = resolve(opts.dbFile);
  mkdirSync(dirname(dbFile), { recursive: true });
  const uiUrl = opts.uiPort === false ? undefined : `http://${host}:${opts.uiPort}`;
  const cli = findTemporalCli({ log });

  if (!cli) return startThroughSdk(opts, { host, port, dbFile, uiUrl }, log);

  const args = cliArgs(opts, host, port, dbFile);
  // 'ignore' keeps the server's lines out of the terminal, but the last few are kept to explain a failed start.
  const quiet = opts.output === 'ignore';
  const child = spawn(cli, args, {
    stdio: ['ignore', quiet ? 'pipe' : (opts.output ?? 'inherit'), quiet ? 'pipe' : (opts.output ?? 'inherit')],
    detached: opts.ownProcessGroup,
  });
  let tail: string[] = [];
  for (const stream of [child.stdout, child.stderr])
    if (stream) createInterface({ input: stream }).on('line', (line) => (tail = [...tail, line].slice(-10)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    await Promise.race([
      waitForTemporal(opts.address),
      exited.then((code) => {
        throw new Error(
          `Temporal dev server exited with code ${code} before becoming ready (is ${opts.address} already in use?)${tail.length ? `:\n${tail.join('\n')}` : ''}`,
        );
      }),
    ]);
    // The CLI registers --search-attribute only when it creates the database; an older database may lack some.
    await registerSearchAttributes(opts.address, opts.namespace);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    address: opts.address,
    uiUrl,
    via: 'cli',
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
