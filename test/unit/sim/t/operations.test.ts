/**
 * sim/t/operations.ts, over real HTTP: SessionId dedup, the task list (DescribeTasks), and injected faults.
 */
import { detail, errCode, finished, sim, stats, SUB, t, tRaw, useTSimulator, video } from '../../../support/sim/t';

useTSimulator();

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
    expect(list.TaskSet[0]).toMatchObject({
      TaskId: first.TaskId,
      TaskType: 'AigcVideoTask',
      SessionId: 'task_abc-run1',
      SessionContext: 'gw-task-1',
      FileId: '',
    });
    expect(Object.keys(list.TaskSet[0]).sort()).toEqual([
      'BeginProcessTime',
      'CreateTime',
      'FileId',
      'FinishTime',
      'SessionContext',
      'SessionId',
      'Status',
      'TaskId',
      'TaskType',
    ]);
  });

  test('an empty SessionId does not dedup', async () => {
    await t('CreateAigcVideoTask', video({ SessionId: '' }));
    expect((await t('CreateAigcVideoTask', video({ SessionId: '' }))).Error).toBeUndefined();
  });

  test('DescribeTasks: Status filter, CreateTime window, Limit and ScrollToken paging, sort', async () => {
    // Five tasks at once: an account whose concurrency was raised past T's default of one (sim/capacity.ts).
    await fetch(`${sim.url}/_sim/t/capacity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ max_concurrent: null }),
    });
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

describe('[sim:detail-error=CODE xN]', () => {
  test('the first N DescribeTaskDetail of an existing job answer CODE, then the job reads as it is', async () => {
    const { TaskId } = await t(
      'CreateAigcVideoTask',
      video({ Prompt: 'a heron [sim:detail-error=InvalidParameterValue x2] [sim:duration=50]' }),
    );
    for (let i = 0; i < 2; i++) {
      const refused = await detail(TaskId);
      expect(refused.Error?.Code).toBe('InvalidParameterValue');
      expect(refused.RequestId).toEqual(expect.any(String));
    }
    const done = await finished(TaskId);
    expect(done.AigcVideoTask).toMatchObject({ TaskId, ErrCode: 0 });
  });

  test('without a count it refuses once; another job is not affected', async () => {
    const { TaskId } = await t('CreateAigcVideoTask', video({ Prompt: 'an ibis [sim:detail-error=InvalidParameterValue]' }));
    const other = await t('CreateAigcVideoTask', video({ Prompt: 'a crane' }));
    expect((await detail(other.TaskId)).Error).toBeUndefined();
    expect((await detail(TaskId)).Error?.Code).toBe('InvalidParameterValue');
    expect((await detail(TaskId)).Error).toBeUndefined();
  });
});

describe("/_sim/t/behaviour: what T's documents leave open, set each way", () => {
  const setBehaviour = async (b: Record<string, unknown>) =>
    (
      await fetch(`${sim.url}/_sim/t/behaviour`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(b),
      })
    ).json();

  test('sessionIdRepeatCode: the code of a repeated SessionId (still a dedup refusal, still no second job); {} restores the default', async () => {
    expect(await setBehaviour({ sessionIdRepeatCode: 'FailedOperation' })).toEqual({
      listsAigcTasks: true,
      sessionIdRepeatCode: 'FailedOperation',
      silentKlingVersions: [],
    });
    await t('CreateAigcVideoTask', video({ SessionId: 'k-1' }));
    expect(await errCode('CreateAigcVideoTask', video({ SessionId: 'k-1' }))).toBe('FailedOperation');
    expect(await stats()).toMatchObject({ jobsCreated: 1, dedupRefusals: 1, rejected: 0 });
    expect(await setBehaviour({})).toEqual({
      listsAigcTasks: true,
      sessionIdRepeatCode: 'InvalidParameterValue.SessionId',
      silentKlingVersions: [],
    });
  });

  test('silentKlingVersions: the Kling versions named refuse AudioGeneration Enabled; others, and Disabled, are taken; {} restores every Kling', async () => {
    const kling = (version: string, audio: string) =>
      video({ ModelName: 'Kling', ModelVersion: version, OutputConfig: { Duration: 5, Resolution: '720P', AudioGeneration: audio } });
    expect((await t('CreateAigcVideoTask', kling('2.1', 'Enabled'))).TaskId).toBeDefined();
    await setBehaviour({ silentKlingVersions: ['2.1'] });
    expect(await errCode('CreateAigcVideoTask', kling('2.1', 'Enabled'))).toBe('InvalidParameterValue');
    expect((await t('CreateAigcVideoTask', kling('2.1', 'Disabled'))).TaskId).toBeDefined();
    expect((await t('CreateAigcVideoTask', kling('2.5', 'Enabled'))).TaskId).toBeDefined();
    await setBehaviour({});
    expect((await t('CreateAigcVideoTask', kling('2.1', 'Enabled'))).TaskId).toBeDefined();
  });

  test('listsAigcTasks: false → DescribeTasks lists none of the AIGC tasks (DescribeTaskDetail still reads them)', async () => {
    await setBehaviour({ listsAigcTasks: false });
    const { TaskId } = await t('CreateAigcVideoTask', video({ SessionId: 'k-2' }));
    expect((await t('DescribeTasks', { SubAppId: SUB })).TaskSet).toEqual([]);
    expect((await detail(TaskId as string)).AigcVideoTask?.SessionId).toBe('k-2');
  });
});
