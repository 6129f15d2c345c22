/**
 * sim/t/announcements.ts, over real HTTP: event notification, PUSH signed with MD5(SignKey + T) and PULL with
 * PullEvents/ConfirmEvents, and the callback faults.
 */
import { md5Hex } from '../../../../sim/t';
import { errCode, finished, image, receiver, sim, SUB, t, useTSimulator, video } from '../../../support/sim/t';
import { waitFor } from '../../../support/wait-for';

useTSimulator();

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
      expect(ev.body.AigcVideoCompleteEvent).toMatchObject({
        TaskId,
        Status: 'FINISH',
        ErrCode: 0,
        SessionId: 'sess-push',
        SessionContext: 'gateway-task-7',
      });
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
    await fetch(`${sim.url}/_sim/t/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pullWaitMs: 200, confirmWindowMs: 300 }),
    });
    await t('ModifyEventConfig', { SubAppId: SUB, Mode: 'PULL' });
    const empty = await t('PullEvents', { SubAppId: SUB });
    expect(empty.EventSet).toEqual([]);

    const { TaskId } = await t('CreateAigcVideoTask', video({ SessionId: 'sess-pull', SessionContext: 'ctx-pull' }));
    const first = await waitFor(async () => {
      const r = await t('PullEvents', { SubAppId: SUB });
      return r.EventSet.length ? r.EventSet : undefined;
    });
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      EventType: 'AigcVideoTaskComplete',
      AigcVideoCompleteEvent: { TaskId, SessionId: 'sess-pull', SessionContext: 'ctx-pull' },
    });
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
    await fetch(`${sim.url}/_sim/t/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pullWaitMs: 4000 }),
    });
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
      await fetch(`${sim.url}/_sim/callback-faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ platform: 'T', ...fault }),
      });
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
