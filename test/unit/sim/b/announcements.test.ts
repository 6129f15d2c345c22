/**
 * sim/b/announcements.ts, over real HTTP: the account-level callback configuration and the signed
 * VIDEO_GENERATE_COMPLETE events, with their faults.
 */
import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { SIM_ACCOUNTS, simBAccount } from '../../../../sim/accounts';
import { startReceiver, type Received, type Receiver } from '../../../support/receiver';
import { call, sim_, sim, signedBy, t2v, createT2V, createI2V, IMG, imageBody, finished, useBSimulator } from '../../../support/sim/b';
import { waitFor } from '../../../support/wait-for';

useBSimulator();

describe('callbacks', () => {
  let rx: Receiver;
  let receiverUrl: string;
  let got: Received[];

  beforeAll(async () => {
    rx = await startReceiver('/vod/callback');
    receiverUrl = rx.url;
    got = rx.got;
  });
  afterAll(() => rx.close());
  beforeEach(() => {
    rx.got.length = 0;
    rx.answers.length = 0;
  });

  const SIGN_KEY = 'my_random_token';
  const configure = (extra: Record<string, unknown> = {}) =>
    call('PUT', '/v2/callback', [], {
      callbackUrl: receiverUrl,
      enableSign: true,
      signKey: SIGN_KEY,
      enableVideoGenerateCompleteEvent: true,
      ...extra,
    });
  /**
   * The receiver's check, written from docs/platforms/b.md#callback-signatures (not from the simulator's code): SHA256-HEX(token, content) read as
   * HMAC-SHA256 keyed with the signKey, content = POST;{url};{body compacted as JSON};{timestamp};{user}.
   */
  const verifies = (h: IncomingHttpHeaders, body: string) => {
    const compacted = JSON.stringify(JSON.parse(body));
    const content = `POST;${receiverUrl};${compacted};${h['vod-callback-auth-timestamp']};${h['vod-callback-auth-user']}`;
    return createHmac('sha256', SIGN_KEY).update(content).digest('hex') === h['vod-callback-auth-token'];
  };
  /** The same over the bytes as received: what a receiver that skips the compaction computes. */
  const verifiesRaw = (h: IncomingHttpHeaders, body: string) =>
    createHmac('sha256', SIGN_KEY)
      .update(`POST;${receiverUrl};${body};${h['vod-callback-auth-timestamp']};${h['vod-callback-auth-user']}`)
      .digest('hex') === h['vod-callback-auth-token'];

  test('configuration: partial PUT, GET, validation', async () => {
    let r = await call('PUT', '/v2/callback', [], { callbackUrl: receiverUrl });
    expect([r.status, r.text]).toEqual([200, '']);
    r = await call('PUT', '/v2/callback', [], {
      enableSign: true,
      signKey: 'k',
      enableVideoGenerateCompleteEvent: true,
      unknownSwitch: true,
    });
    expect(r.status).toBe(200);
    r = await call('GET', '/v2/callback');
    expect(r.body).toMatchObject({
      callbackUrl: receiverUrl,
      enableSign: true,
      signKey: 'k',
      enableVideoGenerateCompleteEvent: true,
      enableMediaTranscodeCompleteEvent: false,
    });
    expect(r.body.unknownSwitch).toBeUndefined();
    for (const bad of [{ callbackUrl: 'not a url' }, { enableSign: 'yes' }, { enableSign: true, signKey: '' }]) {
      expect((await call('PUT', '/v2/callback', [], bad)).body.code).toBe('InappropriateJSON');
    }
    await sim_.post('/_sim/reset', {});
    expect((await call('GET', '/v2/callback')).body.callbackUrl).toBe('');
  });

  test('VIDEO_GENERATE_COMPLETE on success and failure, signed per docs/platforms/b.md#callback-signatures; images too', async () => {
    await configure();
    const ok = (await createI2V('VQ2', { prompt: 'ok', image: IMG })).body.taskId;
    const bad = (await createT2V('H23', { prompt: 'bad [sim:fail=content_policy]' })).body.taskId;
    const img = (await call('POST', '/v2/aigc/image', [], imageBody('I4YG1', { n: 2 }))).body.taskId;
    await waitFor(async () => got.length >= 3);
    const byTask = new Map(got.map((g) => [g.body.videoGenerateCompleteEvent.taskId, g]));
    for (const g of got) {
      expect(g.headers['user-agent']).toBe('AHC/2.0');
      expect(g.headers['vod-callback-auth-user']).toBe(SIM_ACCOUNTS.B.userId);
      expect(g.headers['vod-callback-auth-timestamp']).toMatch(/^\d{13}$/);
      expect(verifies(g.headers, g.raw)).toBe(true);
      // Signed over the compacted JSON, not the bytes sent: the body arrives indented, so the two differ.
      expect(g.raw).not.toBe(JSON.stringify(JSON.parse(g.raw)));
      expect(verifiesRaw(g.headers, g.raw)).toBe(false);
    }
    const okEvent = byTask.get(ok)!.body;
    expect(okEvent).toEqual({
      eventId: expect.stringMatching(/^evt-[a-z0-9]{16}$/),
      eventType: 'VIDEO_GENERATE_COMPLETE',
      eventTime: expect.any(String),
      videoGenerateCompleteEvent: {
        taskId: ok,
        status: 'SUCCESS',
        createTime: expect.any(String),
        finishTime: okEvent.eventTime,
        videoGenerateTaskInfo: expect.objectContaining({
          status: 'success',
          videoGenerateTaskInput: { type: '图生视频', imageToVideoRequest: t2v('VQ2', { prompt: 'ok', image: IMG }) },
        }),
      },
    });
    expect(okEvent.videoGenerateCompleteEvent.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos[0].source.sourceUrl).toBe(
      `${sim.url}/files/${ok}-0.mp4`,
    );
    const badEvent = byTask.get(bad)!.body.videoGenerateCompleteEvent;
    expect([badEvent.status, badEvent.videoGenerateTaskInfo.status, badEvent.videoGenerateTaskInfo.errMsg]).toEqual([
      'FAILED',
      'failed',
      expect.stringMatching(/moderation/i),
    ]);
    expect(byTask.get(img)!.body.videoGenerateCompleteEvent.videoGenerateTaskInfo.videoGenerateTaskOutput.mediaBasicInfos).toHaveLength(2);
  });

  test('no event without the switch; no signature headers without enableSign', async () => {
    await call('PUT', '/v2/callback', [], { callbackUrl: receiverUrl });
    await finished((await createT2V('VQ2', { prompt: 'quiet' })).body.taskId);
    await new Promise((r) => setTimeout(r, 300));
    expect(got).toHaveLength(0);
    await call('PUT', '/v2/callback', [], { enableVideoGenerateCompleteEvent: true });
    await createT2V('VQ2', { prompt: 'loud' });
    await waitFor(async () => got.length === 1);
    expect(got[0]!.headers['vod-callback-auth-token']).toBeUndefined();
  });

  test("each account's tasks follow its own configuration, signed with its own account id; a renamed switch starts every account afresh", async () => {
    const two = signedBy(simBAccount('two'));
    await configure();
    await call(
      'PUT',
      '/v2/callback',
      [],
      { callbackUrl: receiverUrl, enableSign: true, signKey: SIGN_KEY, enableVideoGenerateCompleteEvent: true },
      two,
    );
    const mine = (await createT2V('VQ2', { prompt: 'default account' })).body.taskId;
    const theirs = (await call('POST', '/v2/aigc/text_to_video', [], t2v('VQ2', { prompt: 'account two' }), two)).body.taskId;
    await waitFor(async () => got.length >= 2);
    const userOf = new Map(got.map((g) => [g.body.videoGenerateCompleteEvent.taskId, g.headers['vod-callback-auth-user']]));
    expect(userOf).toEqual(
      new Map([
        [mine, SIM_ACCOUNTS.B.userId],
        [theirs, simBAccount('two').userId],
      ]),
    );
    expect(got.every((g) => verifies(g.headers, g.raw))).toBe(true);

    // Account two turns its events off: its tasks send nothing, the default account's still do.
    got.length = 0;
    await call('PUT', '/v2/callback', [], { enableVideoGenerateCompleteEvent: false }, two);
    const quiet = (await call('POST', '/v2/aigc/text_to_video', [], t2v('VQ2', { prompt: 'two, quiet' }), two)).body.taskId;
    await waitFor(async () => (await call('GET', `/v2/tasks/${quiet}`, [], undefined, two)).body?.status === 'SUCCESS');
    const loud = (await createT2V('VQ2', { prompt: 'default, loud' })).body.taskId;
    await waitFor(async () => got.length >= 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(got.map((g) => g.body.videoGenerateCompleteEvent.taskId)).toEqual([loud]);

    // The switch under another name (/_sim/b/behaviour): every account's configuration starts afresh, under that name.
    await sim_.post('/_sim/b/behaviour', { videoEventSwitch: 'enableAigcCompleteEvent' });
    for (const as of [{}, two]) {
      const config = (await call('GET', '/v2/callback', [], undefined, as)).body;
      expect([config.callbackUrl, config.enableAigcCompleteEvent, config.enableVideoGenerateCompleteEvent]).toEqual(['', false, undefined]);
    }
    await sim_.post('/_sim/b/behaviour', {});
  });

  test('a non-200 answer is retried', async () => {
    await configure();
    rx.answers.push(500, 503);
    await createT2V('VQ2', { prompt: 'retry me' });
    await waitFor(async () => got.length >= 3, 8_000);
    const deliveries = await waitFor(async () => {
      const d = await sim_.callbacks();
      return d[0]?.attempts.length === 3 ? d : undefined;
    });
    expect(deliveries[0].attempts).toEqual([500, 503, 200]);
    expect(new Set(got.map((g) => g.raw)).size).toBe(1);
  });

  test('callback faults: drop, duplicate, late, bad-signature', async () => {
    await configure();
    const run = async (fault: string, extra: Record<string, unknown> = {}) => {
      got.length = 0;
      await sim_.post('/_sim/callback-faults', { platform: 'B', fault, ...extra });
      const started = Date.now();
      const taskId = (await createT2V('VQ2', { prompt: `fault ${fault}` })).body.taskId;
      await finished(taskId);
      return { taskId, started };
    };

    const dropped = await run('drop');
    await new Promise((r) => setTimeout(r, 400));
    expect(got).toHaveLength(0);
    expect((await sim_.callbacks()).find((d) => d.jobId === dropped.taskId)).toMatchObject({ fault: 'drop', attempts: [] });

    await run('duplicate');
    await waitFor(async () => got.length === 2);
    expect(got[0]!.raw).toBe(got[1]!.raw);
    expect(verifies(got[1]!.headers, got[1]!.raw)).toBe(true);

    const late = await run('late', { delayMs: 800 });
    await waitFor(async () => got.length === 1, 4_000);
    expect(got[0]!.at - late.started).toBeGreaterThanOrEqual(800);

    await run('bad-signature');
    await waitFor(async () => got.length === 1);
    expect(got[0]!.headers['vod-callback-auth-token']).toMatch(/^[0-9a-f]{64}$/);
    expect(verifies(got[0]!.headers, got[0]!.raw)).toBe(false);
  });
});
