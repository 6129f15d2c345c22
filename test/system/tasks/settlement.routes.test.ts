/**
 * Routed tasks' money against a real PostgreSQL: the real app over real HTTP reserves a routed task at its dearest
 * member's estimate (the start path, tasks/routing.ts), the settlement step settles it at what the member that served
 * it bills and records that member (tasks/settlement.ts), and GET /v1/usage reports by route and by served model.
 */
import { KeyStore, parseApiKeysEnv, sha256 } from '../../../keys/api-keys';
import { createLogger } from '../../../core/logger';
import type { GenerationRequest, RouteMember, TaskRoute } from '../../../core/task';
import { openLedgerDatabase, type LedgerDatabase } from '../../../ledger/database';
import { committedMicros } from '../../../ledger/entries';
import { buildCatalogue } from '../../../platforms';
import { loadTaskPricing } from '../../../tasks/billing';
import { TaskLedger } from '../../../tasks/task-ledger';
import { TaskSettlement } from '../../../tasks/settlement';
import { writeJsonFile } from '../../support/json-file';
import { queryRows, usePostgres } from '../../support/postgres';
import { rawRequest, SECRET, startTestApi, type TestApi } from '../../support/test-api';

const BUDGETED = 'sk-budgeted-route-0123456789abc';
const ADMIN_TOKEN = 'admin-token-for-route-tests-0123456789';
/** CNY per second: T's Hailuo 2.3 dearer than B's. */
const pricing = loadTaskPricing(buildCatalogue(), {
  PRICES_FILE: writeJsonFile({
    'VendorH-2.3': { currency: 'CNY', source: 'test', per_second: { '*': 0.5 } },
    H23: { currency: 'CNY', source: 'test', per_second: { '*': 0.3 } },
  }),
});
const CNY_MONTH = { period: 'month', currency: 'CNY' } as const;

const postgres = usePostgres();
let url: string;
let ledger: LedgerDatabase;
let api: TestApi;
let settlement: TaskSettlement;
const routes = new Map<string, TaskRoute>();

beforeAll(async () => {
  url = await postgres.pg.freshDatabase();
  ledger = await openLedgerDatabase(url);
  const keys = new KeyStore(parseApiKeysEnv(`alice:${SECRET}`));
  keys.replaceManaged([{ id: 'budgeted', digest: sha256(BUDGETED), budget: { micros: 100_000_000, currency: 'CNY', period: 'month' } }]);
  const taskLedger = new TaskLedger(ledger, pricing);
  settlement = new TaskSettlement(ledger, pricing, createLogger('test', 'silent'));
  api = await startTestApi({
    deps: { keys, pricing, taskLedger, adminToken: ADMIN_TOKEN },
    starter: { ledger: taskLedger },
    tasks: {
      async start(_owner: string, entry: { id: string }, _req: GenerationRequest, o: { taskId: string; route?: TaskRoute }) {
        if (o.route) routes.set(o.taskId, o.route);
        return { taskId: o.taskId, model: o.route?.name ?? entry.id };
      },
    },
  });
});
afterAll(async () => {
  await api?.close();
  await ledger?.close();
});

