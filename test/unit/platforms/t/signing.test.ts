/**
 * platforms/t/signing.ts: TC3-HMAC-SHA256 against the platform's published vector, the official SDK's signer, and
 * the simulator's reading of the Authorization header.
 */
import { T_CONTENT_TYPE } from '../../../../platforms/t/adapter';
import { tc3Sign } from '../../../../platforms/t/signing';
import { parseTc3Authorization } from '../../../../sim/t';
import { SdkSign } from '../../../support/official-sdks';

describe('TC3-HMAC-SHA256', () => {
  // docs/platforms/t.md: the platform's own worked example. The body's \u escapes are literal characters.
  const vector = {
    secretId: 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE',
    secretKey: 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE',
    service: 'cvm',
    timestamp: 1551113065,
    headers: { 'content-type': 'application/json; charset=utf-8', host: 'cvm.tencentcloudapi.com' },
    payload: '{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}',
  };

  test('matches the published vector byte for byte', () => {
    const s = tc3Sign(vector);
    expect(s.date).toBe('2019-02-25');
    expect(s.hashedPayload).toBe('35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064');
    expect(s.hashedCanonicalRequest).toBe('5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031');
    expect(s.signature).toBe('72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168');
    expect(s.authorization).toBe(
      'TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE/2019-02-25/cvm/tc3_request, ' +
        'SignedHeaders=content-type;host, Signature=72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168',
    );
  });

  test('agrees with the official SDK signer on a vod request (header order does not matter)', () => {
    const body = { ModelName: 'GV', ModelVersion: '3.1', Prompt: '一只猫 [sim:x]', SessionId: 'task_abc' };
    const sdk = SdkSign.sign3({
      method: 'POST',
      url: 'https://vod.tencentcloudapi.com/',
      payload: body,
      timestamp: 1767225600,
      service: 'vod',
      secretId: 'AKIDexample',
      secretKey: 'secret',
      multipart: false,
      headers: { 'Content-Type': T_CONTENT_TYPE },
    });
    const ours = tc3Sign({
      secretId: 'AKIDexample',
      secretKey: 'secret',
      service: 'vod',
      timestamp: 1767225600,
      headers: { host: 'vod.tencentcloudapi.com', 'Content-Type': T_CONTENT_TYPE },
      payload: JSON.stringify(body),
    });
    expect(ours.authorization).toBe(sdk);
  });

  test('the Authorization header it writes is one the platform (simulator) reads back; malformed ones are refused', () => {
    const s = tc3Sign({ ...vector, secretId: 'AKIDsimulator', service: 'vod' });
    expect(parseTc3Authorization(s.authorization)).toEqual({
      secretId: 'AKIDsimulator',
      date: '2019-02-25',
      service: 'vod',
      terminator: 'tc3_request',
      signedHeaders: ['content-type', 'host'],
      signature: s.signature,
    });
    expect(parseTc3Authorization('Bearer abc')).toBeUndefined();
    expect(parseTc3Authorization(undefined)).toBeUndefined();
  });
});
