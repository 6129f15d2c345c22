/**
 * Platform T end to end: API → Temporal → worker → platform T adapter → simulator, checking what the simulator
 * received (X-TC-Action, a TC3 signature that verifies, T's own field names), and the simulator's strictness
 * (signature, clock skew, unknown fields, SessionId dedup) with hand-signed requests.
 */
import { tc3Sign } from '../../activities/tc3';
import { SIM_CREDENTIALS } from '../../core/config';
import { sharedStack } from '../support/shared-stack';

const { api, sim, simUrl } = sharedStack();
const alice = api('alice');
const simHost = new URL(simUrl).host;
const CT = 'application/json; charset=utf-8';

/** Our own check of a recorded request's signature: what a strict platform T would recompute. */
function signatureOf(r: { headers: Record<string, string>; body: unknown }): string {
  return tc3Sign({
    secretId: SIM_CREDENTIALS.T.secretId,
    secretKey: SIM_CREDENTIALS.T.secretKey,
    service: 'vod',
    timestamp: Number(r.headers['x-tc-timestamp']),
    headers: { 'content-type': r.headers['content-type']!, host: r.headers.host! },
    payload: JSON.stringify(r.body),
  }).authorization;
}

async function submitsWithPrompt(prompt: string) {
  return (await sim.requests('T', 'submit')).filter((r) => r.body?.Prompt === prompt);
}

/** Sends a T request signed by the test itself, so the simulator's checks can be probed one by one. */
async function signedCall(action: string, body: unknown, opts: { secretKey?: string; secretId?: string; timestamp?: number; tamper?: boolean } = {}) {
  const payload = JSON.stringify(body);
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const { authorization } = tc3Sign({
    secretId: opts.secretId ?? SIM_CREDENTIALS.T.secretId,
    secretKey: opts.secretKey ?? SIM_CREDENTIALS.T.secretKey,
    service: 'vod',
    timestamp,
    headers: { 'content-type': CT, host: simHost },
    payload,
  });
  const res = await fetch(`${simUrl}/`, {
    method: 'POST',
    headers: { authorization, 'content-type': CT, 'x-tc-action': action, 'x-tc-version': '2018-07-17', 'x-tc-timestamp': String(timestamp) },
    body: opts.tamper ? payload.replace('}', ' }') : payload,
  });
  return { status: res.status, body: (await res.json()) as { Response: Record<string, any> } };
}

