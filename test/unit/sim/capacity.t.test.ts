/**
 * sim/capacity.ts through platform T, over real HTTP: at T's default of one task at a time per account, a second
 * create still gets a TaskId, and that task fails with ErrCodeExt RequestLimitExceeded, as DescribeTaskDetail, the
 * task list and the completion events (PULL) report any failed task; it holds no slot. Another account has its own
 * slot; a limit set for the account lets it run more.
 */
import { simTAccount } from '../../../sim/accounts';
import { advanceJob, capacityControl } from '../../support/simulator';
import { ACC, detail, finished, signedBy, sim, stats, SUB, t, useTSimulator, video } from '../../support/sim/t';
import { waitFor } from '../../support/wait-for';

useTSimulator();

const capacity = capacityControl(sim, 'T');
const held = (prompt: string) => t('CreateAigcVideoTask', video({ Prompt: `${prompt} [sim:hold]` }));

test("T's default is one task at a time per account: a second task is created, then fails with RequestLimitExceeded", async () => {
  expect((await capacity.view()).default_max_concurrent).toBe(1);
  await t('ModifyEventConfig', { SubAppId: SUB, Mode: 'PULL' });
  const first = await held('first');
  expect(first.TaskId).toBeDefined();
  const second = await t('CreateAigcVideoTask', video({ Prompt: 'second', SessionContext: 'ctx-second' }));
  expect(second.Error).toBeUndefined();
  expect(second.TaskId).toBeDefined();

  const failed = await finished(second.TaskId);
  expect(failed.AigcVideoTask).toMatchObject({ Status: 'FINISH', ErrCodeExt: 'RequestLimitExceeded' });
  expect(failed.AigcVideoTask.ErrCode).not.toBe(0);
  expect((await detail(first.TaskId)).Status).toBe('WAITING');

  const listed = (await t('DescribeTasks', { SubAppId: SUB, Status: 'FINISH' })).TaskSet.map((x: any) => x.TaskId);
  expect(listed).toEqual([second.TaskId]);
  const event = await waitFor(async () => {
    const r = await t('PullEvents', { SubAppId: SUB });
    return r.EventSet.find((e: any) => e.AigcVideoCompleteEvent?.TaskId === second.TaskId);
  });
  expect(event.AigcVideoCompleteEvent).toMatchObject({ ErrCodeExt: 'RequestLimitExceeded', SessionContext: 'ctx-second' });

  expect(await capacity.account(ACC.secretId)).toMatchObject({
    max_concurrent: 1,
    running: 1,
    peak_running: 1,
    created_jobs: 2,
    refused_creates: 0,
    over_limit_jobs: 1,
  });
  expect((await stats()).jobsCreated).toBe(2);
  // The failed task never held a slot: only the first one has an interval.
  expect((await capacity.intervals(ACC.secretId)).body.map((i: any) => i.id)).toEqual([first.TaskId]);
});

test('once the running task ends, the next one runs and succeeds', async () => {
  const first = await held('first');
  await advanceJob(sim, first.TaskId, 'done');
  expect((await finished(first.TaskId)).AigcVideoTask.ErrCodeExt).toBe('');
  const next = await t('CreateAigcVideoTask', video({ Prompt: 'next' }));
  const done = await finished(next.TaskId);
  expect(done.AigcVideoTask).toMatchObject({ Status: 'FINISH', ErrCode: 0, ErrCodeExt: '' });
  expect(await capacity.account(ACC.secretId)).toMatchObject({ peak_running: 1, over_limit_jobs: 0, created_jobs: 2 });
});

test('another account has a slot of its own; a limit raised for one account lets it run more at once', async () => {
  const other = simTAccount('second');
  await held('default account');
  const elsewhere = await t('CreateAigcVideoTask', video({ SubAppId: other.subAppId, Prompt: 'other [sim:hold]' }), signedBy(other));
  expect(elsewhere.Error).toBeUndefined();

  expect((await capacity.set({ max_concurrent: 2, account: ACC.secretId })).status).toBe(200);
  const more = await held('a second at once');
  await advanceJob(sim, more.TaskId, 'done');
  expect((await finished(more.TaskId)).AigcVideoTask.ErrCodeExt).toBe('');
  expect((await capacity.view()).accounts.map((a) => [a.account, a.max_concurrent, a.over_limit_jobs])).toEqual(
    [
      [ACC.secretId, 2, 0],
      [other.secretId, 1, 0],
    ].sort(),
  );
});
