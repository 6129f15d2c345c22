/**
 * platforms/t/adapter.ts on the wire, against a recording HTTP double: signed creates, polls, error mapping, a
 * TaskId T no longer knows, and no cancel.
 */
import { createPlatformT, T_CONTENT_TYPE } from '../../../../platforms/t/adapter';
import { tc3Sign } from '../../../../platforms/t/signing';
import { normalised } from '../../../support/platform-kit';
import { fakeT, NOW, SETTINGS } from '../../../support/platforms/t';

describe('createPlatformT on the wire', () => {
  test('submit posts a signed CreateAigcVideoTask to the endpoint root with SessionId and SessionContext', async () => {
    const { http, sent } = fakeT({ CreateAigcVideoTask: [{ TaskId: '7-AigcVideoTask-1' }] });
    const adapter = createPlatformT(SETTINGS, { http, now: () => NOW });
    const { entry, request } = normalised('video', { model: 'GV-3.1', prompt: 'a fox' });
    await expect(adapter.submit(entry, request, { taskId: 'task_1', dedupKey: 'task_1-run', deadlineAt: NOW + 3_600_000 })).resolves.toEqual({ upstreamTaskId: '7-AigcVideoTask-1' });

    const [req] = sent;
    expect(req!.url).toBe('http://127.0.0.1:8090/');
    expect(req!.headers).toMatchObject({ 'content-type': T_CONTENT_TYPE, 'x-tc-action': 'CreateAigcVideoTask', 'x-tc-version': '2018-07-17', 'x-tc-timestamp': '1767225600', 'x-tc-region': 'ap-guangzhou' });
    expect(req!.body).toEqual({ SubAppId: 7, ModelName: 'GV', ModelVersion: '3.1', Prompt: 'a fox', SessionId: 'task_1-run', SessionContext: 'task_1' });
    const expected = tc3Sign({ secretId: 'AKIDtest', secretKey: 'key', service: 'vod', timestamp: 1767225600, headers: { 'content-type': T_CONTENT_TYPE, host: '127.0.0.1:8090' }, payload: JSON.stringify(req!.body) });
    expect(req!.headers.authorization).toBe(expected.authorization);
  });

  test('poll sends DescribeTaskDetail with the SubAppId and maps the reply', async () => {
    const { http, sent } = fakeT({ DescribeTaskDetail: [{ Status: 'PROCESSING', AigcVideoTask: { Progress: 30 } }] });
    await expect(createPlatformT(SETTINGS, { http }).poll('video', '7-AigcVideoTask-1')).resolves.toEqual({ state: 'running', progress: 30 });
    expect(sent[0]!.body).toEqual({ TaskId: '7-AigcVideoTask-1', SubAppId: 7 });
  });

  test('an auth failure is final; a rate limit is retryable', async () => {
    const { http } = fakeT({ DescribeTaskDetail: [{ Error: { Code: 'AuthFailure.SignatureFailure', Message: 'bad' } }, { Error: { Code: 'RequestLimitExceeded', Message: 'slow' } }] });
    const adapter = createPlatformT(SETTINGS, { http });
    await expect(adapter.poll('video', 't')).rejects.toMatchObject({ retryable: false, opts: { reason: 'upstream_auth' } });
    await expect(adapter.poll('video', 't')).rejects.toMatchObject({ retryable: true, opts: { code: 'RequestLimitExceeded' } });
  });

  test('a TaskId T no longer knows is a lost job (upstream_lost), whichever of the likely codes says so', async () => {
    const { http } = fakeT({
      DescribeTaskDetail: [
        { Error: { Code: 'InvalidParameterValue', Message: 'The value of parameter `TaskId` is not valid.' } },
        { Error: { Code: 'ResourceNotFound.TaskNotExist', Message: 'task not exist' } },
      ],
    });
    const adapter = createPlatformT(SETTINGS, { http });
    for (const code of ['InvalidParameterValue', 'ResourceNotFound.TaskNotExist']) {
      await expect(adapter.poll('video', '7-AigcVideoTask-9')).rejects.toMatchObject({ retryable: false, opts: { reason: 'upstream_lost', code }, message: expect.stringContaining('7-AigcVideoTask-9') });
    }
  });

  test('no cancel: platform T cannot cancel an AIGC task', () => {
    expect(createPlatformT(SETTINGS, { http: fakeT({}).http }).cancel).toBeUndefined();
  });
});
