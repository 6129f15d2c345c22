/**
 * Platform T's configuration slice. Only the worker reads it: the API needs no upstream secret. Half a
 * configuration is a start-up error naming the missing variable.
 *
 * One account (PLATFORM_T_SECRET_ID, PLATFORM_T_SECRET_KEY, PLATFORM_T_SUBAPP_ID…), or several
 * (PLATFORM_T_ACCOUNTS_FILE: `{id, secret_id, secret_key, subapp_id, region?, endpoint?, weight?, models?}`,
 * platforms/accounts-file.ts); not both. Events (PLATFORM_T_EVENTS) are configured on every account's SubAppId.
 */
import { z } from 'zod';
import { bool, callbackSchema, configError, optionalString, optionalUrl, parseEnv } from '../../core/config';
import { loadAccounts, maxConcurrentSetting } from '../accounts-file';
import { callbackUrlFor, type WorkerAccount, type WorkerPlatform } from '../platform';
import { configureTEvents, createPlatformT, type PlatformTSettings } from './adapter';
import { tEventsEnv } from './announcements';

const ACCOUNTS_FILE = 'PLATFORM_T_ACCOUNTS_FILE';

/** One account's credentials in PLATFORM_T_ACCOUNTS_FILE: the single-account variables, lower case, unprefixed. */
const tAccountCredentials = z.object({
  secret_id: z.string().trim().min(1, "required: the account's SecretId"),
  secret_key: z.string().trim().min(1, "required: the account's SecretKey"),
  subapp_id: z.number().int().positive('required: the VOD sub-application id (SubAppId) every AIGC action names'),
  region: z.string().trim().min(1).optional(),
  endpoint: z.url({ protocol: /^https?$/ }).optional(),
});

export const tWorkerEnv = tEventsEnv.extend({
  /** Several accounts: a JSON file (docs/explanations/durability.md#accounts-and-failover). */
  PLATFORM_T_ACCOUNTS_FILE: optionalString,
  /** How many jobs an account may run at once where its entry sets none (platforms/accounts-file.ts maxConcurrentSetting). */
  PLATFORM_T_MAX_CONCURRENT: maxConcurrentSetting,
  /** Default https://vod.tencentcloudapi.com when T is configured. */
  PLATFORM_T_ENDPOINT: optionalUrl,
  PLATFORM_T_SECRET_ID: optionalString,
  PLATFORM_T_SECRET_KEY: optionalString,
  /** Required with the credentials: every AIGC action names the VOD sub-application (accounts since 2023-12-25). */
  PLATFORM_T_SUBAPP_ID: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().positive().optional()),
  PLATFORM_T_REGION: optionalString,
  /**
   * OutputConfig.StorageMode: `Temporary` (T's default: result links for about 7 days) or `Permanent` (results are
   * stored as VOD media, billed as storage, and outlive the links).
   */
  PLATFORM_T_STORAGE_MODE: z.enum(['Temporary', 'Permanent']).default('Temporary'),
  /**
   * The SubAppId's event configuration is the whole application's: with `true` the worker replaces one it did not
   * set (another mode or URL); by default it refuses and leaves push off (adapter.ts configureTEvents).
   */
  PLATFORM_T_EVENTS_TAKE_OVER: bool(false),
});

/** TencentCloud API 3.0's VOD endpoint, when neither the account nor PLATFORM_T_ENDPOINT names one. */
const DEFAULT_ENDPOINT = 'https://vod.tencentcloudapi.com';

/** The simulator's test account for platform T (sim/accounts.ts plays the platform's side). */
const SIMULATOR_ACCOUNT = { secretId: 'AKIDsimulator', secretKey: 'sim-t-secret-key', subAppId: 1500000001 };

type TWorkerEnv = ReturnType<typeof parseEnv<typeof tWorkerEnv>>;
type TListed = NonNullable<ReturnType<typeof loadAccounts<typeof tAccountCredentials>>>;

/** An accounts-file entry's settings: its own credentials and endpoint, the rest from the variables. */
function fromEntry(raw: TWorkerEnv, a: TListed[number]): PlatformTSettings {
  return {
    endpoint: a.endpoint ?? raw.PLATFORM_T_ENDPOINT ?? DEFAULT_ENDPOINT,
    secretId: a.secret_id,
    secretKey: a.secret_key,
    subAppId: a.subapp_id,
    region: a.region,
    storageMode: raw.PLATFORM_T_STORAGE_MODE,
  };
}

