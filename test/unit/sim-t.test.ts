/**
 * The platform T simulator (sim/t), over real HTTP: TC3 signing and T's auth errors, strict per-model validation,
 * SessionId dedup, the task views, injected faults, and event notification (PUSH signed with MD5(SignKey + T),
 * PULL with PullEvents/ConfirmEvents) with the callback faults.
 */
import { SIM_ACCOUNTS } from '../../sim/accounts';
import { startSimulator, type Simulator } from '../../sim/server';
import { md5Hex, signTRequest, tc3Authorization, tc3Signature } from '../../sim/t';
import { startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait-for';

// The official SDK's signer: an independent oracle for the simulator's own TC3 implementation.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SdkSign = require('tencentcloud-sdk-nodejs-common/tencentcloud/common/sign').default as {
  sign3(opts: Record<string, unknown>): string;
};

const ACC = SIM_ACCOUNTS.T;
const SUB = ACC.subAppId;

let sim: Simulator;
let host: string;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, jobDurationMs: 400 });
  host = new URL(sim.url).host;
});
afterAll(async () => {
  await sim.close();
});
beforeEach(async () => {
  sim.reset();
  await fetch(`${sim.url}/_sim/t/reset`, { method: 'POST' });
});

interface CallOptions {
  secretId?: string;
  secretKey?: string;
  timestamp?: number;
  service?: string;
  version?: string;
  /** Changes the headers after signing. */
  tamper?: (h: Record<string, string>) => void;
  /** Sends other bytes than the ones signed. */
  sentBody?: string;
}

type TResponse = Record<string, any> & { Error?: { Code: string; Message: string }; RequestId: string };

async function tRaw(action: string, body: unknown, o: CallOptions = {}): Promise<{ status: number; json: { Response: TResponse } }> {
  const text = JSON.stringify(body);
  const headers = signTRequest({
    secretId: o.secretId ?? ACC.secretId,
    secretKey: o.secretKey ?? ACC.secretKey,
    host,
    action,
    body: text,
    timestamp: o.timestamp,
    service: o.service,
    version: o.version,
  });
  delete headers.Host;
  o.tamper?.(headers);
  const res = await fetch(`${sim.url}/`, { method: 'POST', headers, body: o.sentBody ?? text });
  return { status: res.status, json: (await res.json()) as { Response: TResponse } };
}

async function t(action: string, body: unknown, o: CallOptions = {}): Promise<TResponse> {
  const { status, json } = await tRaw(action, body, o);
  expect(status).toBe(200);
  expect(typeof json.Response.RequestId).toBe('string');
  return json.Response;
}

const errCode = async (action: string, body: unknown, o: CallOptions = {}) => (await t(action, body, o)).Error?.Code;


const video = (over: Record<string, unknown> = {}) => ({ SubAppId: SUB, ModelName: 'GV', ModelVersion: '3.1', Prompt: 'a cat', ...over });
const image = (over: Record<string, unknown> = {}) => ({ SubAppId: SUB, ModelName: 'GG', ModelVersion: '2.5', Prompt: 'a cat', ...over });
const detail = (TaskId: string) => t('DescribeTaskDetail', { SubAppId: SUB, TaskId });
const stats = async () => ((await (await fetch(`${sim.url}/_sim/stats`)).json()) as Record<string, Record<string, number>>).T!;

async function finished(taskId: string): Promise<TResponse> {
  return waitFor(async () => {
    const d = await detail(taskId);
    return d.Status === 'FINISH' ? d : undefined;
  });
}

// ------------------------------------------------------------------ a receiver for PUSH events
const receiver = () => startReceiver('/vod-events');

