/**
 * The ledger on the shared e2e stack (real API, worker, Temporal, simulator and PostgreSQL): a key made through
 * the admin API with a budget, a task reserved, run and settled at the price of a model the platform prices
 * (platform B's V20, CNY per second), the next one refused with 402 before anything reaches the platform, and
 * GET /v1/usage reading it back.
 */
import { makeKey } from '../support/admin-api';
import { sharedStack } from '../support/shared-stack';
import { until } from '../system/faults-support';

const { apiUrl, sim } = sharedStack();
const V20 = { model: 'V20', image_url: 'https://x.test/head.jpeg', last_frame_url: 'https://x.test/tail.jpeg', duration: 4, resolution: '720p' };

test('a budgeted key: a task reserved, settled at its final cost; the next over budget is 402 and reaches no platform', async () => {
  const key = await makeKey(apiUrl, { id: `e2e-budget-${Date.now()}`, budget: { amount: 2, currency: 'CNY', period: 'day' } });
  const first = await key.post('/v1/async/videos/generations', { ...V20, prompt: 'ledger e2e: a heron' });
  expect(first.status).toBe(200);
  const record = await key.waitForTask(first.body.task_id, 120_000);
  expect(record.status).toBe('success');
  expect(record.cost).toMatchObject({ currency: 'CNY', estimated: false });

  const jobsBefore = (await sim.stats()).B.jobsCreated;
  const second = await key.post('/v1/async/videos/generations', { ...V20, prompt: 'ledger e2e: a second heron' });
  expect(second.status).toBe(402);
  expect(second.body.error).toMatchObject({ code: 'budget_exceeded', budget: { period: 'day', amount: 2, currency: 'CNY' } });
  expect((await sim.stats()).B.jobsCreated).toBe(jobsBefore);

  // Settled by the worker when the task ended: the usage shows the final cost, and the budget's spend is it.
  await until('the task is settled', async () => (await key.get('/v1/usage?group_by=day')).body.data?.[0]?.running === 0, 30_000);
  const usage = await key.get('/v1/usage');
  expect(usage.body.data).toEqual([expect.objectContaining({ model: 'V20', tasks: 1, succeeded: 1, failed: 0, running: 0, cost: { CNY: record.cost.amount } })]);
  expect(usage.body.budget).toMatchObject({ amount: 2, currency: 'CNY', period: 'day', spent: record.cost.amount });
});
