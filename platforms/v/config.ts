/**
 * Platform V's configuration slice. Only the worker reads it: the API needs no upstream secret. Half a
 * configuration is a start-up error naming the missing variable.
 */
import { z } from 'zod';
import { callbackSchema, configError, optionalString, optionalUrl, parseEnv } from '../../core/config';
import type { WorkerPlatform } from '../platform';
import { createPlatformV, type PlatformVSettings } from './adapter';

export const vWorkerEnv = z.object({
  /** Platform V API base URL, e.g. https://ark.cn-beijing.volces.com/api/v3 (with PLATFORM_V_API_KEY). */
  PLATFORM_V_BASE_URL: optionalUrl,
  PLATFORM_V_API_KEY: optionalString,
});

/** The simulator's test account for platform V (sim/accounts.ts plays the platform's side). */
const SIMULATOR_ACCOUNT = { apiKey: 'sim-v-key' };

export function vWorker(env: NodeJS.ProcessEnv, opts: { simulate: boolean; simBaseUrl: string }): WorkerPlatform {
  const raw = parseEnv(vWorkerEnv, env);
  let settings: PlatformVSettings;
  let simulated = false;
  if (raw.PLATFORM_V_BASE_URL && raw.PLATFORM_V_API_KEY) {
    settings = { baseUrl: raw.PLATFORM_V_BASE_URL, apiKey: raw.PLATFORM_V_API_KEY };
  } else if (raw.PLATFORM_V_BASE_URL || raw.PLATFORM_V_API_KEY) {
    throw configError(raw.PLATFORM_V_BASE_URL ? 'PLATFORM_V_API_KEY' : 'PLATFORM_V_BASE_URL', 'required when the other PLATFORM_V_* variable is set');
  } else if (opts.simulate) {
    settings = { baseUrl: `${opts.simBaseUrl}/api/v3`, apiKey: SIMULATOR_ACCOUNT.apiKey };
    simulated = true;
  } else {
    throw configError('PLATFORM_V_API_KEY', 'platform V is enabled (PLATFORMS_ENABLED) but not configured: set PLATFORM_V_BASE_URL and PLATFORM_V_API_KEY, or leave V out of PLATFORMS_ENABLED');
  }
  // Push (upstreams.md, callback_url): on when the gateway says where it can be reached.
  const { PUBLIC_BASE_URL, CALLBACK_SECRET } = parseEnv(callbackSchema, env);
  if (PUBLIC_BASE_URL) {
    if (!CALLBACK_SECRET) throw configError('CALLBACK_SECRET', 'required with PUBLIC_BASE_URL: it signs the callback URLs handed to platform V');
    settings.callbacks = { publicBaseUrl: PUBLIC_BASE_URL, secret: CALLBACK_SECRET };
  }
  return { simulated, endpoint: settings.baseUrl, push: settings.callbacks !== undefined, createAdapter: (deps) => createPlatformV(settings, deps) };
}
