/**
 * sim/b/signing.ts, the simulator's own bce-auth-v1: Baidu's published vectors and the official SDK's @baiducloud/sdk/src/auth.js as
 * independent oracles, then authentication over real HTTP (every way a signature can be wrong, and B's errors).
 */
import { SIM_ACCOUNTS } from '../../../../sim/accounts';
import { bceSign, bceTimestamp, canonicalQueryString, parseBceAuthorization } from '../../../../sim/b/signing';
import { SdkAuth } from '../../../support/official-sdks';
import { AK, SK, type Res, raw, type CallOptions, call, sim_, t2v, IMG, imageBody, simPort, useBSimulator } from '../../../support/sim/b';

useBSimulator();

describe('bce-auth-v1 signer', () => {
  const a32 = 'a'.repeat(32);
  const b32 = 'b'.repeat(32);
  const official = {
    method: 'PUT',
    path: '/v1/test/myfolder/readme.txt',
    query: [
      ['partNumber', '9'],
      ['uploadId', 'a44cc9bab11cbd156984767aad637851'],
    ] as Array<[string, string]>,
    headers: {
      host: 'bj.bcebos.com',
      'content-length': '8',
      'content-md5': 'NFzcPqhviddjRNnSOGo4rw==',
      'content-type': 'text/plain',
      'x-bce-date': '2015-04-27T08:23:49Z',
    },
  };
  const opts = { accessKeyId: a32, secretAccessKey: b32, timestamp: '2015-04-27T08:23:49Z' };

  test('reproduces the official vector (signing key, all five headers, host;x-bce-date)', () => {
    const all = bceSign(official, { ...opts, signedHeaders: ['host', 'content-length', 'content-md5', 'content-type', 'x-bce-date'] });
    expect(all.signingKey).toBe('1d5ce5f464064cbee060330d973218821825ac6952368a482a592e6615aef479');
    expect(all.canonicalRequest).toBe(
      'PUT\n/v1/test/myfolder/readme.txt\npartNumber=9&uploadId=a44cc9bab11cbd156984767aad637851\n' +
        'content-length:8\ncontent-md5:NFzcPqhviddjRNnSOGo4rw%3D%3D\ncontent-type:text%2Fplain\nhost:bj.bcebos.com\nx-bce-date:2015-04-27T08%3A23%3A49Z',
    );
    expect(all.signature).toBe('d74a04362e6a848f5b39b15421cb449427f419c95a480fd6b8cf9fc783e2999e');
    expect(bceSign(official, { ...opts, signedHeaders: ['host', 'x-bce-date'] }).signature).toBe(
      '1b8de5a23a56eef657c69f94c621e7acd227d049a4ba577f537d5e5cebf0cf32',
    );
    // An empty signedHeaders list means the default set, which here is the same five headers.
    const dflt = bceSign(official, opts);
    expect(dflt.signature).toBe(all.signature);
    expect(dflt.authorization).toBe(`bce-auth-v1/${a32}/2015-04-27T08:23:49Z/1800//${all.signature}`);
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
        ['maxSize', '10'],
        ['status', 'FAILED'],
      ],
      'f7cd6d3ec5ad6a9cca01f441169533151dd3019f2aaec02a8163a603412fd19f',
    ],
    ['PUT', '/v2/callback', [], 'a783ee942da031e6ae51cc5ab0b09ab27aaacbcfeb65743d284babfb5f04c622'],
  ] as Array<[string, string, Array<[string, string]>, string]>)('VOD-shaped vector %s %s', (method, path, query, signature) => {
    const headers = { host: 'vod.bj.baidubce.com', 'x-bce-date': '2024-03-24T13:08:44Z' };
    const s = bceSign(
      { method, path, query, headers },
      { accessKeyId: a32, secretAccessKey: b32, timestamp: '2024-03-24T13:08:44Z', signedHeaders: ['host', 'x-bce-date'] },
    );
    expect(s.signature).toBe(signature);
    expect(s.authorization).toBe(`bce-auth-v1/${a32}/2024-03-24T13:08:44Z/1800/host;x-bce-date/${signature}`);
  });

  test('agrees with the official SDK signer (vectors and awkward queries/headers)', () => {
    const sdk = new SdkAuth(a32, b32);
    const ts = Date.parse('2015-04-27T08:23:49Z') / 1000;
    const params = Object.fromEntries(official.query);
    expect(
      sdk.generateAuthorization('PUT', official.path, params, official.headers, ts, 1800, [
        'host',
        'content-length',
        'content-md5',
        'content-type',
      ]),
    ).toBe(
      bceSign(official, { ...opts, signedHeaders: ['host', 'content-length', 'content-md5', 'content-type', 'x-bce-date'] }).authorization,
    );
    const cases: Array<{ query: Record<string, string>; headers: Record<string, string> }> = [
      { query: { status: 'FAILED', maxSize: '10' }, headers: { host: '127.0.0.1:8090', 'x-bce-date': '2026-01-02T03:04:05Z' } },
      {
        query: { beginTime: '2026-01-01T00:00:00Z', marker: 'tsk-abc', q: "a b*(x)!'~" },
        headers: { host: 'vod.bj.baidubce.com', 'x-bce-date': '2026-01-02T03:04:05Z', 'x-bce-request-id': 'f00d' },
      },
      {
        query: { taskId: '', unicode: '视频' },
        headers: { host: 'h', 'content-type': 'application/json; charset=utf-8', 'x-bce-date': '2026-01-02T03:04:05Z' },
      },
    ];
    for (const c of cases) {
      const t = Date.parse('2026-01-02T03:04:05Z') / 1000;
      const ours = bceSign(
        { method: 'GET', path: '/v2/tasks', query: Object.entries(c.query), headers: c.headers },
        { accessKeyId: a32, secretAccessKey: b32, timestamp: '2026-01-02T03:04:05Z', signedHeaders: Object.keys(c.headers) },
      );
      expect(sdk.generateAuthorization('GET', '/v2/tasks', c.query, c.headers, t, 1800, Object.keys(c.headers))).toBe(ours.authorization);
    }
    expect(
      canonicalQueryString([
        ['authorization', 'x'],
        ['b', ''],
        ['a', '1'],
      ]),
    ).toBe('a=1&b=');
  });

  test('parses Authorization strings strictly', () => {
    const good = `bce-auth-v1/${a32}/2024-03-24T13:08:44Z/1800/host;x-bce-date/${'0'.repeat(64)}`;
    expect(parseBceAuthorization(good)?.signedHeaders).toEqual(['host', 'x-bce-date']);
    expect(parseBceAuthorization(good.replace('/host;x-bce-date/', '//'))?.signedHeaders).toEqual([]);
    for (const bad of [
      good.replace('bce-auth-v1', 'BCE-AUTH-V1'),
      good.replace('2024-03-24T13:08:44Z', '2024-03-24 13:08:44'),
      good.replace('2024-03-24T13:08:44Z', '2024-02-30T13:08:44Z'),
      good.replace('/1800/', '/-1/'),
      good.replace('0'.repeat(64), 'xyz'),
      `${good}/extra`,
      'Bearer bce-v3/ALTAK-x/y',
    ]) {
      expect(parseBceAuthorization(bad)).toBeUndefined();
    }
  });
});

