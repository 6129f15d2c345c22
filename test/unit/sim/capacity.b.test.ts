/**
 * sim/capacity.ts through platform B, over real HTTP: B publishes no limit, so none applies until one is set; then
 * a create over it is refused as B throttles (a 429 TooManyRequests; VE3.1's documented "Internal error. Please try
 * again later." 500) and creates nothing; a finished task frees its slot.
 */
import { simBAccount } from '../../../sim/accounts';
import { advanceJob, capacityControl } from '../../support/simulator';
import { AK, createT2V, finished, sim, sim_, signedBy, call, t2v, useBSimulator } from '../../support/sim/b';

useBSimulator();

const capacity = capacityControl(sim, 'B');

test('no limit by default; over a limit set for the account a create is refused, nothing created, until a task ends', async () => {
  expect((await capacity.view()).default_max_concurrent).toBeNull();
  for (let i = 0; i < 3; i++) expect((await createT2V('VQ2', { prompt: `free ${i} [sim:hold]` })).status).toBe(200);

  expect((await capacity.set({ max_concurrent: 3, account: AK })).status).toBe(200);
  const refused = await createT2V('VQ2', { prompt: 'over' });
  expect(refused.status).toBe(429);
  expect(refused.body).toMatchObject({ code: 'TooManyRequests' });
  const veo = await createT2V('VE3.1', { prompt: 'over, on VE3.1' });
  expect(veo.status).toBe(500);
  expect(veo.body).toMatchObject({ code: 'InternalError', message: 'Internal error. Please try again later.' });
  expect((await sim_.stats()).jobsCreated).toBe(3);

  const first = (await sim_.jobs())[0].id as string;
  await advanceJob(sim, first, 'done');
  await finished(first);
  expect((await createT2V('VQ2', { prompt: 'after one ended' })).status).toBe(200);
  expect(await capacity.account(AK)).toMatchObject({ max_concurrent: 3, peak_running: 3, created_jobs: 4, refused_creates: 2 });
});

test('a default limit applies to every account; each counts its own jobs', async () => {
  await capacity.set({ max_concurrent: 1 });
  const other = simBAccount('second');
  expect((await createT2V('VQ2', { prompt: 'mine [sim:hold]' })).status).toBe(200);
  expect((await call('POST', '/v2/aigc/text_to_video', [], t2v('VQ2', { prompt: 'theirs [sim:hold]' }), signedBy(other))).status).toBe(200);
  expect((await createT2V('VQ2', { prompt: 'mine again' })).status).toBe(429);
  expect((await capacity.account(other.accessKeyId))?.running).toBe(1);
});
