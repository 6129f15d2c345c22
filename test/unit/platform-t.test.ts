/**
 * Platform T: TC3 signing (published vector, and agreement with the official SDK's signer), golden request
 * bodies per model family, status mapping, error classification, and the adapter's wire behaviour against a
 * recording HTTP double. The simulator's strictness is covered here for its pure validators.
 */
import { defaultCatalogue } from '../../core/catalogue';
import type { Platform } from '../../core/platforms';
import { imageRequestSchema, videoRequestSchema } from '../../core/schemas';
import type { GenerationRequest } from '../../core/schemas';
import { validateGeneration } from '../../core/validation';
import type { HttpClient, HttpResponse } from '../../activities/http';
import { UpstreamError } from '../../activities/errors';
import {
  classifyTError,
  createPlatformT,
  fromTTaskDetail,
  readTResponse,
  T_CONTENT_TYPE,
  toSessionId,
  toTCreateCall,
  type TTaskDetail,
} from '../../activities/platform-t';
import { parseTc3Authorization, tc3Sign } from '../../activities/tc3';
import { validateTImage, validateTVideo } from '../../sim/t';

// The official SDK's signer, used only as an independent reference implementation.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SdkSign = require('tencentcloud-sdk-nodejs-common/tencentcloud/common/sign').default as {
  sign3(opts: Record<string, unknown>): string;
};

const ENABLED: ReadonlySet<Platform> = new Set(['T', 'B', 'V']);

/** A spec request as the adapter really receives it: schema-parsed, then validated and normalised. */
function normalised(kind: 'video' | 'image', body: Record<string, unknown>) {
  const parsed = kind === 'video' ? videoRequestSchema.parse(body) : imageRequestSchema.parse(body);
  return validateGeneration(defaultCatalogue, ENABLED, kind, parsed);
}

describe('TC3-HMAC-SHA256', () => {
  // upstreams.md: the platform's own worked example. The body's \u escapes are literal characters.
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
    expect(s.canonicalRequest).toBe(
      'POST\n/\n\ncontent-type:application/json; charset=utf-8\nhost:cvm.tencentcloudapi.com\n\ncontent-type;host\n' +
        '35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064',
    );
    expect(s.hashedCanonicalRequest).toBe('5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031');
    expect(s.stringToSign).toBe(
      'TC3-HMAC-SHA256\n1551113065\n2019-02-25/cvm/tc3_request\n5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031',
    );
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

  test('parses its own Authorization header and rejects malformed ones', () => {
    const s = tc3Sign({ ...vector, secretId: 'AKIDsimulator', service: 'vod' });
    expect(parseTc3Authorization(s.authorization)).toEqual({
      secretId: 'AKIDsimulator',
      date: '2019-02-25',
      service: 'vod',
      signedHeaders: ['content-type', 'host'],
      signature: s.signature,
    });
    expect(parseTc3Authorization('Bearer abc')).toBeUndefined();
    expect(parseTc3Authorization(s.authorization.replace('Signature=', 'Signature=zz'))).toBeUndefined();
    expect(parseTc3Authorization(undefined)).toBeUndefined();
  });
});

