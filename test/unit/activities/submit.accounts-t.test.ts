/**
 * The submit activity with two platform T accounts against the real simulator (its accounts `AKIDsim-one` and
 * `AKIDsim-two`, each with its own SubAppId): a refused account's submit moves to the other, the job is created and
 * recorded there, and only the owning account's adapter can read it — so polls must go to the account that created
 * the job.
 */
import { createHttpClient } from '../../../platforms/http';
import { createPlatformT } from '../../../platforms/t/adapter';
import { simTAccount } from '../../../sim/accounts';
import {
  type AccountName,
  jobsByOwner,
  recordedRequests,
  runSubmit,
  submitFrom,
  submitInput,
  twoAccountPool,
} from '../../support/account-pools';
import { accountFaults, sim, useTSimulator } from '../../support/sim/t';

useTSimulator();

const http = createHttpClient({ connectTimeoutMs: 2_000, responseTimeoutMs: 5_000 });
afterAll(() => http.close());

const adapterOf = (name: AccountName) => createPlatformT({ endpoint: sim.url, ...simTAccount(name) }, { http });
const jobsBySubAppId = () => jobsByOwner(sim.url, 'T', (meta) => meta.subAppId);
const input = (dedupKey: string) => submitInput('T', 'video', { model: 'GV-3.1', prompt: `a fox ${dedupKey}` }, dedupKey);

test.each([
  ['in arrears', 'ResourceUnavailable.InArrears'],
  ['not authorized', 'AuthFailure.UnauthorizedOperation'],
])('an account %s: the submit moves to the other, which creates the job and is recorded with it', async (_why, code) => {
  await accountFaults('POST', { code, secret_id: simTAccount('one').secretId });
  const pool = twoAccountPool('T', adapterOf);
  const result = await runSubmit(submitFrom(pool), input(code));
  expect(result.account).toBe('two');
  expect(result.upstreamTaskId).toMatch(new RegExp(`^${simTAccount('two').subAppId}-`));
  expect(await jobsBySubAppId()).toEqual({ [simTAccount('two').subAppId]: 1 });
  expect(pool.available('one')).toBe(false);
  // One was asked once and refused; the create that made the job was signed by two.
  const creates = await recordedRequests(sim.url, 'T', 'submit');
  expect(creates.map((r) => /Credential=([^/]+)/.exec(r.headers.authorization ?? '')?.[1])).toEqual(['AKIDsim-one', 'AKIDsim-two']);
});

test('the job is read through the account that created it; the other account cannot see it', async () => {
  const result = await runSubmit(submitFrom(twoAccountPool('T', adapterOf)), input('owner'));
  expect(result.account).toBe('one');
  await expect(adapterOf('one').poll('video', result.upstreamTaskId)).resolves.toMatchObject({
    state: expect.stringMatching(/^(pending|running|success)$/),
  });
  // To account two (its own SubAppId) the TaskId is unknown: T's not-found answer, which the adapter retries.
  await expect(adapterOf('two').poll('video', result.upstreamTaskId)).rejects.toMatchObject({ opts: { code: 'InvalidParameterValue' } });
  const reads = await recordedRequests(sim.url, 'T', 'poll');
  expect(
    reads.map((r) => [
      (r.body as { SubAppId: number }).SubAppId,
      (r.response as { Response: { Error?: { Code: string } } }).Response.Error?.Code,
    ]),
  ).toEqual([
    [simTAccount('one').subAppId, undefined],
    [simTAccount('two').subAppId, 'InvalidParameterValue'],
  ]);
});