// ================================================================== TC3
describe('TC3-HMAC-SHA256 (sim/t/tc3.ts)', () => {
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

// ================================================================== validation
describe('create validation', () => {
  const cases: [string, 'CreateAigcVideoTask' | 'CreateAigcImageTask', Record<string, unknown>, string | undefined][] = [
    // envelope of the body
    ['unknown top-level parameter', 'CreateAigcVideoTask', video({ Foo: 1 }), 'UnknownParameter'],
    ['SubAppId missing', 'CreateAigcVideoTask', { ModelName: 'GV', ModelVersion: '3.1', Prompt: 'x' }, 'MissingParameter'],
    ['SubAppId of another account', 'CreateAigcVideoTask', video({ SubAppId: 42 }), 'InvalidParameterValue.SubAppId'],
    ['Duration as a string', 'CreateAigcVideoTask', video({ OutputConfig: { Duration: '8' } }), 'InvalidParameter'],
    ['unknown model', 'CreateAigcVideoTask', video({ ModelName: 'Sora' }), 'InvalidParameterValue'],
    ['unknown version', 'CreateAigcVideoTask', video({ ModelVersion: '3.0' }), 'InvalidParameterValue'],
    ['no prompt and no file', 'CreateAigcVideoTask', video({ Prompt: undefined }), 'MissingParameter'],
    ['InputRegion', 'CreateAigcVideoTask', video({ InputRegion: 'Mars' }), 'InvalidParameterValue'],
    ['InputRegion Oversea', 'CreateAigcVideoTask', video({ InputRegion: 'Oversea' }), undefined],
    ['StorageMode', 'CreateAigcVideoTask', video({ OutputConfig: { StorageMode: 'Forever' } }), 'InvalidParameterValue'],
    ['SessionId of 51 characters', 'CreateAigcVideoTask', video({ SessionId: 'x'.repeat(51) }), 'InvalidParameterValue.SessionIdTooLong'],
    ['SessionContext of 1001 characters', 'CreateAigcVideoTask', video({ SessionContext: 'x'.repeat(1001) }), 'InvalidParameterValue.SessionContextTooLong'],
    ['SessionContext of 1000 characters', 'CreateAigcVideoTask', video({ SessionContext: 'x'.repeat(1000) }), undefined],
    // GV
    ['GV 16:9', 'CreateAigcVideoTask', video({ OutputConfig: { AspectRatio: '16:9', Duration: 8, Resolution: '1080P', AudioGeneration: 'Enabled' } }), undefined],
    ['GV 1:1', 'CreateAigcVideoTask', video({ OutputConfig: { AspectRatio: '1:1' } }), 'InvalidParameterValue'],
    ['GV 5 s', 'CreateAigcVideoTask', video({ OutputConfig: { Duration: 5 } }), 'InvalidParameterValue'],
    ['GV 1080p (lower case)', 'CreateAigcVideoTask', video({ OutputConfig: { Resolution: '1080p' } }), 'InvalidParameterValue'],
    ['GV 3.1-fast last frame with first', 'CreateAigcVideoTask', video({ ModelVersion: '3.1-fast', FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png' }], LastFrameUrl: 'https://x.test/b.png' }), undefined],
    ['last frame without first', 'CreateAigcVideoTask', video({ LastFrameUrl: 'https://x.test/b.png' }), 'InvalidParameterValue'],
    // Kling
    ['Kling 2.1 4:3', 'CreateAigcVideoTask', video({ ModelName: 'Kling', ModelVersion: '2.1', OutputConfig: { AspectRatio: '4:3' } }), 'InvalidParameterValue'],
    ['Kling 2.5 1:1, 10 s, audio', 'CreateAigcVideoTask', video({ ModelName: 'Kling', ModelVersion: '2.5', OutputConfig: { AspectRatio: '1:1', Duration: 10, AudioGeneration: 'Enabled' } }), undefined],
    ['Kling 2.1 7 s', 'CreateAigcVideoTask', video({ ModelName: 'Kling', ModelVersion: '2.1', OutputConfig: { Duration: 7 } }), 'InvalidParameterValue'],
    ['Kling 3.0 7 s', 'CreateAigcVideoTask', video({ ModelName: 'Kling', ModelVersion: '3.0', OutputConfig: { Duration: 7 } }), undefined],
    [
      'Kling 2.1 last frame at 720P',
      'CreateAigcVideoTask',
      video({ ModelName: 'Kling', ModelVersion: '2.1', FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png' }], LastFrameUrl: 'https://x.test/b.png' }),
      'InvalidParameterValue',
    ],
    [
      'Kling 2.1 last frame at 1080P',
      'CreateAigcVideoTask',
      video({ ModelName: 'Kling', ModelVersion: '2.1', FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png' }], LastFrameUrl: 'https://x.test/b.png', OutputConfig: { Resolution: '1080P' } }),
      undefined,
    ],
    [
      'Kling 2.5 last frame',
      'CreateAigcVideoTask',
      video({ ModelName: 'Kling', ModelVersion: '2.5', FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png' }, { Type: 'Url', Url: 'https://x.test/b.png', Usage: 'LastFrame' }], OutputConfig: { Resolution: '1080P' } }),
      'InvalidParameterValue',
    ],
    // Vidu
    ['Vidu q2 4:3 with audio', 'CreateAigcVideoTask', video({ ModelName: 'Vidu', ModelVersion: 'q2', OutputConfig: { AspectRatio: '4:3', Duration: 4, AudioGeneration: 'Enabled' } }), undefined],
    ['Vidu q2-pro 4:3', 'CreateAigcVideoTask', video({ ModelName: 'Vidu', ModelVersion: 'q2-pro', OutputConfig: { AspectRatio: '4:3' } }), 'InvalidParameterValue'],
    ['Vidu 11 s', 'CreateAigcVideoTask', video({ ModelName: 'Vidu', ModelVersion: 'q2', OutputConfig: { Duration: 11 } }), 'InvalidParameterValue'],
    [
      'Vidu q2 last frame',
      'CreateAigcVideoTask',
      video({ ModelName: 'Vidu', ModelVersion: 'q2', FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png' }], LastFrameUrl: 'https://x.test/b.png' }),
      'InvalidParameterValue',
    ],
    [
      'Vidu q2-pro last frame',
      'CreateAigcVideoTask',
      video({ ModelName: 'Vidu', ModelVersion: 'q2-pro', FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png' }], LastFrameUrl: 'https://x.test/b.png' }),
      undefined,
    ],
    // Hailuo
    ['Hailuo any AspectRatio', 'CreateAigcVideoTask', video({ ModelName: 'Hailuo', ModelVersion: '2.3', OutputConfig: { AspectRatio: '16:9' } }), 'InvalidParameterValue'],
    ['Hailuo 720P', 'CreateAigcVideoTask', video({ ModelName: 'Hailuo', ModelVersion: '2.3', OutputConfig: { Resolution: '720P' } }), 'InvalidParameterValue'],
    ['Hailuo 768P 10 s', 'CreateAigcVideoTask', video({ ModelName: 'Hailuo', ModelVersion: '2.3', OutputConfig: { Resolution: '768P', Duration: 10 } }), undefined],
    ['Hailuo 1080P 10 s', 'CreateAigcVideoTask', video({ ModelName: 'Hailuo', ModelVersion: '2.3', OutputConfig: { Resolution: '1080P', Duration: 10 } }), 'InvalidParameterValue'],
    ['Hailuo audio', 'CreateAigcVideoTask', video({ ModelName: 'Hailuo', ModelVersion: '2.3', OutputConfig: { AudioGeneration: 'Enabled' } }), 'InvalidParameterValue'],
    // video files
    ['video FileInfos Category Image + Usage Reference + mixed with first frame', 'CreateAigcVideoTask', video({ FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png' }, { Type: 'Url', Url: 'https://x.test/b.png', Usage: 'Reference' }] }), 'InvalidParameterValue'],
    ['video FileInfos unknown field', 'CreateAigcVideoTask', video({ FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png', Role: 'first' }] }), 'UnknownParameter'],
    ['video FileInfos without Url', 'CreateAigcVideoTask', video({ FileInfos: [{ Type: 'Url' }] }), 'MissingParameter'],
    // images
    ['image FileInfos with Category', 'CreateAigcImageTask', image({ FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png', Category: 'Image' }] }), 'UnknownParameter'],
    ['image FileInfos with Usage', 'CreateAigcImageTask', image({ FileInfos: [{ Type: 'Url', Url: 'https://x.test/a.png', Usage: 'Reference' }] }), 'UnknownParameter'],
    ['GG 2.5 four reference images', 'CreateAigcImageTask', image({ FileInfos: [1, 2, 3, 4].map((i) => ({ Type: 'Url', Url: `https://x.test/${i}.png` })) }), 'InvalidParameterValue'],
    ['GG 2.5 4K 21:9', 'CreateAigcImageTask', image({ OutputConfig: { Resolution: '4K', AspectRatio: '21:9' } }), undefined],
    ['GG 2.5 4k (lower case)', 'CreateAigcImageTask', image({ OutputConfig: { Resolution: '4k' } }), 'InvalidParameterValue'],
    ['GG 3.0 1:8', 'CreateAigcImageTask', image({ ModelVersion: '3.0', OutputConfig: { AspectRatio: '1:8' } }), 'InvalidParameterValue'],
    ['Kling 2.1 image 2k', 'CreateAigcImageTask', image({ ModelName: 'Kling', ModelVersion: '2.1', OutputConfig: { Resolution: '2k', OutputImageCount: 9 } }), undefined],
    ['Kling 2.1 image 2K', 'CreateAigcImageTask', image({ ModelName: 'Kling', ModelVersion: '2.1', OutputConfig: { Resolution: '2K' } }), 'InvalidParameterValue'],
    ['Kling 2.1 image 4k', 'CreateAigcImageTask', image({ ModelName: 'Kling', ModelVersion: '2.1', OutputConfig: { Resolution: '4k' } }), 'InvalidParameterValue'],
    ['Kling 2.1 image 10 outputs', 'CreateAigcImageTask', image({ ModelName: 'Kling', ModelVersion: '2.1', OutputConfig: { OutputImageCount: 10 } }), 'InvalidParameterValue'],
    ['Hunyuan 3.0 Resolution', 'CreateAigcImageTask', image({ ModelName: 'Hunyuan', ModelVersion: '3.0', OutputConfig: { Resolution: '1K' } }), 'InvalidParameterValue'],
    ['Hunyuan 3.0 AspectRatio', 'CreateAigcImageTask', image({ ModelName: 'Hunyuan', ModelVersion: '3.0', OutputConfig: { AspectRatio: '1:1' } }), 'InvalidParameterValue'],
    ['Hunyuan 3.0 plain', 'CreateAigcImageTask', image({ ModelName: 'Hunyuan', ModelVersion: '3.0' }), undefined],
    ['image model as video', 'CreateAigcVideoTask', video({ ModelName: 'GG', ModelVersion: '2.5' }), 'InvalidParameterValue'],
    ['video-only output field on an image', 'CreateAigcImageTask', image({ OutputConfig: { Duration: 5 } }), 'UnknownParameter'],
  ];

  test.each(cases)('%s', async (_name, action, body, code) => {
    const r = await t(action, body);
    expect(r.Error?.Code).toBe(code);
    if (code === undefined) expect(r.TaskId).toMatch(new RegExp(`^${SUB}-Aigc(Video|Image)Task-`));
    else expect(r.TaskId).toBeUndefined();
  });

  test('refusals create no job and count as rejected', async () => {
    await t('CreateAigcVideoTask', video({ Foo: 1 }));
    const s = await stats();
    expect(s.jobsCreated).toBe(0);
    expect(s.rejected).toBe(1);
    expect(s.submitRequests).toBe(1);
  });
});

// ================================================================== tasks
describe('tasks', () => {
  test('DescribeTaskDetail: WAITING/PROCESSING, then FINISH with the result file, SessionId and SessionContext', async () => {
    const { TaskId } = await t('CreateAigcVideoTask', video({ SessionId: 'sess-detail', SessionContext: 'ctx-1', OutputConfig: { Duration: 8 } }));
    const early = await detail(TaskId);
    expect(['WAITING', 'PROCESSING']).toContain(early.Status);
    expect(early.TaskType).toBe('AigcVideoTask');
    expect(early.AigcVideoTask.Status).toBe('PROCESSING');
    const done = await finished(TaskId);
    const task = done.AigcVideoTask;
    expect(task).toMatchObject({ TaskId, Status: 'FINISH', ErrCode: 0, ErrCodeExt: '', Progress: 100, SessionId: 'sess-detail', SessionContext: 'ctx-1' });
    expect(task.Input).toEqual({ ModelName: 'GV', ModelVersion: '3.1', Prompt: 'a cat', OutputConfig: { Duration: 8 } });
    const [file] = task.Output.FileInfos;
    expect(file).toMatchObject({ StorageMode: 'Temporary', FileType: 'mp4' });
    expect(Date.parse(file.ExpireTime) - Date.now()).toBeGreaterThan(6 * 24 * 3600_000);
    expect(task.Output.Usage).toEqual({ OutputSeconds: 8, TotalSeconds: 8 });
    expect((await fetch(file.FileUrl)).headers.get('content-type')).toBe('video/mp4');
    expect(done.FinishTime).not.toBe('');
  });

  test('image task with OutputImageCount returns that many files', async () => {
    const { TaskId } = await t('CreateAigcImageTask', image({ ModelName: 'Kling', ModelVersion: '2.1', OutputConfig: { OutputImageCount: 3 } }));
    const done = await finished(TaskId);
    expect(done.TaskType).toBe('AigcImageTask');
    expect(done.AigcImageTask.Output.FileInfos).toHaveLength(3);
  });

  test('unknown TaskId → InvalidParameterValue', async () => {
    expect((await detail('1500000001-AigcVideoTask-nope')).Error?.Code).toBe('InvalidParameterValue');
  });

  test.each<[string, string, number]>([
    ['[sim:fail=transient]', 'RequestLimitExceeded', 70000],
    ['[sim:fail=content_policy]', 'InvalidParameter.VoilationContent', 40000],
    ['[sim:fail=error]', 'InternalError', 70000],
    ['[sim:task-error=FailedOperation]', 'FailedOperation', 70000],
  ])('%s → FINISH with ErrCode ≠ 0 and ErrCodeExt %s', async (directive, ext, code) => {
    const { TaskId } = await t('CreateAigcVideoTask', video({ Prompt: `a cat ${directive}` }));
    const task = (await finished(TaskId)).AigcVideoTask;
    expect(task).toMatchObject({ Status: 'FINISH', ErrCode: code, ErrCodeExt: ext });
    expect(task.Message).not.toBe('');
    expect(task.Output.FileInfos).toEqual([]);
  });
});

// ================================================================== SessionId, list, faults
describe('SessionId dedup and the task list', () => {
  test('a repeated SessionId is an error and creates no second job; DescribeTasks shows the first with its SessionId', async () => {
    const first = await t('CreateAigcVideoTask', video({ SessionId: 'task_abc-run1', SessionContext: 'gw-task-1' }));
    expect(first.TaskId).toBeDefined();
    const again = await t('CreateAigcVideoTask', video({ SessionId: 'task_abc-run1', SessionContext: 'gw-task-1' }));
    expect(again.Error?.Code).toBe('InvalidParameterValue.SessionId');
    expect(again.TaskId).toBeUndefined();
    const s = await stats();
    expect(s.jobsCreated).toBe(1);
    expect(s.dedupRefusals).toBe(1);

    const list = await t('DescribeTasks', { SubAppId: SUB });
    expect(list.TaskSet).toHaveLength(1);
    expect(list.TaskSet[0]).toMatchObject({ TaskId: first.TaskId, TaskType: 'AigcVideoTask', SessionId: 'task_abc-run1', SessionContext: 'gw-task-1', FileId: '' });
    expect(Object.keys(list.TaskSet[0]).sort()).toEqual(['BeginProcessTime', 'CreateTime', 'FileId', 'FinishTime', 'SessionContext', 'SessionId', 'Status', 'TaskId', 'TaskType']);
  });

  test('an empty SessionId does not dedup', async () => {
    await t('CreateAigcVideoTask', video({ SessionId: '' }));
    expect((await t('CreateAigcVideoTask', video({ SessionId: '' }))).Error).toBeUndefined();
  });

  test('DescribeTasks: Status filter, CreateTime window, Limit and ScrollToken paging, sort', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await t('CreateAigcVideoTask', video({ Prompt: `cat ${i} [sim:duration=${i === 0 ? 60 : 60_000}]` }))).TaskId);
      await new Promise((r) => setTimeout(r, 5));
    }
    await finished(ids[0]!);
    const fin = await t('DescribeTasks', { SubAppId: SUB, Status: 'FINISH' });
    expect(fin.TaskSet.map((x: any) => x.TaskId)).toEqual([ids[0]]);
    expect((await t('DescribeTasks', { SubAppId: SUB, Status: 'ABORTED' })).Error?.Code).toBe('InvalidParameterValue');

    const page1 = await t('DescribeTasks', { SubAppId: SUB, Limit: 2 });
    expect(page1.TaskSet.map((x: any) => x.TaskId)).toEqual([ids[4], ids[3]]);
    expect(page1.ScrollToken).toBe(ids[2]);
    const page2 = await t('DescribeTasks', { SubAppId: SUB, Limit: 2, ScrollToken: page1.ScrollToken });
    expect(page2.TaskSet.map((x: any) => x.TaskId)).toEqual([ids[2], ids[1]]);
    const page3 = await t('DescribeTasks', { SubAppId: SUB, Limit: 2, ScrollToken: page2.ScrollToken });
    expect(page3.TaskSet.map((x: any) => x.TaskId)).toEqual([ids[0]]);
    expect(page3.ScrollToken).toBe('');

    const asc = await t('DescribeTasks', { SubAppId: SUB, Sort: { Field: 'CreateTime', Order: 'Asc' }, Limit: 1 });
    expect(asc.TaskSet[0].TaskId).toBe(ids[0]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await t('DescribeTasks', { SubAppId: SUB, CreateTime: { After: future } })).TaskSet).toEqual([]);
    expect((await t('DescribeTasks', { SubAppId: SUB, CreateTime: { Before: future } })).TaskSet).toHaveLength(5);
    expect((await t('DescribeTasks', { SubAppId: SUB, Limit: 101 })).Error?.Code).toBe('InvalidParameterValue');
  });

  test('drop fault: the job is created and billed, the answer is lost; the retry with the same SessionId is refused', async () => {
    const body = video({ Prompt: 'a dropped cat [sim:submit=drop]', SessionId: 'sess-drop' });
    await expect(tRaw('CreateAigcVideoTask', body)).rejects.toThrow();
    const s = await stats();
    expect(s.jobsCreated).toBe(1);
    expect(s.answersDropped).toBe(1);
    const list = await t('DescribeTasks', { SubAppId: SUB });
    expect(list.TaskSet).toHaveLength(1);
    expect(list.TaskSet[0].SessionId).toBe('sess-drop');
    expect((await t('CreateAigcVideoTask', body)).Error?.Code).toBe('InvalidParameterValue.SessionId');
  });

  test('429 and 500 faults answer HTTP 200 with RequestLimitExceeded / InternalError, and create nothing', async () => {
    expect(await errCode('CreateAigcVideoTask', video({ Prompt: 'cat [sim:submit=429x1]' }))).toBe('RequestLimitExceeded');
    expect(await errCode('CreateAigcVideoTask', video({ Prompt: 'cat [sim:submit=500x1]' }))).toBe('InternalError');
    expect((await stats()).jobsCreated).toBe(0);
    const { TaskId } = await t('CreateAigcVideoTask', video({ Prompt: 'cat [sim:poll=503x1]' }));
    expect((await detail(TaskId)).Error?.Code).toBe('InternalError');
    expect((await detail(TaskId)).Error).toBeUndefined();
  });

  test('[sim:reject=CODE] refuses the create with that code', async () => {
    expect(await errCode('CreateAigcVideoTask', video({ Prompt: 'cat [sim:reject=UnauthorizedOperation]' }))).toBe('UnauthorizedOperation');
    expect((await stats()).jobsCreated).toBe(0);
  });
});

// ================================================================== events
describe('event notification', () => {
  test('ModifyEventConfig / DescribeEventConfig (no SignKey in the description); bad values refused', async () => {
    expect((await t('ModifyEventConfig', { SubAppId: SUB, Mode: 'PULL', SignKey: 'abc123' })).Error).toBeUndefined();
    const d = await t('DescribeEventConfig', { SubAppId: SUB });
    expect(d).toMatchObject({ Mode: 'PULL', NotificationUrl: '', UploadMediaCompleteEventSwitch: 'OFF' });
    expect(d.SignKey).toBeUndefined();
    expect(await errCode('ModifyEventConfig', { SubAppId: SUB, Mode: 'QUEUE' })).toBe('InvalidParameterValue');
    expect(await errCode('ModifyEventConfig', { SubAppId: SUB, SignKey: 'has-dash' })).toBe('InvalidParameterValue');
    expect(await errCode('ModifyEventConfig', { SubAppId: SUB, AigcVideoTaskNotifyEnabled: 'ON' })).toBe('UnknownParameter');
  });

  test("the simulator's reset (POST /_sim/reset) forgets T's event configuration too", async () => {
    await t('ModifyEventConfig', { SubAppId: SUB, Mode: 'PULL' });
    expect((await t('DescribeEventConfig', { SubAppId: SUB })).Mode).toBe('PULL');
    await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
    expect((await t('DescribeEventConfig', { SubAppId: SUB })).Mode).not.toBe('PULL');
  });

  test('PUSH: the completion event, signed with T and Sign = MD5(SignKey + T), carries SessionId and SessionContext', async () => {
    const rx = await receiver();
    try {
      await t('ModifyEventConfig', { SubAppId: SUB, Mode: 'PUSH', NotificationUrl: rx.url, SignKey: 'SignKey123' });
      const { TaskId } = await t('CreateAigcVideoTask', video({ SessionId: 'sess-push', SessionContext: 'gateway-task-7' }));
      const ev = await waitFor(async () => rx.got[0]);
      expect(ev.body.EventType).toBe('AigcVideoTaskComplete');
      expect(ev.body.AigcVideoCompleteEvent).toMatchObject({ TaskId, Status: 'FINISH', ErrCode: 0, SessionId: 'sess-push', SessionContext: 'gateway-task-7' });
      expect(ev.body.AigcVideoCompleteEvent.Output.FileInfos).toHaveLength(1);
      const nowS = Date.now() / 1000;
      expect(ev.body.T).toBeGreaterThan(nowS + 590);
      expect(ev.body.T).toBeLessThan(nowS + 610);
      expect(ev.body.Sign).toBe(md5Hex(`SignKey123${ev.body.T}`));
      expect(ev.headers['content-type']).toBe('application/json');
    } finally {
      await rx.close();
    }
  });

  test('PUSH without SignKey sends no T/Sign; image events are AigcImageTaskComplete; no URL → nothing sent', async () => {
    const rx = await receiver();
    try {
      await t('CreateAigcImageTask', image({ Prompt: 'unsent' }));
      await new Promise((r) => setTimeout(r, 700));
      expect(rx.got).toHaveLength(0);
      await t('ModifyEventConfig', { SubAppId: SUB, Mode: 'PUSH', NotificationUrl: rx.url });
      const { TaskId } = await t('CreateAigcImageTask', image({ Prompt: '[sim:fail=content_policy]' }));
      const ev = await waitFor(async () => rx.got[0]);
      expect(ev.body.EventType).toBe('AigcImageTaskComplete');
      expect(ev.body.AigcImageCompleteEvent).toMatchObject({ TaskId, ErrCodeExt: 'InvalidParameter.VoilationContent' });
      expect(ev.body.Sign).toBeUndefined();
      expect(ev.body.T).toBeUndefined();
    } finally {
      await rx.close();
    }
  });

  test('PULL: PullEvents returns the event with an EventHandle; unconfirmed it comes back; ConfirmEvents removes it', async () => {
    await fetch(`${sim.url}/_sim/t/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pullWaitMs: 200, confirmWindowMs: 300 }) });
    await t('ModifyEventConfig', { SubAppId: SUB, Mode: 'PULL' });
    const empty = await t('PullEvents', { SubAppId: SUB });
    expect(empty.EventSet).toEqual([]);

    const { TaskId } = await t('CreateAigcVideoTask', video({ SessionId: 'sess-pull', SessionContext: 'ctx-pull' }));
    const first = await waitFor(async () => {
      const r = await t('PullEvents', { SubAppId: SUB });
      return r.EventSet.length ? r.EventSet : undefined;
    });
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ EventType: 'AigcVideoTaskComplete', AigcVideoCompleteEvent: { TaskId, SessionId: 'sess-pull', SessionContext: 'ctx-pull' } });
    const handle1 = first[0].EventHandle as string;
    expect(typeof handle1).toBe('string');
    // Invisible while awaiting confirmation.
    expect((await t('PullEvents', { SubAppId: SUB })).EventSet).toEqual([]);
    // Not confirmed within the window: pulled again, with a new handle; the old one no longer confirms.
    await new Promise((r) => setTimeout(r, 350));
    const again = (await t('PullEvents', { SubAppId: SUB })).EventSet;
    expect(again).toHaveLength(1);
    const handle2 = again[0].EventHandle as string;
    expect(handle2).not.toBe(handle1);
    expect(await errCode('ConfirmEvents', { SubAppId: SUB, EventHandles: [handle1] })).toBe('InvalidParameter');
    expect((await t('ConfirmEvents', { SubAppId: SUB, EventHandles: [handle2] })).Error).toBeUndefined();
    await new Promise((r) => setTimeout(r, 350));
    expect((await t('PullEvents', { SubAppId: SUB })).EventSet).toEqual([]);
    expect(await errCode('ConfirmEvents', { SubAppId: SUB, EventHandles: [] })).toBe('InvalidParameterValue');
    expect(await errCode('ConfirmEvents', { SubAppId: SUB })).toBe('MissingParameter');
  });

  test('PullEvents long-polls: a pending pull returns as soon as an event is queued', async () => {
    await fetch(`${sim.url}/_sim/t/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pullWaitMs: 4000 }) });
    await t('ModifyEventConfig', { SubAppId: SUB, Mode: 'PULL' });
    const started = Date.now();
    const pending = t('PullEvents', { SubAppId: SUB });
    await t('CreateAigcVideoTask', video({ Prompt: 'fast [sim:duration=100]' }));
    const r = await pending;
    expect(r.EventSet).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  describe('callback faults (PUSH)', () => {
    async function pushOne(fault: Record<string, unknown>, prompt: string) {
      const rx = await receiver();
      await fetch(`${sim.url}/_sim/callback-faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ platform: 'T', ...fault }) });
      await t('ModifyEventConfig', { SubAppId: SUB, Mode: 'PUSH', NotificationUrl: rx.url, SignKey: 'k3y' });
      const { TaskId } = await t('CreateAigcVideoTask', video({ Prompt: prompt }));
      await finished(TaskId);
      return { rx, TaskId };
    }
    const deliveries = async () => (await (await fetch(`${sim.url}/_sim/callbacks?platform=T`)).json()) as any[];

    test('drop: recorded, never sent', async () => {
      const { rx, TaskId } = await pushOne({ fault: 'drop' }, 'drop');
      try {
        await waitFor(async () => ((await deliveries()).length ? true : undefined));
        await new Promise((r) => setTimeout(r, 300));
        expect(rx.got).toHaveLength(0);
        const [d] = await deliveries();
        expect(d).toMatchObject({ fault: 'drop', jobId: TaskId, attempts: [] });
      } finally {
        await rx.close();
      }
    });

    test('duplicate: sent twice', async () => {
      const { rx } = await pushOne({ fault: 'duplicate' }, 'dup');
      try {
        await waitFor(async () => (rx.got.length >= 2 ? true : undefined));
        expect(rx.got[0]!.raw).toBe(rx.got[1]!.raw);
      } finally {
        await rx.close();
      }
    });

    test('late: sent after the delay', async () => {
      const { rx } = await pushOne({ fault: 'late', delayMs: 600 }, 'late');
      try {
        const finishedAt = Date.now();
        await new Promise((r) => setTimeout(r, 300));
        expect(rx.got).toHaveLength(0);
        const ev = await waitFor(async () => rx.got[0]);
        expect(ev.at - finishedAt).toBeGreaterThanOrEqual(250);
      } finally {
        await rx.close();
      }
    });

    test('bad-signature: Sign no longer matches MD5(SignKey + T)', async () => {
      const { rx } = await pushOne({ fault: 'bad-signature' }, 'forged');
      try {
        const ev = await waitFor(async () => rx.got[0]);
        expect(typeof ev.body.Sign).toBe('string');
        expect(ev.body.Sign).not.toBe(md5Hex(`k3y${ev.body.T}`));
      } finally {
        await rx.close();
      }
    });
  });
});
