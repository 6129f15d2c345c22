/**
 * The simulator's test accounts: the credentials each simulated platform accepts. They play the part of a real
 * account's keys; the gateway uses the same values when a platform is simulated (its platform configuration
 * says so), as it would use a real account's keys from its configuration.
 */
export const SIM_ACCOUNTS = {
  /** Also `sim-v-key-<name>` (see isSimVApiKey below): each such key is an account of its own (isSimVApiKey). */
  V: { apiKey: 'sim-v-key' },
  T: { secretId: 'AKIDsimulator', secretKey: 'sim-t-secret-key', subAppId: 1500000001 },
  B: {
    accessKeyId: 'simbaccesskeyid0000000000000000a',
    secretAccessKey: 'simbsecretaccesskey000000000000b',
    /** `/v3` endpoints take an API key as a Bearer token (bce-v3/ALTAK-…). */
    apiKey: 'bce-v3/ALTAK-simulator0000000000/simulatorsecret0000000000000000000000',
    /** The account id B puts in `vod-callback-auth-user` on signed callbacks. */
    userId: 'e95e33a028bd49dbb3e08f068dc975d5',
  },
} as const;

/**
 * Platform V's further test accounts: any key `sim-v-key-<name>` is an account of its own. As on Ark, where an API
 * key belongs to one account and a task is read, listed and cancelled through the account that created it
 * (upstreams.md: `Authorization: Bearer <api key>`), each account sees only its own tasks, and a test can make one
 * account overdue or throttled (POST /_sim/v/account-faults with `api_key`).
 */
const SIM_V_EXTRA_KEY = /^sim-v-key-[A-Za-z0-9_-]{1,40}$/;

export function isSimVApiKey(key: string): boolean {
  return key === SIM_ACCOUNTS.V.apiKey || SIM_V_EXTRA_KEY.test(key);
}
