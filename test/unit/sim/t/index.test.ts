/**
 * sim/t/index.ts, the envelope over real HTTP: T's authentication errors (signature, clock, credentials, headers)
 * and the answer envelope every reply shares.
 */
import { type CallOptions, errCode, SUB, t, useTSimulator } from '../../../support/sim/t';

useTSimulator();

describe('authentication and envelope', () => {
  const ok = { SubAppId: SUB };

  test('a correctly signed request is accepted', async () => {
    const r = await t('DescribeEventConfig', ok);
    expect(r.Error).toBeUndefined();
    expect(r.Mode).toBe('PUSH');
  });

  test.each<[string, CallOptions, string]>([
    ['wrong SecretKey', { secretKey: 'not-the-key' }, 'AuthFailure.SignatureFailure'],
    ['unknown SecretId', { secretId: 'AKIDsomeoneelse' }, 'AuthFailure.SecretIdNotFound'],
    ['timestamp 10 minutes old', { timestamp: Math.floor(Date.now() / 1000) - 600 }, 'AuthFailure.SignatureExpire'],
    ['scope of another service', { service: 'cvm' }, 'AuthFailure.SignatureFailure'],
    ['body changed after signing', { sentBody: JSON.stringify({ SubAppId: SUB, X: 1 }) }, 'AuthFailure.SignatureFailure'],
    ['no Authorization', { tamper: (h) => delete h.Authorization }, 'AuthFailure.InvalidAuthorization'],
    ['not TC3', { tamper: (h) => (h.Authorization = 'HMAC-SHA1 nonsense') }, 'AuthFailure.InvalidAuthorization'],
    ['SignedHeaders without host', { tamper: (h) => (h.Authorization = h.Authorization!.replace('content-type;host', 'content-type')) }, 'AuthFailure.InvalidAuthorization'],
    ['no X-TC-Timestamp', { tamper: (h) => delete h['X-TC-Timestamp'] }, 'MissingParameter'],
    ['another API version', { version: '2019-06-12' }, 'NoSuchVersion'],
  ])('%s → %s (HTTP 200)', async (_name, opts, code) => {
    expect(await errCode('DescribeEventConfig', ok, opts)).toBe(code);
  });

  test('unknown action → InvalidAction; missing action → MissingParameter', async () => {
    expect(await errCode('DescribeEverything', ok)).toBe('InvalidAction');
    expect(await errCode('', ok)).toBe('MissingParameter');
  });
});