describe('authentication over HTTP', () => {
  const expectError = (r: Res, status: number, code: string) => {
    expect(r.status).toBe(status);
    expect(r.body).toEqual({ requestId: expect.any(String), code, message: expect.any(String) });
    expect(r.headers['x-bce-request-id']).toBe(r.body.requestId);
  };

  test('accepts host;x-bce-date, content-type too, the default set, and the SDK signer; echoes x-bce-request-id', async () => {
    const body = t2v('VQ2', { prompt: 'a cat' });
    expect((await call('POST', '/v2/aigc/text_to_video', [], body)).status).toBe(200);
    expect((await call('POST', '/v2/aigc/text_to_video', [], body, { signedHeaders: ['host', 'content-type', 'x-bce-date'] })).status).toBe(
      200,
    );
    const dflt = await call('POST', '/v2/aigc/text_to_video', [], body, {
      signedHeaders: [],
      headers: { 'x-bce-request-id': 'b0e4a7b4-35a3-4f5e-9a0e-6e7a8c1c2d3e' },
    });
    expect(dflt.status).toBe(200);
    expect(dflt.headers['x-bce-request-id']).toBe('b0e4a7b4-35a3-4f5e-9a0e-6e7a8c1c2d3e');

    const sdk = new SdkAuth(AK, SK);
    const headers = { host: `127.0.0.1:${simPort()}`, 'x-bce-date': bceTimestamp(Date.now()) };
    const authorization = sdk.generateAuthorization(
      'GET',
      '/v2/tasks',
      { maxSize: '5', taskId: 'tsk-none' },
      headers,
      Math.floor(Date.now() / 1000),
      1800,
      ['host'],
    );
    const r = await raw('GET', '/v2/tasks?maxSize=5&taskId=tsk-none', { ...headers, authorization });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ isTruncated: false, marker: '', data: [] });
  });

  test('each failure answers its documented code', async () => {
    const body = t2v('VQ2', { prompt: 'a cat' });
    const post = (o: CallOptions) => call('POST', '/v2/aigc/text_to_video', [], body, o);
    expectError(await post({ auth: 'none' }), 400, 'InvalidHTTPAuthHeader');
    expectError(await post({ auth: 'bce-auth-v1/garbled' }), 400, 'InvalidHTTPAuthHeader');
    expectError(await post({ auth: `Bearer ${SIM_ACCOUNTS.B.apiKey}` }), 400, 'InvalidHTTPAuthHeader'); // v2 takes AK/SK only
    expectError(await post({ ak: 'f'.repeat(32) }), 403, 'InvalidAccessKeyId');
    expectError(await post({ sk: 'wrong-secret' }), 400, 'SignatureDoesNotMatch');
    expectError(await post({ at: Date.now() - 1801_000 }), 400, 'RequestExpired');
    expect((await post({ at: Date.now() - 600_000, expirationSeconds: 3600 })).status).toBe(200);
    expectError(await post({ at: Date.now() + 20 * 60_000 }), 400, 'RequestExpired');
    expect((await post({ at: Date.now() + 5 * 60_000 })).status).toBe(200);
    // A signed header whose value differs from what was signed.
    const ts = bceTimestamp(Date.now());
    const signed = bceSign(
      { method: 'POST', path: '/v2/aigc/text_to_video', headers: { host: `127.0.0.1:${simPort()}`, 'x-bce-date': ts } },
      { accessKeyId: AK, secretAccessKey: SK, timestamp: ts, signedHeaders: ['host', 'x-bce-date'] },
    );
    const payload = JSON.stringify(body);
    expectError(
      await raw(
        'POST',
        '/v2/aigc/text_to_video',
        {
          host: 'vod.bj.baidubce.com',
          'x-bce-date': ts,
          authorization: signed.authorization,
          'content-type': 'application/json',
          'content-length': String(payload.length),
        },
        payload,
      ),
      400,
      'SignatureDoesNotMatch',
    );
    // Host signed without its port while the client sends it with one: the host header as received is what counts.
    const noPort = bceSign(
      { method: 'GET', path: '/v2/tasks', headers: { host: '127.0.0.1', 'x-bce-date': ts } },
      { accessKeyId: AK, secretAccessKey: SK, timestamp: ts, signedHeaders: ['host', 'x-bce-date'] },
    );
    expectError(
      await raw('GET', '/v2/tasks', { host: `127.0.0.1:${simPort()}`, 'x-bce-date': ts, authorization: noPort.authorization }),
      400,
      'SignatureDoesNotMatch',
    );
    const s = await sim_.stats();
    expect(s.rejected).toBeGreaterThanOrEqual(8);
    expect(s.jobsCreated).toBe(2);
  });

  test('v3: Bearer API key where the page shows v3, 404 elsewhere', async () => {
    const bearer = { auth: `Bearer ${SIM_ACCOUNTS.B.apiKey}` };
    const created = await call('POST', '/v3/aigc/text_to_video', [], t2v('VE3.1', { prompt: 'a boat' }), bearer);
    expect(created.status).toBe(200);
    expect((await call('GET', `/v3/tasks/${created.body.taskId}`, [], undefined, bearer)).body.taskId).toBe(created.body.taskId);
    expect((await call('POST', '/v3/aigc/image', [], imageBody('NB'), bearer)).status).toBe(200);
    expectError(
      await call('POST', '/v3/aigc/text_to_video', [], t2v('VQ2', { prompt: 'x' }), { auth: 'Bearer bce-v3/ALTAK-unknown/secret' }),
      401,
      'InvalidAccessKeyId',
    );
    expectError(
      await call('POST', '/v3/aigc/text_to_video', [], t2v('VQ2', { prompt: 'x' }), { auth: 'Bearer sk-123' }),
      400,
      'InvalidHTTPAuthHeader',
    );
    expectError(await call('POST', '/v3/aigc/image_to_video', [], t2v('VE3.1', { prompt: 'x', image: IMG }), bearer), 404, 'NotFound');
    expectError(await call('GET', '/v3/tasks', [], undefined, bearer), 404, 'NotFound');
  });
});
