/**
 * Platform T end to end: API → Temporal → worker → platform T adapter → simulator (a strict T written from the
 * official SDK), checking what the simulator received (X-TC-Action, a TC3 signature that verifies, the SDK's
 * field names, SubAppId, SessionId/SessionContext, per-model OutputConfig), and the lost-answer and transient
 * failure paths at system level: one upstream job per task.
 */
import { tc3Sign } from '../../platforms/t/signing';
import { SIM_ACCOUNTS } from '../../sim/accounts';
import { sharedStack } from '../support/shared-stack';
import { unique } from '../support/prompts';

const { api, sim, simUrl } = sharedStack();
const alice = api('alice');
const simHost = new URL(simUrl).host;
const CT = 'application/json; charset=utf-8';
const SUB = SIM_ACCOUNTS.T.subAppId;

/** Our own check of a recorded request's signature: what a strict platform T would recompute. */
function signatureOf(r: { headers: Record<string, string>; body: unknown }): string {
  return tc3Sign({
    secretId: SIM_ACCOUNTS.T.secretId,
    secretKey: SIM_ACCOUNTS.T.secretKey,
    service: 'vod',
    timestamp: Number(r.headers['x-tc-timestamp']),
    headers: { 'content-type': r.headers['content-type']!, host: r.headers.host! },
    payload: JSON.stringify(r.body),
  }).authorization;
}

async function submitsWithPrompt(prompt: string) {
  return (await sim.requests('T', 'submit')).filter((r) => r.body?.Prompt === prompt);
}

/** The jobs T holds for a prompt: what it would bill. */
async function jobsWithPrompt(prompt: string) {
  return (await sim.jobs('T')).filter((j) => j.meta?.input?.Prompt === prompt);
}

/** Sends a T request signed by the test itself, to probe the simulator's behaviour directly. */
async function signedCall(action: string, body: unknown) {
  const payload = JSON.stringify(body);
  const timestamp = Math.floor(Date.now() / 1000);
  const { authorization } = tc3Sign({
    secretId: SIM_ACCOUNTS.T.secretId,
    secretKey: SIM_ACCOUNTS.T.secretKey,
    service: 'vod',
    timestamp,
    headers: { 'content-type': CT, host: simHost },
    payload,
  });
  const res = await fetch(`${simUrl}/`, {
    method: 'POST',
    headers: {
      authorization,
      'content-type': CT,
      'x-tc-action': action,
      'x-tc-version': '2018-07-17',
      'x-tc-timestamp': String(timestamp),
    },
    body: payload,
  });
  return (await res.json()) as { Response: Record<string, any> };
}

