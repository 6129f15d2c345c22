/**
 * The ledger through crashes, on a stack of its own with a real PostgreSQL: tasks of a key with a
 * budget run while the worker, the API and the database are each killed with SIGKILL and started again; the
 * database alone is killed while tasks end (the worker's settlement retries); an outage victim is replayed. Then
 * the ledger must agree with what the platform (the simulator) recorded: one job per task, every succeeded task
 * settled once at its final cost, every failed one released, the key's committed budget the sum of final costs —
 * and the worker's Prometheus ledger counters with the ledger.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ApiClient } from '../support/client';
import { metric, scrape } from '../support/metrics';
import { usePostgres } from '../support/postgres';
import { REPO } from '../support/stack';
import { upstreamIds } from '../support/temporal';
import { useStack } from '../support/use-stack';
import { until, V_MODEL, waitAll } from './faults-support';

jest.setTimeout(300_000);

const ADMIN_TOKEN = 'ledger-faults-admin-token-0123456789abcdef';
const pricesFile = join(tmpdir(), `ledger-faults-prices-${process.pid}.json`);
/** Platform B's V20 (its published price is in CNY) priced in USD here, so that the USD budgets count it. */
const V20_PER_SECOND = 0.05;
writeFileSync(
  pricesFile,
  JSON.stringify({
    [V_MODEL]: { currency: 'USD', source: 'test', per_second: { '480p': 0.01, '720p': 0.02, '1080p': 0.04 } },
    V20: { currency: 'USD', source: 'test', per_second: { '*': V20_PER_SECOND } },
  }),
);

const db = usePostgres();
// A sweep every second (reservations 2 s old), so the test can watch it release one whose task never started.
const gw = useStack(() => ({
  name: 'ledger-faults',
  env: { DATABASE_URL: db.pg.url, ADMIN_TOKEN, PRICES_FILE: pricesFile, LEDGER_SWEEP_INTERVAL_MS: '1000' },
}));

