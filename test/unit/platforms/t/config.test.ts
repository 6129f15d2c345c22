/**
 * platforms/t/config.ts: the worker variables (SubAppId required, the storage mode) and the simulated account.
 */
import { ConfigError } from '../../../../core/config';
import { tWorker } from '../../../../platforms/t/config';
import { SIM_ACCOUNTS } from '../../../../sim/accounts';
import { normalised } from '../../../support/platform-kit';
import { fakeT, NOW } from '../../../support/platforms/t';

describe('configuration', () => {
  const sim = { simulate: true, simBaseUrl: 'http://127.0.0.1:8090' };
  test('SubAppId is required when T is configured: a start-up error naming PLATFORM_T_SUBAPP_ID', () => {
    expect(() => tWorker({ PLATFORM_T_SECRET_ID: 'AKID', PLATFORM_T_SECRET_KEY: 'k' }, sim)).toThrow(ConfigError);
    expect(() => tWorker({ PLATFORM_T_SECRET_ID: 'AKID', PLATFORM_T_SECRET_KEY: 'k' }, sim)).toThrow(/PLATFORM_T_SUBAPP_ID/);
    expect(tWorker({ PLATFORM_T_SECRET_ID: 'AKID', PLATFORM_T_SECRET_KEY: 'k', PLATFORM_T_SUBAPP_ID: '1500000001' }, sim)).toMatchObject({
      simulated: false,
      endpoint: 'https://vod.tencentcloudapi.com',
    });
  });

  test('PLATFORM_T_STORAGE_MODE is Temporary or Permanent, and Permanent reaches every create', async () => {
    expect(() => tWorker({ PLATFORM_T_STORAGE_MODE: 'Forever' }, sim)).toThrow(/PLATFORM_T_STORAGE_MODE/);
    const { http, sent } = fakeT({ CreateAigcImageTask: [{ TaskId: 't' }] });
    const adapter = tWorker({ PLATFORM_T_STORAGE_MODE: 'Permanent' }, sim).createAdapter({ http });
    const { entry, request } = normalised('image', { model: 'GEM-2.5', prompt: 'x' });
    await adapter.submit(entry, request, { taskId: 'task_1', dedupKey: 'k', deadlineAt: NOW });
    expect(sent[0]!.body.OutputConfig).toEqual({ StorageMode: 'Permanent' });
    expect(sent[0]!.body.SubAppId).toBe(SIM_ACCOUNTS.T.subAppId);
  });

  test("the simulated account is the simulator's test account", () => {
    const { http, sent } = fakeT({ DescribeTaskDetail: [{ Status: 'WAITING' }] });
    const adapter = tWorker({}, sim).createAdapter({ http });
    return adapter.poll('video', 't').then(() => {
      expect(sent[0]!.body.SubAppId).toBe(SIM_ACCOUNTS.T.subAppId);
      expect(sent[0]!.headers.authorization).toContain(`Credential=${SIM_ACCOUNTS.T.secretId}/`);
    });
  });
});
