/**
 * Platform B's configuration slice. Only the worker reads it: the API needs no upstream secret. Half a
 * configuration is a start-up error naming the missing variable.
 */
import { z } from 'zod';
import { configError, optionalString, optionalUrl, parseEnv } from '../../core/config';
import type { WorkerPlatform } from '../platform';
import { createPlatformB, type PlatformBSettings } from './adapter';

export const bWorkerEnv = z.object({
  PLATFORM_B_BASE_URL: optionalUrl,
  PLATFORM_B_API_KEY: optionalString,
});

/** The simulator's test account for platform B (sim/accounts.ts plays the platform's side). */
const SIMULATOR_ACCOUNT = { apiKey: 'sim-b-key' };

export function bWorker(env: NodeJS.ProcessEnv, opts: { simulate: boolean; simBaseUrl: string }): WorkerPlatform {
  const raw = parseEnv(bWorkerEnv, env);
  let settings: PlatformBSettings;
  let simulated = false;
  if (raw.PLATFORM_B_BASE_URL && raw.PLATFORM_B_API_KEY) {
    settings = { baseUrl: raw.PLATFORM_B_BASE_URL, apiKey: raw.PLATFORM_B_API_KEY };
  } else if (raw.PLATFORM_B_BASE_URL || raw.PLATFORM_B_API_KEY) {
    throw configError(raw.PLATFORM_B_BASE_URL ? 'PLATFORM_B_API_KEY' : 'PLATFORM_B_BASE_URL', 'required when the other is set');
  } else if (opts.simulate) {
    settings = { baseUrl: opts.simBaseUrl, apiKey: SIMULATOR_ACCOUNT.apiKey };
    simulated = true;
  } else {
    throw configError('PLATFORM_B_API_KEY', 'platform B is enabled (PLATFORMS_ENABLED) but not configured, or leave B out of PLATFORMS_ENABLED');
  }
  return { simulated, endpoint: settings.baseUrl, createAdapter: (deps) => createPlatformB(settings, deps) };
}
