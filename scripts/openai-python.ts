/**
 * The official OpenAI Python SDK (PyPI `openai`), pinned, in a virtual environment under the gitignored .tools/
 * directory: the Videos API's system test (test/system/openai-python.test.ts) drives the gateway with it, a
 * client nobody here wrote. Installed like schemathesis (scripts/tools.ts installPyPIVenv).
 *
 *   node --import tsx scripts/openai-python.ts     # installs if needed, prints the venv's python
 */
import { installPyPIVenv, type Log } from './tools';

export const OPENAI_PYTHON_VERSION = '3.57.0';

/** The venv's python with `openai` importable, installing it when missing; undefined when that fails here. */
export function findOpenAiPython(opts: { install?: boolean; log?: Log } = {}): string | undefined {
  return installPyPIVenv({
    pkg: 'openai',
    version: OPENAI_PYTHON_VERSION,
    dir: `openai-python-${OPENAI_PYTHON_VERSION}`,
    check: ['-c', 'import openai'],
    install: opts.install,
    log: opts.log ?? ((m) => console.error(m)),
  });
}

if (require.main === module) {
  const python = findOpenAiPython();
  if (!python) {
    console.error(`The openai Python SDK ${OPENAI_PYTHON_VERSION} could not be installed from PyPI.`);
    process.exit(1);
  }
  console.log(python);
}
