/** The e2e project's shared stack (started by global-setup.ts), as clients. */
import { ApiClient, SimClient, type KeyName } from './client';

export function sharedStack() {
  const apiUrl = process.env.MEDIAGATE_TEST_API_URL;
  const simUrl = process.env.MEDIAGATE_TEST_SIM_URL;
  if (!apiUrl || !simUrl) throw new Error('e2e tests need the shared stack: run them through jest (project e2e)');
  return {
    apiUrl,
    simUrl,
    temporalAddress: process.env.MEDIAGATE_TEST_TEMPORAL_ADDRESS!,
    api: (key: KeyName | string | null = 'alice') => new ApiClient(apiUrl, key),
    sim: new SimClient(simUrl),
  };
}
