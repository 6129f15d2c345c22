/**
 * Usage against a real PostgreSQL: ledger rows written as the reservation and settlement write
 * them, read back through the real app over real HTTP — JSON, CSV, the operator's view, bad input — and the
 * 80 %-of-budget gauge.
 */
import { Registry } from 'prom-client';
import { KeyStore, parseApiKeysEnv, sha256 } from '../../../keys/api-keys';
import { keysNearBudget, registerLedgerMetrics } from '../../../api/ledger-metrics';
import { TaskLedger } from '../../../tasks/task-ledger';
import { openLedgerDatabase, type LedgerDatabase } from '../../../ledger/database';
import { reserveTask, settleTask } from '../../../ledger/entries';
import { buildCatalogue } from '../../../platforms';
import { usePostgres } from '../../support/postgres';
import { rawRequest, SECRET, startTestApi, type TestApi } from '../../support/test-api';
import { loadTaskPricing } from '../../../tasks/billing';

const ADMIN_TOKEN = 'admin-token-for-usage-tests-0123456789';
const SPENDER = 'sk-spender-0123456789abcdef0123';
const postgres = usePostgres();
let ledger: LedgerDatabase;
let api: TestApi;
let keys: KeyStore;

const today = new Date().toISOString().slice(0, 10);
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

/** A task as the API reserves it and the worker settles it. */
async function task(
  taskId: string,
  keyId: string,
  model: string,
  micros: number,
  outcome: 'success' | 'failed' | 'running',
  at: Date,
  usage: { seconds?: number; images?: number; tokens?: number } = {},
) {
  await reserveTask(ledger, { taskId, keyId, platform: 'V', model, estimatedMicros: micros, currency: 'USD', ...usage }, undefined, at);
  if (outcome !== 'running') await settleTask(ledger, taskId, { outcome, finalMicros: outcome === 'success' ? micros : 0, ...usage });
}

beforeAll(async () => {
  ledger = await openLedgerDatabase(await postgres.pg.freshDatabase());
  keys = new KeyStore(parseApiKeysEnv(`alice:${SECRET}`));
  keys.replaceManaged([{ id: 'spender', digest: sha256(SPENDER), budget: { micros: 5_000_000, currency: 'USD', period: 'month' } }]);
  const pricing = loadTaskPricing(buildCatalogue(), {});
  api = await startTestApi({ deps: { keys, pricing, taskLedger: new TaskLedger(ledger, pricing), adminToken: ADMIN_TOKEN } });
  const now = new Date();
  await task('t1', 'spender', 'model-a', 1_500_000, 'success', now, { seconds: 5 });
  await task('t2', 'spender', 'model-a', 2_000_000, 'failed', now, { seconds: 5 });
  await task('t3', 'spender', 'model-b', 250_000, 'running', now, { images: 2 });
  await task('t4', 'spender', 'model-b', 1_000_000, 'success', new Date(`${yesterday}T12:00:00Z`), { images: 1 });
  await task('t5', 'alice', 'model-a', 3_000_000, 'success', now, { tokens: 1000 });
  // The API could not start this one: released, not a task.
  await reserveTask(
    ledger,
    { taskId: 't6', keyId: 'spender', platform: 'V', model: 'model-a', estimatedMicros: 9_000_000, currency: 'USD' },
    undefined,
    now,
  );
  await settleTask(ledger, 't6', { outcome: 'never_started', finalMicros: 0 });
});
afterAll(async () => {
  await api?.close();
  await ledger?.close();
});

const get = (path: string, secret = SPENDER, headers: Record<string, string> = {}) =>
  rawRequest(api.base, 'GET', path, { Authorization: `Bearer ${secret}`, ...headers });