async function ledgerRows(sql: string, params: unknown[] = []): Promise<any[]> {
  const client = new Client({ connectionString: db.pg.url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** A key with a USD budget made through the admin API, as a client. */
async function budgetedKey(id: string): Promise<ApiClient> {
  const made = await fetch(`${gw.stack.apiUrl}/admin/v1/keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ id, budget: { amount: 100, currency: 'USD', period: 'month' } }),
  });
  expect(made.status).toBe(201);
  return new ApiClient(gw.stack.apiUrl, ((await made.json()) as { secret: string }).secret);
}

/** Every entry of the key is settled or released: its ledger rows. */
async function settledEntries(keyId: string, timeoutMs: number): Promise<any[]> {
  await until(
    `every entry of ${keyId} is settled or released`,
    async () => (await ledgerRows("SELECT 1 FROM ledger_entries WHERE key_id = $1 AND state = 'reserved'", [keyId])).length === 0,
    timeoutMs,
  );
  return ledgerRows('SELECT task_id, state, outcome, final_micros, seconds FROM ledger_entries WHERE key_id = $1', [keyId]);
}

test('SIGKILL of the worker, an API and the database mid-run: no charge lost, none doubled', async () => {
  const payer = await budgetedKey('payer');
  const before = await gw.sim.stats();

  const prompts = [
    ...Array.from({ length: 8 }, (_, i) => `ledger ok #${i} [sim:duration=4000]`),
    ...Array.from({ length: 3 }, (_, i) => `ledger refused #${i} [sim:fail=content_policy]`),
  ];
  const replies = await Promise.all(
    prompts.map((prompt) => payer.post('/v1/async/videos/generations', { model: V_MODEL, prompt, duration: 5 })),
  );
  expect(replies.map((r) => r.status)).toEqual(prompts.map(() => 200));
  const ids = replies.map((r) => r.body.task_id as string);

  await until('every task has its job', async () => (await upstreamIds(gw.client, ids)).every(Boolean), 60_000);
  await gw.stack.workers.find((w) => w.running)!.kill();
  await gw.stack.apis.find((a) => a.running)!.kill();
  await db.pg.crashAndRestart();
  await gw.stack.startWorker();
  await gw.stack.startApi(gw.stack.apiPorts[0]!);

  const records = await waitAll(payer, ids, 180_000);
  expect(records.map((r) => r.status)).toEqual(prompts.map((p) => (p.includes('refused') ? 'failed' : 'success')));
  // The platform made exactly one job per task.
  expect((await gw.sim.stats()).V.jobsCreated - before.V.jobsCreated).toBe(ids.length);

  await until(
    'every entry is settled or released',
    async () => (await ledgerRows("SELECT 1 FROM ledger_entries WHERE state = 'reserved'")).length === 0,
    120_000,
  );
  const entries = await ledgerRows('SELECT task_id, state, final_micros FROM ledger_entries WHERE key_id = $1', ['payer']);
  const byTask = new Map(entries.map((e) => [e.task_id as string, e]));
  expect(entries).toHaveLength(ids.length);
  for (const record of records) {
    const entry = byTask.get(record.task_id)!;
    expect([record.task_id, entry.state]).toEqual([record.task_id, record.status === 'success' ? 'settled' : 'released']);
    // The ledger's final cost is the one the task record shows.
    expect(Number(entry.final_micros) / 1e6).toBeCloseTo(record.cost.amount, 6);
  }
  const charged = entries.reduce((sum, e) => sum + Number(e.final_micros), 0);
  expect(charged).toBeGreaterThan(0);
  const [budget] = await ledgerRows('SELECT committed_micros FROM budget_usage WHERE key_id = $1', ['payer']);
  expect(Number(budget.committed_micros)).toBe(charged);
  const usage = await payer.get('/v1/usage');
  expect(usage.body.data).toEqual([expect.objectContaining({ model: V_MODEL, tasks: ids.length, succeeded: 8, failed: 3, running: 0 })]);
});

test('a reservation whose workflow never started (the API died in between) is released by the sweep', async () => {
  const [before] = await ledgerRows('SELECT committed_micros FROM budget_usage WHERE key_id = $1', ['payer']);
  const period = new Date().toISOString().slice(0, 7);
  // What an API leaves behind when it dies after reserving and before starting the workflow: the entry and the
  // budget row's share, in one transaction, and no workflow with that task id.
  const client = new Client({ connectionString: db.pg.url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      "INSERT INTO ledger_entries (task_id, key_id, platform, model, currency, budget_period, estimated_micros, state, created_at) VALUES ('task_never_started', 'payer', 'V', $1, 'USD', $2, 200000, 'reserved', now() - interval '10 seconds')",
      [V_MODEL, period],
    );
    await client.query('UPDATE budget_usage SET committed_micros = committed_micros + 200000 WHERE key_id = $1 AND period = $2', [
      'payer',
      period,
    ]);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
  await until(
    'the sweep released it',
    async () => (await ledgerRows("SELECT state FROM ledger_entries WHERE task_id = 'task_never_started'"))[0].state === 'released',
    30_000,
  );
  const [after] = await ledgerRows('SELECT committed_micros FROM budget_usage WHERE key_id = $1', ['payer']);
  expect(Number(after.committed_micros)).toBe(Number(before.committed_micros));
});

describe('the database alone SIGKILLed while tasks end (worker and API live)', () => {
  test("every settlement lands once, by the worker's retries; the worker's ledger counters agree with the ledger", async () => {
    // An API whose sweep waits ten minutes: only the worker's own retries can settle these tasks.
    await gw.stack.apis.find((a) => a.running)!.stop(10_000);
    await gw.stack.startApi(gw.stack.apiPorts[0]!, { LEDGER_SWEEP_INTERVAL_MS: '600000' });
    const steady = await budgetedKey('steady');
    const worker = gw.stack.workers.find((w) => w.running)!;
    const counters = async () => {
      const page = await scrape(worker.metricsUrl);
      return {
        success: metric(page, 'mediagate_ledger_tasks_total', { platform: 'V', model: V_MODEL, outcome: 'success' }),
        failed: metric(page, 'mediagate_ledger_tasks_total', { platform: 'V', model: V_MODEL, outcome: 'failed' }),
        spend: metric(page, 'mediagate_ledger_spend_total', { platform: 'V', model: V_MODEL, currency: 'USD' }),
      };
    };
    const before = await counters();
    const jobsBefore = (await gw.sim.stats()).V.jobsCreated;

    const prompts = [
      ...Array.from({ length: 6 }, (_, i) => `db down ok #${i} [sim:duration=3000]`),
      ...Array.from({ length: 2 }, (_, i) => `db down refused #${i} [sim:fail=content_policy] [sim:duration=3000]`),
    ];
    const replies = await Promise.all(
      prompts.map((prompt) => steady.post('/v1/async/videos/generations', { model: V_MODEL, prompt, duration: 5 })),
    );
    expect(replies.map((r) => r.status)).toEqual(prompts.map(() => 200));
    const ids = replies.map((r) => r.body.task_id as string);
    await until('every task has its job', async () => (await upstreamIds(gw.client, ids)).every(Boolean), 60_000);

    // The tasks end while the database is down: reads come from Temporal, the key from the API's last read set.
    await db.pg.crash();
    let records: any[];
    try {
      records = await waitAll(steady, ids, 120_000);
      // Let the worker's first settlement attempts fail against the dead server.
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await ledgerRows('SELECT 1').catch(() => 'down')).toBe('down');
    } finally {
      await db.pg.restart();
    }
    expect(records.map((r) => r.status)).toEqual(prompts.map((p) => (p.includes('refused') ? 'failed' : 'success')));
    expect((await gw.sim.stats()).V.jobsCreated - jobsBefore).toBe(ids.length);

    const entries = await settledEntries('steady', 120_000);
    const byTask = new Map(entries.map((e) => [e.task_id as string, e]));
    expect(entries).toHaveLength(ids.length);
    for (const record of records) {
      const entry = byTask.get(record.task_id)!;
      expect([record.task_id, entry.state, Number(entry.final_micros) / 1e6]).toEqual([
        record.task_id,
        record.status === 'success' ? 'settled' : 'released',
        record.cost.amount,
      ]);
    }
    const charged = entries.reduce((sum, e) => sum + Number(e.final_micros), 0);
    expect(charged).toBeGreaterThan(0);
    const [budget] = await ledgerRows('SELECT committed_micros FROM budget_usage WHERE key_id = $1', ['steady']);
    expect(Number(budget.committed_micros)).toBe(charged);

    // Each task counted once by the worker that settled it (the sweep could not have: it did not run), its spend
    // the ledger's.
    const after = await counters();
    expect([after.success - before.success, after.failed - before.failed]).toEqual([6, 2]);
    expect(after.spend - before.spend).toBeCloseTo(charged / 1e6, 6);
  });
});

describe('a replayed outage victim', () => {
  test('a task that failed upstream_unavailable, replayed with npm run replay-failed, is charged once, for the job that succeeded', async () => {
    const victim = await budgetedKey('victim');
    // B's transient "Internal error" (unbilled) on the first four jobs: three re-submissions, then the task fails.
    const prompt = `outage victim ${Date.now()} [sim:fail=transientx4] [sim:duration=800]`;
    const r = await victim.post('/v1/async/videos/generations', {
      model: 'V20',
      prompt,
      image_url: 'https://x.test/head.jpeg',
      last_frame_url: 'https://x.test/tail.jpeg',
      duration: 4,
      resolution: '720p',
    });
    expect(r.status).toBe(200);
    const taskId = r.body.task_id as string;
    const failed = await victim.waitForTask(taskId, 120_000);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'upstream_unavailable' }, cost: { amount: 0, estimated: false } });
    const [released] = await settledEntries('victim', 60_000);
    expect([released.state, Number(released.final_micros)]).toEqual(['released', 0]);

    const out = execFileSync(process.execPath, ['--import', 'tsx', join(REPO, 'scripts/replay-failed.ts'), '--task-id', taskId], {
      cwd: REPO,
      env: { ...process.env, ...gw.stack.env },
      encoding: 'utf8',
    });
    expect(out).toContain(`replay  ${taskId}`);
    const record = await victim.waitForTask(taskId, 120_000);
    expect(record.status).toBe('success');
    await until(
      'the replayed run is settled',
      async () => (await ledgerRows('SELECT state FROM ledger_entries WHERE task_id = $1', [taskId]))[0].state === 'settled',
      60_000,
    );

    // The platform's record: five jobs for the task, four failed (unbilled), one succeeded.
    const jobs = (await gw.sim.jobs('B')).filter((j) => (j as { directives?: { prompt?: string } }).directives?.prompt === prompt);
    expect(jobs.map((j) => j.view.state)).toEqual(['failed', 'failed', 'failed', 'failed', 'succeeded']);
    // The ledger: one job's cost, the one that succeeded (the seconds it reported at the test's price), counted once.
    const [entry] = await ledgerRows('SELECT state, outcome, final_micros, seconds FROM ledger_entries WHERE task_id = $1', [taskId]);
    expect([entry.state, entry.outcome, Number(entry.final_micros) / 1e6]).toEqual(['settled', 'success', record.cost.amount]);
    expect(record.cost.amount).toBeCloseTo(V20_PER_SECOND * record.usage.seconds, 6);
    expect(entry.seconds).toBe(record.usage.seconds);
    const [budget] = await ledgerRows('SELECT committed_micros FROM budget_usage WHERE key_id = $1', ['victim']);
    expect(Number(budget.committed_micros)).toBe(Number(entry.final_micros));
  });
});