/** The first (or only) account's settings: from the accounts file, the one-account variables, or the simulator's. */
function tSettings(
  raw: TWorkerEnv,
  listed: TListed | undefined,
  opts: { simulate: boolean; simBaseUrl: string },
): { settings: PlatformTSettings; simulated: boolean } {
  if (listed && (raw.PLATFORM_T_SECRET_ID || raw.PLATFORM_T_SECRET_KEY || raw.PLATFORM_T_SUBAPP_ID !== undefined)) {
    throw configError(
      ACCOUNTS_FILE,
      'set either PLATFORM_T_ACCOUNTS_FILE or PLATFORM_T_SECRET_ID, PLATFORM_T_SECRET_KEY and PLATFORM_T_SUBAPP_ID (the one-account shorthand), not both',
    );
  }
  if (listed) return { settings: fromEntry(raw, listed[0]!), simulated: false };
  if (raw.PLATFORM_T_SECRET_ID && raw.PLATFORM_T_SECRET_KEY) {
    if (raw.PLATFORM_T_SUBAPP_ID === undefined) {
      throw configError(
        'PLATFORM_T_SUBAPP_ID',
        'required with PLATFORM_T_SECRET_ID: the VOD sub-application id (SubAppId) every AIGC action names',
      );
    }
    const settings = {
      endpoint: raw.PLATFORM_T_ENDPOINT ?? DEFAULT_ENDPOINT,
      secretId: raw.PLATFORM_T_SECRET_ID,
      secretKey: raw.PLATFORM_T_SECRET_KEY,
      subAppId: raw.PLATFORM_T_SUBAPP_ID,
      region: raw.PLATFORM_T_REGION,
      storageMode: raw.PLATFORM_T_STORAGE_MODE,
    };
    return { settings, simulated: false };
  }
  if (raw.PLATFORM_T_SECRET_ID || raw.PLATFORM_T_SECRET_KEY) {
    throw configError(raw.PLATFORM_T_SECRET_ID ? 'PLATFORM_T_SECRET_KEY' : 'PLATFORM_T_SECRET_ID', 'required when the other is set');
  }
  if (opts.simulate) {
    return {
      settings: { endpoint: raw.PLATFORM_T_ENDPOINT ?? opts.simBaseUrl, ...SIMULATOR_ACCOUNT, storageMode: raw.PLATFORM_T_STORAGE_MODE },
      simulated: true,
    };
  }
  throw configError(
    'PLATFORM_T_SECRET_ID',
    'platform T is enabled (PLATFORMS_ENABLED) but not configured: set PLATFORM_T_SECRET_ID, PLATFORM_T_SECRET_KEY and PLATFORM_T_SUBAPP_ID, or leave T out of PLATFORMS_ENABLED',
  );
}

/** How the platform's events reach the worker (PLATFORM_T_EVENTS): pushed to PUBLIC_BASE_URL, pulled, or not at all. */
function tEvents(raw: TWorkerEnv, env: NodeJS.ProcessEnv): PlatformTSettings['events'] {
  if (raw.PLATFORM_T_EVENTS === 'push') {
    const { PUBLIC_BASE_URL } = parseEnv(callbackSchema, env);
    if (!PUBLIC_BASE_URL)
      throw configError(
        'PUBLIC_BASE_URL',
        'required with PLATFORM_T_EVENTS=push: where platform T sends its events (or use pull, which needs no public URL)',
      );
    return {
      mode: 'push',
      notificationUrl: callbackUrlFor(PUBLIC_BASE_URL, 'T'),
      signKey: raw.PLATFORM_T_EVENTS_SIGN_KEY,
      takeOver: raw.PLATFORM_T_EVENTS_TAKE_OVER,
    };
  }
  if (raw.PLATFORM_T_EVENTS === 'pull') return { mode: 'pull', takeOver: raw.PLATFORM_T_EVENTS_TAKE_OVER };
  return undefined;
}

export function tWorker(env: NodeJS.ProcessEnv, opts: { simulate: boolean; simBaseUrl: string }): WorkerPlatform {
  const raw = parseEnv(tWorkerEnv, env);
  const listed = loadAccounts(env, ACCOUNTS_FILE, tAccountCredentials);
  const { settings, simulated } = tSettings(raw, listed, opts);
  const events = tEvents(raw, env);
  if (events) settings.events = events;
  // Every account gets the same event settings, on its own SubAppId.
  const accounts: { id: string; weight: number; models?: readonly string[]; maxConcurrent?: number; settings: PlatformTSettings }[] = listed
    ? listed.map((a) => ({
        id: a.id,
        weight: a.weight,
        ...(a.models ? { models: a.models } : {}),
        ...(a.max_concurrent !== undefined ? { maxConcurrent: a.max_concurrent } : {}),
        // The account's own credentials and endpoint; the event settings are every account's.
        settings: { ...settings, ...fromEntry(raw, a) },
      }))
    : [{ id: 'default', weight: 1, settings }];
  const workerAccounts: WorkerAccount[] = accounts.map(({ settings: s, ...a }) => ({
    ...a,
    createAdapter: (deps) => createPlatformT(s, deps),
  }));
  return {
    simulated,
    endpoint: listed
      ? `${[...new Set(accounts.map((a) => a.settings.endpoint))].join(', ')} (accounts ${accounts.map((a) => a.id).join(', ')})`
      : settings.endpoint,
    push: settings.events !== undefined,
    createAdapter: workerAccounts[0]!.createAdapter,
    // Each account's SubAppId has its own event configuration; what changed on each is told in one start-up line.
    configurePush: async (deps) => {
      const changes: string[] = [];
      for (const a of accounts) {
        const change = await configureTEvents(a.settings, deps);
        if (change) changes.push(listed ? `account ${a.id}: ${change}` : change);
      }
      return changes.length > 0 ? changes.join('; ') : undefined;
    },
    ...(listed ? { accounts: workerAccounts } : {}),
    ...(raw.PLATFORM_T_MAX_CONCURRENT !== undefined ? { maxConcurrent: raw.PLATFORM_T_MAX_CONCURRENT } : {}),
  };
}
