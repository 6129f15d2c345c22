/**
 * sim/v/index.ts, the routes over real HTTP: Bearer auth, the list and its filters, cancel-or-delete, account-level
 * refusals and injected faults.
 */
import { TASKS, call, create, get, list, text, M, sim, statusIs, stats, useVSimulator } from '../../../support/sim/v';

useVSimulator();

test('a missing or wrong API key → 401 AuthenticationError', async () => {
  const r = await call(
    'POST',
    TASKS,
    { model: M.pro, content: [text()] },
    { 'Content-Type': 'application/json', Authorization: 'Bearer nope' },
  );
  expect(r.status).toBe(401);
  expect(r.json.error).toMatchObject({ code: 'AuthenticationError', type: 'Unauthorized' });
  expect((await call('GET', `${TASKS}/cgt-x`, undefined, {})).status).toBe(401);
});

test('list: {total, items}; filter.status, filter.task_ids (repeated), filter.model, filter.service_tier; page_num/page_size', async () => {
  const a = (await create({ model: M.pro, content: [text('a [sim:duration=50]')] })).json.id;
  await new Promise((r) => setTimeout(r, 5));
  const b = (await create({ model: M.v15, content: [text('b [sim:never]')], service_tier: 'flex' })).json.id;
  await new Promise((r) => setTimeout(r, 5));
  const c = (await create({ model: M.v20, content: [text('c [sim:never]')] })).json.id;
  await statusIs(a, 'succeeded');

  const all = await list();
  expect(all.status).toBe(200);
  expect(all.json.total).toBe(3);
  expect(all.json.items.map((x: any) => x.id)).toEqual([c, b, a]);
  expect(all.json.items[2].status).toBe('succeeded');

  expect((await list('filter.status=succeeded')).json.items.map((x: any) => x.id)).toEqual([a]);
  expect((await list(`filter.task_ids=${a}&filter.task_ids=${c}`)).json.items.map((x: any) => x.id)).toEqual([c, a]);
  expect((await list(`filter.model=${M.v20}`)).json.total).toBe(1);
  expect((await list('filter.service_tier=flex')).json.items.map((x: any) => x.id)).toEqual([b]);
  const p2 = await list('page_num=2&page_size=2');
  expect(p2.json).toMatchObject({ total: 3 });
  expect(p2.json.items.map((x: any) => x.id)).toEqual([a]);

  expect((await list('filter.status=done')).status).toBe(400);
  expect((await list('page_size=0')).status).toBe(400);
  expect((await list('filter.prompt=b')).status).toBe(400);
  expect((await stats()).lists).toBeGreaterThan(0);
});

test('DELETE: queued → cancelled; running → refused; succeeded → record deleted', async () => {
  const q = (await create({ model: M.pro, content: [text('q [sim:duration=60000]')] })).json.id;
  const del = await call('DELETE', `${TASKS}/${q}`);
  expect(del.status).toBe(200);
  expect(del.json).toEqual({});
  expect((await get(q)).json.status).toBe('cancelled');
  expect((await call('DELETE', `${TASKS}/${q}`)).status).toBe(400);

  const r = (await create({ model: M.pro, content: [text('r [sim:never]')] })).json.id;
  await statusIs(r, 'running');
  const refused = await call('DELETE', `${TASKS}/${r}`);
  expect(refused.status).toBe(400);
  expect(refused.json.error.code).toBe('InvalidParameter');

  const s = (await create({ model: M.pro, content: [text('s')] })).json.id;
  await statusIs(s, 'succeeded');
  expect((await call('DELETE', `${TASKS}/${s}`)).status).toBe(200);
  const gone = await get(s);
  expect(gone.status).toBe(404);
  expect(gone.json.error.code).toBe('ResourceNotFound');
  expect((await list()).json.items.map((x: any) => x.id)).not.toContain(s);
  expect((await call('DELETE', `${TASKS}/cgt-unknown`)).status).toBe(404);
});

test.each<[string, number]>([
  ['QuotaExceeded', 429],
  ['SetLimitExceeded', 429],
  ['InvalidEndpoint.ClosedEndpoint', 400],
  ['AccountOverdueError', 403],
  ['ModelNotOpen', 404],
])('[sim:reject=%s] → HTTP %i with that code, nothing created', async (code, status) => {
  const r = await create({ model: M.pro, content: [text(`cat [sim:reject=${code}]`)] });
  expect(r.status).toBe(status);
  expect(r.json.error.code).toBe(code);
  expect((await stats()).jobsCreated).toBe(0);
});

