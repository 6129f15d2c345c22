/**
 * The Temporal SDK's Runtime for tests that run workers in the Jest process (replays, the time-skipping server):
 * its workers log every state change at INFO, so it logs warnings only. The Runtime is per process and installed
 * once: if another test file in this Jest worker installed one first, that one stays.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';

export function installQuietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // already installed in this process
  }
}