describe('GET /v1/usage', () => {
  test("the caller's tasks per model: outcomes, units, cost (final, or the estimate while running); the budget's state", async () => {
    const r = await get(`/v1/usage?start=${yesterday}&end=${today}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'usage', start: yesterday, end: today, group_by: 'model' });
    expect(r.body.data).toEqual([
      {
        model: 'model-a',
        tasks: 2,
        succeeded: 1,
        failed: 1,
        running: 0,
        unpriced: 0,
        seconds: 10,
        images: 0,
        tokens: 0,
        cost: { USD: 1.5 },
      },
      {
        model: 'model-b',
        tasks: 2,
        succeeded: 1,
        failed: 0,
        running: 1,
        unpriced: 0,
        seconds: 0,
        images: 3,
        tokens: 0,
        cost: { USD: 1.25 },
      },
    ]);
    expect(r.body.budget).toMatchObject({ amount: 5, currency: 'USD', period: 'month', period_start: today.slice(0, 7), unpriced: 0 });
  });

  test('group_by=day; a range that leaves out yesterday leaves out its task', async () => {
    const r = await get(`/v1/usage?start=${today}&end=${today}&group_by=day`);
    expect(r.body.data).toEqual([
      { day: today, tasks: 3, succeeded: 1, failed: 1, running: 1, unpriced: 0, seconds: 10, images: 2, tokens: 0, cost: { USD: 1.75 } },
    ]);
  });

  test('Accept: text/csv gives CSV, a header and one line per group', async () => {
    const r = await get(`/v1/usage?start=${yesterday}&end=${today}`, SPENDER, { Accept: 'text/csv' });
    expect(r.headers['content-type']).toMatch(/^text\/csv/);
    expect(r.body).toBe(
      [
        'model,tasks,succeeded,failed,running,unpriced,seconds,images,tokens,cost_USD,cost_CNY',
        // A currency no task of the row is priced in is empty, not 0.
        'model-a,2,1,1,0,0,10,0,0,1.5,',
        'model-b,2,1,0,1,0,0,3,0,1.25,',
        '',
      ].join('\n'),
    );
  });

  test.each([
    ['a malformed date', 'start=2026-1-5', 'start'],
    ['a date that does not exist', 'start=2026-02-30', 'start'],
    ['end before start', 'start=2026-03-10&end=2026-03-09', 'end'],
    ['a range over a year', 'start=2025-01-01&end=2026-01-02', 'end'],
    ['an unknown grouping', 'group_by=key', 'group_by'],
    ['an unknown parameter', 'from=2026-01-01', 'from'],
  ])('%s → 400 naming the parameter', async (_what, query, param) => {
    const r = await get(`/v1/usage?${query}`);
    expect([r.status, r.body.error.param]).toEqual([400, param]);
  });
});

describe('GET /admin/v1/usage', () => {
  const admin = (query: string) => get(`/admin/v1/usage?${query}`, ADMIN_TOKEN);

  test('every key per key, or one key per model; an API key is refused', async () => {
    const perKey = await admin(`start=${yesterday}&end=${today}`);
    expect(perKey.body.data.map((r: { key: string; tasks: number; cost: unknown }) => [r.key, r.tasks, r.cost])).toEqual([
      ['alice', 1, { USD: 3 }],
      ['spender', 4, { USD: 2.75 }],
    ]);
    const one = await admin(`key=alice&group_by=model&start=${today}`);
    expect(one.body).toMatchObject({ key: 'alice', data: [{ model: 'model-a', tasks: 1, tokens: 1000 }] });
    expect((await get('/admin/v1/usage', SPENDER)).status).toBe(403);
    expect((await admin('key=no%20such')).body.error.param).toBe('key');
  });
});

describe('tasks without a price are never money: `unpriced` counts them, `cost` leaves them out', () => {
  /** Real models, priced by the platforms' published prices: platform B's V20 (CNY per second); V's Seedance has none. */
  const V20 = { kind: 'video', model: 'V20', prompt: 'a heron', duration: 4, resolution: '720p' } as never;
  const SEEDANCE = { kind: 'video', model: 'vendor-video-1-0-pro-250528', prompt: 'a fox', duration: 5 } as never;
  const catalogue = buildCatalogue();
  const MIXED = 'sk-mixed-0123456789abcdef01234567';
  let taskLedger: TaskLedger;

  beforeAll(async () => {
    taskLedger = new TaskLedger(ledger, loadTaskPricing(catalogue, {}));
    // A key with a USD budget whose operator lets unpriced tasks through (allow_unpriced): V20's CNY price does not
    // count against it, Seedance has no price at all.
    keys.replaceManaged([
      ...keys.list().filter((k) => k.source === 'admin'),
      { id: 'mixed', digest: sha256(MIXED), budget: { micros: 10_000_000, currency: 'USD', period: 'day' }, allowUnpriced: true },
    ]);
    const key = keys.find('mixed')!;
    const reserve = (taskId: string, request: never) =>
      taskLedger.reserve(key, taskId, `fingerprint-${taskId}`, catalogue.find('video', (request as { model: string }).model)!, request);
    await reserve('m1', V20);
    await reserve('m2', V20);
    await reserve('m3', SEEDANCE);
    // The worker settles one of each: V20 at its (CNY) cost, Seedance without a price.
    await settleTask(ledger, 'm1', { outcome: 'success', finalMicros: 1_000_000, priced: true, seconds: 4 });
    await settleTask(ledger, 'm3', { outcome: 'success', finalMicros: 0, priced: false, seconds: 5 });
  });

  test('per model in GET /v1/usage (JSON and CSV): cost null for the unpriced model, never 0; the budget state counts all three at zero', async () => {
    const r = await get(`/v1/usage?start=${today}`, MIXED);
    const estimate = loadTaskPricing(catalogue, {}).estimateTaskCost(V20).cost!.amount / 1e6;
    expect(
      r.body.data.map((row: { model: string; tasks: number; unpriced: number; cost: unknown }) => [
        row.model,
        row.tasks,
        row.unpriced,
        row.cost,
      ]),
    ).toEqual([
      // V20 has a price (in CNY): its tasks are money, whatever the budget's currency.
      ['V20', 2, 0, { CNY: 1 + estimate }],
      ['vendor-video-1-0-pro-250528', 1, 1, null],
    ]);
    // Nothing counted against the USD budget: all three count at zero there.
    expect(r.body.budget).toMatchObject({ currency: 'USD', period: 'day', spent: 0, unpriced: 3 });
    const csv = await get(`/v1/usage?start=${today}`, MIXED, { Accept: 'text/csv' });
    expect(csv.body.split('\n').slice(1, 3)).toEqual([
      `V20,2,1,0,1,0,8,0,0,,${1 + estimate}`,
      'vendor-video-1-0-pro-250528,1,1,0,0,1,5,0,0,,',
    ]);
  });

  test('in GET /admin/v1/usage per key: priced currencies, plus the unpriced tasks counted apart', async () => {
    const r = await get(`/admin/v1/usage?start=${today}`, ADMIN_TOKEN);
    const rows = Object.fromEntries(
      r.body.data.map((row: { key: string; unpriced: number; cost: unknown }) => [row.key, [row.unpriced, row.cost]]),
    );
    expect(rows.mixed).toEqual([1, { CNY: expect.any(Number) }]);
    expect([rows.alice[0], rows.spender[0]]).toEqual([0, 0]);
    const byModel = await get(`/admin/v1/usage?start=${today}&key=mixed&group_by=model`, ADMIN_TOKEN, { Accept: 'text/csv' });
    expect(byModel.body).not.toMatch(/,0$/m);
  });

  test('an estimate without a price that the final figure prices (tokens reported) no longer counts at zero', async () => {
    await reserveTask(
      ledger,
      { taskId: 'm4', keyId: 'late', platform: 'V', model: 'model-t', estimatedMicros: 0, currency: 'USD', unpriced: 'no_price' },
      undefined,
    );
    expect((await get(`/admin/v1/usage?key=late&start=${today}`, ADMIN_TOKEN)).body.data[0]).toMatchObject({
      running: 1,
      unpriced: 1,
      cost: null,
    });
    await settleTask(ledger, 'm4', { outcome: 'success', finalMicros: 700_000, priced: true, tokens: 10 });
    expect((await get(`/admin/v1/usage?key=late&start=${today}`, ADMIN_TOKEN)).body.data[0]).toMatchObject({
      running: 0,
      unpriced: 0,
      cost: { USD: 0.7 },
    });
  });
});

describe('the 80 % gauge', () => {
  test('counts keys whose committed amount is above 80 % of their budget, on each scrape', async () => {
    const taskLedger = new TaskLedger(ledger, loadTaskPricing(buildCatalogue(), {}));
    const registry = new Registry();
    registerLedgerMetrics(registry, keys, taskLedger);
    const scrape = async () => (await registry.getSingleMetricAsString('mediagate_ledger_keys_over_budget_fraction')).split('\n').at(-1);
    expect(await keysNearBudget(keys, taskLedger)).toBe(0);
    expect(await scrape()).toBe('mediagate_ledger_keys_over_budget_fraction 0');
    const budget = keys.find('spender')!.budget!;
    await reserveTask(
      ledger,
      { taskId: 't7', keyId: 'spender', platform: 'V', model: 'model-a', estimatedMicros: 4_100_000, currency: 'USD' },
      budget,
    );
    expect(await scrape()).toBe('mediagate_ledger_keys_over_budget_fraction 1');
  });
});
