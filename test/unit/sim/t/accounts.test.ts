/**
 * Platform T's several accounts in the simulator (sim/accounts.ts simTAccount): each SecretId/SecretKey pair is an
 * account with its own SubAppId, sees only its own tasks, and can be made to refuse (POST /_sim/t/account-faults).
 */
import { simTAccount, type SimTAccount } from '../../../../sim/accounts';
import { ACC, detail, errCode, sim, SUB, t, video, useTSimulator } from '../../../support/sim/t';

useTSimulator();

const one = simTAccount('one');
const two = simTAccount('two');
const as = (a: SimTAccount) => ({ secretId: a.secretId, secretKey: a.secretKey });
const faults = (method: string, body?: unknown) =>
  fetch(`${sim.url}/_sim/t/account-faults`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

test('each further account has its own SecretKey and SubAppId, derived from its name, none the default account\'s', () => {
  expect(simTAccount('one')).toEqual(one);
  expect(new Set([one.subAppId, two.subAppId, SUB]).size).toBe(3);
  expect(one.secretId).toBe('AKIDsim-one');
  expect(() => simTAccount('no spaces')).toThrow(/name/);
});

test('an account names only its own SubAppId; its task is read through it, and is not found through another account', async () => {
  const created = await t('CreateAigcVideoTask', video({ SubAppId: one.subAppId }), as(one));
  expect(created.TaskId).toMatch(new RegExp(`^${one.subAppId}-`));
  // Signed by one, naming two's (or the default's) SubAppId: refused as T refuses a SubAppId of another account.
  expect(await errCode('CreateAigcVideoTask', video({ SubAppId: two.subAppId }), as(one))).toBe('InvalidParameterValue.SubAppId');
  expect(await errCode('DescribeTaskDetail', { SubAppId: SUB, TaskId: created.TaskId }, as(one))).toBe('InvalidParameterValue.SubAppId');

  expect((await t('DescribeTaskDetail', { SubAppId: one.subAppId, TaskId: created.TaskId }, as(one))).AigcVideoTask).toBeDefined();
  expect(await errCode('DescribeTaskDetail', { SubAppId: two.subAppId, TaskId: created.TaskId }, as(two))).toBe('InvalidParameterValue');
  expect((await detail(created.TaskId as string)).Error?.Code).toBe('InvalidParameterValue');
  expect((await t('DescribeTasks', { SubAppId: two.subAppId }, as(two))).TaskSet).toEqual([]);
  expect((await t('DescribeTasks', { SubAppId: one.subAppId }, as(one))).TaskSet.map((x: { TaskId: string }) => x.TaskId)).toEqual([created.TaskId]);
});

test('a further account signs with its own SecretKey: another key is a signature failure, an unknown SecretId is not found', async () => {
  expect(await errCode('DescribeTasks', { SubAppId: one.subAppId }, { secretId: one.secretId, secretKey: two.secretKey })).toBe('AuthFailure.SignatureFailure');
  expect(await errCode('DescribeTasks', { SubAppId: SUB }, { secretId: 'AKIDnobody', secretKey: ACC.secretKey })).toBe('AuthFailure.SecretIdNotFound');
});

test('account faults: one account refused (its creates only, by default) while the other goes on; DELETE clears them', async () => {
  expect((await faults('POST', { code: 'ResourceUnavailable.InArrears', secret_id: one.secretId })).status).toBe(200);
  expect(await errCode('CreateAigcVideoTask', video({ SubAppId: one.subAppId }), as(one))).toBe('ResourceUnavailable.InArrears');
  expect((await t('DescribeTasks', { SubAppId: one.subAppId }, as(one))).Error).toBeUndefined();
  expect((await t('CreateAigcVideoTask', video({ SubAppId: two.subAppId }), as(two))).TaskId).toBeDefined();
  expect((await faults('DELETE')).status).toBe(200);
  expect((await t('CreateAigcVideoTask', video({ SubAppId: one.subAppId }), as(one))).TaskId).toBeDefined();
});

test('account faults: count and op; without secret_id every account; a bad body is a 400 naming the field', async () => {
  await faults('POST', { code: 'AuthFailure.UnauthorizedOperation', op: 'poll', count: 1 });
  expect(await errCode('DescribeTaskDetail', { SubAppId: SUB, TaskId: 'x' })).toBe('AuthFailure.UnauthorizedOperation');
  expect(await errCode('DescribeTaskDetail', { SubAppId: SUB, TaskId: 'x' })).toBe('InvalidParameterValue');
  const bad = async (body: unknown) => ((await (await faults('POST', body)).json()) as { error: string }).error;
  expect(await bad({})).toMatch(/^code is required/);
  expect(await bad({ code: 'X', op: 'fly' })).toMatch(/^op must be one of/);
  expect(await bad({ code: 'X', secret_id: 'AKIDnobody' })).toMatch(/^secret_id must name/);
});
