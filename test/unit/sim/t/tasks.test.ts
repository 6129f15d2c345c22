/**
 * sim/t/tasks.ts, over real HTTP: the task views (DescribeTaskDetail) as a job runs and ends.
 */
import { advanceJob } from '../../../support/simulator';
import { detail, finished, image, sim, t, useTSimulator, video } from '../../../support/sim/t';

useTSimulator();

describe('tasks', () => {
  test('DescribeTaskDetail: WAITING, then PROCESSING, then FINISH with the result file, SessionId and SessionContext', async () => {
    // A job held in each phase until the test moves it on: each read is of the phase it names, however slow the
    // machine (a timed job of 400 ms may be past WAITING before the first read, or done before the second).
    const { TaskId } = await t(
      'CreateAigcVideoTask',
      video({ Prompt: 'a cat [sim:hold]', SessionId: 'sess-detail', SessionContext: 'ctx-1', OutputConfig: { Duration: 8 } }),
    );
    const waiting = await detail(TaskId);
    expect([waiting.Status, waiting.TaskType, waiting.AigcVideoTask.Status]).toEqual(['WAITING', 'AigcVideoTask', 'PROCESSING']);
    await advanceJob(sim, TaskId, 'running');
    const processing = await detail(TaskId);
    expect([processing.Status, processing.AigcVideoTask.Status]).toEqual(['PROCESSING', 'PROCESSING']);
    expect(processing.FinishTime).toBe('');
    await advanceJob(sim, TaskId, 'done');
    const done = await detail(TaskId);
    const task = done.AigcVideoTask;
    expect(task).toMatchObject({
      TaskId,
      Status: 'FINISH',
      ErrCode: 0,
      ErrCodeExt: '',
      Progress: 100,
      SessionId: 'sess-detail',
      SessionContext: 'ctx-1',
    });
    expect(task.Input).toEqual({ ModelName: 'GV', ModelVersion: '3.1', Prompt: 'a cat [sim:hold]', OutputConfig: { Duration: 8 } });
    const [file] = task.Output.FileInfos;
    expect(file).toMatchObject({ StorageMode: 'Temporary', FileType: 'mp4' });
    expect(Date.parse(file.ExpireTime) - Date.now()).toBeGreaterThan(6 * 24 * 3600_000);
    expect(task.Output.Usage).toEqual({ OutputSeconds: 8, TotalSeconds: 8 });
    expect((await fetch(file.FileUrl)).headers.get('content-type')).toBe('video/mp4');
    expect(done.FinishTime).not.toBe('');
  });

  test('image task with OutputImageCount returns that many files', async () => {
    const { TaskId } = await t(
      'CreateAigcImageTask',
      image({ ModelName: 'Kling', ModelVersion: '2.1', OutputConfig: { OutputImageCount: 3 } }),
    );
    const done = await finished(TaskId);
    expect(done.TaskType).toBe('AigcImageTask');
    expect(done.AigcImageTask.Output.FileInfos).toHaveLength(3);
  });

  test('a timed job ends by itself: FINISH once its duration has passed', async () => {
    const { TaskId } = await t('CreateAigcVideoTask', video({ Prompt: 'a cat on its own' }));
    expect((await finished(TaskId)).AigcVideoTask).toMatchObject({ Status: 'FINISH', ErrCode: 0 });
  });

  test('the control surface: advancing an unknown job is 404, to an unknown phase 400', async () => {
    expect(
      (
        await fetch(`${sim.url}/_sim/jobs/nope/advance`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"to":"done"}',
        })
      ).status,
    ).toBe(404);
    const { TaskId } = await t('CreateAigcVideoTask', video({ Prompt: 'a cat [sim:hold]' }));
    expect(
      (
        await fetch(`${sim.url}/_sim/jobs/${TaskId}/advance`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"to":"later"}',
        })
      ).status,
    ).toBe(400);
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