describe('platform T video, end to end', () => {
  test('async: a GV video is a signed CreateAigcVideoTask with SubAppId, SessionId and the task id in SessionContext', async () => {
    const prompt = unique('a heron at dawn');
    const r = await alice.post('/v1/async/videos/generations', {
      model: 'GV-3.1',
      prompt,
      ratio: '9:16',
      resolution: '1080p',
      generate_audio: true,
      duration: 8,
    });
    expect(r.status).toBe(200);
    const { record } = await alice.watchTask(r.body.task_id);
    expect(record).toMatchObject({ status: 'success', data: [{ url: expect.any(String) }] });

    const [submit, ...more] = await submitsWithPrompt(prompt);
    expect(more).toHaveLength(0);
    expect(submit!.path).toBe('/');
    expect(submit!.headers).toMatchObject({
      'x-tc-action': 'CreateAigcVideoTask',
      'x-tc-version': '2018-07-17',
      'content-type': CT,
      host: simHost,
    });
    expect(submit!.headers.authorization).toBe(signatureOf(submit!));
    expect(submit!.body).toEqual({
      SubAppId: SUB,
      ModelName: 'GV',
      ModelVersion: '3.1',
      Prompt: prompt,
      OutputConfig: { Duration: 8, Resolution: '1080P', AspectRatio: '9:16', AudioGeneration: 'Enabled' },
      SessionId: expect.stringMatching(/^[A-Za-z0-9_-]{1,50}$/),
      SessionContext: r.body.task_id,
    });
    expect(submit!.status).toBe(200);

    // Polls asked for that TaskId, with the SubAppId, signed too.
    const taskId = submit!.response.Response.TaskId;
    const polls = (await sim.requests('T', 'poll')).filter((p) => p.body?.TaskId === taskId);
    expect(polls.length).toBeGreaterThan(0);
    for (const p of polls) {
      expect(p.headers.authorization).toBe(signatureOf(p));
      expect(p.body).toEqual({ TaskId: taskId, SubAppId: SUB });
    }
  });

  test('sync: Kling 2.1 first + last frame at 1080P with sound, input URLs abroad', async () => {
    const prompt = unique('the statue turns its head');
    const r = await alice.post('/v1/videos/generations', {
      model: 'VendorK-2.1',
      prompt,
      image_url: 'https://example.test/a.png',
      last_frame_url: 'https://example.test/b.png',
      resolution: '1080P',
      duration: 5,
      generate_audio: true,
      input_region: 'Oversea',
    });
    expect(r.status).toBe(200);
    const [submit] = await submitsWithPrompt(prompt);
    expect(submit!.body).toMatchObject({
      ModelName: 'Kling',
      ModelVersion: '2.1',
      FileInfos: [{ Type: 'Url', Url: 'https://example.test/a.png', Category: 'Image', Usage: 'FirstFrame' }],
      LastFrameUrl: 'https://example.test/b.png',
      OutputConfig: { Duration: 5, Resolution: '1080P', AudioGeneration: 'Enabled' },
      InputRegion: 'Oversea',
    });
  });

  test('a request a model cannot take is a 400 naming the field, and nothing reaches T', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ model: 'GV-3.1', ratio: '1:1' }, 'ratio'],
      [{ model: 'VendorH-2.3', ratio: '16:9' }, 'ratio'],
      [{ model: 'VendorK-2.5', image_url: 'https://x.test/a.png', last_frame_url: 'https://x.test/b.png' }, 'last_frame_url'],
      [
        { model: 'VendorK-2.1', image_url: 'https://x.test/a.png', last_frame_url: 'https://x.test/b.png', resolution: '720P' },
        'resolution',
      ],
    ];
    for (const [body, param] of cases) {
      const prompt = unique('refused');
      const r = await alice.post('/v1/async/videos/generations', { ...body, prompt });
      expect({ status: r.status, param: r.body.error?.param }).toEqual({ status: 400, param });
      expect(await submitsWithPrompt(prompt)).toEqual([]);
    }
  });

  test('a content-policy failure fails the task with its reason', async () => {
    const a = await alice.post('/v1/async/videos/generations', {
      model: 'VendorH-2.3',
      prompt: unique('forbidden [sim:fail=content_policy]'),
      duration: 6,
    });
    const done = await alice.waitForTask(a.body.task_id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'content_policy', message: expect.any(String) } });
  });

  test('a storm of RequestLimitExceeded on submit is survived with exactly one upstream job', async () => {
    const prompt = unique('rush hour [sim:submit=429x2]');
    const r = await alice.post('/v1/async/videos/generations', { model: 'VendorQ-q2', prompt, duration: 3 });
    expect((await alice.waitForTask(r.body.task_id, 90_000)).status).toBe('success');
    const submits = await submitsWithPrompt(prompt);
    expect(submits).toHaveLength(3);
    // Every retry carried the same dedup key (the workflow's per-run key).
    expect(new Set(submits.map((s) => s.body.SessionId)).size).toBe(1);
    expect(await jobsWithPrompt(prompt)).toHaveLength(1);
  });
});

describe('lost answers and transient failures on platform T, system level', () => {
  test('a create whose answer is dropped: the retry recovers the first TaskId by SessionId — one job, a successful task', async () => {
    const prompt = unique('a dropped heron [sim:submit=drop]');
    const r = await alice.post('/v1/async/videos/generations', { model: 'GV-3.1-fast', prompt });
    const done = await alice.waitForTask(r.body.task_id, 90_000);
    expect(done.status).toBe('success');

    // T created (and would bill) exactly one job for this task, and the task followed that job.
    const jobs = await jobsWithPrompt(prompt);
    expect(jobs).toHaveLength(1);
    expect((await sim.requests('T', 'poll')).filter((p) => p.body?.TaskId === jobs[0]!.id).length).toBeGreaterThan(0);
    // The create was carried out and its answer lost; no second create was needed.
    const submits = await submitsWithPrompt(prompt);
    expect(submits[0]!.status).toBe(0);
    expect(submits.filter((s) => s.status === 200)).toHaveLength(0);
    // Every create of the task carried the same SessionId, and the lookup listed the submit window.
    expect(new Set(submits.map((s) => s.body.SessionId)).size).toBe(1);
    expect(jobs[0]!.meta.sessionId).toBe(submits[0]!.body.SessionId);
    const lookups = (await sim.requests('T', 'list')).filter((l) => l.body?.CreateTime?.After && l.at! >= submits[0]!.at!);
    expect(lookups.length).toBeGreaterThan(0);
    expect(lookups[0]!.body).toMatchObject({ SubAppId: SUB, Sort: { Field: 'CreateTime', Order: 'Asc' }, Limit: 100 });
  });

  test('an image whose answer is dropped: one job, found among the image tasks', async () => {
    const prompt = unique('a dropped lighthouse [sim:submit=drop]');
    const r = await alice.post('/v1/async/images/generations', { model: 'GEM-2.5', prompt });
    expect((await alice.waitForTask(r.body.task_id, 90_000)).status).toBe('success');
    expect(await jobsWithPrompt(prompt)).toHaveLength(1);
  });

  test("a job that fails for the account's concurrency (RequestLimitExceeded) is submitted again under a new SessionId, and the task succeeds", async () => {
    const prompt = unique('over the concurrency limit [sim:fail=transientx1]');
    const r = await alice.post('/v1/async/videos/generations', { model: 'VendorK-2.5', prompt, duration: 5 });
    const taskId = r.body.task_id as string;
    // The re-submission comes after the workflow's pause (workflows/generation.ts RESUBMIT_PAUSE_MS).
    const done = await alice.waitForTask(taskId, 90_000);
    expect(done.status).toBe('success');
    const submits = await submitsWithPrompt(prompt);
    expect(submits).toHaveLength(2);
    const [first, second] = submits;
    expect(second!.body.SessionId).not.toBe(first!.body.SessionId);
    expect(second!.body.SessionContext).toBe(taskId);
    // The first job failed upstream with the transient code; the second is the task's result.
    const jobs = await sim.jobs('T');
    expect(jobs.find((j) => j.id === first!.response.Response.TaskId)!.view.state).toBe('failed');
    expect(jobs.find((j) => j.id === second!.response.Response.TaskId)!.view.state).toBe('succeeded');
  });
});

