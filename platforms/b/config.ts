/**
 * Platform B's configuration. The worker slice (endpoint, AK/SK, optional API key) only the worker reads: the API
 * needs no upstream secret. The public slice (PLATFORM_B_MODELS_FILE) both read, so validation and the wire follow
 * the same model data. Half a configuration is a start-up error naming the missing variable.
 *
 * One account (PLATFORM_B_ACCESS_KEY_ID, PLATFORM_B_SECRET_ACCESS_KEY…), or several (PLATFORM_B_ACCOUNTS_FILE:
 * `{id, access_key_id, secret_access_key, api_key?, endpoint?, weight?, models?}`, platforms/accounts-file.ts); not
 * both. Callbacks (PLATFORM_B_CALLBACKS=manage) are set on every account.
 */
import { z } from 'zod';
import { callbackSchema, configError, optionalString, optionalUrl, parseEnv } from '../../core/config';
import { loadAccounts, maxConcurrentSetting } from '../accounts-file';
import { callbackUrlFor, type WorkerAccount, type WorkerPlatform } from '../platform';
import { configureBCallbacks, createPlatformB, type PlatformBSettings } from './adapter';
import { BILLING_ENDPOINT } from './day-totals';
import { bCallbacksEnv } from './announcements';
import { MODELS_FILE_VARIABLE } from './models-file';

/** VOD is one global service at one host, no regions (docs/platforms/b.md#host-and-authentication [OFF]). */
export const DEFAULT_ENDPOINT = 'https://vod.bj.baidubce.com';

export const bPublicEnv = z.object({
  /** JSON corrections to the model data (platforms/b/models-file.ts); unset: the defaults. */
  [MODELS_FILE_VARIABLE]: optionalString,
});

const ACCOUNTS_FILE = 'PLATFORM_B_ACCOUNTS_FILE';

/** A VOD API key: Bearer for text-to-video on /v3 (adapter.ts). */
const bApiKey = z.string().startsWith('bce-v3/', { message: 'a VOD API key starts with bce-v3/' });

/** One account's credentials in PLATFORM_B_ACCOUNTS_FILE: the single-account variables, lower case, unprefixed. */
const bAccountCredentials = z.object({
  access_key_id: z.string().trim().min(1, "required: the account's AccessKey ID (bce-auth-v1)"),
  secret_access_key: z.string().trim().min(1, "required: the account's Secret Access Key"),
  api_key: bApiKey.optional(),
  endpoint: z.url({ protocol: /^https?$/ }).optional(),
});

export const bWorkerEnv = bCallbacksEnv.extend({
  /** Several accounts: a JSON file (docs/explanations/durability.md#accounts-and-failover). */
  PLATFORM_B_ACCOUNTS_FILE: optionalString,
  /** How many jobs an account may run at once where its entry sets none (platforms/accounts-file.ts maxConcurrentSetting). */
  PLATFORM_B_MAX_CONCURRENT: maxConcurrentSetting,
  /** Default https://vod.bj.baidubce.com when B is configured. */
  PLATFORM_B_ENDPOINT: optionalUrl,
  /** Default https://billing.baidubce.com: the bill reconciliation reads (platforms/b/day-totals.ts), for every account. */
  PLATFORM_B_BILLING_ENDPOINT: optionalUrl,
  PLATFORM_B_ACCESS_KEY_ID: optionalString,
  PLATFORM_B_SECRET_ACCESS_KEY: optionalString,
  /** `bce-v3/ALTAK-…`: Bearer for text-to-video on /v3 (adapter.ts); AK/SK stay required for everything else. */
  PLATFORM_B_API_KEY: optionalString.pipe(bApiKey.optional()),
});

/** The simulator's test account for platform B (sim/accounts.ts plays the platform's side). */
const SIMULATOR_ACCOUNT = {
  accessKeyId: 'simbaccesskeyid0000000000000000a',
  secretAccessKey: 'simbsecretaccesskey000000000000b',
};

type BWorkerEnv = ReturnType<typeof parseEnv<typeof bWorkerEnv>>;
type BListed = NonNullable<ReturnType<typeof loadAccounts<typeof bAccountCredentials>>>;

/** An accounts-file entry's settings: its own keys and endpoint. */
function fromEntry(raw: BWorkerEnv, a: BListed[number]): PlatformBSettings {
  return {
    endpoint: a.endpoint ?? raw.PLATFORM_B_ENDPOINT ?? DEFAULT_ENDPOINT,
    billingEndpoint: raw.PLATFORM_B_BILLING_ENDPOINT ?? BILLING_ENDPOINT,
    accessKeyId: a.access_key_id,
    secretAccessKey: a.secret_access_key,
    ...(a.api_key ? { apiKey: a.api_key } : {}),
  };
}

