/**
 * Platform B's several accounts in the simulator (sim/accounts.ts simBAccount): each AK/SK pair (and its API key) is
 * an account that sees only its own tasks and callback configuration, and can be made to refuse
 * (POST /_sim/b/account-faults).
 */
import { simBAccount, type SimBAccount } from '../../../../sim/accounts';
import { call, sim, sim_, t2v, useBSimulator } from '../../../support/sim/b';

useBSimulator();

const one = simBAccount('one');
const two = simBAccount('two');
const as = (a: SimBAccount) => ({ ak: a.accessKeyId, sk: a.secretAccessKey });
const body = (prompt = 'a fox') => t2v('VQ2', { prompt });
const createAs = (a: SimBAccount, prompt?: string) => call('POST', '/v2/aigc/text_to_video', [], body(prompt), as(a));

test('each further account has its own keys and account id, derived from its name', () => {
  expect(simBAccount('one')).toEqual(one);
  expect(one.accessKeyId).toBe('simbak-one');
  expect(new Set([one.secretAccessKey, two.secretAccessKey]).size).toBe(2);
  expect(new Set([one.userId, two.userId]).size).toBe(2);
  expect(one.apiKey).toMatch(/^bce-v3\/ALTAK-sim-one\//);
});

test('a task is read and listed through the account that created it (AK/SK or its API key); another account gets 404', async () => {
  const created = await createAs(one);
  expect(created.status).toBe(200);
  const id = created.body.taskId as string;
  expect((await call('GET', `/v2/tasks/${id}`, [], undefined, as(one))).status).toBe(200);
  expect((await call('GET', `/v3/tasks/${id}`, [], undefined, { auth: `Bearer ${one.apiKey}` })).status).toBe(200);
  const other = await call('GET', `/v2/tasks/${id}`, [], undefined, as(two));
  expect([other.status, other.body.code]).toEqual([404, 'TaskNotFound']);
  expect((await call('GET', `/v3/tasks/${id}`, [], undefined, { auth: `Bearer ${two.apiKey}` })).status).toBe(404);
  expect((await call('GET', `/v2/tasks/${id}`)).status).toBe(404);
  expect((await call('GET', '/v2/tasks', [], undefined, as(two))).body.data).toEqual([]);
  expect((await call('GET', '/v2/tasks', [], undefined, as(one))).body.data.map((x: { taskId: string }) => x.taskId)).toEqual([id]);
});

test('a further account signs with its own secret; an API key of a name with another secret part is refused', async () => {
  const wrong = await call('GET', '/v2/tasks', [], undefined, { ak: one.accessKeyId, sk: two.secretAccessKey });
  expect([wrong.status, wrong.body.code]).toEqual([400, 'SignatureDoesNotMatch']);
  const forged = one.apiKey.replace(/\/[0-9a-f]{32}$/, `/${'0'.repeat(32)}`);
  expect((await call('GET', '/v3/tasks/tsk-x', [], undefined, { auth: `Bearer ${forged}` })).status).toBe(401);
});

test('each account has its own callback configuration', async () => {
  expect((await call('PUT', '/v2/callback', [], { callbackUrl: 'http://127.0.0.1:9/one' }, as(one))).status).toBe(200);
  expect((await call('GET', '/v2/callback', [], undefined, as(one))).body.callbackUrl).toBe('http://127.0.0.1:9/one');
  expect((await call('GET', '/v2/callback', [], undefined, as(two))).body.callbackUrl).toBe('');
  expect((await call('GET', '/v2/callback')).body.callbackUrl).toBe('');
});

test('account faults: one account in arrears (403 naming it) while the other creates; count and op; DELETE clears', async () => {
  expect((await sim_.post('/_sim/b/account-faults', { code: 'Arrears', access_key_id: one.accessKeyId })).status).toBe(200);
  const refused = await createAs(one);
  expect([refused.status, refused.body.code]).toEqual([403, 'AccessDenied']);
  expect(refused.body.message).toMatch(/arrears/);
  expect((await createAs(two)).status).toBe(200);
  expect((await sim_.jobs()).map((j) => j.meta.owner)).toEqual([two.accessKeyId]);
  await fetch(`${sim.url}/_sim/b/account-faults`, { method: 'DELETE' });
  expect((await createAs(one)).status).toBe(200);

  await sim_.post('/_sim/b/account-faults', { code: 'InvalidAccessKeyId', op: 'list', count: 1 });
  expect((await call('GET', '/v2/tasks')).body.code).toBe('InvalidAccessKeyId');
  expect((await call('GET', '/v2/tasks')).status).toBe(200);
  const bad = await sim_.post('/_sim/b/account-faults', { code: 'Arrears', access_key_id: 'nobody' });
  expect([bad.status, ((await bad.json()) as { error: string }).error]).toEqual([400, expect.stringMatching(/^access_key_id must name/)]);
});
