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
const V20 = {
  model: 'V20',
  image_url: 'https://x.test/head.jpeg',
  last_frame_url: 'https://x.test/tail.jpeg',
  duration: 4,
  resolution: '720p',
};

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
  expect(usage.body.data).toEqual([
    expect.objectContaining({ model: 'V20', tasks: 1, succeeded: 1, failed: 0, running: 0, cost: { CNY: record.cost.amount } }),
  ]);
  expect(usage.body.budget).toMatchObject({ amount: 2, currency: 'CNY', period: 'day', spent: record.cost.amount });
});

test('cancelled tasks: one whose job runs on upstream (B has no cancel) is settled at its cost; one cancelled before its job existed at 0', async () => {
  const key = await makeKey(apiUrl, { id: `e2e-cancel-${Date.now()}`, budget: { amount: 100, currency: 'CNY', period: 'day' } });
  const before = (await sim.stats()).B;

  // Running upstream when its client cancels it: B cannot stop the job, which runs to its end and is billed.
  const running = await key.post('/v1/async/videos/generations', {
    ...V20,
    prompt: `ledger e2e: cancelled while running ${Date.now()} [sim:duration=20000]`,
  });
  expect(running.status).toBe(200);
  await until(
    'the job runs upstream',
    async () => (await key.get(`/v1/generations/${running.body.task_id}`)).body.status === 'running',
    30_000,
  );
  const estimate = (await key.get(`/v1/generations/${running.body.task_id}`)).body.cost;
  expect(estimate).toMatchObject({ currency: 'CNY', estimated: true });
  const cancelledRunning = await key.post(`/v1/generations/${running.body.task_id}/cancel`, {});
  expect(cancelledRunning.status).toBe(200);
  expect(cancelledRunning.body).toMatchObject({
    status: 'failed',
    error: { code: 'cancelled' },
    usage: { seconds: 4 },
    cost: { amount: estimate.amount, currency: 'CNY', estimated: false },
  });

  // Cancelled between jobs: its first job failed upstream for a transient reason (unbilled), and the next is not
  // submitted until the re-submission pause (10 s) is over.
  const prompt = `ledger e2e: cancelled before its job ${Date.now()} [sim:fail=transientx1] [sim:duration=1000]`;
  const paused = await key.post('/v1/async/videos/generations', { ...V20, prompt });
  expect(paused.status).toBe(200);
  const jobsOf = async () => (await sim.jobs('B')).filter((j) => (j as { directives?: { prompt?: string } }).directives?.prompt === prompt);
  await until('its first job failed upstream', async () => (await jobsOf()).some((j) => j.view.state === 'failed'), 30_000);
  await new Promise((r) => setTimeout(r, 1_500)); // the workflow's next poll (every 300 ms) sees it and pauses
  const cancelledPaused = await key.post(`/v1/generations/${paused.body.task_id}/cancel`, {});
  expect(cancelledPaused.status).toBe(200);
  expect(cancelledPaused.body).toMatchObject({
    status: 'failed',
    error: { code: 'cancelled' },
    usage: { seconds: 0 },
    cost: { amount: 0, currency: 'CNY', estimated: false },
  });

  // The platform: one job each, none cancelled (B has none), the paused task's only job failed.
  const after = (await sim.stats()).B;
  expect([after.jobsCreated - before.jobsCreated, after.cancels - before.cancels]).toEqual([2, 0]);
  expect((await jobsOf()).map((j) => j.view.state)).toEqual(['failed']);

  // The ledger: the billed job's cost, settled by the worker, and nothing for the other.
  await until('both are settled', async () => (await key.get('/v1/usage')).body.data?.[0]?.running === 0, 30_000);
  const usage = await key.get('/v1/usage');
  expect(usage.body.data).toEqual([
    expect.objectContaining({
      model: 'V20',
      tasks: 2,
      succeeded: 0,
      failed: 2,
      running: 0,
      unpriced: 0,
      seconds: 4,
      cost: { CNY: estimate.amount },
    }),
  ]);
  expect(usage.body.budget).toMatchObject({ spent: estimate.amount, unpriced: 0 });
});
