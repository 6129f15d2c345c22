/**
 * sim/t/index.ts, the envelope over real HTTP: T's authentication errors (signature, clock, credentials, headers)
 * and the answer envelope every reply shares; several accounts, each with its own SubAppId and tasks, and account
 * faults (POST /_sim/t/account-faults).
 */
import { simTAccount } from '../../../../sim/accounts';
import { accountFaults, ACC, type CallOptions, detail, errCode, signedBy, sim, SUB, t, useTSimulator, video } from '../../../support/sim/t';

useTSimulator();

describe('authentication and envelope', () => {
  const ok = { SubAppId: SUB };

  test('a correctly signed request is accepted', async () => {
    const r = await t('DescribeEventConfig', ok);
    expect(r.Error).toBeUndefined();
    expect(r.Mode).toBe('PUSH');
  });

  test.each<[string, CallOptions, string]>([
    ['wrong SecretKey', { secretKey: 'not-the-key' }, 'AuthFailure.SignatureFailure'],
    ['unknown SecretId', { secretId: 'AKIDsomeoneelse' }, 'AuthFailure.SecretIdNotFound'],
    ['timestamp 10 minutes old', { timestamp: Math.floor(Date.now() / 1000) - 600 }, 'AuthFailure.SignatureExpire'],
    ['scope of another service', { service: 'cvm' }, 'AuthFailure.SignatureFailure'],
    ['body changed after signing', { sentBody: JSON.stringify({ SubAppId: SUB, X: 1 }) }, 'AuthFailure.SignatureFailure'],
    ['no Authorization', { tamper: (h) => delete h.Authorization }, 'AuthFailure.InvalidAuthorization'],
    ['not TC3', { tamper: (h) => (h.Authorization = 'HMAC-SHA1 nonsense') }, 'AuthFailure.InvalidAuthorization'],
    [
      'SignedHeaders without host',
      { tamper: (h) => (h.Authorization = h.Authorization!.replace('content-type;host', 'content-type')) },
      'AuthFailure.InvalidAuthorization',
    ],
    ['no X-TC-Timestamp', { tamper: (h) => delete h['X-TC-Timestamp'] }, 'MissingParameter'],
    ['another API version', { version: '2019-06-12' }, 'NoSuchVersion'],
  ])('%s → %s (HTTP 200)', async (_name, opts, code) => {
    expect(await errCode('DescribeEventConfig', ok, opts)).toBe(code);
  });

  test('unknown action → InvalidAction; missing action → MissingParameter', async () => {
    expect(await errCode('DescribeEverything', ok)).toBe('InvalidAction');
    expect(await errCode('', ok)).toBe('MissingParameter');
  });
});

