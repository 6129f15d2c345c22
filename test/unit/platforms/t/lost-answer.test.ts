/**
 * platforms/t/lost-answer.ts: finding the first job of a SessionId through DescribeTasks (and DescribeTaskDetail
 * where the listing lacks it), and the submit activity recovering that job when a retry is refused for its
 * repeated SessionId.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { AccountPool } from '../../../../activities/accounts';
import { createSubmitActivity } from '../../../../activities/submit';
import type { HttpClient } from '../../../../platforms/http';
import { createPlatformT } from '../../../../platforms/t/adapter';
import { LOOKUP_CLOCK_SKEW_MS } from '../../../../platforms/t/lost-answer';
import { toTListCall } from '../../../../platforms/t/request-body';
import { checkShape, DESCRIBE_TASKS } from '../../../../sim/t/request-shape';
import { catalogue, normalised } from '../../../support/platform-kit';
import { fakeT, NOW, SETTINGS, SUB } from '../../../support/platforms/t';
import { SUBMIT_TIMING } from '../../../support/account-pools';
import { runSubmitAttempts, useLostAnswerSimulator } from '../../../support/lost-answers';

describe('findSubmitted: the first job of a SessionId, through DescribeTasks', () => {
  const since = NOW - 60_000;
  const ctx = { taskId: 'task_1', dedupKey: 'task_1-runA', deadlineAt: NOW + 3_600_000, since };
  const entryOf = (kind: 'video' | 'image', model: string) => normalised(kind, { model, prompt: 'x' });
  const info = (TaskId: string, SessionId: string | undefined, TaskType = 'AigcVideoTask') => ({
    TaskId,
    TaskType,
    Status: 'PROCESSING',
    CreateTime: '2026-01-01T00:00:00Z',
    ...(SessionId !== undefined ? { SessionId } : {}),
  });

  test('lists the submit window oldest first and adopts the task with this SessionId', async () => {
    const { http, sent } = fakeT({
      DescribeTasks: [
        {
          TaskSet: [info('7-AigcVideoTask-other', 'task_9-runZ'), info('7-Transcode-x', '', 'Transcode')],
          ScrollToken: '7-AigcVideoTask-mine',
        },
        { TaskSet: [info('7-AigcVideoTask-mine', 'task_1-runA')], ScrollToken: '' },
      ],
    });
    const { entry, request } = entryOf('video', 'GV-3.1');
    await expect(createPlatformT(SETTINGS, { http, now: () => NOW }).findSubmitted!(entry, request, ctx)).resolves.toEqual({
      upstreamTaskId: '7-AigcVideoTask-mine',
    });
    expect(sent.map((s) => s.action)).toEqual(['DescribeTasks', 'DescribeTasks']);
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
    expect(sent[0]!.body).toEqual({
      SubAppId: 7,
      CreateTime: { After: iso(since - LOOKUP_CLOCK_SKEW_MS), Before: iso(NOW + LOOKUP_CLOCK_SKEW_MS) },
      Sort: { Field: 'CreateTime', Order: 'Asc' },
      Limit: 100,
    });
    expect(sent[1]!.body).toEqual({ ...sent[0]!.body, ScrollToken: '7-AigcVideoTask-mine' });
  });

  test('another SessionId (another task, or another run of this one) is never adopted', async () => {
    const { http } = fakeT({
      DescribeTasks: [{ TaskSet: [info('7-AigcVideoTask-1', 'task_1-runB'), info('7-AigcVideoTask-2', 'task_2-runA')], ScrollToken: '' }],
    });
    const { entry, request } = entryOf('video', 'GV-3.1');
    await expect(createPlatformT(SETTINGS, { http, now: () => NOW }).findSubmitted!(entry, request, ctx)).resolves.toBeUndefined();
  });

  test('a video task is not adopted for an image submit with the same SessionId', async () => {
    const { http } = fakeT({ DescribeTasks: [{ TaskSet: [info('7-AigcVideoTask-1', 'task_1-runA')], ScrollToken: '' }] });
    const { entry, request } = entryOf('image', 'GEM-3.0');
    await expect(createPlatformT(SETTINGS, { http, now: () => NOW }).findSubmitted!(entry, request, ctx)).resolves.toBeUndefined();
  });

  test('a listing without SessionId is confirmed through DescribeTaskDetail', async () => {
    const { http, sent } = fakeT({
      DescribeTasks: [{ TaskSet: [info('7-AigcVideoTask-1', undefined), info('7-AigcVideoTask-2', undefined)], ScrollToken: '' }],
      DescribeTaskDetail: (b) => ({
        Status: 'PROCESSING',
        TaskType: 'AigcVideoTask',
        AigcVideoTask: { TaskId: b.TaskId, SessionId: b.TaskId === '7-AigcVideoTask-2' ? 'task_1-runA' : 'task_5-runQ' },
      }),
    });
    const { entry, request } = entryOf('video', 'GV-3.1');
    await expect(createPlatformT(SETTINGS, { http, now: () => NOW }).findSubmitted!(entry, request, ctx)).resolves.toEqual({
      upstreamTaskId: '7-AigcVideoTask-2',
    });
    expect(sent.map((s) => `${s.action} ${s.body.TaskId ?? ''}`.trim())).toEqual([
      'DescribeTasks',
      'DescribeTaskDetail 7-AigcVideoTask-1',
      'DescribeTaskDetail 7-AigcVideoTask-2',
    ]);
  });

  test('a list the platform cannot answer is an error (retried), not "no job"', async () => {
    const { http } = fakeT({ DescribeTasks: [{ Error: { Code: 'InternalError', Message: 'down' } }] });
    const { entry, request } = entryOf('video', 'GV-3.1');
    await expect(createPlatformT(SETTINGS, { http, now: () => NOW }).findSubmitted!(entry, request, ctx)).rejects.toMatchObject({
      retryable: true,
    });
  });

  test("the DescribeTasks body is the SDK's DescribeTasksRequest (the simulator's shape check accepts it)", () => {
    const call = toTListCall(SUB, { after: '2026-01-01T00:00:00Z', before: '2026-01-01T01:00:00Z' }, 'tok');
    expect(() => checkShape(call.body, DESCRIBE_TASKS)).not.toThrow();
    expect(call).toEqual({
      action: 'DescribeTasks',
      body: {
        SubAppId: SUB,
        CreateTime: { After: '2026-01-01T00:00:00Z', Before: '2026-01-01T01:00:00Z' },
        Sort: { Field: 'CreateTime', Order: 'Asc' },
        Limit: 100,
        ScrollToken: 'tok',
      },
    });
  });
});

describe('the submit activity with the T adapter: a retry refused for its repeated SessionId continues with the first job', () => {
  const submitActivity = (http: HttpClient) => {
    const pool = AccountPool.single('T', createPlatformT(SETTINGS, { http, now: () => NOW }));
    return createSubmitActivity({ catalogue, timingFor: () => SUBMIT_TIMING, poolFor: () => pool, now: () => NOW });
  };
  const first = { TaskId: '7-AigcVideoTask-first', TaskType: 'AigcVideoTask', Status: 'PROCESSING', SessionId: 'task_1-runA' };

  // The code of a repeated SessionId is undocumented: recovery must not depend on it.
  test.each(['InvalidParameterValue.SessionId', 'FailedOperation', 'InvalidParameter'])(
    'refused with %s → the lookup recovers the TaskId; no second job, no failed task',
    async (code) => {
      let lists = 0;
      const { http, sent } = fakeT({
        // The lookup before re-sending misses (a listing lagging behind the create), the one after the refusal finds it.
        DescribeTasks: () => (++lists === 1 ? { TaskSet: [], ScrollToken: '' } : { TaskSet: [first], ScrollToken: '' }),
        CreateAigcVideoTask: [{ Error: { Code: code, Message: 'A request with the same SessionId was made within the last three days.' } }],
      });
      const submitGeneration = submitActivity(http);
      const { request } = normalised('video', { model: 'GV-3.1', prompt: 'x' });
      const env = new MockActivityEnvironment({ attempt: 2, scheduledTimestampMs: NOW - 60_000 });
      await expect(
        env.run(submitGeneration, { platform: 'T', request, dedupKey: 'task_1-runA', taskId: 'task_1', deadlineAt: NOW + 60_000 }),
      ).resolves.toEqual({
        upstreamTaskId: '7-AigcVideoTask-first',
        // The one-account shorthand's account (activities/accounts.ts), recorded on the task like any account.
        account: 'default',
        // A re-submission's known deadline stays; the timing is the worker's.
        timing: SUBMIT_TIMING,
        deadlineAt: NOW + 60_000,
      });
      expect(sent.map((r) => r.action)).toEqual(['DescribeTasks', 'CreateAigcVideoTask', 'DescribeTasks']);
    },
  );

  test('the first attempt never looks up (nothing can have reached T before it), and a refusal stays a refusal', async () => {
    const { http, sent } = fakeT({ CreateAigcVideoTask: [{ Error: { Code: 'InvalidParameterValue', Message: 'bad' } }] });
    const { request } = normalised('video', { model: 'GV-3.1', prompt: 'x' });
    const env = new MockActivityEnvironment({ attempt: 1, scheduledTimestampMs: NOW });
    await expect(
      env.run(submitActivity(http), { platform: 'T', request, dedupKey: 'k', taskId: 't', deadlineAt: NOW + 60_000 }),
    ).rejects.toMatchObject({
      retryable: false,
      opts: { reason: 'invalid_request' },
    });
    expect(sent.map((r) => r.action)).toEqual(['CreateAigcVideoTask']);
  });
});

/**
 * What T's documents leave open, each way it could be (the simulator's /_sim/t/behaviour): whether
 * DescribeTasks lists AIGC tasks at all, and which code refuses a repeated SessionId. A create's answer is lost
 * (`[sim:submit=drop]`: T makes the job, the answer never arrives); in every setting T makes exactly one job, the
 * task continues with it where the listing shows it, and otherwise ends `upstream_lost` with what an operator
 * needs to find it — never with T's refusal.
 */