describe('toTCreateCall: golden bodies per model family', () => {
  const opts = { sessionId: 'task_0123456789abcdefghijkl', subAppId: 1500000001 };
  const cases: [string, 'video' | 'image', Record<string, unknown>, string, Record<string, unknown>][] = [
    [
      'GV text-to-video: general fields mapped into OutputConfig',
      'video',
      {
        model: 'GV-3.1',
        prompt: 'a fox',
        negative_prompt: 'blur',
        enhance_prompt: 'Enabled',
        duration: 8,
        resolution: '1080p',
        ratio: '9:16',
        generate_audio: true,
      },
      'CreateAigcVideoTask',
      {
        SubAppId: 1500000001,
        ModelName: 'GV',
        ModelVersion: '3.1',
        Prompt: 'a fox',
        NegativePrompt: 'blur',
        EnhancePrompt: 'Enabled',
        OutputConfig: { Duration: 8, Resolution: '1080P', AspectRatio: '9:16', AudioGeneration: 'Enabled' },
        SessionId: 'task_0123456789abcdefghijkl',
      },
    ],
    [
      'GV fast first + last frame, no sound',
      'video',
      { model: 'GV-3.1-fast', prompt: 'morph', image_url: 'https://x.test/a.png', last_frame_url: 'https://x.test/b.png', generate_audio: false },
      'CreateAigcVideoTask',
      {
        SubAppId: 1500000001,
        ModelName: 'GV',
        ModelVersion: '3.1-fast',
        Prompt: 'morph',
        FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png', Category: 'Image', Usage: 'FirstFrame' }],
        LastFrameUrl: 'https://x.test/b.png',
        OutputConfig: { AudioGeneration: 'Disabled' },
        SessionId: 'task_0123456789abcdefghijkl',
      },
    ],
    [
      'Kling image-to-video from image_url',
      'video',
      { model: 'VendorK-2.5', image_url: 'https://x.test/a.png', duration: 10 },
      'CreateAigcVideoTask',
      {
        SubAppId: 1500000001,
        ModelName: 'Kling',
        ModelVersion: '2.5',
        FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png', Category: 'Image', Usage: 'FirstFrame' }],
        OutputConfig: { Duration: 10 },
        SessionId: 'task_0123456789abcdefghijkl',
      },
    ],
    [
      'Vidu reference images through file_infos; explicit output_config wins over general fields',
      'video',
      {
        model: 'VendorQ-q2-pro',
        prompt: 'these two, dancing',
        duration: 4,
        ratio: '16:9',
        file_infos: [
          { Type: 'Url', Url: 'https://x.test/r1.png', Category: 'Image', Usage: 'Reference' },
          { Type: 'Url', Url: 'https://x.test/r2.png', Usage: 'Reference' },
        ],
        output_config: { Duration: 7, AspectRatio: '1:1', Resolution: '720p' },
      },
      'CreateAigcVideoTask',
      {
        SubAppId: 1500000001,
        ModelName: 'Vidu',
        ModelVersion: 'q2-pro',
        Prompt: 'these two, dancing',
        FileInfos: [
          { Type: 'Url', Url: 'https://x.test/r1.png', Category: 'Image', Usage: 'Reference' },
          { Type: 'Url', Url: 'https://x.test/r2.png', Usage: 'Reference' },
        ],
        OutputConfig: { Duration: 7, AspectRatio: '1:1', Resolution: '720P' },
        SessionId: 'task_0123456789abcdefghijkl',
      },
    ],
    [
      'Hailuo text-to-video at 768P',
      'video',
      { model: 'VendorH-2.3', prompt: 'rain', duration: 6, resolution: '768P' },
      'CreateAigcVideoTask',
      {
        SubAppId: 1500000001,
        ModelName: 'Hailuo',
        ModelVersion: '2.3',
        Prompt: 'rain',
        OutputConfig: { Duration: 6, Resolution: '768P' },
        SessionId: 'task_0123456789abcdefghijkl',
      },
    ],
    [
      'GG image: size → AspectRatio, quality hd → 4K (public id GEM, upstream GG)',
      'image',
      { model: 'GEM-3.0', prompt: 'a lighthouse', size: '1792x1024', quality: 'hd', negative_prompt: 'people' },
      'CreateAigcImageTask',
      {
        SubAppId: 1500000001,
        ModelName: 'GG',
        ModelVersion: '3.0',
        Prompt: 'a lighthouse',
        NegativePrompt: 'people',
        OutputConfig: { AspectRatio: '16:9', Resolution: '4K' },
        SessionId: 'task_0123456789abcdefghijkl',
      },
    ],
    [
      'Hunyuan image: quality standard → 1K, explicit output_config AspectRatio wins over size',
      'image',
      { model: 'VendorY-3.0', prompt: 'tea', size: '1:1', quality: 'standard', enhance_prompt: 'Disabled', output_config: { AspectRatio: '3:4' } },
      'CreateAigcImageTask',
      {
        SubAppId: 1500000001,
        ModelName: 'Hunyuan',
        ModelVersion: '3.0',
        Prompt: 'tea',
        EnhancePrompt: 'Disabled',
        OutputConfig: { AspectRatio: '3:4', Resolution: '1K' },
        SessionId: 'task_0123456789abcdefghijkl',
      },
    ],
    [
      'Kling image-to-image with reference file_infos and an explicit 2K',
      'image',
      { model: 'VendorK-2.1', prompt: 'in oils', file_infos: [{ Type: 'Url', Url: 'https://x.test/ref.png' }], output_config: { Resolution: '2K' } },
      'CreateAigcImageTask',
      {
        SubAppId: 1500000001,
        ModelName: 'Kling',
        ModelVersion: '2.1',
        Prompt: 'in oils',
        FileInfos: [{ Type: 'Url', Url: 'https://x.test/ref.png' }],
        OutputConfig: { Resolution: '2K' },
        SessionId: 'task_0123456789abcdefghijkl',
      },
    ],
  ];

  test.each(cases)('%s', (_name, kind, body, action, expected) => {
    const { entry, request } = normalised(kind, body);
    const call = toTCreateCall(entry, request, opts);
    expect(call.action).toBe(action);
    expect(call.body).toEqual(expected);
    // What the adapter sends is exactly what a strict platform T accepts.
    expect(() => (kind === 'video' ? validateTVideo(call.body) : validateTImage(call.body))).not.toThrow();
  });

  test('SubAppId is omitted when not configured', () => {
    const { entry, request } = normalised('video', { model: 'GV-3.1', prompt: 'x' });
    expect(toTCreateCall(entry, request, { sessionId: 'task_1' }).body).toEqual({ ModelName: 'GV', ModelVersion: '3.1', Prompt: 'x', SessionId: 'task_1' });
  });

  test('SessionId is the task id itself, or a stable 50-character digest of a longer key', () => {
    expect(toSessionId('task_abc')).toBe('task_abc');
    const long = 'k'.repeat(80);
    expect(toSessionId(long)).toHaveLength(50);
    expect(toSessionId(long)).toBe(toSessionId(long));
    expect(toSessionId(long)).not.toBe(toSessionId(`${long}x`));
  });
});

