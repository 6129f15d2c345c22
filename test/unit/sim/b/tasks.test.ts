/**
 * sim/b/tasks.ts, over real HTTP: the task detail (MediaTaskDetail) as a job runs and ends, its retention across a
 * restart on a data file, and the task list with its filters and markers.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../../../../sim/server';
import {
  call,
  getJson,
  sim_,
  sim,
  t2v,
  createT2V,
  createI2V,
  IMG,
  getTask,
  finished,
  callsGoTo,
  useBSimulator,
} from '../../../support/sim/b';
import { advanceJob } from '../../../support/simulator';

useBSimulator();

describe('task detail', () => {
  test('PENDING → RUNNING → SUCCESS, inner lower-case mirror, request echoed, no progress', async () => {
    // Held in each phase until moved on (sim:hold, advanceJob): each read is of the phase it names, however slow the
    // machine.
    const body = t2v('VQ2', { prompt: 'a cat [sim:hold]', duration: 2, extra: 1 });
    const { taskId } = (await call('POST', '/v2/aigc/text_to_video', [], body)).body;
    const pending = (await getTask(taskId)).body;
    expect(pending).toEqual({
      taskId,
      type: 'VIDEO_GENERATE',
      status: 'PENDING',
      createTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      videoGenerateTaskInfo: { status: 'pending', unitPrice: 0, videoGenerateTaskInput: { type: '文生视频', textToVideoRequest: body } },
    });
    await advanceJob(sim, taskId, 'running');
    const running = (await getTask(taskId)).body;
    expect([running.status, running.videoGenerateTaskInfo.status]).toEqual(['RUNNING', 'running']);
    expect(running.finishTime).toBeUndefined();
    expect(running.videoGenerateTaskInfo.videoGenerateTaskOutput).toBeUndefined();
    await advanceJob(sim, taskId, 'done');
    const done = await finished(taskId);
    expect(done.status).toBe('SUCCESS');
    expect(done.videoGenerateTaskInfo.status).toBe('success');
    expect(done.finishTime).toMatch(/Z$/);
    expect(done.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos).toEqual([
      {
        mediaId: expect.stringMatching(/^mda-[a-z0-9]{16}$/),
        name: `文生视频_${taskId}`,
        description: '',
        mediaType: 'video',
        banStatus: 'NORMAL',
        createTime: done.finishTime,
        categoryId: 'system',
        tags: [],
        source: { sourceType: 'GENERATE', sourceUrl: `${sim.url}/files/${taskId}-0.mp4` },
        sourceMetadata: { durationInSecond: 2, video: { widthInPixel: 1280, heightInPixel: 720 } },
      },
    ]);
    expect(JSON.stringify(done)).not.toMatch(/progress/i);
    expect(
      (await fetch(done.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos[0].source.sourceUrl)).headers.get('content-type'),
    ).toBe('video/mp4');
  });

  test('failures: content policy, error, transient — FAILED with errMsg, no output', async () => {
    const msgs: string[] = [];
    for (const kind of ['content_policy', 'error', 'transient']) {
      const { taskId } = (await createI2V('VE3.1', { prompt: `p [sim:fail=${kind}]`, image: IMG })).body;
      const d = await finished(taskId);
      expect(d.status).toBe('FAILED');
      expect(d.videoGenerateTaskInfo.status).toBe('failed');
      expect(d.videoGenerateTaskInfo.videoGenerateTaskOutput).toBeUndefined();
      expect(d.videoGenerateTaskInfo.videoGenerateTaskInput.type).toBe('图生视频');
      expect(d.videoGenerateTaskInfo.videoGenerateTaskInput.imageToVideoRequest.modelVE31TaskInput.image).toEqual(IMG);
      msgs.push(d.videoGenerateTaskInfo.errMsg);
    }
    expect(msgs[0]).toMatch(/moderation/i);
    expect(msgs[2]).toBe('Internal error. Please try again later.');
    expect(new Set(msgs).size).toBe(3);
  });

  test('inner-status-first quirk: off by default, on by control switch or directive', async () => {
    // Duration 4000: the inner status leads from 3000 on; all three are read at about 3400.
    const plain = (await createT2V('VE3.1', { prompt: 'p [sim:duration=4000]' })).body.taskId;
    const directive = (await createT2V('VE3.1', { prompt: 'p [sim:duration=4000][sim:b-inner-first]' })).body.taskId;
    const switched = (await createT2V('VE3.1', { prompt: 'q [sim:duration=4000]' })).body.taskId;
    await new Promise((r) => setTimeout(r, 3400));
    const a = (await getTask(plain)).body;
    const b = (await getTask(directive)).body;
    expect(await (await sim_.post('/_sim/b/quirks', { innerStatusLeads: true })).json()).toEqual({ innerStatusLeads: true });
    const c = (await getTask(switched)).body;
    expect([a.status, a.videoGenerateTaskInfo.status, a.videoGenerateTaskInfo.videoGenerateTaskOutput]).toEqual([
      'RUNNING',
      'running',
      undefined,
    ]);
    for (const d of [b, c]) {
      expect([d.status, d.videoGenerateTaskInfo.status, d.finishTime]).toEqual(['RUNNING', 'succeeded', undefined]);
      expect(d.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos[0].source.sourceUrl).toMatch(/\.mp4$/);
    }
    await sim_.post('/_sim/reset', {});
    expect(await getJson('/_sim/b/quirks')).toEqual({ innerStatusLeads: false });
  });

  test("unknown task, another platform's id, and tasks past the 7-day window are 404 TaskNotFound", async () => {
    const r = await getTask('tsk-0000000000000000');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      requestId: expect.any(String),
      code: 'TaskNotFound',
      message: expect.stringContaining('tsk-0000000000000000'),
    });

    const dir = mkdtempSync(join(tmpdir(), 'sim-b-'));
    const file = join(dir, 'jobs.json');
    const now = Date.now();
    const job = (id: string, ageMs: number) => ({
      id,
      platform: 'B',
      kind: 'video',
      model: 'VQ2',
      createdAt: now - ageMs,
      durationMs: 1000,
      directives: {},
      outputs: 1,
      pollFaultsLeft: 0,
      meta: {
        endpoint: 'text_to_video',
        apiVersion: 'v2',
        inputType: '文生视频',
        requestKey: 'textToVideoRequest',
        request: t2v('VQ2', { prompt: 'old' }),
        fields: { recognised: [], ignored: [] },
        output: {
          mediaType: 'video',
          durationInSecond: 5,
          resolution: '720p',
          aspectRatio: '16:9',
          widthInPixel: 1280,
          heightInPixel: 720,
          audio: false,
        },
        baseUrl: 'http://127.0.0.1:1',
      },
    });
    const otherPlatform = { ...job('tsk-tplat0tplat0tpl', 60_000), platform: 'T' };
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        jobs: [job('tsk-old0old0old0old0', 7.5 * 24 * 3600_000), job('tsk-six0six0six0six0', 6 * 24 * 3600_000), otherPlatform],
      }),
    );
    const other = await startSimulator({ port: 0, dataFile: file });
    const restore = callsGoTo(other);
    try {
      expect((await getTask('tsk-old0old0old0old0')).status).toBe(404);
      expect((await getTask('tsk-tplat0tplat0tpl')).status).toBe(404);
      expect((await getTask('tsk-six0six0six0six0')).body.status).toBe('SUCCESS');
      expect((await call('GET', '/v2/tasks')).body.data.map((d: any) => d.taskId)).toEqual(['tsk-six0six0six0six0']);
    } finally {
      restore();
      await other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('task list', () => {
  test('filters, paging with markers, newest first, limits', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const prompt = i === 1 ? 'x [sim:fail=error][sim:duration=100]' : `x ${i} [sim:duration=100]`;
      ids.push((await createT2V('VQ2', { prompt })).body.taskId);
      await new Promise((r) => setTimeout(r, 1100)); // distinct creation seconds
    }
    await Promise.all(ids.map(finished));
    const newestFirst = [...ids].reverse();

    const seen: string[] = [];
    let marker: string | undefined;
    const markers: Array<string | undefined> = [];
    for (;;) {
      const q: Array<[string, string]> = [['maxSize', '2']];
      if (marker) q.push(['marker', marker]);
      const page = (await call('GET', '/v2/tasks', q)).body;
      expect(page.marker).toBe(marker ?? '');
      seen.push(...page.data.map((d: any) => d.taskId));
      markers.push(marker);
      if (!page.isTruncated) {
        expect(page.nextMarker).toBeUndefined();
        break;
      }
      marker = page.nextMarker;
    }
    expect(seen).toEqual(newestFirst);
    expect(markers).toHaveLength(3);

    const all = (await call('GET', '/v2/tasks')).body;
    expect(all.data[0]).toEqual({
      taskId: ids[4],
      type: 'VIDEO_GENERATE',
      status: 'SUCCESS',
      createTime: expect.any(String),
      finishTime: expect.any(String),
    });
    expect((await call('GET', '/v2/tasks', [['status', 'FAILED']])).body.data.map((d: any) => d.taskId)).toEqual([ids[1]]);
    expect((await call('GET', '/v2/tasks', [['taskId', ids[2]!]])).body.data).toHaveLength(1);
    expect((await call('GET', '/v2/tasks', [['type', 'VIDEO_GENERATE']])).body.data).toHaveLength(5);
    expect((await call('GET', '/v2/tasks', [['type', 'WORKFLOW']])).body.data).toHaveLength(0);
    const created = all.data.map((d: any) => d.createTime);
    const window = (
      await call('GET', '/v2/tasks', [
        ['beginTime', created[3]],
        ['endTime', created[1]],
      ])
    ).body.data.map((d: any) => d.taskId);
    expect(window).toEqual([ids[3], ids[2], ids[1]]);
    const detail = await finished(ids[0]!);
    const mediaId = detail.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos[0].mediaId;
    expect((await call('GET', '/v2/tasks', [['mediaId', mediaId]])).body.data.map((d: any) => d.taskId)).toEqual([ids[0]]);

    for (const q of [[['maxSize', '0']], [['maxSize', '101']], [['beginTime', 'yesterday']], [['marker', 'tsk-nope']]] as Array<
      Array<[string, string]>
    >) {
      const r = await call('GET', '/v2/tasks', q);
      expect([r.status, r.body.code]).toEqual([400, 'InvalidParameter']);
    }
    expect((await call('GET', '/v2/tasks', [['maxSize', '100']])).body.data).toHaveLength(5);
    expect((await sim_.stats()).lists).toBeGreaterThan(5);
  }, 30_000);
});

describe('/_sim/b/echo: how a task echoes its request, each way B could (not documented)', () => {
  const echoOf = async (taskId: string) => (await getTask(taskId)).body.videoGenerateTaskInfo.videoGenerateTaskInput.textToVideoRequest;

  test('exact (default): the body as sent, unknown members included', async () => {
    expect(await getJson('/_sim/b/echo')).toEqual({ echo: 'exact' });
    const id = (await createT2V('K20', { prompt: 'p', duration: 5, foo: 1 })).body.taskId;
    expect(await echoOf(id)).toEqual(t2v('K20', { prompt: 'p', duration: 5, foo: 1 }));
  });

  test("defaults: the settings left out are shown with the model's defaults", async () => {
    expect(await (await sim_.post('/_sim/b/echo', { echo: 'defaults' })).json()).toEqual({ echo: 'defaults' });
    const id = (await createT2V('K20', { prompt: 'p', duration: 5 })).body.taskId;
    expect(await echoOf(id)).toEqual(t2v('K20', { prompt: 'p', duration: 5, aspectRatio: '16:9' }));
  });

  test('known-only: the members B ignored are dropped; a reset restores exact', async () => {
    await sim_.post('/_sim/b/echo', { echo: 'known-only' });
    const id = (await createT2V('K20', { prompt: 'p', duration: 5, foo: 1 })).body.taskId;
    expect(await echoOf(id)).toEqual(t2v('K20', { prompt: 'p', duration: 5 }));
    await sim_.post('/_sim/reset', {});
    expect(await getJson('/_sim/b/echo')).toEqual({ echo: 'exact' });
  });
});
