/**
 * The ledger through crashes (issue 20 §6), on a stack of its own with a real PostgreSQL: tasks of a key with a
 * budget run while the worker, the API and the database are each killed with SIGKILL and started again. Then
 * the ledger must agree with what the platform (the simulator) recorded: one job per task, every succeeded task
 * settled once at its final cost, every failed one released, the key's committed budget the sum of final costs.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ApiClient } from '../support/client';
import { usePostgres } from '../support/postgres';
import { upstreamIds } from '../support/temporal';
import { useStack } from '../support/use-stack';
import { until, V_MODEL, waitAll } from './faults-support';

jest.setTimeout(300_000);

const ADMIN_TOKEN = 'ledger-faults-admin-token-0123456789abcdef';
const pricesFile = join(tmpdir(), `ledger-faults-prices-${process.pid}.json`);
writeFileSync(pricesFile, JSON.stringify({ [V_MODEL]: { currency: 'USD', source: 'test', per_second: { '480p': 0.01, '720p': 0.02, '1080p': 0.04 } } }));

const db = usePostgres();
// A sweep every second (reservations 2 s old), so the test can watch it release one whose task never started.
const gw = useStack(() => ({ name: 'ledger-faults', env: { DATABASE_URL: db.pg.url, ADMIN_TOKEN, PRICES_FILE: pricesFile, LEDGER_SWEEP_INTERVAL_MS: '1000' } }));

async function ledgerRows(sql: string, params: unknown[] = []): Promise<any[]> {
  const client = new Client({ connectionString: db.pg.url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

test('SIGKILL of the worker, an API and the database mid-run: no charge lost, none doubled', async () => {
  const made = await fetch(`${gw.stack.apiUrl}/admin/v1/keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ id: 'payer', budget: { amount: 100, currency: 'USD', period: 'month' } }),
  });
  expect(made.status).toBe(201);
  const payer = new ApiClient(gw.stack.apiUrl, ((await made.json()) as { secret: string }).secret);
  const before = await gw.sim.stats();

  const prompts = [...Array.from({ length: 8 }, (_, i) => `ledger ok #${i} [sim:duration=4000]`), ...Array.from({ length: 3 }, (_, i) => `ledger refused #${i} [sim:fail=content_policy]`)];
  const replies = await Promise.all(prompts.map((prompt) => payer.post('/v1/async/videos/generations', { model: V_MODEL, prompt, duration: 5 })));
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

  await until('every entry is settled or released', async () => (await ledgerRows("SELECT 1 FROM ledger_entries WHERE state = 'reserved'")).length === 0, 120_000);
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
    await client.query('UPDATE budget_usage SET committed_micros = committed_micros + 200000 WHERE key_id = $1 AND period = $2', ['payer', period]);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
  await until('the sweep released it', async () => (await ledgerRows("SELECT state FROM ledger_entries WHERE task_id = 'task_never_started'"))[0].state === 'released', 30_000);
  const [after] = await ledgerRows('SELECT committed_micros FROM budget_usage WHERE key_id = $1', ['payer']);
  expect(Number(after.committed_micros)).toBe(Number(before.committed_micros));
});
