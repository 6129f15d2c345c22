/**
 * Schemathesis, the property-based API fuzzer the OpenAPI document is checked with (test/system/api-fuzz.test.ts),
 * pinned, from PyPI into a virtual environment under the gitignored .tools/ directory. It has many Python
 * dependencies (hypothesis, requests, jsonschema…), so unlike the single-wheel tools of scripts/tools.ts it gets
 * its own venv rather than `pip install --target`.
 *
 *   node --import tsx scripts/schemathesis.ts     # installs if needed, prints the venv's python
 *
 * Idempotent and fast once installed; safe to run concurrently: the venv is built in a temporary directory and
 * renamed into place. A venv's console scripts carry the absolute path of the directory they were installed in,
 * so callers run `<venv>/bin/python -m schemathesis.cli …`, which keeps working after the rename (python finds
 * its venv from the pyvenv.cfg next to it).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { onPath, TOOLS, works, type Log } from './tools';

export const SCHEMATHESIS_VERSION = '4.32.5';
const DIR = `schemathesis-${SCHEMATHESIS_VERSION}`;
const PYTHON = join('bin', 'python');
/** The argument list that runs the CLI with the venv's python. */
export const SCHEMATHESIS_MODULE = ['-m', 'schemathesis.cli'];

/** The venv's python with schemathesis importable, installing it when missing; undefined when that fails here. */
export function findSchemathesis(opts: { install?: boolean; log?: Log } = {}): string | undefined {
  const log = opts.log ?? ((m) => console.error(m));
  const target = join(TOOLS, DIR);
  const python = join(target, PYTHON);
  if (existsSync(python) && works(python, [...SCHEMATHESIS_MODULE, '--version'])) return python;
  if (opts.install === false) return undefined;
  const system = onPath('python3') ?? onPath('python');
  if (!system) {
    log('Schemathesis needs python3 (with the venv module) to install');
    return undefined;
  }
  const tmp = `${target}.tmp-${process.pid}`;
  log(`Installing schemathesis ${SCHEMATHESIS_VERSION} from PyPI into .tools/${DIR}`);
  try {
    mkdirSync(TOOLS, { recursive: true });
    execFileSync(system, ['-m', 'venv', tmp], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 120_000 });
    execFileSync(join(tmp, PYTHON), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--only-binary=:all:', `schemathesis==${SCHEMATHESIS_VERSION}`], {
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: 600_000,
    });
    if (!existsSync(target)) renameSync(tmp, target);
    return works(python, [...SCHEMATHESIS_MODULE, '--version']) ? python : undefined;
  } catch (err) {
    // Another process may have renamed its own install into place first.
    if (existsSync(python) && works(python, [...SCHEMATHESIS_MODULE, '--version'])) return python;
    log(`PyPI install of schemathesis ${SCHEMATHESIS_VERSION} failed: ${(err as Error).message}`);
    return undefined;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const python = findSchemathesis();
  if (!python) {
    console.error(`Schemathesis ${SCHEMATHESIS_VERSION} could not be installed from PyPI.`);
    process.exit(1);
  }
  console.log(python);
}
