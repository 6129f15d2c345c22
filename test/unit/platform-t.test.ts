/**
 * Platform T (platforms/t): TC3 signing (published vector, and agreement with the official SDK's signer), golden
 * request bodies per model family, the per-model rules (a 400 naming the field), status mapping (with the
 * transient failures that are submitted again), error classification, the lost-answer lookup and the adapter's
 * wire behaviour against a recording HTTP double. Every golden body is also accepted by the simulator's strict
 * validators (sim/t, written from the same SDK), and every body our rules refuse is refused by it too.
 */
import { buildCatalogue, imageRequestSchema, videoRequestSchema } from '../../platforms';
import type { HttpClient, HttpResponse } from '../../platforms/http';
import { RequestRuleError } from '../../platforms/rules';
import { toSessionId, toTCreateCall, toTListCall, type TCreateOptions } from '../../platforms/t/request-body';
import { createPlatformT, T_CONTENT_TYPE, type PlatformTSettings } from '../../platforms/t/adapter';
import { tWorker } from '../../platforms/t/config';
import { classifyTError, fromTTaskDetail, readTResponse, type TTaskDetail } from '../../platforms/t/replies';
import { LOOKUP_CLOCK_SKEW_MS } from '../../platforms/t/lost-answer';
import { tc3Sign } from '../../platforms/t/signing';
import { validateGeneration } from '../../platforms/validation';
import type { GenerationRequest } from '../../core/task';
import { ConfigError } from '../../core/config';
import { parseTc3Authorization, validateImageCreate, validateVideoCreate } from '../../sim/t';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createSubmitActivity } from '../../activities/submit';
import { SIM_ACCOUNTS } from '../../sim/accounts';
import { checkShape, DESCRIBE_TASKS } from '../../sim/t/shape';

// The official SDK's signer, used only as an independent reference implementation.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SdkSign = require('tencentcloud-sdk-nodejs-common/tencentcloud/common/sign').default as {
  sign3(opts: Record<string, unknown>): string;
};

const catalogue = buildCatalogue();
const ENABLED: ReadonlySet<string> = new Set(['T', 'B', 'V']);
const SUB = SIM_ACCOUNTS.T.subAppId;
const IMG = 'https://x.test/a.png';
const IMG2 = 'https://x.test/b.png';

/** A spec request as the adapter really receives it: schema-parsed, then validated and normalised. */
function normalised(kind: 'video' | 'image', body: Record<string, unknown>) {
  const parsed = kind === 'video' ? videoRequestSchema.parse(body) : imageRequestSchema.parse(body);
  return validateGeneration(catalogue, ENABLED, kind, parsed as Record<string, unknown> & { model: string });
}

/** The param of the 400 validation answers for `body`, or undefined when it is accepted. */
function refusedParam(kind: 'video' | 'image', body: Record<string, unknown>): string | undefined {
  try {
    normalised(kind, body);
    return undefined;
  } catch (err) {
    if (err instanceof RequestRuleError) return err.param;
    throw err;
  }
}

/** What the simulator (a strict platform T) says about a body: undefined when accepted, else its error code. */
function simVerdict(kind: 'video' | 'image', body: unknown): string | undefined {
  try {
    if (kind === 'video') validateVideoCreate(body, SUB);
    else validateImageCreate(body, SUB);
    return undefined;
  } catch (err) {
    return `${(err as { code: string }).code}: ${(err as Error).message}`;
  }
}

const OPTS: TCreateOptions = { subAppId: SUB, dedupKey: 'task_abc-0123456789abcdef', taskId: 'task_abc' };

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

