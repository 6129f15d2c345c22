/**
 * Schemathesis, the property-based API fuzzer the OpenAPI document is checked with (test/system/api-fuzz.test.ts),
 * pinned, from PyPI into a virtual environment under the gitignored .tools/ directory. It has many Python
 * dependencies (hypothesis, requests, jsonschema…), so unlike the single-wheel tools of scripts/tools.ts it gets
 * its own venv rather than `pip install --target`.
 *
 *   node --import tsx scripts/schemathesis.ts     # installs if needed, prints the venv's python
 *
 * Idempotent and fast once installed; safe to run concurrently (scripts/tools.ts installPyPIVenv). Callers run
 * `<venv>/bin/python -m schemathesis.cli …`.
 */
import { installPyPIVenv, type Log } from './tools';

export const SCHEMATHESIS_VERSION = '4.32.5';
/** The argument list that runs the CLI with the venv's python. */
export const SCHEMATHESIS_MODULE = ['-m', 'schemathesis.cli'];

/** The venv's python with schemathesis importable, installing it when missing; undefined when that fails here. */
export function findSchemathesis(opts: { install?: boolean; log?: Log } = {}): string | undefined {
  return installPyPIVenv({
    pkg: 'schemathesis',
    version: SCHEMATHESIS_VERSION,
    dir: `schemathesis-${SCHEMATHESIS_VERSION}`,
    check: [...SCHEMATHESIS_MODULE, '--version'],
    install: opts.install,
    log: opts.log ?? ((m) => console.error(m)),
  });
}

if (require.main === module) {
  const python = findSchemathesis();
  if (!python) {
    console.error(`Schemathesis ${SCHEMATHESIS_VERSION} could not be installed from PyPI.`);
    process.exit(1);
  }
  console.log(python);
}