describe('platform T video, end to end', () => {
  test('sync: a GV video, submitted as a signed CreateAigcVideoTask with T field names', async () => {
    const prompt = 'a heron at dawn';
    const r = await alice.post('/v1/videos/generations', { model: 'GV-3.1', prompt, ratio: '9:16', resolution: '1080p', generate_audio: true, duration: 8 });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([{ url: expect.stringMatching(/^http:\/\/.+\/files\/AigcVideoTask-.+\.mp4$/) }]);
    const file = await fetch(r.body.data[0].url);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await file.arrayBuffer()).subarray(4, 8).toString('latin1')).toBe('ftyp');

    const [submit, ...more] = await submitsWithPrompt(prompt);
    expect(more).toHaveLength(0);
    expect(submit!.method).toBe('POST');
    expect(submit!.path).toBe('/');
    expect(submit!.headers).toMatchObject({ 'x-tc-action': 'CreateAigcVideoTask', 'x-tc-version': '2018-07-17', 'content-type': CT, host: simHost });
    expect(submit!.headers.authorization).toBe(signatureOf(submit!));
    expect(submit!.body).toEqual({
      SubAppId: SIM_CREDENTIALS.T.subAppId,
      ModelName: 'GV',
      ModelVersion: '3.1',
      Prompt: prompt,
      OutputConfig: { Duration: 8, Resolution: '1080P', AspectRatio: '9:16', AudioGeneration: 'Enabled' },
      SessionId: expect.stringMatching(/^task_/),
    });

    // Polls asked for that TaskId, signed too.
    const taskId = r.body.data[0].url.match(/files\/(AigcVideoTask-[A-Za-z0-9]+)-0\.mp4$/)[1];
    const polls = (await sim.requests('T', 'poll')).filter((p) => p.body?.TaskId === taskId);
    expect(polls.length).toBeGreaterThan(0);
    for (const p of polls) {
      expect(p.headers['x-tc-action']).toBe('DescribeTaskDetail');
      expect(p.headers.authorization).toBe(signatureOf(p));
      expect(p.body).toEqual({ TaskId: taskId, SubAppId: SIM_CREDENTIALS.T.subAppId });
    }
  });

  test('async: an image-to-video Kling task reports running with progress, then success', async () => {
    const prompt = 'the statue turns its head [sim:duration=3000]';
    const r = await alice.post('/v1/async/videos/generations', { model: 'VendorK-2.1', prompt, image_url: 'https://example.test/statue.png', duration: 5 });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('pending');

    const { record, seen } = await alice.watchTask(r.body.task_id);
    expect(record).toMatchObject({ task_id: r.body.task_id, status: 'success', data: [{ url: expect.stringMatching(/\.mp4$/) }] });
    // It was seen running, and every running read carried a progress string.
    const running = seen.filter((s) => s.startsWith('running'));
    expect(running.length).toBeGreaterThan(0);
    for (const s of running) expect(s).toMatch(/^running \d{1,3}%$/);

    const [submit] = await submitsWithPrompt(prompt);
    expect(submit!.body).toEqual({
      SubAppId: SIM_CREDENTIALS.T.subAppId,
      ModelName: 'Kling',
      ModelVersion: '2.1',
      Prompt: prompt,
      FileInfos: [{ Type: 'Url', Url: 'https://example.test/statue.png', Category: 'Image', Usage: 'FirstFrame' }],
      OutputConfig: { Duration: 5 },
      SessionId: expect.any(String),
    });
  });

  test('a content-policy failure fails the task (async) and answers 422 naming the task (sync)', async () => {
    const a = await alice.post('/v1/async/videos/generations', { model: 'VendorH-2.3', prompt: 'forbidden [sim:fail=content_policy]', duration: 6 });
    const done = await alice.waitForTask(a.body.task_id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'content_policy', message: expect.stringMatching(/moderation/i) } });
    expect(done.data).toBeUndefined();

    const s = await alice.post('/v1/videos/generations', { model: 'GV-3.1-fast', prompt: 'forbidden too [sim:fail=content_policy]' });
    expect(s.status).toBe(422);
    expect(s.body.error).toMatchObject({ code: 'content_policy', task_id: expect.any(String) });
  });

  test('a storm of RequestLimitExceeded on submit is survived with exactly one upstream job', async () => {
    const prompt = 'rush hour [sim:submit=429x3]';
    const before = (await sim.stats()).T;
    const r = await alice.post('/v1/async/videos/generations', { model: 'VendorQ-q2', prompt, duration: 3 });
    const done = await alice.waitForTask(r.body.task_id, 90_000);
    expect(done.status).toBe('success');
    const after = (await sim.stats()).T;

    const submits = await submitsWithPrompt(prompt);
    expect(submits).toHaveLength(4);
    // Every retry carried the same dedup key (the workflow's per-run key), within T's 50 characters.
    const sessionIds = new Set(submits.map((s) => s.body.SessionId));
    expect(sessionIds.size).toBe(1);
    expect([...sessionIds][0]).toMatch(/^[A-Za-z0-9_-]{1,50}$/);
    expect(after.jobsCreated - before.jobsCreated).toBe(1);
    expect(after.faultsInjected - before.faultsInjected).toBeGreaterThanOrEqual(3);
  });
});