describe('toTCreateCall: golden bodies per model family (and a strict platform T accepts each)', () => {
  const session = { SessionId: OPTS.dedupKey, SessionContext: 'task_abc' };
  const cases: [string, 'video' | 'image', Record<string, unknown>, Partial<TCreateOptions>, Record<string, unknown>][] = [
    [
      'GV text-to-video: general fields mapped into OutputConfig, 9:16, sound',
      'video',
      { model: 'GV-3.1', prompt: 'a fox', negative_prompt: 'blur', enhance_prompt: 'Enabled', duration: 8, resolution: '1080p', ratio: '9:16', generate_audio: true },
      {},
      {
        SubAppId: SUB,
        ModelName: 'GV',
        ModelVersion: '3.1',
        Prompt: 'a fox',
        NegativePrompt: 'blur',
        EnhancePrompt: 'Enabled',
        OutputConfig: { Duration: 8, Resolution: '1080P', AspectRatio: '9:16', AudioGeneration: 'Enabled' },
        ...session,
      },
    ],
    [
      'GV fast first + last frame, no sound',
      'video',
      { model: 'GV-3.1-fast', prompt: 'morph', image_url: IMG, last_frame_url: IMG2, generate_audio: false },
      {},
      {
        SubAppId: SUB,
        ModelName: 'GV',
        ModelVersion: '3.1-fast',
        Prompt: 'morph',
        FileInfos: [{ Type: 'Url', Url: IMG, Category: 'Image', Usage: 'FirstFrame' }],
        LastFrameUrl: IMG2,
        OutputConfig: { AudioGeneration: 'Disabled' },
        ...session,
      },
    ],
    [
      'Kling 2.1 first + last frame at 1080P, with sound, input URLs abroad',
      'video',
      { model: 'VendorK-2.1', prompt: 'turn', image_url: IMG, last_frame_url: IMG2, resolution: '1080P', duration: 5, generate_audio: true, input_region: 'Oversea' },
      {},
      {
        SubAppId: SUB,
        ModelName: 'Kling',
        ModelVersion: '2.1',
        Prompt: 'turn',
        FileInfos: [{ Type: 'Url', Url: IMG, Category: 'Image', Usage: 'FirstFrame' }],
        LastFrameUrl: IMG2,
        OutputConfig: { Duration: 5, Resolution: '1080P', AudioGeneration: 'Enabled' },
        InputRegion: 'Oversea',
        ...session,
      },
    ],
    [
      'Kling 2.5 image-to-video, 1:1, permanent storage (deployment setting)',
      'video',
      { model: 'VendorK-2.5', image_url: IMG, duration: 10, ratio: '1:1' },
      { storageMode: 'Permanent' },
      {
        SubAppId: SUB,
        ModelName: 'Kling',
        ModelVersion: '2.5',
        FileInfos: [{ Type: 'Url', Url: IMG, Category: 'Image', Usage: 'FirstFrame' }],
        OutputConfig: { StorageMode: 'Permanent', Duration: 10, AspectRatio: '1:1' },
        ...session,
      },
    ],
    [
      'Vidu q2 reference images through file_infos, 4:3 (q2 only), sound; explicit output_config wins',
      'video',
      {
        model: 'VendorQ-q2',
        prompt: 'these two, dancing',
        duration: 4,
        ratio: '16:9',
        generate_audio: true,
        file_infos: [
          { Type: 'Url', Url: 'https://x.test/r1.png', Category: 'Image', Usage: 'Reference' },
          { Type: 'Url', Url: 'https://x.test/r2.png', Usage: 'Reference' },
        ],
        output_config: { Duration: 7, AspectRatio: '4:3', Resolution: '720p' },
      },
      {},
      {
        SubAppId: SUB,
        ModelName: 'Vidu',
        ModelVersion: 'q2',
        Prompt: 'these two, dancing',
        FileInfos: [
          { Type: 'Url', Url: 'https://x.test/r1.png', Category: 'Image', Usage: 'Reference' },
          { Type: 'Url', Url: 'https://x.test/r2.png', Usage: 'Reference' },
        ],
        OutputConfig: { Duration: 7, AspectRatio: '4:3', Resolution: '720P', AudioGeneration: 'Enabled' },
        ...session,
      },
    ],
    [
      'Vidu q2-pro first + last frame',
      'video',
      { model: 'VendorQ-q2-pro', prompt: 'bloom', image_url: IMG, last_frame_url: IMG2, duration: 6 },
      {},
      {
        SubAppId: SUB,
        ModelName: 'Vidu',
        ModelVersion: 'q2-pro',
        Prompt: 'bloom',
        FileInfos: [{ Type: 'Url', Url: IMG, Category: 'Image', Usage: 'FirstFrame' }],
        LastFrameUrl: IMG2,
        OutputConfig: { Duration: 6 },
        ...session,
      },
    ],
    [
      'Hailuo text-to-video at 768P, 10 s: no AspectRatio',
      'video',
      { model: 'VendorH-2.3', prompt: 'rain', duration: 10, resolution: '768P' },
      {},
      { SubAppId: SUB, ModelName: 'Hailuo', ModelVersion: '2.3', Prompt: 'rain', OutputConfig: { Duration: 10, Resolution: '768P' }, ...session },
    ],
    [
      'GG image: size → AspectRatio, quality hd → 4K (public id GEM, upstream GG)',
      'image',
      { model: 'GEM-3.0', prompt: 'a lighthouse', size: '1792x1024', quality: 'hd', negative_prompt: 'people' },
      {},
      { SubAppId: SUB, ModelName: 'GG', ModelVersion: '3.0', Prompt: 'a lighthouse', NegativePrompt: 'people', OutputConfig: { AspectRatio: '16:9', Resolution: '4K' }, ...session },
    ],
    [
      'GG 2.5 image-to-image: FileInfos items without Category or Usage, explicit 2K',
      'image',
      { model: 'GEM-2.5', prompt: 'in oils', file_infos: [{ Type: 'Url', Url: IMG }], output_config: { Resolution: '2k' } },
      {},
      { SubAppId: SUB, ModelName: 'GG', ModelVersion: '2.5', Prompt: 'in oils', FileInfos: [{ Type: 'Url', Url: IMG }], OutputConfig: { Resolution: '2K' }, ...session },
    ],
    [
      'Hunyuan image: quality standard is its default, so neither Resolution nor AspectRatio is sent',
      'image',
      { model: 'VendorY-3.0', prompt: 'tea', quality: 'standard', enhance_prompt: 'Disabled', input_region: 'Oversea', file_infos: [{ Type: 'Url', Url: IMG }] },
      {},
      { SubAppId: SUB, ModelName: 'Hunyuan', ModelVersion: '3.0', Prompt: 'tea', EnhancePrompt: 'Disabled', InputRegion: 'Oversea', FileInfos: [{ Type: 'Url', Url: IMG }], ...session },
    ],
    [
      'Kling image: n → OutputImageCount, quality 2K → 2k (its spelling), 3:2, permanent storage',
      'image',
      { model: 'VendorK-2.1', prompt: 'cats', n: 3, quality: '2K', size: '3:2' },
      { storageMode: 'Permanent' },
      {
        SubAppId: SUB,
        ModelName: 'Kling',
        ModelVersion: '2.1',
        Prompt: 'cats',
        OutputConfig: { StorageMode: 'Permanent', AspectRatio: '3:2', Resolution: '2k', OutputImageCount: 3 },
        ...session,
      },
    ],
  ];

  test.each(cases)('%s', (_name, kind, body, opts, expected) => {
    const { entry, request } = normalised(kind, body);
    const call = toTCreateCall(entry, request, { ...OPTS, ...opts });
    expect(call.action).toBe(kind === 'video' ? 'CreateAigcVideoTask' : 'CreateAigcImageTask');
    expect(JSON.parse(JSON.stringify(call.body))).toEqual(expected);
    expect(simVerdict(kind, call.body)).toBeUndefined();
  });

  test('SessionId is the dedup key itself, or a stable 50-character digest of a longer key; SessionContext the task id', () => {
    expect(toSessionId('task_abc')).toBe('task_abc');
    const long = 'k'.repeat(80);
    expect(toSessionId(long)).toHaveLength(50);
    expect(toSessionId(long)).toBe(toSessionId(long));
    expect(toSessionId(long)).not.toBe(toSessionId(`${long}x`));
    const { entry, request } = normalised('video', { model: 'GV-3.1', prompt: 'x' });
    expect(toTCreateCall(entry, request, { ...OPTS, dedupKey: long, taskId: 't'.repeat(1001) }).body).toEqual({
      SubAppId: SUB,
      ModelName: 'GV',
      ModelVersion: '3.1',
      Prompt: 'x',
      SessionId: toSessionId(long),
    });
  });
});

