import { createHash } from 'node:crypto';

/**
 * The simulator's test accounts: the credentials each simulated platform accepts. They play the part of a real
 * account's keys; the gateway uses the same values when a platform is simulated (its platform configuration
 * says so), as it would use a real account's keys from its configuration.
 */
export const SIM_ACCOUNTS = {
  /** Also `sim-v-key-<name>` (see isSimVApiKey below): each such key is an account of its own (isSimVApiKey). */
  V: { apiKey: 'sim-v-key' },
  /** Also `AKIDsim-<name>` (simTAccount below): each such SecretId is an account of its own with its own SubAppId. */
  T: { secretId: 'AKIDsimulator', secretKey: 'sim-t-secret-key', subAppId: 1500000001 },
  /** Also `simbak-<name>` (simBAccount below): each such AccessKey ID is an account of its own. */
  B: {
    accessKeyId: 'simbaccesskeyid0000000000000000a',
    secretAccessKey: 'simbsecretaccesskey000000000000b',
    /** `/v3` endpoints take an API key as a Bearer token (bce-v3/ALTAK-…). */
    apiKey: 'bce-v3/ALTAK-simulator0000000000/simulatorsecret0000000000000000000000',
    /** The account id B puts in `vod-callback-auth-user` on signed callbacks. */
    userId: 'e95e33a028bd49dbb3e08f068dc975d5',
  },
} as const;

/** A further test account's name: what follows the platform's prefix in its key. */
const ACCOUNT_NAME = /^[A-Za-z0-9_-]{1,40}$/;

/** A number from a name, the same on every run: the further accounts' SubAppIds and ids derive from it. */
function nameDigest(platform: string, name: string): Buffer {
  return createHash('sha256').update(`${platform}:${name}`).digest();
}

/**
 * Platform V's further test accounts: any key `sim-v-key-<name>` is an account of its own. As on Ark, where an API
 * key belongs to one account and a task is read, listed and cancelled through the account that created it
 * (docs/platforms/v.md#calls: `Authorization: Bearer <api key>`), each account sees only its own tasks, and a test can make one
 * account overdue or throttled (POST /_sim/v/account-faults with `api_key`).
 */
const SIM_V_EXTRA_KEY = /^sim-v-key-[A-Za-z0-9_-]{1,40}$/;

export function isSimVApiKey(key: string): boolean {
  return key === SIM_ACCOUNTS.V.apiKey || SIM_V_EXTRA_KEY.test(key);
}

export interface SimTAccount {
  secretId: string;
  secretKey: string;
  subAppId: number;
}

const SIM_T_PREFIX = 'AKIDsim-';

/**
 * Platform T's further test accounts. On Tencent Cloud a SecretId/SecretKey pair belongs to one account, and a VOD
 * SubAppId to one account: a request may only name a SubAppId of the account that signed it, and sees only that
 * SubAppId's tasks and events (docs/platforms/t.md#calls: every AIGC action names its SubAppId). Account `<name>`
 * signs with SecretId `AKIDsim-<name>` and SecretKey `sim-t-secret-key-<name>`; its SubAppId is derived from the
 * name (1510000000 and up, never the default account's).
 */
export function simTAccount(name: string): SimTAccount {
  if (!ACCOUNT_NAME.test(name))
    throw new Error(`a simulated T account's name is 1 to 40 letters, digits, "_" or "-": ${JSON.stringify(name)}`);
  return {
    secretId: `${SIM_T_PREFIX}${name}`,
    secretKey: `sim-t-secret-key-${name}`,
    subAppId: 1_510_000_000 + (nameDigest('T', name).readUInt32BE(0) % 400_000_000),
  };
}

/** The simulated T account a SecretId names: the default one or a further `AKIDsim-<name>`; undefined: none. */
export function simTAccountOf(secretId: string): SimTAccount | undefined {
  if (secretId === SIM_ACCOUNTS.T.secretId) return SIM_ACCOUNTS.T;
  if (!secretId.startsWith(SIM_T_PREFIX)) return undefined;
  const name = secretId.slice(SIM_T_PREFIX.length);
  return ACCOUNT_NAME.test(name) ? simTAccount(name) : undefined;
}

export interface SimBAccount {
  accessKeyId: string;
  secretAccessKey: string;
  /** The `/v3` API key (Bearer bce-v3/ALTAK-…). */
  apiKey: string;
  /** The account id B puts in `vod-callback-auth-user`. */
  userId: string;
}

const SIM_B_PREFIX = 'simbak-';
const SIM_B_KEY = /^bce-v3\/ALTAK-sim-([A-Za-z0-9_-]{1,40})\/[0-9a-f]{32}$/;

/**
 * Platform B's further test accounts. On Baidu AI Cloud an AK/SK pair (bce-auth-v1) and an API key (bce-v3/…)
 * each belong to one account, and VOD's tasks and callback configuration are the account's own ("回调配置" is one
 * per account, docs/platforms/b.md#callbacks). Account `<name>` signs with AccessKey ID `simbak-<name>` and the Secret Access Key
 * derived from its name; its API key is `bce-v3/ALTAK-sim-<name>/<hex>`.
 */
export function simBAccount(name: string): SimBAccount {
  if (!ACCOUNT_NAME.test(name))
    throw new Error(`a simulated B account's name is 1 to 40 letters, digits, "_" or "-": ${JSON.stringify(name)}`);
  const digest = nameDigest('B', name).toString('hex');
  return {
    accessKeyId: `${SIM_B_PREFIX}${name}`,
    secretAccessKey: `simbsk${digest.slice(0, 26)}`,
    apiKey: `bce-v3/ALTAK-sim-${name}/${digest.slice(26, 58)}`,
    userId: digest.slice(32, 64),
  };
}

/** The simulated B account an AccessKey ID names; undefined: none. */
export function simBAccountOfAccessKey(accessKeyId: string): SimBAccount | undefined {
  if (accessKeyId === SIM_ACCOUNTS.B.accessKeyId) return SIM_ACCOUNTS.B;
  if (!accessKeyId.startsWith(SIM_B_PREFIX)) return undefined;
  const name = accessKeyId.slice(SIM_B_PREFIX.length);
  return ACCOUNT_NAME.test(name) ? simBAccount(name) : undefined;
}

/** The simulated B account an API key belongs to (the whole key must match); undefined: none. */
export function simBAccountOfApiKey(apiKey: string): SimBAccount | undefined {
  if (apiKey === SIM_ACCOUNTS.B.apiKey) return SIM_ACCOUNTS.B;
  const name = SIM_B_KEY.exec(apiKey)?.[1];
  const account = name === undefined ? undefined : simBAccount(name);
  return account?.apiKey === apiKey ? account : undefined;
}