/** The first (or only) account's settings: from the accounts file, the one-account variables, or the simulator's. */
function bSettings(
  raw: BWorkerEnv,
  listed: BListed | undefined,
  opts: { simulate: boolean; simBaseUrl: string },
): { settings: PlatformBSettings; simulated: boolean } {
  const ak = raw.PLATFORM_B_ACCESS_KEY_ID;
  const sk = raw.PLATFORM_B_SECRET_ACCESS_KEY;
  if (listed && (ak || sk || raw.PLATFORM_B_API_KEY)) {
    throw configError(
      ACCOUNTS_FILE,
      'set either PLATFORM_B_ACCOUNTS_FILE or PLATFORM_B_ACCESS_KEY_ID and PLATFORM_B_SECRET_ACCESS_KEY (the one-account shorthand), not both',
    );
  }
  if (listed) return { settings: fromEntry(raw, listed[0]!), simulated: false };
  if (ak && sk) {
    const settings = {
      endpoint: raw.PLATFORM_B_ENDPOINT ?? DEFAULT_ENDPOINT,
      billingEndpoint: raw.PLATFORM_B_BILLING_ENDPOINT ?? BILLING_ENDPOINT,
      accessKeyId: ak,
      secretAccessKey: sk,
      ...(raw.PLATFORM_B_API_KEY ? { apiKey: raw.PLATFORM_B_API_KEY } : {}),
    };
    return { settings, simulated: false };
  }
  if (ak || sk) {
    throw configError(
      ak ? 'PLATFORM_B_SECRET_ACCESS_KEY' : 'PLATFORM_B_ACCESS_KEY_ID',
      'required when the other is set (AK/SK, bce-auth-v1)',
    );
  }
  if (raw.PLATFORM_B_API_KEY) {
    // The API key covers v3 text-to-video only; image-to-video, images, task queries and reconciliation are v2.
    throw configError(
      'PLATFORM_B_ACCESS_KEY_ID',
      'required with PLATFORM_B_API_KEY: VOD takes API keys only on its v3 text-to-video endpoint; everything else is signed with AK/SK',
    );
  }
  if (opts.simulate) {
    const settings = {
      endpoint: raw.PLATFORM_B_ENDPOINT ?? opts.simBaseUrl,
      billingEndpoint: raw.PLATFORM_B_BILLING_ENDPOINT ?? opts.simBaseUrl,
      ...SIMULATOR_ACCOUNT,
    };
    return { settings, simulated: true };
  }
  throw configError(
    'PLATFORM_B_ACCESS_KEY_ID',
    'platform B is enabled (PLATFORMS_ENABLED) but not configured: set PLATFORM_B_ACCESS_KEY_ID and PLATFORM_B_SECRET_ACCESS_KEY, or leave B out of PLATFORMS_ENABLED',
  );
}

/** The callback settings the worker keeps on the platform (PLATFORM_B_CALLBACKS=manage), or none. */
function bCallbacks(raw: BWorkerEnv, env: NodeJS.ProcessEnv): PlatformBSettings['callbacks'] {
  if (raw.PLATFORM_B_CALLBACKS !== 'manage') return undefined;
  const { PUBLIC_BASE_URL } = parseEnv(callbackSchema, env);
  if (!PUBLIC_BASE_URL)
    throw configError('PUBLIC_BASE_URL', 'required with PLATFORM_B_CALLBACKS=manage: where platform B sends its events');
  return {
    url: callbackUrlFor(PUBLIC_BASE_URL, 'B'),
    signKey: raw.PLATFORM_B_CALLBACK_SIGN_KEY,
    videoEventSwitch: raw.PLATFORM_B_CALLBACK_SWITCH,
  };
}

export function bWorker(env: NodeJS.ProcessEnv, opts: { simulate: boolean; simBaseUrl: string }): WorkerPlatform {
  const raw = parseEnv(bWorkerEnv, env);
  const listed = loadAccounts(env, ACCOUNTS_FILE, bAccountCredentials);
  const { settings, simulated } = bSettings(raw, listed, opts);
  const managed = bCallbacks(raw, env);
  if (managed) settings.callbacks = managed;
  const callbacks = settings.callbacks;
  const accounts = listed
    ? listed.map((a) => ({
        id: a.id,
        weight: a.weight,
        ...(a.models ? { models: a.models } : {}),
        ...(a.max_concurrent !== undefined ? { maxConcurrent: a.max_concurrent } : {}),
        settings: { ...fromEntry(raw, a), ...(callbacks ? { callbacks } : {}) },
      }))
    : [{ id: 'default', weight: 1, settings }];
  const workerAccounts: WorkerAccount[] = accounts.map(({ settings: s, ...a }) => ({
    ...a,
    createAdapter: (deps) => createPlatformB(s, deps),
  }));
  return {
    simulated,
    endpoint: listed
      ? `${[...new Set(accounts.map((a) => a.settings.endpoint))].join(', ')} (accounts ${accounts.map((a) => a.id).join(', ')})`
      : settings.endpoint,
    push: callbacks !== undefined,
    createAdapter: workerAccounts[0]!.createAdapter,
    // The callback URL is an account setting: every account's is set.
    configurePush: async (deps) => {
      for (const a of accounts) await configureBCallbacks(a.settings, deps);
    },
    ...(listed ? { accounts: workerAccounts } : {}),
    ...(raw.PLATFORM_B_MAX_CONCURRENT !== undefined ? { maxConcurrent: raw.PLATFORM_B_MAX_CONCURRENT } : {}),
  };
}