describe('per-model rules: a request the model cannot take is a 400 naming the field, and T would refuse it too', () => {
  const cases: [string, 'video' | 'image', Record<string, unknown>, string][] = [
    ['GV takes 16:9 and 9:16 only', 'video', { model: 'GV-3.1', prompt: 'x', ratio: '1:1' }, 'ratio'],
    ['GV: an explicit AspectRatio too', 'video', { model: 'GV-3.1-fast', prompt: 'x', output_config: { AspectRatio: '4:3' } }, 'output_config.AspectRatio'],
    ['Hailuo takes no ratio', 'video', { model: 'VendorH-2.3', prompt: 'x', ratio: '16:9' }, 'ratio'],
    ['Kling takes 16:9, 9:16, 1:1', 'video', { model: 'VendorK-2.5', prompt: 'x', ratio: '4:3' }, 'ratio'],
    ['4:3 is Vidu q2 only', 'video', { model: 'VendorQ-q2-pro', prompt: 'x', ratio: '3:4' }, 'ratio'],
    ['Kling 2.5 takes no last frame', 'video', { model: 'VendorK-2.5', prompt: 'x', image_url: IMG, last_frame_url: IMG2 }, 'last_frame_url'],
    ['Kling 2.1 takes a last frame only at 1080P', 'video', { model: 'VendorK-2.1', prompt: 'x', image_url: IMG, last_frame_url: IMG2, resolution: '720P' }, 'resolution'],
    ['Vidu q2 takes no last frame', 'video', { model: 'VendorQ-q2', prompt: 'x', image_url: IMG, last_frame_url: IMG2 }, 'last_frame_url'],
    ['Hailuo makes no sound', 'video', { model: 'VendorH-2.3', prompt: 'x', output_config: { AudioGeneration: 'Enabled' } }, 'output_config.AudioGeneration'],
    ['Hailuo renders 1080P at 6 s only', 'video', { model: 'VendorH-2.3', prompt: 'x', resolution: '1080P', duration: 10 }, 'duration'],
    ['Hailuo takes no reference images', 'video', { model: 'VendorH-2.3', prompt: 'x', file_infos: [{ Type: 'Url', Url: IMG, Usage: 'Reference' }] }, 'file_infos'],
    ['a T video prompt is at most 1000 characters', 'video', { model: 'GV-3.1', prompt: 'p'.repeat(1001) }, 'prompt'],
    ['Kling 2.1 images have no 4K: quality hd is refused', 'image', { model: 'VendorK-2.1', prompt: 'x', quality: 'hd' }, 'quality'],
    ['Kling image resolutions are 1k and 2k', 'image', { model: 'VendorK-2.1', prompt: 'x', output_config: { Resolution: '4K' } }, 'output_config.Resolution'],
    ['Hunyuan 3.0 takes no size (aspect ratio)', 'image', { model: 'VendorY-3.0', prompt: 'x', size: '16:9' }, 'size'],
    ['Hunyuan 3.0 takes no resolution', 'image', { model: 'VendorY-3.0', prompt: 'x', output_config: { Resolution: '1K' } }, 'output_config.Resolution'],
    ['Hunyuan 3.0 takes no hd', 'image', { model: 'VendorY-3.0', prompt: 'x', quality: 'hd' }, 'quality'],
    ['GG 2.5 takes at most 3 reference images', 'image', { model: 'GEM-2.5', prompt: 'x', file_infos: [1, 2, 3, 4].map((i) => ({ Type: 'Url', Url: `https://x.test/${i}.png` })) }, 'file_infos'],
    ['n > 1 only where OutputImageCount has an effect (Kling)', 'image', { model: 'GEM-3.0', prompt: 'x', n: 2 }, 'n'],
  ];

  test.each(cases.map(([name, kind, body, param]) => [name, param, kind, body] as const))('%s → 400 %s', (_name, param, kind, body) => {
    expect(refusedParam(kind, body)).toBe(param);
    // Without our rules, the body we would have built is refused by a strict platform T: the rule is real.
    const entry = catalogue.find(kind, body.model as string)!;
    const unchecked = { ...body, kind } as GenerationRequest;
    if (kind === 'image' && typeof body.size === 'string') (unchecked as Record<string, unknown>).ratio = body.size;
    if (param === 'n' || param === 'quality') {
      // Nothing T could refuse: OutputImageCount is not sent where it has no effect, and a quality the model has
      // no resolution for cannot even be built.
      if (param === 'quality') expect(() => toTCreateCall(entry, unchecked, OPTS)).toThrow(/has no platform T resolution/);
      return;
    }
    expect(simVerdict(kind, toTCreateCall(entry, unchecked, OPTS).body)).toMatch(/^(InvalidParameterValue|UnknownParameter|InvalidParameter|MissingParameter)/);
  });

  test('image FileInfos items take no Category or Usage (the schema refuses them)', () => {
    const r = imageRequestSchema.safeParse({ model: 'GEM-3.0', prompt: 'x', file_infos: [{ Type: 'Url', Url: IMG, Category: 'Image' }] });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['file_infos', 0]);
    // And platform T refuses such an item as an unknown parameter.
    expect(simVerdict('image', { SubAppId: SUB, ModelName: 'GG', ModelVersion: '3.0', Prompt: 'x', FileInfos: [{ Type: 'Url', Url: IMG, Category: 'Image' }] })).toMatch(/^UnknownParameter/);
  });

  test.each([
    ['Kling makes sound', { model: 'VendorK-2.1', prompt: 'x', generate_audio: true, duration: 5 }],
    ['Vidu makes sound', { model: 'VendorQ-q2-pro', prompt: 'x', generate_audio: true, duration: 5 }],
    ['Kling 2.1 takes a last frame at 1080P', { model: 'VendorK-2.1', prompt: 'x', image_url: IMG, last_frame_url: IMG2, resolution: '1080p' }],
    ['Hailuo renders 1080P at 6 s', { model: 'VendorH-2.3', prompt: 'x', resolution: '1080P', duration: 6 }],
    ['Vidu q2 takes 3:4', { model: 'VendorQ-q2', prompt: 'x', ratio: '3:4' }],
  ])('accepted: %s', (_name, body) => {
    expect(refusedParam('video', body)).toBeUndefined();
  });
});

