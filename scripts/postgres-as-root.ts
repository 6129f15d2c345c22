/**
 * A root launcher's PostgreSQL (`npm start`, `npm run cluster`, the tests as root): PostgreSQL refuses to run as
 * root, so initdb and postgres run as an unprivileged user that exists already (`postgres`, else `nobody`). That user
 * must reach the binaries and the data directory, and a clone in root's home (0700) is out of its reach. So, as root:
 * the binaries are copied once to ROOT_SHARED_DIR when it cannot execute them in place (serverBinaries), and a data
 * directory it could not reach is made there too, linked from where it was asked for (dataDirectoryFor). As an
 * ordinary user nothing moves: the server runs as that user.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** The unprivileged user the server runs as when we are root. */
export interface ServerUser {
  name: string;
  uid: number;
  gid: number;
}

/** Who the server runs as: ourselves, or (as root) an existing unprivileged user. */
export function serverUser(): ServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      return { name, uid, gid };
    } catch {
      // try the next one
    }
  }
  throw new Error(
    'PostgreSQL cannot run as root and neither a "postgres" nor a "nobody" user exists; run as an ordinary user or set DATABASE_URL',
  );
}

/**
 * Where, as root, what the server's user cannot reach in place is kept: a copy of the binaries, and data directories
 * asked for inside a directory it cannot enter. Made 0755, root's; each data directory in it is the user's, 0700.
 */
export const ROOT_SHARED_DIR = '/var/lib/mediagate/embedded-postgres';

/** Whether `user` can reach `path` (every directory above it searchable, the path itself searchable or executable). */
export function canReach(user: ServerUser, path: string): boolean {
  return spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', path], { uid: user.uid, gid: user.gid, stdio: 'ignore' }).status === 0;
}

/** ROOT_SHARED_DIR, made when missing with what is missing above it, each 0755 whatever the umask; explains a failure. */
export function sharedDir(why: string): string {
  try {
    const missing: string[] = [];
    for (let dir = ROOT_SHARED_DIR; !existsSync(dir); dir = dirname(dir)) missing.push(dir);
    mkdirSync(ROOT_SHARED_DIR, { recursive: true });
    for (const dir of missing) chmodSync(dir, 0o755);
  } catch (err) {
    throw new Error(
      `${why}, and ${ROOT_SHARED_DIR} could not be made for it (${(err as Error).message}): move the clone where that user can reach it, or set DATABASE_URL to a PostgreSQL server`,
      { cause: err },
    );
  }
  return ROOT_SHARED_DIR;
}

/**
 * The directory the server keeps its data in, for the one asked for. Its parents are made with ordinary
 * permissions (never 0700: the server's user must pass through them). As root, when the server's user cannot
 * reach where it was asked for (a clone in root's 0700 home), a new data directory is made under ROOT_SHARED_DIR
 * and the asked-for path becomes a link to it; a link made so earlier is followed.
 */
export function dataDirectoryFor(asked: string, user: ServerUser | undefined, log: (message: string) => void = () => undefined): string {
  const dir = resolve(asked);
  mkdirSync(dirname(dir), { recursive: true });
  if (!user) return dir;
  const link = lstatSync(dir, { throwIfNoEntry: false });
  if (link?.isSymbolicLink()) return resolve(dirname(dir), readlinkSync(dir));
  if (link) {
    if (!canReach(user, dir)) {
      throw new Error(
        `PostgreSQL's data directory ${dir} is inside a directory its user (${user.name}) cannot enter: move it where that user can reach it (EMBEDDED_POSTGRES_DIR), or give it a new one`,
      );
    }
    return dir;
  }
  if (canReach(user, dirname(dir))) return dir;
  const why = `PostgreSQL runs as ${user.name}, which cannot enter ${dirname(dir)}`;
  const shared = sharedDir(why);
  // A name of its own each time one is made: an earlier clone's data (its own password) is never picked up.
  const kept = join(shared, `data-${createHash('sha256').update(dir).digest('hex').slice(0, 12)}-${randomBytes(4).toString('hex')}`);
  symlinkSync(kept, dir);
  log(`${why}: its data directory is ${kept} (${dir} links to it)`);
  return kept;
}

/** Makes every directory and file below `root` readable by anyone, and directories and executables enterable. */
function openToAll(root: string): void {
  for (const entry of [root, ...readdirSync(root, { recursive: true, encoding: 'utf8' }).map((f) => join(root, f))]) {
    const st = lstatSync(entry);
    if (st.isSymbolicLink()) continue;
    const exec = st.isDirectory() || (st.mode & 0o100) !== 0;
    chmodSync(entry, (st.mode & 0o7777) | 0o444 | (exec ? 0o111 : 0));
  }
}

/**
 * The directory of initdb and postgres the server's user can run: `bin` itself when it can, else a copy of the whole
 * installation above it (bin, lib, share: the binaries find their libraries and data relative to themselves) under
 * ROOT_SHARED_DIR, named after its package and version, made once and shared by every clone of that version. It is
 * written under a name of its own, then renamed into place: a start that dies part-way leaves no half copy, and of
 * two starts copying at once the second keeps the first's copy.
 */
export function serverBinaries(bin: string, user: ServerUser | undefined, log: (message: string) => void = () => undefined): string {
  if (!user || canReach(user, join(bin, 'postgres'))) return bin;
  const installation = dirname(bin);
  const why = `PostgreSQL runs as ${user.name}, which cannot reach its binaries in ${installation}`;
  const pkg = JSON.parse(readFileSync(join(dirname(installation), 'package.json'), 'utf8')) as { name?: string; version?: string };
  const name = `${(pkg.name ?? 'postgres').replace(/^@/, '').replace(/\//g, '-')}-${pkg.version ?? createHash('sha256').update(installation).digest('hex').slice(0, 12)}`;
  const copy = join(sharedDir(why), name);
  if (!existsSync(join(copy, basename(bin), 'postgres'))) {
    const partial = `${copy}.${process.pid}.${randomBytes(3).toString('hex')}.tmp`;
    cpSync(installation, partial, { recursive: true, verbatimSymlinks: true });
    openToAll(partial);
    writeFileSync(join(partial, 'copied-from'), `${installation}\n`);
    try {
      renameSync(partial, copy);
      log(`${why}: they are copied to ${copy}`);
    } catch (err) {
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(join(copy, basename(bin), 'postgres'))) throw err;
    }
  }
  return join(copy, basename(bin));
}
