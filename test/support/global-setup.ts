/** Jest globalSetup of the e2e project: one real stack shared by the e2e test files, with the ledger's PostgreSQL. */
import { startTestPostgres, type TestPostgres } from './postgres';
import { freePort, Stack } from './stack';

/**
 * The e2e webhook receiver's port, fixed before the stack starts so its origin can be allowed although it is
 * loopback (WEBHOOK_ALLOW_PRIVATE_ORIGINS); retries are quick and attempts short so a test sees several.
 */
export const WEBHOOK_RECEIVER_PORT_ENV = 'MEDIAGATE_TEST_WEBHOOK_PORT';

/** The e2e stack's admin token (ADMIN_TOKEN): test-only. */
export const E2E_ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdefghijkl';

export default async function globalSetup(): Promise<void> {
  const postgres = await startTestPostgres();
  (globalThis as { __MEDIAGATE_POSTGRES__?: TestPostgres }).__MEDIAGATE_POSTGRES__ = postgres;
  const webhookPort = await freePort();
  process.env[WEBHOOK_RECEIVER_PORT_ENV] = String(webhookPort);
  const stack = await Stack.start({
    name: 'e2e',
    env: {
      DATABASE_URL: postgres.url,
      ADMIN_TOKEN: E2E_ADMIN_TOKEN,
      WEBHOOK_ALLOW_PRIVATE_ORIGINS: `http://127.0.0.1:${webhookPort}`,
      WEBHOOK_RETRY_INITIAL_MS: '300',
      WEBHOOK_RETRY_MAX_INTERVAL_MS: '1000',
      WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
      SSE_HEARTBEAT_MS: '500',
    },
  });
  (globalThis as { __MEDIAGATE_STACK__?: Stack }).__MEDIAGATE_STACK__ = stack;
  process.env.MEDIAGATE_TEST_API_URL = stack.apiUrl;
  process.env.MEDIAGATE_TEST_SIM_URL = stack.simUrl;
  process.env.MEDIAGATE_TEST_TEMPORAL_ADDRESS = stack.temporalAddress;
  process.env.MEDIAGATE_TEST_STACK_ENV = JSON.stringify(stack.env);
  // A fresh database per test file that needs one of its own: MEDIAGATE_TEST_POSTGRES_URL names the server.
  process.env.MEDIAGATE_TEST_POSTGRES_URL = postgres.url;
}