describe('several accounts (sim/accounts.ts simTAccount): each with its own SubAppId and tasks, and account faults', () => {
  const one = simTAccount('one');
  const two = simTAccount('two');

  test("each further account has its own SecretKey and SubAppId, derived from its name, none the default account's", () => {
    expect(simTAccount('one')).toEqual(one);
    expect(new Set([one.subAppId, two.subAppId, SUB]).size).toBe(3);
    expect(one.secretId).toBe('AKIDsim-one');
    expect(() => simTAccount('no spaces')).toThrow(/name/);
  });

  test('an account names only its own SubAppId; its task is read through it, and is not found through another account', async () => {
    const created = await t('CreateAigcVideoTask', video({ SubAppId: one.subAppId }), signedBy(one));
    expect(created.TaskId).toMatch(new RegExp(`^${one.subAppId}-`));
    // Signed by one, naming two's (or the default's) SubAppId: refused as T refuses a SubAppId of another account.
    expect(await errCode('CreateAigcVideoTask', video({ SubAppId: two.subAppId }), signedBy(one))).toBe('InvalidParameterValue.SubAppId');
    expect(await errCode('DescribeTaskDetail', { SubAppId: SUB, TaskId: created.TaskId }, signedBy(one))).toBe(
      'InvalidParameterValue.SubAppId',
    );

    expect((await t('DescribeTaskDetail', { SubAppId: one.subAppId, TaskId: created.TaskId }, signedBy(one))).AigcVideoTask).toBeDefined();
    expect(await errCode('DescribeTaskDetail', { SubAppId: two.subAppId, TaskId: created.TaskId }, signedBy(two))).toBe(
      'InvalidParameterValue',
    );
    expect((await detail(created.TaskId as string)).Error?.Code).toBe('InvalidParameterValue');
    expect((await t('DescribeTasks', { SubAppId: two.subAppId }, signedBy(two))).TaskSet).toEqual([]);
    expect((await t('DescribeTasks', { SubAppId: one.subAppId }, signedBy(one))).TaskSet.map((x: { TaskId: string }) => x.TaskId)).toEqual([
      created.TaskId,
    ]);
  });

  test('a further account signs with its own SecretKey: another key is a signature failure, an unknown SecretId is not found', async () => {
    expect(await errCode('DescribeTasks', { SubAppId: one.subAppId }, { secretId: one.secretId, secretKey: two.secretKey })).toBe(
      'AuthFailure.SignatureFailure',
    );
    expect(await errCode('DescribeTasks', { SubAppId: SUB }, { secretId: 'AKIDnobody', secretKey: ACC.secretKey })).toBe(
      'AuthFailure.SecretIdNotFound',
    );
  });

  test('account faults: one account refused (its creates only, by default) while the other goes on; DELETE clears them', async () => {
    expect((await accountFaults('POST', { code: 'ResourceUnavailable.InArrears', secret_id: one.secretId })).status).toBe(200);
    expect(await errCode('CreateAigcVideoTask', video({ SubAppId: one.subAppId }), signedBy(one))).toBe('ResourceUnavailable.InArrears');
    expect((await t('DescribeTasks', { SubAppId: one.subAppId }, signedBy(one))).Error).toBeUndefined();
    expect((await t('CreateAigcVideoTask', video({ SubAppId: two.subAppId }), signedBy(two))).TaskId).toBeDefined();
    expect((await accountFaults('DELETE')).status).toBe(200);
    expect((await t('CreateAigcVideoTask', video({ SubAppId: one.subAppId }), signedBy(one))).TaskId).toBeDefined();
  });

  test("each account has its own event configuration; /_sim/t/event-config sets a named SubAppId's", async () => {
    await fetch(`${sim.url}/_sim/t/event-config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Mode: 'PULL', SubAppId: one.subAppId }),
    });
    expect((await t('DescribeEventConfig', { SubAppId: one.subAppId }, signedBy(one))).Mode).toBe('PULL');
    expect((await t('DescribeEventConfig', { SubAppId: two.subAppId }, signedBy(two))).Mode).toBe('PUSH');
    expect((await t('DescribeEventConfig', { SubAppId: SUB })).Mode).toBe('PUSH');
  });

  test('account faults: count and op; without secret_id every account; a bad body is a 400 naming the field', async () => {
    await accountFaults('POST', { code: 'AuthFailure.UnauthorizedOperation', op: 'poll', count: 1 });
    expect(await errCode('DescribeTaskDetail', { SubAppId: SUB, TaskId: 'x' })).toBe('AuthFailure.UnauthorizedOperation');
    expect(await errCode('DescribeTaskDetail', { SubAppId: SUB, TaskId: 'x' })).toBe('InvalidParameterValue');
    const bad = async (body: unknown) => ((await (await accountFaults('POST', body)).json()) as { error: string }).error;
    expect(await bad({})).toMatch(/^code is required/);
    expect(await bad({ code: 'X', op: 'fly' })).toMatch(/^op must be one of/);
    expect(await bad({ code: 'X', secret_id: 'AKIDnobody' })).toMatch(/^secret_id must name/);
  });
});