describe('the simulator rejects what platform T rejects', () => {
  const base = { ModelName: 'GV', ModelVersion: '3.1', Prompt: 'x', SessionId: 's' };
  test.each([
    ['an unknown field', { ...base, Duration: 8 }, 'InvalidParameter'],
    ['an unknown OutputConfig key', { ...base, OutputConfig: { Fps: 24 } }, 'InvalidParameter'],
    ['a missing ModelName', { ModelVersion: '3.1', Prompt: 'x' }, 'MissingParameter'],
    ['an unknown model pair', { ...base, ModelVersion: '9.9' }, 'InvalidParameterValue.ModelName'],
    ['a duration the model lacks', { ...base, OutputConfig: { Duration: 5 } }, 'InvalidParameterValue'],
    ['a lower-case resolution', { ...base, OutputConfig: { Resolution: '1080p' } }, 'InvalidParameterValue'],
    ['AudioGeneration on a model without sound', { ModelName: 'Kling', ModelVersion: '2.1', Prompt: 'x', OutputConfig: { AudioGeneration: 'Enabled' } }, 'InvalidParameterValue'],
    ['neither Prompt nor FileInfos', { ModelName: 'GV', ModelVersion: '3.1' }, 'MissingParameter'],
    ['a FileInfos item with an unknown key', { ...base, FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png', Role: 'x' }] }, 'InvalidParameter'],
    ['a 51-character SessionId', { ...base, SessionId: 's'.repeat(51) }, 'InvalidParameterValue.SessionId'],
  ])('video: %s', (_name, body, code) => {
    expect(() => validateTVideo(body)).toThrow(expect.objectContaining({ code }));
  });

  test('image: Prompt is required and Resolution is 1K, 2K or 4K', () => {
    expect(() => validateTImage({ ModelName: 'GG', ModelVersion: '3.0' })).toThrow(expect.objectContaining({ code: 'MissingParameter' }));
    expect(() => validateTImage({ ModelName: 'GG', ModelVersion: '3.0', Prompt: 'x', OutputConfig: { Resolution: '8K' } })).toThrow(
      expect.objectContaining({ code: 'InvalidParameterValue' }),
    );
    // The 2026 rename: GEM is no longer a T ModelName.
    expect(() => validateTImage({ ModelName: 'GEM', ModelVersion: '3.0', Prompt: 'x' })).toThrow(expect.objectContaining({ code: 'InvalidParameterValue.ModelName' }));
  });
});

describe('fromTTaskDetail', () => {
  const video = (detail: Partial<TTaskDetail['AigcVideoTask']>, Status: string): TTaskDetail => ({ Status, AigcVideoTask: { TaskId: 't', ...detail } });

  test.each([
    ['WAITING', {}, { state: 'pending' }],
    ['PROCESSING', { Progress: 40 }, { state: 'running', progress: 40 }],
    ['PROCESSING', {}, { state: 'running' }],
  ] as const)('%s %j', (status, task, expected) => {
    expect(fromTTaskDetail('video', video(task, status))).toEqual(expected);
  });

  test('FINISH with ErrCode 0 is a success with every output file', () => {
    const detail: TTaskDetail = {
      Status: 'FINISH',
      AigcImageTask: { ErrCode: 0, Progress: 100, Output: { FileInfos: [{ FileUrl: 'https://cdn.test/a.png', ExpireTime: '2026-01-08T00:00:00Z' }, { FileUrl: 'https://cdn.test/b.png' }] } },
    };
    expect(fromTTaskDetail('image', detail)).toEqual({ state: 'success', progress: 100, outputs: [{ url: 'https://cdn.test/a.png' }, { url: 'https://cdn.test/b.png' }] });
  });

  test.each([
    [{ ErrCode: 40000, ErrCodeExt: 'ContentModerationFailed', Message: 'sensitive' }, { reason: 'content_policy', message: 'sensitive', code: 'ContentModerationFailed' }],
    [{ ErrCode: 40000, ErrCodeExt: 'InvalidParameter.VoilationContent', Message: 'bad words' }, { reason: 'content_policy', message: 'bad words', code: 'InvalidParameter.VoilationContent' }],
    [{ ErrCode: 70000, ErrCodeExt: 'ModelGenerateFailed', Message: 'model failed' }, { reason: 'upstream_failed', message: 'model failed', code: 'ModelGenerateFailed' }],
    [{ ErrCode: 70000, Message: '' }, { reason: 'upstream_failed', message: 'Generation failed (70000)', code: '70000' }],
  ])('FINISH with ErrCode ≠ 0 is a failure: %j', (task, failure) => {
    expect(fromTTaskDetail('video', video(task, 'FINISH'))).toEqual({ state: 'failed', failure });
  });

  test('FINISH without files, and ABORTED, are failures', () => {
    expect(fromTTaskDetail('video', video({ ErrCode: 0, Output: { FileInfos: [] } }, 'FINISH'))).toMatchObject({ state: 'failed', failure: { reason: 'upstream_failed' } });
    expect(fromTTaskDetail('video', video({ ErrCodeExt: 'OperationCanceled' }, 'ABORTED'))).toMatchObject({ state: 'failed', failure: { reason: 'upstream_failed', code: 'OperationCanceled' } });
  });

  test('an unknown status is retried, not trusted', () => {
    expect(() => fromTTaskDetail('video', video({}, 'EXPLODED'))).toThrow(expect.objectContaining({ retryable: true }));
  });
});

describe('error classification', () => {
  test.each([
    ['RequestLimitExceeded', true, 'upstream_unavailable'],
    ['RequestLimitExceeded.UinLimitExceeded', true, 'upstream_unavailable'],
    ['InternalError', true, 'upstream_unavailable'],
    ['InternalError.DBError', true, 'upstream_unavailable'],
    ['AuthFailure.SignatureFailure', false, 'upstream_auth'],
    ['AuthFailure.SecretIdNotFound', false, 'upstream_auth'],
    ['UnauthorizedOperation', false, 'upstream_auth'],
    ['InvalidParameter', false, 'invalid_request'],
    ['InvalidParameterValue.ModelName', false, 'invalid_request'],
    ['MissingParameter', false, 'invalid_request'],
    ['InvalidParameter.VoilationContent', false, 'content_policy'],
    ['FailedOperation.InsufficientBalance', false, 'insufficient_balance'],
    ['ResourceUnavailable.InArrears', false, 'insufficient_balance'],
    ['ResourceNotFound.TaskNotExist', false, 'upstream_failed'],
  ])('%s → retryable %s, %s', (code, isRetryable, reason) => {
    const e = classifyTError(code, 'msg');
    expect(e.retryable).toBe(isRetryable);
    expect(e.opts).toMatchObject({ reason, code });
  });

  test('replies that are not T envelopes', () => {
    const r = (status: number, body: unknown) => readTResponse({ status, body });
    expect(r(200, { Response: { TaskId: 't', RequestId: 'r' } })).toEqual({ TaskId: 't', RequestId: 'r' });
    expect(r(502, undefined)).toMatchObject({ retryable: true, opts: { httpStatus: 502 } });
    expect(r(429, undefined)).toMatchObject({ retryable: true });
    expect(r(404, undefined)).toMatchObject({ retryable: false, opts: { reason: 'upstream_failed' } });
    expect(r(200, { unexpected: true })).toMatchObject({ retryable: true });
    expect(r(200, { Response: { Error: { Code: 'AuthFailure.SignatureExpire', Message: 'expired' }, RequestId: 'r' } })).toMatchObject({
      retryable: false,
      opts: { reason: 'upstream_auth', code: 'AuthFailure.SignatureExpire' },
    });
  });
});

describe('createPlatformT on the wire', () => {
  const config = { endpoint: 'http://127.0.0.1:8090', secretId: 'AKIDtest', secretKey: 'key', subAppId: 7, region: 'ap-guangzhou', simulated: true };
  const now = () => 1767225600_000;

  function recorder(replies: unknown[]) {
    const sent: { method: string; url: string; headers: Record<string, string>; body: string }[] = [];
    const http: HttpClient = {
      async send(method, url, opts = {}) {
        sent.push({ method, url, headers: opts.headers ?? {}, body: opts.body ?? '' });
        const body = replies.shift();
        return { status: 200, headers: {}, body, text: JSON.stringify(body) } satisfies HttpResponse;
      },
    };
    return { http, sent };
  }

  test('submit posts a signed CreateAigcVideoTask to the endpoint root and returns the TaskId', async () => {
    const { http, sent } = recorder([{ Response: { TaskId: 'AigcVideoTask-1', RequestId: 'r' } }]);
    const adapter = createPlatformT(config, http, jest.fn(), now);
    const { entry, request } = normalised('video', { model: 'GV-3.1', prompt: 'a fox' });
    await expect(adapter.submit(entry, request as GenerationRequest, 'task_1')).resolves.toEqual({ upstreamTaskId: 'AigcVideoTask-1' });

    expect(sent).toHaveLength(1);
    const [req] = sent;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe('http://127.0.0.1:8090/');
    expect(req!.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'x-tc-action': 'CreateAigcVideoTask',
      'x-tc-version': '2018-07-17',
      'x-tc-timestamp': '1767225600',
      'x-tc-region': 'ap-guangzhou',
    });
    expect(JSON.parse(req!.body)).toEqual({ SubAppId: 7, ModelName: 'GV', ModelVersion: '3.1', Prompt: 'a fox', SessionId: 'task_1' });
    // The signature covers the exact bytes sent and the Host undici derives from the URL.
    const expected = tc3Sign({
      secretId: 'AKIDtest',
      secretKey: 'key',
      service: 'vod',
      timestamp: 1767225600,
      headers: { 'content-type': 'application/json; charset=utf-8', host: '127.0.0.1:8090' },
      payload: req!.body,
    });
    expect(req!.headers.authorization).toBe(expected.authorization);
  });

  test('poll sends DescribeTaskDetail and maps the reply', async () => {
    const { http, sent } = recorder([{ Response: { Status: 'PROCESSING', AigcVideoTask: { Progress: 30 }, RequestId: 'r' } }]);
    const adapter = createPlatformT(config, http, jest.fn(), now);
    await expect(adapter.poll('video', 'AigcVideoTask-1')).resolves.toEqual({ state: 'running', progress: 30 });
    expect(sent[0]!.headers['x-tc-action']).toBe('DescribeTaskDetail');
    expect(JSON.parse(sent[0]!.body)).toEqual({ TaskId: 'AigcVideoTask-1', SubAppId: 7 });
  });

  test('an auth failure is final and alerts the operator; a rate limit is retryable and does not', async () => {
    const alert = jest.fn();
    const { http } = recorder([
      { Response: { Error: { Code: 'AuthFailure.SignatureFailure', Message: 'bad signature' }, RequestId: 'r' } },
      { Response: { Error: { Code: 'RequestLimitExceeded', Message: 'slow down' }, RequestId: 'r' } },
    ]);
    const adapter = createPlatformT(config, http, alert, now);
    const first = await adapter.poll('video', 't').catch((e: unknown) => e);
    expect(first).toBeInstanceOf(UpstreamError);
    expect(first).toMatchObject({ retryable: false, opts: { reason: 'upstream_auth' } });
    expect(alert).toHaveBeenCalledWith('T', 'AuthFailure.SignatureFailure', expect.stringContaining('bad signature'));
    await expect(adapter.poll('video', 't')).rejects.toMatchObject({ retryable: true, opts: { code: 'RequestLimitExceeded' } });
    expect(alert).toHaveBeenCalledTimes(1);
  });

  test('cancel sends nothing: platform T cannot cancel an AIGC task', async () => {
    const { http, sent } = recorder([]);
    await createPlatformT(config, http, jest.fn(), now).cancel('video', 't');
    expect(sent).toHaveLength(0);
  });
});