describe('platform T images, end to end', () => {
  test('sync: a GEM image is a CreateAigcImageTask for GG with ratio and resolution mapped', async () => {
    const prompt = 'a paper boat';
    const r = await alice.post('/v1/images/generations', { model: 'GEM-2.5', prompt, size: '1024x1792', quality: 'hd' });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([{ url: expect.stringMatching(/\/files\/AigcImageTask-.+\.png$/) }]);
    const file = await fetch(r.body.data[0].url);
    expect(file.headers.get('content-type')).toBe('image/png');

    const [submit] = await submitsWithPrompt(prompt);
    expect(submit!.headers['x-tc-action']).toBe('CreateAigcImageTask');
    expect(submit!.headers.authorization).toBe(signatureOf(submit!));
    expect(submit!.body).toEqual({
      SubAppId: SIM_CREDENTIALS.T.subAppId,
      ModelName: 'GG',
      ModelVersion: '2.5',
      Prompt: prompt,
      OutputConfig: { AspectRatio: '9:16', Resolution: '4K' },
      SessionId: expect.stringMatching(/^task_/),
    });
  });

  test('async: a Hunyuan image task goes pending → success', async () => {
    const r = await alice.post('/v1/images/generations', { model: 'VendorY-3.0', prompt: 'ink mountains', quality: 'standard' }, { 'X-Async': 'true' });
    expect(r.body.status).toBe('pending');
    const done = await alice.waitForTask(r.body.task_id);
    expect(done).toMatchObject({ status: 'success', data: [{ url: expect.stringMatching(/\.png$/) }] });
  });
});

describe('the platform T simulator is as strict as the platform', () => {
  const body = { ModelName: 'GV', ModelVersion: '3.1', Prompt: 'probe', SessionId: `probe-${Date.now()}` };

  test('a wrong key, a tampered body, a stale timestamp and an unknown SecretId are refused, always with HTTP 200', async () => {
    const cases: [Parameters<typeof signedCall>[2], string][] = [
      [{ secretKey: 'not-the-key' }, 'AuthFailure.SignatureFailure'],
      [{ tamper: true }, 'AuthFailure.SignatureFailure'],
      [{ timestamp: Math.floor(Date.now() / 1000) - 3600 }, 'AuthFailure.SignatureExpire'],
      [{ secretId: 'AKIDsomeoneelse' }, 'AuthFailure.SecretIdNotFound'],
    ];
    for (const [opts, code] of cases) {
      const r = await signedCall('CreateAigcVideoTask', body, opts);
      expect(r.status).toBe(200);
      expect(r.body.Response).toEqual({ Error: { Code: code, Message: expect.any(String) }, RequestId: expect.any(String) });
    }
  });

  test('unknown fields are InvalidParameter; an unknown action is InvalidAction', async () => {
    const r = await signedCall('CreateAigcVideoTask', { ...body, Seed: 42 });
    expect(r.body.Response.Error).toMatchObject({ Code: 'InvalidParameter', Message: expect.stringContaining('Seed') });
    const a = await signedCall('DeleteEverything', body);
    expect(a.body.Response.Error.Code).toBe('InvalidAction');
  });

  test('the same SessionId returns the same TaskId and creates no second job', async () => {
    const before = (await sim.stats()).T;
    const first = await signedCall('CreateAigcVideoTask', body);
    const second = await signedCall('CreateAigcVideoTask', body);
    const after = (await sim.stats()).T;
    expect(first.body.Response.TaskId).toMatch(/^AigcVideoTask-/);
    expect(second.body.Response.TaskId).toBe(first.body.Response.TaskId);
    expect(after.jobsCreated - before.jobsCreated).toBe(1);
    expect(after.dedupRefusals - before.dedupRefusals).toBe(1);

    const detail = await signedCall('DescribeTaskDetail', { TaskId: first.body.Response.TaskId });
    expect(detail.body.Response).toMatchObject({
      TaskType: 'AigcVideoTask',
      Status: expect.stringMatching(/^(WAITING|PROCESSING|FINISH)$/),
      AigcVideoTask: { TaskId: first.body.Response.TaskId, ErrCode: 0, Progress: expect.any(Number) },
    });
  });
});
