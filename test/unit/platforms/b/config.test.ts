/**
 * platforms/b/config.ts: the worker variables (AK/SK, API key, endpoint), each refused with a start-up error naming
 * it, and the simulated defaults.
 */
import { platformById } from '../../../../platforms';
import { bWorker } from '../../../../platforms/b/config';
import { SIM_ACCOUNTS } from '../../../../sim/accounts';
import { fakeHttp } from '../../../support/platform-kit';
import { NOW } from '../../../support/platforms/b';

describe('configuration', () => {
  const sim = { simulate: true, simBaseUrl: 'http://127.0.0.1:8090' };
  test('AK/SK configure the real endpoint; the simulator’s test account when nothing is set', () => {
    expect(bWorker({ PLATFORM_B_ACCESS_KEY_ID: 'ak', PLATFORM_B_SECRET_ACCESS_KEY: 'sk' }, sim)).toMatchObject({
      simulated: false,
      endpoint: 'https://vod.bj.baidubce.com',
    });
    expect(bWorker({}, sim)).toMatchObject({ simulated: true, endpoint: 'http://127.0.0.1:8090' });
  });
  test.each<[string, NodeJS.ProcessEnv, RegExp]>([
    ['AK without SK', { PLATFORM_B_ACCESS_KEY_ID: 'ak' }, /PLATFORM_B_SECRET_ACCESS_KEY: required/],
    ['SK without AK', { PLATFORM_B_SECRET_ACCESS_KEY: 'sk' }, /PLATFORM_B_ACCESS_KEY_ID: required/],
    ['an API key alone', { PLATFORM_B_API_KEY: 'bce-v3/ALTAK-x/y' }, /PLATFORM_B_ACCESS_KEY_ID: required with PLATFORM_B_API_KEY/],
    [
      'an API key of the wrong form',
      { PLATFORM_B_ACCESS_KEY_ID: 'a', PLATFORM_B_SECRET_ACCESS_KEY: 's', PLATFORM_B_API_KEY: 'ALTAK-x' },
      /PLATFORM_B_API_KEY: a VOD API key starts with bce-v3\//,
    ],
    [
      'a bad endpoint',
      { PLATFORM_B_ENDPOINT: 'vod.bj.baidubce.com', PLATFORM_B_ACCESS_KEY_ID: 'a', PLATFORM_B_SECRET_ACCESS_KEY: 's' },
      /PLATFORM_B_ENDPOINT/,
    ],
  ])('%s → a start-up error naming the variable', (_name, env, message) => {
    expect(() => bWorker(env, sim)).toThrow(message);
  });
  test('production without configuration names the variable to set', () => {
    expect(() => bWorker({}, { simulate: false, simBaseUrl: '' })).toThrow(/PLATFORM_B_ACCESS_KEY_ID: platform B is enabled/);
  });
  test('the simulated defaults sign with the simulator’s test account (copied as literals, never imported)', async () => {
    const http = fakeHttp(() => ({ status: 200, body: { taskId: 'tsk-1', status: 'PENDING' } }));
    expect(
      await bWorker({}, sim)
        .createAdapter({ http, now: () => NOW })
        .poll('video', 'tsk-1'),
    ).toEqual({ state: 'pending' });
    expect(http.calls[0]!.headers!.authorization).toMatch(new RegExp(`^bce-auth-v1/${SIM_ACCOUNTS.B.accessKeyId}/`));
    expect(platformById('B').publicEnv.shape).toHaveProperty('PLATFORM_B_MODELS_FILE');
  });
});