test('/_sim/v/account-faults: the next N requests of an op answer the code', async () => {
  await call('POST', '/_sim/v/account-faults', { code: 'AccountOverdueError', count: 1 });
  const r1 = await create({ model: M.pro, content: [text()] });
  expect(r1.status).toBe(403);
  expect(r1.json.error).toMatchObject({ code: 'AccountOverdueError', type: 'Forbidden' });
  expect((await create({ model: M.pro, content: [text()] })).status).toBe(200);
  await call('POST', '/_sim/v/account-faults', { code: 'QuotaExceeded', op: 'list' });
  expect((await list()).json.error.code).toBe('QuotaExceeded');
  expect((await list()).json.error.code).toBe('QuotaExceeded');
  await call('DELETE', '/_sim/v/account-faults');
  expect((await list()).status).toBe(200);
});

test("the simulator's reset (POST /_sim/reset) clears V's account faults too", async () => {
  await call('POST', '/_sim/v/account-faults', { code: 'QuotaExceeded', op: 'list' });
  expect((await list()).json.error.code).toBe('QuotaExceeded');
  await call('POST', '/_sim/reset');
  expect((await list()).status).toBe(200);
});

test('injected 429 is a true rate limit (RateLimitExceeded.*, Retry-After); 500 InternalServiceError', async () => {
  await call('POST', '/_sim/faults', { platform: 'V', op: 'submit', status: 429, count: 1, retryAfterSeconds: 3 });
  const r = await create({ model: M.pro, content: [text()] });
  expect(r.status).toBe(429);
  expect(r.json.error.code).toBe('RateLimitExceeded.EndpointRPMExceeded');
  expect(r.headers.get('retry-after')).toBe('3');
  const e = await create({ model: M.pro, content: [text('x [sim:submit=500]')] });
  expect(e.status).toBe(500);
  expect(e.json.error.code).toBe('InternalServiceError');
});

// Ark's 429 table (docs/platforms/v.md#errors): Retry-After only where the table says it may be sent.
test.each([
  ['ModelAccountRpmRateLimitExceeded', null],
  ['ModelAccountTpmRateLimitExceeded', null],
  ['ModelAccountIpmRateLimitExceeded', null],
  ['APIAccountRpmRateLimitExceeded', null],
  ['AccountRateLimitExceeded', null],
  ['RequestBurstTooFast', '4'],
  ['ServerOverloaded', '4'],
  ['InflightBatchsizeExceeded', null],
  ['QuotaExceeded', null],
  ['SetLimitExceeded', null],
])(
  "[sim:submit=429:%s x2]: the first two creates of the prompt answer that 429 in Ark's shape, the third creates the job",
  async (code, retryAfter) => {
    const prompt = `throttled ${code} [sim:submit=429:${code} x2]`;
    for (let i = 0; i < 2; i++) {
      const r = await create({ model: M.pro, content: [text(prompt)] });
      expect(r.status).toBe(429);
      expect(r.json.error).toMatchObject({ code, type: 'TooManyRequests', param: '', message: expect.stringMatching(/Request id: \w+$/) });
      expect(r.headers.get('retry-after')).toBe(retryAfter);
    }
    // Another prompt is not affected; the same prompt's third create goes through.
    expect((await create({ model: M.pro, content: [text(`unthrottled ${code}`)] })).status).toBe(200);
    const third = await create({ model: M.pro, content: [text(prompt)] });
    expect(third.status).toBe(200);
    expect(third.json.id).toMatch(/^cgt-/);
    expect(await stats()).toMatchObject({ jobsCreated: 2 });
  },
);

test('drop fault: the job is created, the answer is lost; the list finds it', async () => {
  await expect(create({ model: M.pro, content: [text('dropped [sim:submit=drop]')] })).rejects.toThrow();
  const s = await stats();
  expect(s).toMatchObject({ jobsCreated: 1, answersDropped: 1 });
  expect((await list()).json.total).toBe(1);
});

