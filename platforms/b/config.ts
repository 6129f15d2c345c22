/**
 * Platform B's configuration. The worker slice (endpoint, AK/SK, optional API key) only the worker reads: the API
 * needs no upstream secret. The public slice (PLATFORM_B_MODELS_FILE) both read, so validation and the wire follow
 * the same model data. Half a configuration is a start-up error naming the missing variable.
 */
import { z } from 'zod';
import { callbackSchema, configError, optionalString, optionalUrl, parseEnv } from '../../core/config';
import { callbackUrlFor, type WorkerPlatform } from '../platform';
import { configureBCallbacks, createPlatformB, type PlatformBSettings } from './adapter';
import { bCallbacksEnv } from './announcements';
import { MODELS_FILE_VARIABLE } from './models-file';

/** VOD is one global service at one host, no regions (§1.1 [OFF]). */
export const DEFAULT_ENDPOINT = 'https://vod.bj.baidubce.com';

export const bPublicEnv = z.object({
  /** JSON corrections to the model data (platforms/b/models-file.ts); unset: the defaults. */
  [MODELS_FILE_VARIABLE]: optionalString,
});

export const bWorkerEnv = bCallbacksEnv.extend({
  /** Default https://vod.bj.baidubce.com when B is configured. */
  PLATFORM_B_ENDPOINT: optionalUrl,
  PLATFORM_B_ACCESS_KEY_ID: optionalString,
  PLATFORM_B_SECRET_ACCESS_KEY: optionalString,
  /** `bce-v3/ALTAK-…`: Bearer for text-to-video on /v3 (adapter.ts); AK/SK stay required for everything else. */
  PLATFORM_B_API_KEY: optionalString.pipe(z.string().startsWith('bce-v3/', { message: 'a VOD API key starts with bce-v3/' }).optional()),
});

/** The simulator's test account for platform B (sim/accounts.ts plays the platform's side). */
const SIMULATOR_ACCOUNT = {
  accessKeyId: 'simbaccesskeyid0000000000000000a',
  secretAccessKey: 'simbsecretaccesskey000000000000b',
};

export function bWorker(env: NodeJS.ProcessEnv, opts: { simulate: boolean; simBaseUrl: string }): WorkerPlatform {
  const raw = parseEnv(bWorkerEnv, env);
  const ak = raw.PLATFORM_B_ACCESS_KEY_ID;
  const sk = raw.PLATFORM_B_SECRET_ACCESS_KEY;
  let settings: PlatformBSettings;
  let simulated = false;
  if (ak && sk) {
    settings = { endpoint: raw.PLATFORM_B_ENDPOINT ?? DEFAULT_ENDPOINT, accessKeyId: ak, secretAccessKey: sk, ...(raw.PLATFORM_B_API_KEY ? { apiKey: raw.PLATFORM_B_API_KEY } : {}) };
  } else if (ak || sk) {
    throw configError(ak ? 'PLATFORM_B_SECRET_ACCESS_KEY' : 'PLATFORM_B_ACCESS_KEY_ID', 'required when the other is set (AK/SK, bce-auth-v1)');
  } else if (raw.PLATFORM_B_API_KEY) {
    // The API key covers v3 text-to-video only; image-to-video, images, task queries and reconciliation are v2.
    throw configError('PLATFORM_B_ACCESS_KEY_ID', 'required with PLATFORM_B_API_KEY: VOD takes API keys only on its v3 text-to-video endpoint; everything else is signed with AK/SK');
  } else if (opts.simulate) {
    settings = { endpoint: raw.PLATFORM_B_ENDPOINT ?? opts.simBaseUrl, ...SIMULATOR_ACCOUNT };
    simulated = true;
  } else {
    throw configError(
      'PLATFORM_B_ACCESS_KEY_ID',
      'platform B is enabled (PLATFORMS_ENABLED) but not configured: set PLATFORM_B_ACCESS_KEY_ID and PLATFORM_B_SECRET_ACCESS_KEY, or leave B out of PLATFORMS_ENABLED',
    );
  }
  if (raw.PLATFORM_B_CALLBACKS === 'manage') {
    const { PUBLIC_BASE_URL } = parseEnv(callbackSchema, env);
    if (!PUBLIC_BASE_URL) throw configError('PUBLIC_BASE_URL', 'required with PLATFORM_B_CALLBACKS=manage: where platform B sends its events');
    settings.callbacks = { url: callbackUrlFor(PUBLIC_BASE_URL, 'B'), signKey: raw.PLATFORM_B_CALLBACK_SIGN_KEY, videoEventSwitch: raw.PLATFORM_B_CALLBACK_SWITCH };
  }
  return {
    simulated,
    endpoint: settings.endpoint,
    push: settings.callbacks !== undefined,
    createAdapter: (deps) => createPlatformB(settings, deps),
    configurePush: (deps) => configureBCallbacks(settings, deps),
  };
}
