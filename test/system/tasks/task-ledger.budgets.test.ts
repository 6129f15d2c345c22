/**
 * Budgets and settlement against a real PostgreSQL: the real app over real HTTP reserving each task's estimate
 * through the one start path (the task service is the harness's recording stand-in: what it "started" is what would
 * have reached Temporal), the settlement step as the workflow's activity runs it, and the API's sweep.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyStore, parseApiKeysEnv, sha256 } from '../../../keys/api-keys';
import { TaskLedger } from '../../../tasks/task-ledger';
import { createLogger } from '../../../core/logger';
import { openLedgerDatabase, type LedgerDatabase } from '../../../ledger/database';
import { committedMicros, reserveTask, settleTask } from '../../../ledger/entries';
import { buildCatalogue } from '../../../platforms';
import { TaskSettlement } from '../../../tasks/settlement';
import { InflightLimits } from '../../../tasks/inflight';
import { usePostgres } from '../../support/postgres';
import { rawRequest, SECRET, startTestApi, type TestApi } from '../../support/test-api';
import { waitFor } from '../../support/wait-for';
import { loadTaskPricing } from '../../../tasks/billing';

const MODEL = 'vendor-video-1-0-pro-250528';
const logger = createLogger('test', 'silent');
/** A test price for MODEL (the platforms publish none for it): 0.04 USD per second at its default 1080p. */
const pricesFile = join(tmpdir(), `ledger-prices-${process.pid}.json`);
writeFileSync(
  pricesFile,
  JSON.stringify({ [MODEL]: { currency: 'USD', source: 'test', per_second: { '480p': 0.01, '720p': 0.02, '1080p': 0.04 } } }),
);
const pricing = loadTaskPricing(buildCatalogue(), { PRICES_FILE: pricesFile });
const request = { model: MODEL, prompt: 'a fox in the snow', duration: 5 };
const ESTIMATE = pricing.estimateTaskCost({ kind: 'video', ...request }).cost!.amount;
const USD_MONTH = { period: 'month', currency: 'USD' } as const;

const postgres = usePostgres();
let ledger: LedgerDatabase;
let keys: KeyStore;
let api: TestApi;
let taskLedger: TaskLedger;
let startFails = false;
/** What Temporal says of the task after a failed start: the start may have happened although its answer was lost. */
let workflowExists = false;

beforeAll(async () => {
  ledger = await openLedgerDatabase(await postgres.pg.freshDatabase(), { maxConnections: 20 });
  keys = new KeyStore(parseApiKeysEnv(`alice:${SECRET}`));
  taskLedger = new TaskLedger(ledger, pricing);
  api = await startTestApi({
    deps: { keys, pricing, taskLedger },
    starter: { ledger: taskLedger },
    tasks: {
      async start(_owner: string, entry: { id: string }, req: never, o: { taskId?: string }) {
        if (startFails) throw new Error('Temporal unavailable');
        api.started.push(req);
        return { taskId: o.taskId ?? 'task_new', model: entry.id };
      },
      async exists() {
        return workflowExists;
      },
    },
  });
});
afterAll(async () => {
  await api?.close();
  await ledger?.close();
});

