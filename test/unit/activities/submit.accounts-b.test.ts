/**
 * The submit activity with two platform B accounts against the real simulator (its accounts `simbak-one` and
 * `simbak-two`): a refused account's submit moves to the other, the job is created and recorded there, and only the
 * owning account's adapter can read it — so polls must go to the account that created the job.
 */
import { createHttpClient } from '../../../platforms/http';
import { createPlatformB } from '../../../platforms/b/adapter';
import { simBAccount } from '../../../sim/accounts';
import {
  type AccountName,
  jobsByOwner,
  recordedRequests,
  runSubmit,
  submitFrom,
  submitInput,
  twoAccountPool,
} from '../../support/account-pools';
import { sim, sim_, useBSimulator } from '../../support/sim/b';

useBSimulator();

const http = createHttpClient({ connectTimeoutMs: 2_000, responseTimeoutMs: 5_000 });
afterAll(() => http.close());

const adapterOf = (name: AccountName) => {
  const { accessKeyId, secretAccessKey } = simBAccount(name);
  return createPlatformB({ endpoint: sim.url, accessKeyId, secretAccessKey }, { http });
};
const jobsByAccessKey = () => jobsByOwner(sim.url, 'B', (meta) => meta.owner);
const input = (dedupKey: string) =>
  submitInput('B', 'video', { model: 'VQ2', action: 'text_to_video', prompt: `a fox ${dedupKey}`, duration: 5 }, dedupKey);
/** The AccessKey ID a recorded request was signed with (bce-auth-v1/<ak>/…). */
const signer = (r: { headers: Record<string, string> }) => /^bce-auth-v1\/([^/]+)\//.exec(r.headers.authorization ?? '')?.[1];

test.each([
  ['in arrears', 'Arrears', 'insufficient_balance'],
  ['without real-name verification', 'QualifyNotPass', 'upstream_auth'],
])('an account %s: the submit moves to the other, which creates the job and is recorded with it', async (_why, code) => {
  await sim_.post('/_sim/b/account-faults', { code, access_key_id: simBAccount('one').accessKeyId });
  const pool = twoAccountPool('B', adapterOf);
  const result = await runSubmit(submitFrom(pool), input(code));
  expect(result.account).toBe('two');
  expect(await jobsByAccessKey()).toEqual({ 'simbak-two': 1 });
  expect(pool.available('one')).toBe(false);
  expect((await recordedRequests(sim.url, 'B', 'submit')).map(signer)).toEqual(['simbak-one', 'simbak-two']);
});

test('the job is read through the account that created it; the other account cannot see it', async () => {
  const result = await runSubmit(submitFrom(twoAccountPool('B', adapterOf)), input('owner'));
  expect(result.account).toBe('one');
  await expect(adapterOf('one').poll('video', result.upstreamTaskId)).resolves.toMatchObject({
    state: expect.stringMatching(/^(pending|running|success)$/),
  });
  // To account two the task does not exist (404 TaskNotFound): the adapter would take it for lost.
  await expect(adapterOf('two').poll('video', result.upstreamTaskId)).rejects.toMatchObject({ opts: { reason: 'upstream_lost' } });
  const reads = await recordedRequests(sim.url, 'B', 'poll');
  expect(reads.map((r) => [signer(r), r.status])).toEqual([
    ['simbak-one', 200],
    ['simbak-two', 404],
  ]);
});
