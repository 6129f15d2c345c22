/** Configuration: parsed once, failing fast with the variable's name; platforms real, simulated or disabled. */
import { ConfigError, enabledPlatforms, loadConfig } from '../../core/config';
import { KeyStore, parseApiKeysEnv } from '../../api/auth';

describe('loadConfig', () => {
  test('defaults follow the spec', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 8080,
      SYNC_TIMEOUT_MS: 600_000,
      POLL_FIRST_DELAY_MS: 3_000,
      POLL_INTERVAL_IMAGE_MS: 3_000,
      POLL_INTERVAL_VIDEO_MS: 5_000,
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      KEY_RATE_LIMIT_RPS: 50,
      KEY_MAX_INFLIGHT: 100,
    });
  });

  test.each([
    ['PORT', 'eighty'],
    ['SYNC_TIMEOUT_MS', '-1'],
    ['PLATFORM_V_BASE_URL', 'not a url'],
    ['NODE_ENV', 'staging'],
  ])('a bad %s fails naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });

  test('unconfigured platforms are simulated outside production', () => {
    const c = loadConfig({ SIM_BASE_URL: 'http://127.0.0.1:9999' });
    expect([...enabledPlatforms(c)].sort()).toEqual(['B', 'T', 'V']);
    expect(c.platforms.V).toEqual({ baseUrl: 'http://127.0.0.1:9999/api/v3', apiKey: 'sim-v-key', simulated: true });
    expect(c.platforms.B?.simulated).toBe(true);
    expect(c.platforms.T?.simulated).toBe(true);
  });

  test('in production an unconfigured platform is disabled; a configured one is real', () => {
    const c = loadConfig({ NODE_ENV: 'production', PLATFORM_V_BASE_URL: 'https://v.example/api/v3', PLATFORM_V_API_KEY: 'k' });
    expect([...enabledPlatforms(c)]).toEqual(['V']);
    expect(c.platforms.V).toEqual({ baseUrl: 'https://v.example/api/v3', apiKey: 'k', simulated: false });
  });

  test('upstream timeouts that would outlast the activity attempt are refused, naming them', () => {
    expect(() => loadConfig({ UPSTREAM_CONNECT_TIMEOUT_MS: '20000', UPSTREAM_RESPONSE_TIMEOUT_MS: '30000' })).toThrow(/UPSTREAM_CONNECT_TIMEOUT_MS \+ UPSTREAM_RESPONSE_TIMEOUT_MS/);
  });

  test('half a platform configuration is an error naming the missing variable', () => {
    expect(() => loadConfig({ PLATFORM_B_BASE_URL: 'https://b.example' })).toThrow(/PLATFORM_B_API_KEY/);
    expect(() => loadConfig({ PLATFORM_T_SECRET_KEY: 'x' })).toThrow(/PLATFORM_T_SECRET_ID/);
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