describe('fromTTaskDetail', () => {
  const video = (task: Record<string, unknown>, Status: string): TTaskDetail => ({ Status, AigcVideoTask: { TaskId: 't', ...task } });

  test.each([
    ['WAITING', {}, { state: 'pending' }],
    ['PROCESSING', { Progress: 40 }, { state: 'running', progress: 40 }],
    ['PROCESSING', {}, { state: 'running' }],
  ] as const)('%s %j', (status, task, expected) => {
    expect(fromTTaskDetail('video', video(task, status))).toEqual(expected);
  });

  test('FINISH with ErrCode 0 and an empty ErrCodeExt is a success with every output file', () => {
    const detail: TTaskDetail = {
      Status: 'FINISH',
      AigcImageTask: { ErrCode: 0, ErrCodeExt: '', Progress: 100, Output: { FileInfos: [{ FileUrl: 'https://cdn.test/a.png', ExpireTime: '2026-01-08T00:00:00Z' }, { FileUrl: 'https://cdn.test/b.png' }] } },
    };
    expect(fromTTaskDetail('image', detail)).toEqual({ state: 'success', progress: 100, outputs: [{ url: 'https://cdn.test/a.png' }, { url: 'https://cdn.test/b.png' }] });
  });

  test.each([
    [{ ErrCode: 40000, ErrCodeExt: 'InvalidParameter.VoilationContent', Message: 'bad words' }, { reason: 'content_policy', message: 'bad words', code: 'InvalidParameter.VoilationContent' }],
    [{ ErrCode: 40000, ErrCodeExt: 'ContentModerationFailed', Message: 'sensitive' }, { reason: 'content_policy', message: 'sensitive', code: 'ContentModerationFailed' }],
    [{ ErrCode: 40000, ErrCodeExt: 'InvalidParameterValue', Message: 'bad value' }, { reason: 'invalid_request', message: 'bad value', code: 'InvalidParameterValue' }],
    [{ ErrCode: 70000, ErrCodeExt: 'InternalError', Message: 'model failed' }, { reason: 'upstream_failed', message: 'model failed', code: 'InternalError' }],
    [{ ErrCode: 70000, Message: '' }, { reason: 'upstream_failed', message: 'Generation failed (70000)', code: '70000' }],
    // The account's concurrency and a model backlog: transient, the job is submitted again.
    [{ ErrCode: 70000, ErrCodeExt: 'RequestLimitExceeded', Message: 'over the limit' }, { reason: 'upstream_unavailable', message: 'over the limit', code: 'RequestLimitExceeded', resubmit: true }],
    [{ ErrCode: 70000, ErrCodeExt: 'FailedOperation', Message: 'backlog' }, { reason: 'upstream_unavailable', message: 'backlog', code: 'FailedOperation', resubmit: true }],
    [{ ErrCode: 70000, ErrCodeExt: 'FailedOperation.InsufficientBalance', Message: 'pay up' }, { reason: 'insufficient_balance', message: 'pay up', code: 'FailedOperation.InsufficientBalance' }],
  ])('FINISH with a failure code is a failure: %j', (task, failure) => {
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
    ['AuthFailure.SignatureFailure', false, 'upstream_auth'],
    ['UnauthorizedOperation', false, 'upstream_auth'],
    ['InvalidParameter', false, 'invalid_request'],
    ['InvalidParameterValue.SessionId', false, 'invalid_request'],
    ['UnknownParameter', false, 'invalid_request'],
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
    expect(r(404, undefined)).toMatchObject({ retryable: false, opts: { reason: 'upstream_failed' } });
    expect(r(200, { unexpected: true })).toMatchObject({ retryable: true });
  });
});