/** A key with a budget of `tasks` estimates (USD, per month), as the admin API would store it. */
function budgetedKey(id: string, tasks: number): string {
  const secret = `sk-${id}-0123456789abcdef0123`;
  keys.replaceManaged([
    ...keys.list().filter((k) => k.source === 'admin'),
    { id, digest: sha256(secret), budget: { micros: tasks * ESTIMATE, currency: 'USD', period: 'month' } },
  ]);
  return secret;
}
const submit = (secret: string, headers: Record<string, string> = {}) =>
  rawRequest(
    api.base,
    'POST',
    '/v1/async/videos/generations',
    { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', ...headers },
    JSON.stringify(request),
  );
const entries = (keyId: string) => ledger.db.selectFrom('ledger_entries').selectAll().where('key_id', '=', keyId).execute();

describe('the reservation', () => {
  test('over budget → 402 budget_exceeded naming period, budget and what remains; no workflow is started', async () => {
    const secret = budgetedKey('two-tasks', 2);
    expect((await submit(secret)).status).toBe(200);
    expect((await submit(secret)).status).toBe(200);
    const startedBefore = api.started.length;
    const refused = await submit(secret);
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({
      code: 'budget_exceeded',
      budget: {
        period: 'month',
        amount: (2 * ESTIMATE) / 1e6,
        remaining: 0,
        currency: 'USD',
        period_start: new Date().toISOString().slice(0, 7),
      },
    });
    expect(refused.body.error.message).toMatch(/month budget of 0\.4 USD .* 0 USD remains/);
    expect(api.started.length).toBe(startedBefore);
    expect(await committedMicros(ledger, 'two-tasks', USD_MONTH)).toBe(2 * ESTIMATE);
    expect((await entries('two-tasks')).map((e) => e.state)).toEqual(['reserved', 'reserved']);
  });

  test('50 concurrent submits at the edge of a budget of 10 tasks: exactly 10 accepted, never more', async () => {
    const secret = budgetedKey('edge', 10);
    const startedBefore = api.started.length;
    const answers = await Promise.all(Array.from({ length: 50 }, () => submit(secret)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(40);
    expect(api.started.length - startedBefore).toBe(10);
    expect(await committedMicros(ledger, 'edge', USD_MONTH)).toBe(10 * ESTIMATE);
  });

  test('a repeated Idempotency-Key reserves once', async () => {
    const secret = budgetedKey('idempotent', 5);
    await submit(secret, { 'Idempotency-Key': 'once' });
    expect(await committedMicros(ledger, 'idempotent', USD_MONTH)).toBe(ESTIMATE);
    expect(await entries('idempotent')).toHaveLength(1);
  });

  test('a start that fails gives the reservation back', async () => {
    const secret = budgetedKey('start-fails', 5);
    startFails = true;
    try {
      expect((await submit(secret)).status).toBe(500);
    } finally {
      startFails = false;
    }
    expect(await committedMicros(ledger, 'start-fails', USD_MONTH)).toBe(0);
    expect((await entries('start-fails')).map((e) => [e.state, e.outcome])).toEqual([['released', 'never_started']]);
  });

  test('a start whose answer was lost but whose workflow exists keeps its reservation (its task runs)', async () => {
    const secret = budgetedKey('start-lost', 5);
    startFails = true;
    workflowExists = true;
    try {
      expect((await submit(secret)).status).toBe(500);
    } finally {
      startFails = false;
      workflowExists = false;
    }
    expect(await committedMicros(ledger, 'start-lost', USD_MONTH)).toBe(ESTIMATE);
    expect((await entries('start-lost')).map((e) => e.state)).toEqual(['reserved']);
  });

  test('a task that never started leaves its Idempotency-Key free: the retry is reserved afresh, within the budget', async () => {
    const secret = budgetedKey('retry-after-failure', 1);
    startFails = true;
    try {
      expect((await submit(secret, { 'Idempotency-Key': 'again' })).status).toBe(500);
    } finally {
      startFails = false;
    }
    const startedBefore = api.started.length;
    expect((await submit(secret, { 'Idempotency-Key': 'again' })).status).toBe(200);
    expect(api.started.length - startedBefore).toBe(1);
    expect(await committedMicros(ledger, 'retry-after-failure', USD_MONTH)).toBe(ESTIMATE);
    expect((await entries('retry-after-failure')).map((e) => [e.state, e.outcome])).toEqual([['reserved', null]]);
  });
});

describe('the reservation of one task id by requests at the same moment', () => {
  const entryOf = (taskId: string, keyId: string, estimatedMicros: number) =>
    ({ taskId, keyId, platform: 'V', model: MODEL, estimatedMicros, currency: 'USD', requestHash: 'same-request' }) as const;
  const budgetOf = (micros: number) => ({ micros, currency: 'USD', period: 'month' }) as const;

  test('10 at once within the budget: one is reserved, the others find its entry, and the budget counts the estimate once', async () => {
    // The worst timing, made certain: the key's budget row is held locked until all 10 are waiting on it, so each
    // has already looked for the entry (none yet) and every one adds its estimate before one of them wins the entry. (The pool holds 20 connections: the
    // holder, the 10 and the watcher fit.)
    const { sql } = ledger.k;
    const outcomes = await ledger.db.connection().execute(async (holder) => {
      await sql`INSERT INTO budget_usage (key_id, period, currency, committed_micros) VALUES ('same-id', ${new Date().toISOString().slice(0, 7)}, 'USD', 0)`.execute(
        holder,
      );
      await sql`BEGIN`.execute(holder);
      await sql`SELECT 1 FROM budget_usage WHERE key_id = 'same-id' FOR UPDATE`.execute(holder);
      const all = Promise.all(
        Array.from({ length: 10 }, () => reserveTask(ledger, entryOf('task_same_id', 'same-id', ESTIMATE), budgetOf(10 * ESTIMATE))),
      );
      await waitFor(async () => {
        const waiting = await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%budget_usage%'`.execute(
          ledger.db,
        );
        return waiting.rows[0]!.n === 10;
      }, 30_000);
      await sql`COMMIT`.execute(holder);
      return all;
    });
    expect(outcomes.filter((o) => o.reserved && !o.replayed)).toHaveLength(1);
    expect(outcomes.filter((o) => o.reserved && o.replayed)).toHaveLength(9);
    expect(
      outcomes.filter((o) => o.reserved && o.replayed).every((o) => o.reserved && o.replayed && o.requestHash === 'same-request'),
    ).toBe(true);
    expect(await committedMicros(ledger, 'same-id', USD_MONTH)).toBe(ESTIMATE);
    expect(await entries('same-id')).toHaveLength(1);
  }, 60_000);

  test('a new id over budget and the same id within it, at once: the budget never counts more than one estimate', async () => {
    const [over, within] = await Promise.all([
      reserveTask(ledger, entryOf('task_edge_id', 'edge-id', 3 * ESTIMATE), budgetOf(2 * ESTIMATE)),
      reserveTask(ledger, entryOf('task_edge_id', 'edge-id', ESTIMATE), budgetOf(2 * ESTIMATE)),
    ]);
    expect(within.reserved).toBe(true);
    expect(over.reserved === false || (over.reserved && over.replayed)).toBe(true);
    expect(await committedMicros(ledger, 'edge-id', USD_MONTH)).toBe(ESTIMATE);
    expect(await entries('edge-id')).toHaveLength(1);
  });
});

describe('the start path refuses after reserving only by giving the reservation back', () => {
  let limited: TestApi;
  beforeAll(async () => {
    // Every key has one task running already (Temporal's count), and may run one.
    limited = await startTestApi({
      deps: { keys, pricing, taskLedger },
      starter: { ledger: taskLedger, inflight: new InflightLimits(1, async () => 1) },
    });
  });
  afterAll(() => limited?.close());

  test('over its in-flight cap after the reservation: 429, and the entry is released as never started', async () => {
    const secret = budgetedKey('capped', 5);
    const r = await rawRequest(
      limited.base,
      'POST',
      '/v1/async/videos/generations',
      { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
      JSON.stringify(request),
    );
    expect([r.status, r.body.error.code, r.headers['retry-after']]).toEqual([429, 'too_many_tasks_in_flight', '5']);
    expect(limited.started).toHaveLength(0);
    expect(await committedMicros(ledger, 'capped', USD_MONTH)).toBe(0);
    expect((await entries('capped')).map((e) => [e.state, e.outcome])).toEqual([['released', 'never_started']]);
  });
});

describe('settlement (the worker) and the sweep (the API)', () => {
  const settlement = () => new TaskSettlement(ledger, pricing, logger);
  /** The settlement step, as the workflow's activity runs it when the task ends. */
  const taskEnded = (s: TaskSettlement, taskId: string, outcome: 'success' | 'failed' | 'cancelled', usage = {}, billed?: boolean) =>
    s.settle({
      taskId,
      platform: 'V',
      request: { kind: 'video', ...request },
      outcome,
      usage,
      ...(billed !== undefined ? { billed } : {}),
    });
  const taskIdOf = async (keyId: string) => (await entries(keyId))[0]!.task_id;

  test('success settles to the final cost, once: a second settlement changes nothing', async () => {
    const secret = budgetedKey('settled', 5);
    await submit(secret);
    const taskId = await taskIdOf('settled');
    const s = settlement();
    await taskEnded(s, taskId, 'success', { seconds: 4 });
    await taskEnded(s, taskId, 'success', { seconds: 4 });
    const final = pricing.finalTaskCost({ kind: 'video', ...request }, { seconds: 4 }, 'success').cost!.amount;
    expect(final).toBeLessThan(ESTIMATE);
    const [entry] = await entries('settled');
    expect([entry!.state, Number(entry!.final_micros), entry!.seconds]).toEqual(['settled', final, 4]);
    expect(await committedMicros(ledger, 'settled', USD_MONTH)).toBe(final);
  });

  test('10 settlements of one task at once (its activity retried while the first still runs): one settles, the budget moves once', async () => {
    const secret = budgetedKey('raced', 5);
    await submit(secret);
    const taskId = await taskIdOf('raced');
    const final = pricing.finalTaskCost({ kind: 'video', ...request }, { seconds: 4 }, 'success').cost!.amount;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => settleTask(ledger, taskId, { outcome: 'success', finalMicros: final, seconds: 4 })),
    );
    expect(answers.filter((a) => a === 'settled')).toHaveLength(1);
    expect(answers.filter((a) => a === 'unchanged')).toHaveLength(9);
    const [entry] = await entries('raced');
    expect([entry!.state, entry!.outcome, Number(entry!.final_micros), entry!.seconds]).toEqual(['settled', 'success', final, 4]);
    expect(await committedMicros(ledger, 'raced', USD_MONTH)).toBe(final);
    // A failure reported after the success changes nothing either.
    expect(await settleTask(ledger, taskId, { outcome: 'failed', finalMicros: 0 })).toBe('unchanged');
    expect(await committedMicros(ledger, 'raced', USD_MONTH)).toBe(final);
  });

  test('a failure releases the reservation; the same task replayed after an outage and succeeding is charged once', async () => {
    const secret = budgetedKey('victim', 5);
    await submit(secret);
    const taskId = await taskIdOf('victim');
    const first = settlement();
    await taskEnded(first, taskId, 'failed');
    await waitFor(async () => (await entries('victim'))[0]!.state === 'released');
    expect(await committedMicros(ledger, 'victim', USD_MONTH)).toBe(0);
    // npm run replay-failed starts the same task id again; this run succeeds, and its end is reported twice.
    const replay = settlement();
    await taskEnded(replay, taskId, 'success');
    await taskEnded(replay, taskId, 'success');
    await waitFor(async () => (await entries('victim'))[0]!.state === 'settled');
    expect(await committedMicros(ledger, 'victim', USD_MONTH)).toBe(ESTIMATE);
    await taskEnded(replay, taskId, 'failed');
    expect((await entries('victim'))[0]!.state).toBe('settled');
  });

  test.each(['cancelled', 'failed'] as const)(
    'a %s task whose job the platform bills all the same (not stopped upstream) is released at its cost',
    async (outcome) => {
      const secret = budgetedKey(`billed-${outcome}`, 5);
      await submit(secret);
      await submit(secret);
      const [billed, stopped] = (await entries(`billed-${outcome}`)).map((e) => e.task_id);
      const s = settlement();
      await taskEnded(s, billed!, outcome, {}, true);
      await taskEnded(s, stopped!, outcome, {}, false);
      const byTask = Object.fromEntries(
        (await entries(`billed-${outcome}`)).map((e) => [e.task_id, [e.state, e.outcome, Number(e.final_micros), e.seconds]]),
      );
      // The running job is billed what the request asked for (the estimate's figure); a stopped one nothing.
      expect(byTask).toEqual({ [billed!]: ['released', outcome, ESTIMATE, 5], [stopped!]: ['released', outcome, 0, 0] });
      expect(await committedMicros(ledger, `billed-${outcome}`, USD_MONTH)).toBe(ESTIMATE);
    },
  );

  test("a replayed task whose first run left a billed job counts both jobs: the first run's cost plus the successful one's", async () => {
    const secret = budgetedKey('billed-victim', 5);
    await submit(secret);
    const taskId = await taskIdOf('billed-victim');
    const s = settlement();
    await taskEnded(s, taskId, 'failed', {}, true);
    await taskEnded(s, taskId, 'success', { seconds: 4 });
    await taskEnded(s, taskId, 'success', { seconds: 4 });
    const final = pricing.finalTaskCost({ kind: 'video', ...request }, { seconds: 4 }, 'success').cost!.amount;
    const [entry] = await entries('billed-victim');
    expect([entry!.state, Number(entry!.final_micros), entry!.seconds]).toEqual(['settled', ESTIMATE + final, 5 + 4]);
    expect(await committedMicros(ledger, 'billed-victim', USD_MONTH)).toBe(ESTIMATE + final);
  });

  test('the sweep releases a reservation whose workflow never started, settles one whose end was missed, leaves running ones', async () => {
    const secret = budgetedKey('swept', 5);
    for (let i = 0; i < 3; i++) await submit(secret);
    const [lost, ended, running] = (await entries('swept')).map((e) => e.task_id);
    const records: Record<string, unknown> = {
      [ended!]: {
        task_id: ended,
        status: 'success',
        model: MODEL,
        usage: { seconds: 5 },
        cost: { amount: ESTIMATE / 1e6, currency: 'USD', estimated: false },
      },
      [running!]: { task_id: running, status: 'running', model: MODEL },
    };
    // Other tests' tasks (other keys) in this database are running, as far as this sweep is concerned.
    const readTask = async (taskId: string, ownerId: string) =>
      (ownerId === 'swept' ? records[taskId] : { task_id: taskId, status: 'running', model: MODEL }) as never;
    expect(await taskLedger.sweep({ minAgeMs: 60_000, readTask })).toBe(0);
    expect(await taskLedger.sweep({ minAgeMs: 0, readTask })).toBe(2);
    const states = Object.fromEntries((await entries('swept')).map((e) => [e.task_id, e.state]));
    expect(states).toEqual({ [lost!]: 'released', [ended!]: 'settled', [running!]: 'reserved' });
    expect(await committedMicros(ledger, 'swept', USD_MONTH)).toBe(2 * ESTIMATE);
    expect(await taskLedger.sweep({ minAgeMs: 0, readTask })).toBe(0);
  });
});