describe("/_sim/v/endpoints: the account's inference endpoints, and what a task made through one lists as model", () => {
  const setEndpoints = async (b: object) =>
    (
      await fetch(`${sim.url}/_sim/v/endpoints`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(b),
      })
    ).json();
  const EP = 'ep-20250601120000-abcde';

  test('unknown endpoint → 404; a registered one runs its model and lists the endpoint id (default), filter.model on it', async () => {
    expect((await create({ model: EP, content: [text()] })).status).toBe(404);
    expect(await setEndpoints({ endpoints: { [EP]: M.pro } })).toEqual({ endpoints: { [EP]: M.pro }, listedModel: 'endpoint' });
    const id = (await create({ model: EP, content: [text()] })).json.id;
    expect((await get(id)).json.model).toBe(EP);
    expect((await list(`filter.model=${EP}`)).json.items.map((x: any) => x.id)).toEqual([id]);
    expect((await list(`filter.model=${M.pro}`)).json.items).toEqual([]);
  });

  test('listedModel "model": the task lists the endpoint\'s model name instead', async () => {
    await setEndpoints({ endpoints: { [EP]: M.pro }, listedModel: 'model' });
    const id = (await create({ model: EP, content: [text()] })).json.id;
    expect((await get(id)).json.model).toBe(M.pro);
    expect((await list(`filter.model=${M.pro}`)).json.items.map((x: any) => x.id)).toEqual([id]);
    expect((await list(`filter.model=${EP}`)).json.items).toEqual([]);
  });
});

describe('several accounts: every sim-v-key-<name> is an account of its own', () => {
  const as = (key: string) => ({ Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' });
  const ONE = as('sim-v-key-one');
  const TWO = as('sim-v-key-two');

  test('a task is read, listed and cancelled only through the account that created it', async () => {
    const id = (await call('POST', TASKS, { model: M.pro, content: [text('mine [sim:hold]')] }, ONE)).json.id as string;
    expect((await call('GET', `${TASKS}/${id}`, undefined, ONE)).status).toBe(200);
    const other = await call('GET', `${TASKS}/${id}`, undefined, TWO);
    expect(other.status).toBe(404);
    expect(other.json.error.code).toBe('ResourceNotFound');
    expect((await get(id)).status).toBe(404);
    expect((await call('GET', TASKS, undefined, TWO)).json.items.map((t: { id: string }) => t.id)).not.toContain(id);
    expect((await call('GET', TASKS, undefined, ONE)).json.items.map((t: { id: string }) => t.id)).toContain(id);
    expect((await call('DELETE', `${TASKS}/${id}`, undefined, TWO)).status).toBe(404);
    expect((await call('DELETE', `${TASKS}/${id}`, undefined, ONE)).status).toBe(200);
  });

  test("a key outside the simulator's accounts is refused", async () => {
    const r = await call('POST', TASKS, { model: M.pro, content: [text()] }, as('sim-v-keyX'));
    expect(r.status).toBe(401);
  });

  test('an account fault with api_key applies to that account only, and creates nothing there', async () => {
    await call('POST', '/_sim/v/account-faults', { code: 'AccountOverdueError', api_key: 'sim-v-key-one' });
    const before = await stats();
    const refused = await call('POST', TASKS, { model: M.pro, content: [text('overdue')] }, ONE);
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('AccountOverdueError');
    expect((await call('POST', TASKS, { model: M.pro, content: [text('fine')] }, TWO)).status).toBe(200);
    expect((await stats()).jobsCreated! - before.jobsCreated!).toBe(1);
    expect((await call('POST', '/_sim/v/account-faults', { code: 'AccountOverdueError', api_key: 'someone-else' })).status).toBe(400);
  });
});

test('/_sim/v/usage: the task object reports the tokens set from then on (a record that differs, for reconciliation)', async () => {
  const id = (await create({ model: M.pro, content: [text('restated [sim:duration=50]')] })).json.id;
  await statusIs(id, 'succeeded');
  const before = (await get(id)).json.usage.completion_tokens as number;
  const set = await fetch(`${sim.url}/_sim/v/usage`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task_id: id, completion_tokens: before + 7 }),
  });
  expect(set.status).toBe(200);
  expect((await get(id)).json.usage).toEqual({ completion_tokens: before + 7, total_tokens: before + 7 });
  expect((await list(`filter.task_ids=${id}`)).json.items[0].usage.completion_tokens).toBe(before + 7);
  const refused = await fetch(`${sim.url}/_sim/v/usage`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task_id: 'cgt-none', completion_tokens: 1 }),
  });
  expect(refused.status).toBe(400);
});