// ------------------------------------------------------------------------------------------ on the wire

type Sent = { method: string; url: string; headers: Record<string, string>; action: string; body: any };

/** A fake HttpClient answering each action from `replies` (a list per action, or a function of the body). */
function fakeT(replies: Record<string, unknown[] | ((body: any) => unknown)>) {
  const sent: Sent[] = [];
  const http: HttpClient = {
    async send(method, url, opts = {}) {
      const action = opts.headers?.['x-tc-action'] ?? '';
      const body = JSON.parse(opts.body ?? '{}');
      sent.push({ method, url, headers: opts.headers ?? {}, action, body });
      const r = replies[action];
      const reply = typeof r === 'function' ? r(body) : r?.shift();
      if (reply === undefined) throw new Error(`unexpected ${action}`);
      return { status: 200, headers: {}, body: { Response: { ...(reply as object), RequestId: 'r' } }, text: '' } satisfies HttpResponse;
    },
  };
  return { http, sent };
}

const SETTINGS: PlatformTSettings = { endpoint: 'http://127.0.0.1:8090', secretId: 'AKIDtest', secretKey: 'key', subAppId: 7, region: 'ap-guangzhou' };
const NOW = 1767225600_000;

describe('createPlatformT on the wire', () => {
  test('submit posts a signed CreateAigcVideoTask to the endpoint root with SessionId and SessionContext', async () => {
    const { http, sent } = fakeT({ CreateAigcVideoTask: [{ TaskId: '7-AigcVideoTask-1' }] });
    const adapter = createPlatformT(SETTINGS, { http, now: () => NOW });
    const { entry, request } = normalised('video', { model: 'GV-3.1', prompt: 'a fox' });
    await expect(adapter.submit(entry, request, { taskId: 'task_1', dedupKey: 'task_1-run', deadlineAt: NOW + 3_600_000 })).resolves.toEqual({ upstreamTaskId: '7-AigcVideoTask-1' });

    const [req] = sent;
    expect(req!.url).toBe('http://127.0.0.1:8090/');
    expect(req!.headers).toMatchObject({ 'content-type': T_CONTENT_TYPE, 'x-tc-action': 'CreateAigcVideoTask', 'x-tc-version': '2018-07-17', 'x-tc-timestamp': '1767225600', 'x-tc-region': 'ap-guangzhou' });
    expect(req!.body).toEqual({ SubAppId: 7, ModelName: 'GV', ModelVersion: '3.1', Prompt: 'a fox', SessionId: 'task_1-run', SessionContext: 'task_1' });
    const expected = tc3Sign({ secretId: 'AKIDtest', secretKey: 'key', service: 'vod', timestamp: 1767225600, headers: { 'content-type': T_CONTENT_TYPE, host: '127.0.0.1:8090' }, payload: JSON.stringify(req!.body) });
    expect(req!.headers.authorization).toBe(expected.authorization);
  });

  test('poll sends DescribeTaskDetail with the SubAppId and maps the reply', async () => {
    const { http, sent } = fakeT({ DescribeTaskDetail: [{ Status: 'PROCESSING', AigcVideoTask: { Progress: 30 } }] });
    await expect(createPlatformT(SETTINGS, { http }).poll('video', '7-AigcVideoTask-1')).resolves.toEqual({ state: 'running', progress: 30 });
    expect(sent[0]!.body).toEqual({ TaskId: '7-AigcVideoTask-1', SubAppId: 7 });
  });

  test('an auth failure is final; a rate limit is retryable', async () => {
    const { http } = fakeT({ DescribeTaskDetail: [{ Error: { Code: 'AuthFailure.SignatureFailure', Message: 'bad' } }, { Error: { Code: 'RequestLimitExceeded', Message: 'slow' } }] });
    const adapter = createPlatformT(SETTINGS, { http });
    await expect(adapter.poll('video', 't')).rejects.toMatchObject({ retryable: false, opts: { reason: 'upstream_auth' } });
    await expect(adapter.poll('video', 't')).rejects.toMatchObject({ retryable: true, opts: { code: 'RequestLimitExceeded' } });
  });

  test('a TaskId T no longer knows is a lost job (upstream_lost), whichever of the likely codes says so', async () => {
    const { http } = fakeT({
      DescribeTaskDetail: [
        { Error: { Code: 'InvalidParameterValue', Message: 'The value of parameter `TaskId` is not valid.' } },
        { Error: { Code: 'ResourceNotFound.TaskNotExist', Message: 'task not exist' } },
      ],
    });
    const adapter = createPlatformT(SETTINGS, { http });
    for (const code of ['InvalidParameterValue', 'ResourceNotFound.TaskNotExist']) {
      await expect(adapter.poll('video', '7-AigcVideoTask-9')).rejects.toMatchObject({ retryable: false, opts: { reason: 'upstream_lost', code }, message: expect.stringContaining('7-AigcVideoTask-9') });
    }
  });

  test('no cancel: platform T cannot cancel an AIGC task', () => {
    expect(createPlatformT(SETTINGS, { http: fakeT({}).http }).cancel).toBeUndefined();
  });
});