const post = (body: unknown, secret = BUDGETED) =>
  rawRequest(
    api.base,
    'POST',
    '/v1/async/videos/generations',
    { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
    JSON.stringify(body),
  );
/** GET /v1/usage grouped by `groupBy`, as the budgeted key. */
const usageBy = (groupBy: string, headers: Record<string, string> = {}) =>
  rawRequest(api.base, 'GET', `/v1/usage?group_by=${groupBy}`, { Authorization: `Bearer ${BUDGETED}`, ...headers });
const entry = async (taskId: string) =>
  (
    await queryRows(
      url,
      'SELECT model, platform, route, served_platform, served_model, estimated_micros, final_micros, state FROM ledger_entries WHERE task_id = $1',
      [taskId],
    )
  )[0];

/** The worker's settlement of a task its member `served` ended `outcome` (the settlement step's input). */
const settle = (taskId: string, served: RouteMember, outcome: 'success' | 'failed' = 'success') =>
  settlement.settle({
    taskId,
    platform: served.platform,
    request: served.request,
    servedBy: { platform: served.platform, model: served.model },
    outcome,
    usage: {},
  });

const hailuo = { model: 'hailuo-2.3', action: 'text_to_video', prompt: 'a lighthouse', duration: 6 };

test('a routed task reserves its dearest member’s estimate, and settles at what the member that served it bills', async () => {
  const r = await post(hailuo);
  expect(r.status).toBe(200);
  const taskId = r.body.task_id as string;
  // T: 6 s × 0.5 = 3 CNY; B: 6 s × 0.3 = 1.8 CNY. The reservation is T's, whichever member serves.
  expect(await entry(taskId)).toMatchObject({
    model: 'hailuo-2.3',
    platform: 'T',
    route: 'hailuo-2.3',
    served_platform: null,
    served_model: null,
    estimated_micros: '3000000',
    state: 'reserved',
  });
  expect(await committedMicros(ledger, 'budgeted', CNY_MONTH)).toBe(3_000_000);

  const b = routes.get(taskId)!.members.find((m) => m.platform === 'B')!;
  expect(await settle(taskId, b)).toBe('settled');
  expect(await entry(taskId)).toMatchObject({ served_platform: 'B', served_model: 'H23', final_micros: '1800000', state: 'settled' });
  expect(await committedMicros(ledger, 'budgeted', CNY_MONTH)).toBe(1_800_000);
});

test('a task that named a catalogue model is served by it from its reservation on', async () => {
  const r = await post({ ...hailuo, model: 'H23' });
  expect(r.status).toBe(200);
  expect(await entry(r.body.task_id)).toMatchObject({ model: 'H23', route: null, served_platform: 'B', served_model: 'H23' });
});

test('GET /v1/usage by route and by served model (tasks without one form the group null)', async () => {
  const byRoute = await usageBy('route');
  expect(byRoute.status).toBe(200);
  const rows = (r: { body: { data: Record<string, unknown>[] } }, col: string) =>
    Object.fromEntries(r.body.data.map((d) => [String(d[col]), { tasks: d.tasks, running: d.running, cost: d.cost }]));
  expect(rows(byRoute, 'route')).toEqual({
    'hailuo-2.3': { tasks: 1, running: 0, cost: { CNY: 1.8 } },
    null: { tasks: 1, running: 1, cost: { CNY: 1.8 } },
  });
  const byServed = await usageBy('served_model');
  expect(rows(byServed, 'served_model')).toEqual({ H23: { tasks: 2, running: 1, cost: { CNY: 3.6 } } });
  const csv = await usageBy('route', { Accept: 'text/csv' });
  expect(String(csv.body).split('\n').slice(0, 3)).toEqual([
    'route,tasks,succeeded,failed,running,unpriced,seconds,images,tokens,cost_USD,cost_CNY',
    'hailuo-2.3,1,1,0,0,0,6,0,0,,1.8',
    ',1,0,0,1,0,6,0,0,,1.8',
  ]);
});

test('a routed task still running has no served model yet (its own group, null)', async () => {
  await post({ ...hailuo, prompt: 'still running' });
  const byServed = await usageBy('served_model');
  expect((byServed.body.data as { served_model: string | null; tasks: number }[]).map((d) => [d.served_model, d.tasks])).toEqual([
    ['H23', 2],
    [null, 1],
  ]);
});

test('GET /admin/v1/usage by platform counts a routed task where it was served (not the member it was reserved at)', async () => {
  const byPlatform = await rawRequest(api.base, 'GET', '/admin/v1/usage?group_by=platform', { Authorization: `Bearer ${ADMIN_TOKEN}` });
  expect(byPlatform.status).toBe(200);
  // Reserved at T's estimate, served by B: B's row. The routed task still running belongs to no platform yet.
  expect((byPlatform.body.data as { platform: string | null; tasks: number }[]).map((d) => [d.platform, d.tasks])).toEqual([
    ['B', 2],
    [null, 1],
  ]);
});
