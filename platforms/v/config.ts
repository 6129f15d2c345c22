/**
 * Platform V's configuration slice. Only the worker reads it: the API needs no upstream secret. Half a
 * configuration is a start-up error naming the missing variable.
 *
 * One account (PLATFORM_V_BASE_URL + PLATFORM_V_API_KEY), or several (PLATFORM_V_ACCOUNTS_FILE: a JSON array of
 * `{id, api_key, base_url, weight?, models?}`, platforms/accounts-file.ts); not both.
 */
import { z } from 'zod';
import { callbackSchema, configError, optionalString, optionalUrl, parseEnv } from '../../core/config';
import { loadAccounts, maxConcurrentSetting } from '../accounts-file';
import type { WorkerAccount, WorkerPlatform } from '../platform';
import { createPlatformV, type PlatformVSettings } from './adapter';

const ACCOUNTS_FILE = 'PLATFORM_V_ACCOUNTS_FILE';

export const vWorkerEnv = z.object({
  /** Platform V API base URL, e.g. https://ark.cn-beijing.volces.com/api/v3 (with PLATFORM_V_API_KEY). */
  PLATFORM_V_BASE_URL: optionalUrl,
  PLATFORM_V_API_KEY: optionalString,
  /** Several accounts: a JSON file (docs/explanations/durability.md#accounts-and-failover). */
  PLATFORM_V_ACCOUNTS_FILE: optionalString,
  /** How many jobs an account may run at once where its entry sets none (platforms/accounts-file.ts maxConcurrentSetting). */
  PLATFORM_V_MAX_CONCURRENT: maxConcurrentSetting,
});

/** One account's credentials in PLATFORM_V_ACCOUNTS_FILE: the single-account variables, lower case, unprefixed. */
const vAccountCredentials = z.object({
  api_key: z.string().trim().min(1, "required: the account's Ark API key"),
  base_url: z.url({ protocol: /^https?$/, error: 'required: the Ark API base URL, e.g. https://ark.cn-beijing.volces.com/api/v3' }),
});

/** The simulator's test account for platform V (sim/accounts.ts plays the platform's side). */
const SIMULATOR_ACCOUNT = { apiKey: 'sim-v-key' };

export function vWorker(env: NodeJS.ProcessEnv, opts: { simulate: boolean; simBaseUrl: string }): WorkerPlatform {
  const raw = parseEnv(vWorkerEnv, env);
  const listed = loadAccounts(env, ACCOUNTS_FILE, vAccountCredentials);
  let accounts: { id: string; weight: number; models?: readonly string[]; maxConcurrent?: number; settings: PlatformVSettings }[];
  let simulated = false;
  if (listed) {
    if (raw.PLATFORM_V_BASE_URL || raw.PLATFORM_V_API_KEY) {
      throw configError(
        ACCOUNTS_FILE,
        'set either PLATFORM_V_ACCOUNTS_FILE or PLATFORM_V_BASE_URL and PLATFORM_V_API_KEY (the one-account shorthand), not both',
      );
    }
    accounts = listed.map((a) => ({
      id: a.id,
      weight: a.weight,
      ...(a.models ? { models: a.models } : {}),
      ...(a.max_concurrent !== undefined ? { maxConcurrent: a.max_concurrent } : {}),
      settings: { baseUrl: a.base_url, apiKey: a.api_key },
    }));
  } else if (raw.PLATFORM_V_BASE_URL && raw.PLATFORM_V_API_KEY) {
    accounts = [{ id: 'default', weight: 1, settings: { baseUrl: raw.PLATFORM_V_BASE_URL, apiKey: raw.PLATFORM_V_API_KEY } }];
  } else if (raw.PLATFORM_V_BASE_URL || raw.PLATFORM_V_API_KEY) {
    throw configError(
      raw.PLATFORM_V_BASE_URL ? 'PLATFORM_V_API_KEY' : 'PLATFORM_V_BASE_URL',
      'required when the other PLATFORM_V_* variable is set',
    );
  } else if (opts.simulate) {
    accounts = [{ id: 'default', weight: 1, settings: { baseUrl: `${opts.simBaseUrl}/api/v3`, apiKey: SIMULATOR_ACCOUNT.apiKey } }];
    simulated = true;
  } else {
    throw configError(
      'PLATFORM_V_API_KEY',
      `platform V is enabled (PLATFORMS_ENABLED) but not configured: set PLATFORM_V_BASE_URL and PLATFORM_V_API_KEY (or ${ACCOUNTS_FILE}), or leave V out of PLATFORMS_ENABLED`,
    );
  }
  // Push (docs/platforms/v.md, callback_url): on when the gateway says where it can be reached. The callback URL names the
  // task, and the task knows its account, so one setting serves every account.
  const { PUBLIC_BASE_URL, CALLBACK_SECRET } = parseEnv(callbackSchema, env);
  let callbacks: PlatformVSettings['callbacks'];
  if (PUBLIC_BASE_URL) {
    if (!CALLBACK_SECRET)
      throw configError('CALLBACK_SECRET', 'required with PUBLIC_BASE_URL: it signs the callback URLs handed to platform V');
    callbacks = { publicBaseUrl: PUBLIC_BASE_URL, secret: CALLBACK_SECRET };
  }
  const workerAccounts: WorkerAccount[] = accounts.map(({ settings, ...account }) => {
    const withPush: PlatformVSettings = callbacks ? { ...settings, callbacks } : settings;
    return { ...account, createAdapter: (deps) => createPlatformV(withPush, deps) };
  });
  const first = workerAccounts[0]!;
  const endpoints = [...new Set(accounts.map((a) => a.settings.baseUrl))].join(', ');
  return {
    simulated,
    endpoint: listed ? `${endpoints} (accounts ${accounts.map((a) => a.id).join(', ')})` : endpoints,
    push: callbacks !== undefined,
    createAdapter: first.createAdapter,
    ...(listed ? { accounts: workerAccounts } : {}),
    ...(raw.PLATFORM_V_MAX_CONCURRENT !== undefined ? { maxConcurrent: raw.PLATFORM_V_MAX_CONCURRENT } : {}),
  };
}