describe('findSubmitted: the first job of a SessionId, through DescribeTasks', () => {
  const since = NOW - 60_000;
  const ctx = { taskId: 'task_1', dedupKey: 'task_1-runA', deadlineAt: NOW + 3_600_000, since };
  const entryOf = (kind: 'video' | 'image', model: string) => normalised(kind, { model, prompt: 'x' });
  const info = (TaskId: string, SessionId: string | undefined, TaskType = 'AigcVideoTask') => ({ TaskId, TaskType, Status: 'PROCESSING', CreateTime: '2026-01-01T00:00:00Z', ...(SessionId !== undefined ? { SessionId } : {}) });

  test('lists the submit window oldest first and adopts the task with this SessionId', async () => {
    const { http, sent } = fakeT({
      DescribeTasks: [
        { TaskSet: [info('7-AigcVideoTask-other', 'task_9-runZ'), info('7-Transcode-x', '', 'Transcode')], ScrollToken: '7-AigcVideoTask-mine' },
        { TaskSet: [info('7-AigcVideoTask-mine', 'task_1-runA')], ScrollToken: '' },
      ],
    });
    const { entry, request } = entryOf('video', 'GV-3.1');
    await expect(createPlatformT(SETTINGS, { http, now: () => NOW }).findSubmitted!(entry, request, ctx)).resolves.toEqual({ upstreamTaskId: '7-AigcVideoTask-mine' });
    expect(sent.map((s) => s.action)).toEqual(['DescribeTasks', 'DescribeTasks']);
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
    expect(sent[0]!.body).toEqual({
      SubAppId: 7,
      CreateTime: { After: iso(since - LOOKUP_CLOCK_SKEW_MS), Before: iso(NOW + LOOKUP_CLOCK_SKEW_MS) },
      Sort: { Field: 'CreateTime', Order: 'Asc' },
      Limit: 100,
    });
    expect(sent[1]!.body).toEqual({ ...sent[0]!.body, ScrollToken: '7-AigcVideoTask-mine' });
  });

  test('another SessionId (another task, or another run of this one) is never adopted', async () => {
    const { http } = fakeT({ DescribeTasks: [{ TaskSet: [info('7-AigcVideoTask-1', 'task_1-runB'), info('7-AigcVideoTask-2', 'task_2-runA')], ScrollToken: '' }] });
    const { entry, request } = entryOf('video', 'GV-3.1');
    await expect(createPlatformT(SETTINGS, { http, now: () => NOW }).findSubmitted!(entry, request, ctx)).resolves.toBeUndefined();
  });

  test('a video task is not adopted for an image submit with the same SessionId', async () => {
    const { http } = fakeT({ DescribeTasks: [{ TaskSet: [info('7-AigcVideoTask-1', 'task_1-runA')], ScrollToken: '' }] });
    const { entry, request } = entryOf('image', 'GEM-3.0');
    await expect(createPlatformT(SETTINGS, { http, now: () => NOW }).findSubmitted!(entry, request, ctx)).resolves.toBeUndefined();
  });

  test('a listing without SessionId is confirmed through DescribeTaskDetail', async () => {
    const { http, sent } = fakeT({
      DescribeTasks: [{ TaskSet: [info('7-AigcVideoTask-1', undefined), info('7-AigcVideoTask-2', undefined)], ScrollToken: '' }],
      DescribeTaskDetail: (b) => ({ Status: 'PROCESSING', TaskType: 'AigcVideoTask', AigcVideoTask: { TaskId: b.TaskId, SessionId: b.TaskId === '7-AigcVideoTask-2' ? 'task_1-runA' : 'task_5-runQ' } }),
    });
    const { entry, request } = entryOf('video', 'GV-3.1');
    await expect(createPlatformT(SETTINGS, { http, now: () => NOW }).findSubmitted!(entry, request, ctx)).resolves.toEqual({ upstreamTaskId: '7-AigcVideoTask-2' });
    expect(sent.map((s) => `${s.action} ${s.body.TaskId ?? ''}`.trim())).toEqual(['DescribeTasks', 'DescribeTaskDetail 7-AigcVideoTask-1', 'DescribeTaskDetail 7-AigcVideoTask-2']);
  });

  test('a list the platform cannot answer is an error (retried), not "no job"', async () => {
    const { http } = fakeT({ DescribeTasks: [{ Error: { Code: 'InternalError', Message: 'down' } }] });
    const { entry, request } = entryOf('video', 'GV-3.1');
    await expect(createPlatformT(SETTINGS, { http, now: () => NOW }).findSubmitted!(entry, request, ctx)).rejects.toMatchObject({ retryable: true });
  });

  test('the DescribeTasks body is the SDK\'s DescribeTasksRequest (the simulator\'s shape check accepts it)', () => {
    const call = toTListCall(SUB, { after: '2026-01-01T00:00:00Z', before: '2026-01-01T01:00:00Z' }, 'tok');
    expect(() => checkShape(call.body, DESCRIBE_TASKS)).not.toThrow();
    expect(call).toEqual({
      action: 'DescribeTasks',
      body: { SubAppId: SUB, CreateTime: { After: '2026-01-01T00:00:00Z', Before: '2026-01-01T01:00:00Z' }, Sort: { Field: 'CreateTime', Order: 'Asc' }, Limit: 100, ScrollToken: 'tok' },
    });
  });
});

