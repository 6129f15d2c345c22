/**
 * Part `ledger`, side by side in one run on one stack with a real PostgreSQL:
 * 1. async submit p50/p99 at 1 and 16 clients, for a key with a budget (the reservation's conditional upsert) and
 *    a key without one (the ledger entry alone), alternating so both see the same machine;
 * 2. settlement: 200 tasks ending together, from each workflow's close to its ledger entry settled;
 * 3. GET /v1/usage p50 over a ledger of 100,000 rows (written straight into the table).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { Client, Connection } from '@temporalio/client';
import { startTestPostgres } from '../test/support/postgres';
import { AUTH, apiUrl, benchStack, cannon, percentile, pool, round, until, VIDEO_MODEL, videoBody } from './support';

const SECONDS = 10;
const LEVELS = [1, 16];
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdefghijkl';
const SETTLE_TASKS = 200;
const USAGE_ROWS = 100_000;

async function makeBudgetedKey(base: string): Promise<Record<string, string>> {
  const r = await fetch(`${base}/admin/v1/keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
    // Large enough never to refuse: every submit pays the reservation's full path.
    body: JSON.stringify({ id: 'bench-budgeted', budget: { amount: 1_000_000, currency: 'USD', period: 'month' } }),
  });
  if (r.status !== 201) throw new Error(`POST /admin/v1/keys: ${r.status}`);
  return { Authorization: `Bearer ${((await r.json()) as { secret: string }).secret}`, 'Content-Type': 'application/json' };
}

async function submitRows(base: string, budgeted: Record<string, string>) {
  const url = `${base}/v1/async/videos/generations`;
  const rows = [];
  for (const clients of LEVELS) {
    for (const [budget, headers] of [
      ['on', budgeted],
      ['off', AUTH],
    ] as const) {
      const r = await cannon({
        url,
        method: 'POST',
        headers,
        body: videoBody('bench ledger submit'),
        connections: clients,
        duration: SECONDS,
      });
      rows.push({
        part: 'submit',
        clients,
        budget,
        requests: r.requests.total,
        p50ms: r.latency.p50,
        p99ms: r.latency.p99,
        errors: r.errors + r.non2xx,
      });
    }
  }
  return rows;
}

/** 200 tasks submitted at once, ending together; per task, from its workflow's close to its entry's settlement. */
async function settlementRow(base: string, temporalAddress: string, databaseUrl: string) {
  const ids = await pool(
    Array.from({ length: SETTLE_TASKS }, (_, i) => i),
    32,
    async (i) => {
      const r = await fetch(`${base}/v1/async/videos/generations`, {
        method: 'POST',
        headers: AUTH,
        body: JSON.stringify({ model: VIDEO_MODEL, prompt: `bench settle #${i} [sim:duration=4000]`, duration: 5 }),
      });
      return ((await r.json()) as { task_id: string }).task_id;
    },
  );
  const db = new PgClient({ connectionString: databaseUrl });
  await db.connect();
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const settledCount = async () =>
      Number((await db.query("SELECT count(*) AS n FROM ledger_entries WHERE task_id = ANY($1) AND state <> 'reserved'", [ids])).rows[0].n);
    await until(async () => (await settledCount()) === ids.length, 180_000);
    const client = new Client({ connection, namespace: 'default' });
    const closes = await pool(ids, 16, async (id) => (await client.workflow.getHandle(id).describe()).closeTime!.getTime());
    const settled = (await db.query('SELECT task_id, settled_at FROM ledger_entries WHERE task_id = ANY($1)', [ids])).rows as {
      task_id: string;
      settled_at: Date;
    }[];
    const settledAt = new Map(settled.map((s) => [s.task_id, s.settled_at.getTime()]));
    const lags = ids.map((id, i) => settledAt.get(id)! - closes[i]!);
    const spanMs = Math.max(...settled.map((s) => s.settled_at.getTime())) - Math.min(...closes);
    return {
      part: 'settlement',
      tasks: ids.length,
      closeToSettledP50ms: round(percentile(lags, 50)),
      closeToSettledMaxMs: round(Math.max(...lags)),
      firstCloseToLastSettledMs: spanMs,
    };
  } finally {
    await connection.close();
    await db.end();
  }
}

/** 100,000 ledger rows for one key over a year, then GET /v1/usage (a year, by model and by day) 50 times each. */
async function usageRows(base: string, databaseUrl: string, headers: Record<string, string>) {
  const db = new PgClient({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO ledger_entries (task_id, key_id, platform, model, currency, estimated_micros, final_micros, state, outcome, seconds, created_at, settled_at)
       SELECT 'bench_usage_' || g, 'bench-budgeted', 'V', 'model-' || (g % 12), 'USD', 200000, 200000, 'settled', 'success', 5,
              now() - (g % 360) * interval '1 day', now()
       FROM generate_series(1, $1) AS g`,
      [USAGE_ROWS],
    );
    await db.query('ANALYZE ledger_entries');
  } finally {
    await db.end();
  }
  const start = new Date(Date.now() - 364 * 86_400_000).toISOString().slice(0, 10);
  const rows = [];
  for (const groupBy of ['model', 'day']) {
    const url = `${base}/v1/usage?start=${start}&group_by=${groupBy}`;
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now();
      const r = await fetch(url, { headers });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`GET /v1/usage: ${r.status}`);
      times.push(performance.now() - t0);
    }
    rows.push({ part: 'usage', rows: USAGE_ROWS, groupBy, p50ms: round(percentile(times, 50)), p99ms: round(percentile(times, 99)) });
  }
  return rows;
}

export async function runLedger(): Promise<{ rows: Record<string, unknown>[]; notes: string[] }> {
  const postgres = await startTestPostgres();
  const pricesFile = join(tmpdir(), `bench-ledger-prices-${process.pid}.json`);
  writeFileSync(pricesFile, JSON.stringify({ [VIDEO_MODEL]: { currency: 'USD', source: 'bench', per_second: { '*': 0.04 } } }));
  const stack = await benchStack('ledger', {
    simJobDurationMs: 300,
    env: { DATABASE_URL: postgres.url, ADMIN_TOKEN, PRICES_FILE: pricesFile },
  });
  try {
    const base = apiUrl(stack);
    const budgeted = await makeBudgetedKey(base);
    // Warm-up: JIT, both pools (Temporal's and the database's), the worker's first workflow tasks.
    await cannon({
      url: `${base}/v1/async/videos/generations`,
      method: 'POST',
      headers: budgeted,
      body: videoBody('bench warm-up'),
      connections: 8,
      amount: 300,
    });
    // Settlement first, while the worker has nothing else to do: the submit part leaves thousands of tasks running.
    const settlement = await settlementRow(base, stack.temporalAddress, postgres.url);
    const rows: Record<string, unknown>[] = [...(await submitRows(base, budgeted)), settlement];
    rows.push(...(await usageRows(base, postgres.url, budgeted)));
    return {
      rows,
      notes: [
        `${SECONDS} s per submit level; budget "on": a key with a budget (entry + conditional upsert), "off": a key without one (entry only)`,
        '1 API, 1 worker, Temporal dev server (SQLite) and the embedded PostgreSQL on the same host',
      ],
    };
  } finally {
    await stack.stop();
    await postgres.stop();
  }
}
