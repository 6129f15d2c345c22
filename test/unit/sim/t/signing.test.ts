/**
 * sim/t/signing.ts, the simulator's own TC3-HMAC-SHA256: the published worked example, the official SDK's signer as an
 * independent oracle, and the signed headers a client sends.
 */
import { tc3Authorization, tc3Signature } from '../../../../sim/t';
import { SdkSign } from '../../../support/official-sdks';
import { useTSimulator } from '../../../support/sim/t';

useTSimulator();

describe('TC3-HMAC-SHA256 (sim/t/signing.ts)', () => {
  test('reproduces the published worked example byte for byte', () => {
    const parts = tc3Signature({
      secretKey: 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE',
      service: 'cvm',
      timestamp: 1551113065,
      method: 'POST',
      path: '/',
      query: '',
      headers: [
        ['content-type', 'application/json; charset=utf-8'],
        ['host', 'cvm.tencentcloudapi.com'],
      ],
      payload: '{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}',
    });
    expect(parts.date).toBe('2019-02-25');
    expect(parts.hashedPayload).toBe('35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064');
    expect(parts.hashedCanonicalRequest).toBe('5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031');
    expect(parts.signature).toBe('72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168');
  });

  test('agrees with the official SDK signer', () => {
    for (const [body, ts] of [
      ['{"SubAppId":1500000001,"ModelName":"GV","ModelVersion":"3.1","Prompt":"猫"}', 1763798400],
      ['{}', 1700000000],
    ] as const) {
      const ours = tc3Authorization(
        'AKIDx',
        tc3Signature({
          secretKey: 'k',
          service: 'vod',
          timestamp: ts,
          method: 'POST',
          path: '/',
          query: '',
          headers: [
            ['content-type', 'application/json; charset=utf-8'],
            ['host', 'vod.tencentcloudapi.com'],
          ],
          payload: body,
        }),
      );
      const sdk = SdkSign.sign3({
        method: 'POST',
        url: 'https://vod.tencentcloudapi.com/',
        payload: Buffer.from(body),
        timestamp: ts,
        service: 'vod',
        secretId: 'AKIDx',
        secretKey: 'k',
        multipart: false,
        boundary: '',
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
      });
      expect(ours).toBe(sdk);
    }
  });
});