describe('the submit activity with the T adapter: a retry refused for its repeated SessionId continues with the first job', () => {
  const submitActivity = (http: HttpClient) => {
    const adapter = createPlatformT(SETTINGS, { http, now: () => NOW });
    return createSubmitActivity({ catalogue, adapterFor: () => adapter, now: () => NOW });
  };
  const first = { TaskId: '7-AigcVideoTask-first', TaskType: 'AigcVideoTask', Status: 'PROCESSING', SessionId: 'task_1-runA' };

  // The code of a repeated SessionId is undocumented: recovery must not depend on it.
  test.each(['InvalidParameterValue.SessionId', 'FailedOperation', 'InvalidParameter'])('refused with %s → the lookup recovers the TaskId; no second job, no failed task', async (code) => {
    let lists = 0;
    const { http, sent } = fakeT({
      // The lookup before re-sending misses (a listing lagging behind the create), the one after the refusal finds it.
      DescribeTasks: () => (++lists === 1 ? { TaskSet: [], ScrollToken: '' } : { TaskSet: [first], ScrollToken: '' }),
      CreateAigcVideoTask: [{ Error: { Code: code, Message: 'A request with the same SessionId was made within the last three days.' } }],
    });
    const submitGeneration = submitActivity(http);
    const { request } = normalised('video', { model: 'GV-3.1', prompt: 'x' });
    const env = new MockActivityEnvironment({ attempt: 2, scheduledTimestampMs: NOW - 60_000 });
    await expect(env.run(submitGeneration, { platform: 'T', request, dedupKey: 'task_1-runA', taskId: 'task_1', deadlineAt: NOW + 60_000 })).resolves.toEqual({
      upstreamTaskId: '7-AigcVideoTask-first',
    });
    expect(sent.map((r) => r.action)).toEqual(['DescribeTasks', 'CreateAigcVideoTask', 'DescribeTasks']);
  });

  test('the first attempt never looks up (nothing can have reached T before it), and a refusal stays a refusal', async () => {
    const { http, sent } = fakeT({ CreateAigcVideoTask: [{ Error: { Code: 'InvalidParameterValue', Message: 'bad' } }] });
    const { request } = normalised('video', { model: 'GV-3.1', prompt: 'x' });
    const env = new MockActivityEnvironment({ attempt: 1, scheduledTimestampMs: NOW });
    await expect(env.run(submitActivity(http), { platform: 'T', request, dedupKey: 'k', taskId: 't', deadlineAt: NOW + 60_000 })).rejects.toMatchObject({
      retryable: false,
      opts: { reason: 'invalid_request' },
    });
    expect(sent.map((r) => r.action)).toEqual(['CreateAigcVideoTask']);
  });
});

