/**
 * platforms/b/signing.ts: the bce-auth-v1 signer against Baidu's published vector, the VOD-shaped vectors of the
 * platform page, and the official SDK's @baiducloud/sdk/src/auth.js.
 */
import { bceAuthorization, bceTimestamp, canonicalRequest, uriEncode } from '../../../../platforms/b/signing';
import { SdkAuth } from '../../../support/official-sdks';

describe('bce-auth-v1', () => {
  const creds = { accessKeyId: 'a'.repeat(32), secretAccessKey: 'b'.repeat(32) };

  test("Baidu's published vector: all five headers, and VOD's host;x-bce-date", () => {
    const req = {
      method: 'PUT',
      path: '/v1/test/myfolder/readme.txt',
      query: [
        ['partNumber', '9'],
        ['uploadId', 'a44cc9bab11cbd156984767aad637851'],
      ] as [string, string][],
      headers: {
        host: 'bj.bcebos.com',
        'content-length': '8',
        'content-md5': 'NFzcPqhviddjRNnSOGo4rw==',
        'content-type': 'text/plain',
        'x-bce-date': '2015-04-27T08:23:49Z',
      },
    };
    const all = bceAuthorization(req, creds, {
      timestamp: '2015-04-27T08:23:49Z',
      signedHeaders: ['host', 'content-length', 'content-md5', 'content-type', 'x-bce-date'],
    });
    expect(all).toBe(
      'bce-auth-v1/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/2015-04-27T08:23:49Z/1800/content-length;content-md5;content-type;host;x-bce-date/d74a04362e6a848f5b39b15421cb449427f419c95a480fd6b8cf9fc783e2999e',
    );
    expect(bceAuthorization(req, creds, { timestamp: '2015-04-27T08:23:49Z' })).toBe(
      'bce-auth-v1/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/2015-04-27T08:23:49Z/1800/host;x-bce-date/1b8de5a23a56eef657c69f94c621e7acd227d049a4ba577f537d5e5cebf0cf32',
    );
  });

  test.each([
    ['POST', '/v2/aigc/text_to_video', [], '7f0c648ad117dd9ef31a0bc98d68283fc02324e92c9b0120bd33ce4343792318'],
    ['POST', '/v2/aigc/image_to_video', [], '8600ae2a7601e7c77791bc3bccf9e4814c7a59e1b8c1f43628f6fb5a618e6b47'],
    ['POST', '/v2/aigc/image', [], 'e966ea79b0c9bc50ad059cf086d38c8b242a3a3730f83a99337b22a796dfbfbb'],
    ['GET', '/v2/tasks/tsk-faikc9dmw8m8saic', [], 'ba291ccf6c021b656cf69e8c83dee41636b000421a795e54af4c7967d08625b0'],
    [
      'GET',
      '/v2/tasks',
      [
        ['status', 'FAILED'],
        ['maxSize', '10'],
      ],
      'f7cd6d3ec5ad6a9cca01f441169533151dd3019f2aaec02a8163a603412fd19f',
    ],
    ['PUT', '/v2/callback', [], 'a783ee942da031e6ae51cc5ab0b09ab27aaacbcfeb65743d284babfb5f04c622'],
  ] as [string, string, [string, string][], string][])('the page’s VOD-shaped vector: %s %s', (method, path, query, signature) => {
    const headers = { host: 'vod.bj.baidubce.com', 'x-bce-date': '2024-03-24T13:08:44Z' };
    expect(bceAuthorization({ method, path, query, headers }, creds, { timestamp: '2024-03-24T13:08:44Z' })).toBe(
      `bce-auth-v1/${'a'.repeat(32)}/2024-03-24T13:08:44Z/1800/host;x-bce-date/${signature}`,
    );
  });

  test('agrees with the official SDK’s signer on the calls the adapter makes, a port in the host included', () => {
    const sdk = new SdkAuth(creds.accessKeyId, creds.secretAccessKey);
    const ts = Date.UTC(2026, 10, 22, 9, 30, 5);
    const cases: [string, string, [string, string][], string][] = [
      ['POST', '/v2/aigc/image_to_video', [], 'vod.bj.baidubce.com'],
      [
        'GET',
        '/v2/tasks',
        [
          ['beginTime', '2026-11-22T09:29:05Z'],
          ['maxSize', '100'],
          ['marker', 'tsk-abc'],
        ],
        '127.0.0.1:8090',
      ],
      ['GET', '/v2/tasks/tsk-faikc9dmw8m8saic', [], '127.0.0.1:8090'],
    ];
    for (const [method, path, query, host] of cases) {
      const headers = { host, 'x-bce-date': bceTimestamp(ts) };
      const ours = bceAuthorization({ method, path, query, headers }, creds, { timestamp: bceTimestamp(ts) });
      const theirs = sdk.generateAuthorization(method, path, Object.fromEntries(query), headers, ts / 1000, 1800, ['host', 'x-bce-date']);
      expect(ours).toBe(theirs);
    }
  });

  test('canonical request: RFC 3986 encoding with upper-case hex, the colon of x-bce-date encoded', () => {
    expect(uriEncode("a b/c!'()*~")).toBe('a%20b%2Fc%21%27%28%29%2A~');
    expect(
      canonicalRequest({
        method: 'get',
        path: '/v2/tasks',
        query: [['beginTime', '2026-01-01T00:00:00Z']],
        headers: { Host: 'h:1', 'X-Bce-Date': '2026-01-01T00:00:00Z' },
      }),
    ).toBe('GET\n/v2/tasks\nbeginTime=2026-01-01T00%3A00%3A00Z\nhost:h%3A1\nx-bce-date:2026-01-01T00%3A00%3A00Z');
    expect(() =>
      bceAuthorization({ method: 'GET', path: '/', headers: { host: 'h' } }, creds, { timestamp: '2026-01-01T00:00:00Z' }),
    ).toThrow(/x-bce-date/);
  });
});
