/**
 * Platform T's configuration slice. Only the worker reads it: the API needs no upstream secret. Half a
 * configuration is a start-up error naming the missing variable.
 */
import { z } from 'zod';
import { bool, callbackSchema, configError, optionalString, optionalUrl, parseEnv } from '../../core/config';
import { callbackUrlFor, type WorkerPlatform } from '../platform';
import { configureTEvents, createPlatformT, type PlatformTSettings } from './adapter';
import { tEventsEnv } from './announcements';

export const tWorkerEnv = tEventsEnv.extend({
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

/** The simulator's test account for platform T (sim/accounts.ts plays the platform's side). */
const SIMULATOR_ACCOUNT = { secretId: 'AKIDsimulator', secretKey: 'sim-t-secret-key', subAppId: 1500000001 };

export function tWorker(env: NodeJS.ProcessEnv, opts: { simulate: boolean; simBaseUrl: string }): WorkerPlatform {
  const raw = parseEnv(tWorkerEnv, env);
  let settings: PlatformTSettings;
  let simulated = false;
  if (raw.PLATFORM_T_SECRET_ID && raw.PLATFORM_T_SECRET_KEY) {
    if (raw.PLATFORM_T_SUBAPP_ID === undefined) {
      throw configError('PLATFORM_T_SUBAPP_ID', 'required with PLATFORM_T_SECRET_ID: the VOD sub-application id (SubAppId) every AIGC action names');
    }
    settings = {
      endpoint: raw.PLATFORM_T_ENDPOINT ?? 'https://vod.tencentcloudapi.com',
      secretId: raw.PLATFORM_T_SECRET_ID,
      secretKey: raw.PLATFORM_T_SECRET_KEY,
      subAppId: raw.PLATFORM_T_SUBAPP_ID,
      region: raw.PLATFORM_T_REGION,
      storageMode: raw.PLATFORM_T_STORAGE_MODE,
    };
  } else if (raw.PLATFORM_T_SECRET_ID || raw.PLATFORM_T_SECRET_KEY) {
    throw configError(raw.PLATFORM_T_SECRET_ID ? 'PLATFORM_T_SECRET_KEY' : 'PLATFORM_T_SECRET_ID', 'required when the other is set');
  } else if (opts.simulate) {
    settings = { endpoint: raw.PLATFORM_T_ENDPOINT ?? opts.simBaseUrl, ...SIMULATOR_ACCOUNT, storageMode: raw.PLATFORM_T_STORAGE_MODE };
    simulated = true;
  } else {
    throw configError('PLATFORM_T_SECRET_ID', 'platform T is enabled (PLATFORMS_ENABLED) but not configured: set PLATFORM_T_SECRET_ID, PLATFORM_T_SECRET_KEY and PLATFORM_T_SUBAPP_ID, or leave T out of PLATFORMS_ENABLED');
  }
  if (raw.PLATFORM_T_EVENTS === 'push') {
    const { PUBLIC_BASE_URL } = parseEnv(callbackSchema, env);
    if (!PUBLIC_BASE_URL) throw configError('PUBLIC_BASE_URL', 'required with PLATFORM_T_EVENTS=push: where platform T sends its events (or use pull, which needs no public URL)');
    settings.events = { mode: 'push', notificationUrl: callbackUrlFor(PUBLIC_BASE_URL, 'T'), signKey: raw.PLATFORM_T_EVENTS_SIGN_KEY, takeOver: raw.PLATFORM_T_EVENTS_TAKE_OVER };
  } else if (raw.PLATFORM_T_EVENTS === 'pull') {
    settings.events = { mode: 'pull', takeOver: raw.PLATFORM_T_EVENTS_TAKE_OVER };
  }
  return {
    simulated,
    endpoint: settings.endpoint,
    push: settings.events !== undefined,
    createAdapter: (deps) => createPlatformT(settings, deps),
    configurePush: (deps) => configureTEvents(settings, deps),
  };
}