describe('configuration', () => {
  const sim = { simulate: true, simBaseUrl: 'http://127.0.0.1:8090' };
  test('SubAppId is required when T is configured: a start-up error naming PLATFORM_T_SUBAPP_ID', () => {
    expect(() => tWorker({ PLATFORM_T_SECRET_ID: 'AKID', PLATFORM_T_SECRET_KEY: 'k' }, sim)).toThrow(ConfigError);
    expect(() => tWorker({ PLATFORM_T_SECRET_ID: 'AKID', PLATFORM_T_SECRET_KEY: 'k' }, sim)).toThrow(/PLATFORM_T_SUBAPP_ID/);
    expect(tWorker({ PLATFORM_T_SECRET_ID: 'AKID', PLATFORM_T_SECRET_KEY: 'k', PLATFORM_T_SUBAPP_ID: '1500000001' }, sim)).toMatchObject({ simulated: false, endpoint: 'https://vod.tencentcloudapi.com' });
  });

  test('PLATFORM_T_STORAGE_MODE is Temporary or Permanent, and Permanent reaches every create', async () => {
    expect(() => tWorker({ PLATFORM_T_STORAGE_MODE: 'Forever' }, sim)).toThrow(/PLATFORM_T_STORAGE_MODE/);
    const { http, sent } = fakeT({ CreateAigcImageTask: [{ TaskId: 't' }] });
    const adapter = tWorker({ PLATFORM_T_STORAGE_MODE: 'Permanent' }, sim).createAdapter({ http });
    const { entry, request } = normalised('image', { model: 'GEM-2.5', prompt: 'x' });
    await adapter.submit(entry, request, { taskId: 'task_1', dedupKey: 'k', deadlineAt: NOW });
    expect(sent[0]!.body.OutputConfig).toEqual({ StorageMode: 'Permanent' });
    expect(sent[0]!.body.SubAppId).toBe(SIM_ACCOUNTS.T.subAppId);
  });

  test('the simulated account is the simulator\'s test account', () => {
    const { http, sent } = fakeT({ DescribeTaskDetail: [{ Status: 'WAITING' }] });
    const adapter = tWorker({}, sim).createAdapter({ http });
    return adapter.poll('video', 't').then(() => {
      expect(sent[0]!.body.SubAppId).toBe(SIM_ACCOUNTS.T.subAppId);
      expect(sent[0]!.headers.authorization).toContain(`Credential=${SIM_ACCOUNTS.T.secretId}/`);
    });
  });
});
