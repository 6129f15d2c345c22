/**
 * sim/t/tasks.ts, over real HTTP: the task views (DescribeTaskDetail) as a job runs and ends.
 */
import { detail, finished, image, t, useTSimulator, video } from '../../../support/sim/t';

useTSimulator();

describe('tasks', () => {
  test('DescribeTaskDetail: WAITING/PROCESSING, then FINISH with the result file, SessionId and SessionContext', async () => {
    const { TaskId } = await t(
      'CreateAigcVideoTask',
      video({ SessionId: 'sess-detail', SessionContext: 'ctx-1', OutputConfig: { Duration: 8 } }),
    );
    const early = await detail(TaskId);
    expect(['WAITING', 'PROCESSING']).toContain(early.Status);
    expect(early.TaskType).toBe('AigcVideoTask');
    expect(early.AigcVideoTask.Status).toBe('PROCESSING');
    const done = await finished(TaskId);
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
    expect(task.Input).toEqual({ ModelName: 'GV', ModelVersion: '3.1', Prompt: 'a cat', OutputConfig: { Duration: 8 } });
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