describe('a lost create answer on T, against the simulator set each way T could behave', () => {
  const kit = useLostAnswerSimulator(['/_sim/t/reset']);
  const REPEAT_CODES = ['InvalidParameterValue.SessionId', 'InvalidParameter', 'FailedOperation', 'ResourceInUse'];
  const input = () => {
    const { request } = normalised('video', { model: 'GV-3.1', prompt: 'a heron [sim:submit=dropx1]' });
    return { platform: 'T', request, dedupKey: 'task_lost-run1', taskId: 'task_lost', deadlineAt: Date.now() + 3_600_000 };
  };

  test.each(REPEAT_CODES)('DescribeTasks lists AIGC tasks, repeat refused with %s: the job is adopted, one create sent', async (code) => {
    await kit.post('/_sim/t/behaviour', { listsAigcTasks: true, sessionIdRepeatCode: code });
    const outcome = await runSubmitAttempts(kit.adapter('T'), input());
    const jobs = (await (await fetch(`${kit.sim().url}/_sim/jobs?platform=T`)).json()) as { id: string }[];
    expect(jobs).toHaveLength(1);
    expect(outcome.result).toMatchObject({ upstreamTaskId: jobs[0]!.id, account: 'default' });
    expect(await kit.stats('T')).toMatchObject({ jobsCreated: 1, submitRequests: 1, dedupRefusals: 0 });
    expect(outcome.reports).toEqual([]);
  });

  test.each(REPEAT_CODES)(
    'DescribeTasks lists no AIGC task, repeat refused with %s: T keeps one job, the search is bounded, the task ends upstream_lost (never the refusal)',
    async (code) => {
      await kit.post('/_sim/t/behaviour', { listsAigcTasks: false, sessionIdRepeatCode: code });
      const outcome = await runSubmitAttempts(kit.adapter('T'), input(), { lostAnswerSearchMs: 60_000, clockStepMs: 20_000 });
      const stats = await kit.stats('T');
      // One job; the re-send T refused for its SessionId; from then on only looks (no further create).
      expect(stats).toMatchObject({ jobsCreated: 1, submitRequests: 2, dedupRefusals: 1 });
      expect(outcome.error?.opts).toMatchObject({ retryable: false, reason: 'upstream_lost' });
      // Looking went on until the bound (attempt 2 refused, 3 and 4 looked within 60 s, 5 passed it).
      expect(outcome.attempts).toBe(5);
      const jobs = (await (await fetch(`${kit.sim().url}/_sim/jobs?platform=T`)).json()) as { id: string }[];
      expect(jobs).toHaveLength(1);
      const [report] = outcome.reports;
      expect(outcome.reports).toHaveLength(1);
      expect(report).toMatchObject({
        platform: 'T',
        reason: 'not_found_after_refusal',
        taskId: 'task_lost',
        account: 'SubAppId 1500000001',
        dedupKey: 'task_lost-run1',
      });
      expect(report!.requestDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(Date.parse(report!.window.from)).toBeLessThan(Date.parse(report!.window.to));
      // The task's error says all of it (it is what GET /v1/generations/:id shows).
      for (const part of ['SubAppId 1500000001', 'task_lost-run1', report!.requestDigest, report!.window.from])
        expect(outcome.error!.message).toContain(part);
    },
  );
});
