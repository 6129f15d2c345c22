/**
 * platforms/t/adapter.ts on the wire, against a recording HTTP double: signed creates, polls, error mapping, a
 * TaskId T no longer knows (only a confirmed not-found code), InvalidParameterValue retried, and no cancel; and
 * against the T simulator through the poll activity: a job whose reads are refused with InvalidParameterValue
 * still succeeds, even past UPSTREAM_LOST_GRACE_MS.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../../../activities';
import type { Catalogue } from '../../../../core/catalogue';
import type { UpstreamStatus } from '../../../../core/task';
import { createHttpClient } from '../../../../platforms/http';
import { createPlatformT, T_CONTENT_TYPE } from '../../../../platforms/t/adapter';
import { tc3Sign } from '../../../../platforms/t/signing';
import { normalised } from '../../../support/platform-kit';
import { fakeT, NOW, SETTINGS } from '../../../support/platforms/t';
import { ACC, sim, useTSimulator } from '../../../support/sim/t';

describe('createPlatformT on the wire', () => {
  test('submit posts a signed CreateAigcVideoTask to the endpoint root with SessionId and SessionContext', async () => {
    const { http, sent } = fakeT({ CreateAigcVideoTask: [{ TaskId: '7-AigcVideoTask-1' }] });
    const adapter = createPlatformT(SETTINGS, { http, now: () => NOW });
    const { entry, request } = normalised('video', { model: 'GV-3.1', prompt: 'a fox' });
    await expect(
      adapter.submit(entry, request, { taskId: 'task_1', dedupKey: 'task_1-run', deadlineAt: NOW + 3_600_000 }),
    ).resolves.toEqual({ upstreamTaskId: '7-AigcVideoTask-1' });

    const [req] = sent;
    expect(req!.url).toBe('http://127.0.0.1:8090/');
    expect(req!.headers).toMatchObject({
      'content-type': T_CONTENT_TYPE,
      'x-tc-action': 'CreateAigcVideoTask',
      'x-tc-version': '2018-07-17',
      'x-tc-timestamp': '1767225600',
      'x-tc-region': 'ap-guangzhou',
    });
    expect(req!.body).toEqual({
      SubAppId: 7,
      ModelName: 'GV',
      ModelVersion: '3.1',
      Prompt: 'a fox',
      SessionId: 'task_1-run',
      SessionContext: 'task_1',
    });
    const expected = tc3Sign({
      secretId: 'AKIDtest',
      secretKey: 'key',
      service: 'vod',
      timestamp: 1767225600,
      headers: { 'content-type': T_CONTENT_TYPE, host: '127.0.0.1:8090' },
      payload: JSON.stringify(req!.body),
    });
    expect(req!.headers.authorization).toBe(expected.authorization);
  });

  test('poll sends DescribeTaskDetail with the SubAppId and maps the reply', async () => {
    const { http, sent } = fakeT({ DescribeTaskDetail: [{ Status: 'PROCESSING', AigcVideoTask: { Progress: 30 } }] });
    await expect(createPlatformT(SETTINGS, { http }).poll('video', '7-AigcVideoTask-1')).resolves.toEqual({
      state: 'running',
      progress: 30,
    });
    expect(sent[0]!.body).toEqual({ TaskId: '7-AigcVideoTask-1', SubAppId: 7 });
  });

  test('an auth failure is final; a rate limit is retryable', async () => {
    const { http } = fakeT({
      DescribeTaskDetail: [
        { Error: { Code: 'AuthFailure.SignatureFailure', Message: 'bad' } },
        { Error: { Code: 'RequestLimitExceeded', Message: 'slow' } },
      ],
    });
    const adapter = createPlatformT(SETTINGS, { http });
    await expect(adapter.poll('video', 't')).rejects.toMatchObject({ retryable: false, opts: { reason: 'upstream_auth' } });
    await expect(adapter.poll('video', 't')).rejects.toMatchObject({ retryable: true, opts: { code: 'RequestLimitExceeded' } });
  });

  test('a not-found code, confirmed by a second read, is a lost job (upstream_lost) naming the TaskId', async () => {
    for (const code of ['ResourceNotFound', 'ResourceNotFound.TaskNotExist']) {
      const { http, sent } = fakeT({
        DescribeTaskDetail: [{ Error: { Code: code, Message: 'task not exist' } }, { Error: { Code: code, Message: 'task not exist' } }],
      });
      await expect(createPlatformT(SETTINGS, { http }).poll('video', '7-AigcVideoTask-9')).rejects.toMatchObject({
        retryable: false,
        opts: { reason: 'upstream_lost', code },
        message: expect.stringContaining('7-AigcVideoTask-9'),
      });
      expect(sent.map((r) => r.headers['x-tc-action'])).toEqual(['DescribeTaskDetail', 'DescribeTaskDetail']);
    }
  });

  test('a not-found answer the second read contradicts is not a loss: the job is read as it is', async () => {
    const { http } = fakeT({
      DescribeTaskDetail: [
        { Error: { Code: 'ResourceNotFound.TaskNotExist', Message: 'not yet' } },
        { Status: 'PROCESSING', AigcVideoTask: { Progress: 10 } },
      ],
    });
    await expect(createPlatformT(SETTINGS, { http }).poll('video', '7-AigcVideoTask-9')).resolves.toEqual({
      state: 'running',
      progress: 10,
    });
  });

  // InvalidParameterValue is Tencent Cloud's generic parameter error, not proof that the job is gone.
  test.each(['InvalidParameterValue', 'InvalidParameterValue.TaskId'])(
    '%s on DescribeTaskDetail is retried, never upstream_lost nor a final failure',
    async (code) => {
      const { http, sent } = fakeT({
        DescribeTaskDetail: [
          { Error: { Code: code, Message: 'The value of parameter `TaskId` is not valid.' } },
          { Status: 'FINISH', AigcVideoTask: { ErrCode: 0, Output: { FileInfos: [{ FileUrl: 'https://t.test/v.mp4' }] } } },
        ],
      });
      const adapter = createPlatformT(SETTINGS, { http });
      const err = await adapter.poll('video', '7-AigcVideoTask-9').catch((e: unknown) => e);
      expect(err).toMatchObject({ retryable: true, opts: { reason: 'upstream_unavailable', code } });
      expect(sent).toHaveLength(1);
      // The next poll reads the job as it is.
      await expect(adapter.poll('video', '7-AigcVideoTask-9')).resolves.toMatchObject({
        state: 'success',
        outputs: [{ url: 'https://t.test/v.mp4' }],
      });
    },
  );

  test('other parameter errors on DescribeTaskDetail keep their meaning (a SubAppId of another account is final)', async () => {
    const { http } = fakeT({ DescribeTaskDetail: [{ Error: { Code: 'InvalidParameterValue.SubAppId', Message: 'bad app' } }] });
    await expect(createPlatformT(SETTINGS, { http }).poll('video', 't')).rejects.toMatchObject({
      retryable: false,
      opts: { reason: 'invalid_request' },
    });
  });

  test('no cancel: platform T cannot cancel an AIGC task', () => {
    expect(createPlatformT(SETTINGS, { http: fakeT({}).http }).cancel).toBeUndefined();
  });
});

describe('against the T simulator, through the poll activity', () => {
  useTSimulator();

  test('a job whose first reads answer InvalidParameterValue is polled on and succeeds, even past the lost-job grace', async () => {
    const http = createHttpClient({ connectTimeoutMs: 2_000, responseTimeoutMs: 5_000 });
    try {
      const adapter = createPlatformT(
        { endpoint: sim.url, secretId: ACC.secretId, secretKey: ACC.secretKey, subAppId: ACC.subAppId },
        { http },
      );
      const { entry, request } = normalised('video', {
        model: 'GV-3.1',
        prompt: 'a heron [sim:detail-error=InvalidParameterValue x3] [sim:duration=100]',
        duration: 8,
      });
      const { upstreamTaskId } = await adapter.submit(entry, request, {
        taskId: 'task_heron',
        dedupKey: 'task_heron-run',
        deadlineAt: Date.now() + 3_600_000,
      });
      // No grace at all: before this change, the first refusal failed the task as upstream_lost.
      const { pollGeneration } = createActivities({
        catalogue: {} as Catalogue,
        adapters: { T: adapter },
        timing: {} as never,
        upstreamLostGraceMs: 0,
        results: {} as never,
      });
      const outcomes: string[] = [];
      for (let i = 0; i < 40; i++) {
        const answer = await new MockActivityEnvironment()
          .run(pollGeneration, {
            platform: 'T',
            kind: 'video' as const,
            upstreamTaskId,
            account: 'default',
            submittedAt: Date.now() - 600_000,
          })
          .then(
            (s) => (s as UpstreamStatus).state as string,
            (e: unknown) => (e instanceof ApplicationFailure ? `${e.type}${e.nonRetryable ? ' (final)' : ''}` : String(e)),
          );
        outcomes.push(answer);
        if (answer === 'success' || answer.includes('final')) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(outcomes.slice(0, 3)).toEqual(['upstream_unavailable', 'upstream_unavailable', 'upstream_unavailable']);
      expect(outcomes.at(-1)).toBe('success');
      expect(outcomes.filter((o) => o.includes('final'))).toEqual([]);
    } finally {
      await http.close();
    }
  });
});