describe('platform T images, end to end', () => {
  test('sync: a GEM image is a CreateAigcImageTask for GG with ratio and resolution mapped', async () => {
    const prompt = unique('a paper boat');
    const r = await alice.post('/v1/images/generations', { model: 'GEM-2.5', prompt, size: '1024x1792', quality: 'hd' });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([{ url: expect.any(String) }]);
    const [submit] = await submitsWithPrompt(prompt);
    expect(submit!.headers['x-tc-action']).toBe('CreateAigcImageTask');
    expect(submit!.headers.authorization).toBe(signatureOf(submit!));
    expect(submit!.body).toMatchObject({
      SubAppId: SUB,
      ModelName: 'GG',
      ModelVersion: '2.5',
      Prompt: prompt,
      OutputConfig: { AspectRatio: '9:16', Resolution: '4K' },
    });
  });

  test("Kling images: n is OutputImageCount and every image comes back; quality 2K is Kling's 2k", async () => {
    const prompt = unique('three cats');
    const r = await alice.post('/v1/images/generations', {
      model: 'VendorK-2.1',
      prompt,
      n: 3,
      quality: '2K',
      file_infos: [{ Type: 'Url', Url: 'https://x.test/ref.png' }],
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(3);
    const [submit] = await submitsWithPrompt(prompt);
    expect(submit!.body).toMatchObject({
      ModelName: 'Kling',
      FileInfos: [{ Type: 'Url', Url: 'https://x.test/ref.png' }],
      OutputConfig: { Resolution: '2k', OutputImageCount: 3 },
    });
  });

  test('Hunyuan 3.0: neither Resolution nor AspectRatio is sent; size and hd are refused', async () => {
    const prompt = unique('ink mountains');
    const r = await alice.post('/v1/images/generations', { model: 'VendorY-3.0', prompt, quality: 'standard' }, { 'X-Async': 'true' });
    expect(r.body.status).toBe('pending');
    expect((await alice.waitForTask(r.body.task_id)).status).toBe('success');
    const [submit] = await submitsWithPrompt(prompt);
    expect(submit!.body.OutputConfig).toBeUndefined();
    for (const [extra, param] of [
      [{ size: '16:9' }, 'size'],
      [{ quality: 'hd' }, 'quality'],
    ] as const) {
      const refused = await alice.post('/v1/images/generations', { model: 'VendorY-3.0', prompt: unique('no'), ...extra });
      expect({ status: refused.status, param: refused.body.error?.param }).toEqual({ status: 400, param });
    }
  });
});

describe('the simulator behaves like platform T on a repeated SessionId', () => {
  test('a repeat is refused with an error (not answered with the first TaskId), and DescribeTasks lists the first task with its SessionId', async () => {
    const sessionId = `probe-${Date.now()}`;
    const body = { SubAppId: SUB, ModelName: 'GV', ModelVersion: '3.1', Prompt: unique('probe'), SessionId: sessionId };
    const first = await signedCall('CreateAigcVideoTask', body);
    const second = await signedCall('CreateAigcVideoTask', body);
    expect(first.Response.TaskId).toEqual(expect.any(String));
    expect(second.Response.Error).toEqual({ Code: expect.any(String), Message: expect.any(String) });
    expect(second.Response.TaskId).toBeUndefined();
    const list = await signedCall('DescribeTasks', {
      SubAppId: SUB,
      CreateTime: { After: new Date(Date.now() - 60_000).toISOString() },
      Limit: 100,
    });
    expect(list.Response.TaskSet).toEqual(
      expect.arrayContaining([expect.objectContaining({ TaskId: first.Response.TaskId, SessionId: sessionId })]),
    );
  });
});
