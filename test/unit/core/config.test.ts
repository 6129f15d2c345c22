/**
 * Configuration: each process parses only its own variables, once, failing fast with the variable's name;
 * platforms are enabled explicitly, then real, simulated or a start-up error.
 */
import { apiConfigSchema, loadApiConfig } from '../../../api/api-config';
import { KeyStore, parseApiKeysEnv } from '../../../keys/api-keys';
import { ConfigError } from '../../../core/config';
import { platformsCallbackEnv, platformsWorkerEnv } from '../../../platforms';
import { loadWorkerConfig } from '../../../worker/worker-config';

describe('API configuration', () => {
  test('defaults follow the spec; every platform is enabled', () => {
    const c = loadApiConfig({});
    expect(c).toMatchObject({
      PORT: 8080,
      SYNC_TIMEOUT_MS: 600_000,
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      KEY_RATE_LIMIT_RPS: 50,
      KEY_MAX_INFLIGHT: 100,
      TRUST_PROXY: false,
    });
    expect([...c.PLATFORMS_ENABLED].sort()).toEqual(['B', 'T', 'V']);
  });

  test.each([
    ['PORT', 'eighty'],
    ['SYNC_TIMEOUT_MS', '-1'],
    ['NODE_ENV', 'staging'],
    ['TRUST_PROXY', 'yes'],
    ['PLATFORMS_ENABLED', 'V,X'],
    ['PLATFORMS_ENABLED', ' , '],
    ['ADMIN_TOKEN', 'too-short-for-an-admin-token'],
    ['KEYS_REFRESH_MS', '0'],
  ])('a bad %s (%s) fails naming the variable', (name, value) => {
    expect(() => loadApiConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadApiConfig({ [name]: value })).toThrow(new RegExp(name));
  });

  test('PLATFORMS_ENABLED selects the platforms the API offers, in any letter case', () => {
    expect([...loadApiConfig({ PLATFORMS_ENABLED: 'v, t' }).PLATFORMS_ENABLED]).toEqual(['V', 'T']);
  });

  test('the API reads no upstream endpoint or secret, and no worker tuning', () => {
    const apiKeys = Object.keys(apiConfigSchema.shape);
    // Callback settings are shared on purpose: the API verifies what a platform sends, the worker registers it.
    const shared = new Set(Object.keys(platformsCallbackEnv.shape));
    for (const k of Object.keys(platformsWorkerEnv.shape)) if (!shared.has(k)) expect(apiKeys).not.toContain(k);
    for (const k of ['PLATFORM_V_API_KEY', 'PLATFORM_T_SECRET_KEY', 'PLATFORM_B_SECRET_ACCESS_KEY']) expect(apiKeys).not.toContain(k);
    for (const k of ['POLL_INTERVAL_VIDEO_MS', 'TASK_DEADLINE_VIDEO_MS', 'UPSTREAM_RESPONSE_TIMEOUT_MS', 'SIM_BASE_URL'])
      expect(apiKeys).not.toContain(k);
  });
});

describe('worker configuration', () => {
  test("polling and deadlines are the worker's, with the spec's defaults", () => {
    const c = loadWorkerConfig({});
    expect(c.timing).toEqual({
      video: { firstPollDelayMs: 3_000, pollIntervalMs: 5_000, deadlineMs: 3_600_000 },
      image: { firstPollDelayMs: 3_000, pollIntervalMs: 3_000, deadlineMs: 900_000 },
    });
    expect(loadWorkerConfig({ POLL_INTERVAL_VIDEO_MS: '250' }).timing.video.pollIntervalMs).toBe(250);
  });

  test('enabled but unconfigured platforms are simulated outside production', () => {
    const c = loadWorkerConfig({ SIM_BASE_URL: 'http://127.0.0.1:9999/' });
    expect(Object.keys(c.platforms).sort()).toEqual(['B', 'T', 'V']);
    expect(c.platforms.V).toMatchObject({ simulated: true, endpoint: 'http://127.0.0.1:9999/api/v3' });
    expect(c.platforms.B?.simulated).toBe(true);
    expect(c.platforms.T?.simulated).toBe(true);
  });

  test('in production an enabled platform without configuration is a start-up error naming its variable', () => {
    expect(() => loadWorkerConfig({ NODE_ENV: 'production', PLATFORMS_ENABLED: 'V' })).toThrow(/PLATFORM_V_API_KEY/);
  });

  test('in production only the enabled platforms are set up; a configured one is real', () => {
    const c = loadWorkerConfig({
      NODE_ENV: 'production',
      PLATFORMS_ENABLED: 'V',
      PLATFORM_V_BASE_URL: 'https://v.example/api/v3',
      PLATFORM_V_API_KEY: 'k',
    });
    expect(Object.keys(c.platforms)).toEqual(['V']);
    expect(c.platforms.V).toMatchObject({ simulated: false, endpoint: 'https://v.example/api/v3' });
  });

  test('upstream timeouts that would outlast the activity attempt are refused, naming them', () => {
    expect(() => loadWorkerConfig({ UPSTREAM_CONNECT_TIMEOUT_MS: '20000', UPSTREAM_RESPONSE_TIMEOUT_MS: '30000' })).toThrow(
      /UPSTREAM_CONNECT_TIMEOUT_MS \+ UPSTREAM_RESPONSE_TIMEOUT_MS/,
    );
  });

  test.each([
    ['PLATFORM_V_BASE_URL', 'not a url'],
    ['POLL_INTERVAL_VIDEO_MS', '0'],
  ])('a bad %s fails naming the variable', (name, value) => {
    expect(() => loadWorkerConfig({ [name]: value })).toThrow(new RegExp(name));
  });

  test('half a platform configuration is an error naming the missing variable', () => {
    expect(() => loadWorkerConfig({ PLATFORM_V_BASE_URL: 'https://v.example' })).toThrow(/PLATFORM_V_API_KEY/);
    expect(() => loadWorkerConfig({ PLATFORM_T_SECRET_KEY: 'x' })).toThrow(/PLATFORM_T_SECRET_ID/);
  });
});

describe('API keys', () => {
  test('API_KEYS parses id:secret pairs and rejects malformed ones', () => {
    expect(parseApiKeysEnv('a:0123456789abcdef, b:fedcba9876543210').map((k) => k.id)).toEqual(['a', 'b']);
    expect(() => parseApiKeysEnv('nocolon')).toThrow(/API_KEYS/);
    expect(() => parseApiKeysEnv('a:short')).toThrow(/API_KEYS/);
  });

  test('authenticate finds the key by secret and nothing else', () => {
    const store = new KeyStore(parseApiKeysEnv('a:0123456789abcdef,b:fedcba9876543210'));
    expect(store.authenticate('fedcba9876543210')?.id).toBe('b');
    expect(store.authenticate('fedcba987654321')).toBeUndefined();
    expect(store.authenticate('')).toBeUndefined();
  });

  test('duplicate key ids are a configuration error', () => {
    expect(() => new KeyStore(parseApiKeysEnv('a:0123456789abcdef,a:fedcba9876543210'))).toThrow(/duplicate/);
  });
});
