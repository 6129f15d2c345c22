/** Jest globalSetup of the e2e project: one real stack shared by the e2e test files. */
import { Stack } from './stack';

export default async function globalSetup(): Promise<void> {
  const stack = await Stack.start({ name: 'e2e' });
  (globalThis as { __MEDIAGATE_STACK__?: Stack }).__MEDIAGATE_STACK__ = stack;
  process.env.MEDIAGATE_TEST_API_URL = stack.apiUrl;
  process.env.MEDIAGATE_TEST_SIM_URL = stack.simUrl;
  process.env.MEDIAGATE_TEST_TEMPORAL_ADDRESS = stack.temporalAddress;
  process.env.MEDIAGATE_TEST_STACK_ENV = JSON.stringify(stack.env);
}
