/**
 * The ledger against the platforms' own records, over HTTP against a real stack (its ledger on a real PostgreSQL)
 * and a lane whose worker reads PLATFORM_V_ACCOUNTS_FILE with three simulated V accounts, each serving its own models:
 * `clean` (1.0 pro fast: nothing planted), `main` (1.0 pro and 1.5 pro: an orphan job made directly on the
 * simulator, a job whose usage the simulator restates, a billed job whose record the simulator no longer holds) and
 * `third` (1.0 lite i2v: the worker SIGKILLed while its listing is held). Also here, on the same ledger: V's offline
 * tier reserved and billed at its own price (never the online one), an expired offline job failed with reason
 * `expired` and unbilled, and a model without flex refused with a 400 naming the field.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SA } from '../../core/search-attributes';
import { adminCall } from '../support/admin-api';
import { ApiClient } from '../support/client';
import { queryRows, usePostgres } from '../support/postgres';
import type { Proc } from '../support/stack';
import { useStack } from '../support/use-stack';
import { until } from './faults-support';

jest.setTimeout(300_000);

const ADMIN_TOKEN = 'reconciliation-admin-token-0123456789abcd';
const V10 = 'vendor-video-1-0-pro-250528';
const V10F = 'vendor-video-1-0-pro-fast-251015';
const V15 = 'vendor-video-1-5-pro-251215';
const V20 = 'vendor-video-2-0-260128';
const I2V = 'vendor-video-1-0-lite-i2v-250428';
const KEYS = { clean: 'sim-v-key-clean', main: 'sim-v-key-main', third: 'sim-v-key-third' } as const;
const MODELS = { clean: [V10F], main: [V10, V15], third: [I2V] } as const;

/** 1.5 pro at 16 CNY a million tokens online, 8 offline; 720p estimated at its largest frame. */
const TOKENS_PER_SECOND = { '720p': 22560 };
const PRICES = {
  [V15]: {
    currency: 'CNY',
    source: 'test, online',
    per_token: { per_million: 16, tokens_per_second: TOKENS_PER_SECOND },
    tiers: { flex: { source: 'test, offline', per_token: { per_million: 8, tokens_per_second: TOKENS_PER_SECOND } } },
  },
  [V10]: { currency: 'CNY', source: 'test', per_token: { per_million: 15, tokens_per_second: TOKENS_PER_SECOND } },
};
const dir = mkdtempSync(join(tmpdir(), 'mediagate-reconciliation-'));
const pricesFile = join(dir, 'prices.json');
writeFileSync(pricesFile, JSON.stringify(PRICES));

const db = usePostgres();
const gw = useStack(() => ({ name: 'reconciliation', env: { DATABASE_URL: db.pg.url, ADMIN_TOKEN, PRICES_FILE: pricesFile } }));
const today = new Date().toISOString().slice(0, 10);
let laneEnv: Record<string, string>;
let lane: { api: ApiClient; apiUrl: string; worker: Proc };

beforeAll(async () => {
  const accounts = (Object.keys(KEYS) as (keyof typeof KEYS)[]).map((id) => ({
    id,
    api_key: KEYS[id],
    base_url: `${gw.stack.simUrl}/api/v3`,
    models: MODELS[id],
  }));
  const file = join(dir, 'v-accounts.json');
  writeFileSync(file, JSON.stringify(accounts));
  laneEnv = { TEMPORAL_TASK_QUEUE: `reconciliation-${process.pid}`, PLATFORM_V_ACCOUNTS_FILE: file };
  const started = await gw.stack.startLane(laneEnv);
  lane = { api: new ApiClient(started.apiUrl, 'alice'), apiUrl: started.apiUrl, worker: started.worker };
}, 180_000);

/** The lane's admin API, as this stack's operator. */
const admin = (method: string, path: string, body?: unknown) => adminCall(lane.apiUrl, method, path, body, ADMIN_TOKEN);

/** A call to the simulated Ark API as one of its accounts (what an operator's own script or console would do). */
async function ark(account: keyof typeof KEYS, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${gw.stack.simUrl}/api/v3/contents/generations/tasks${path}`, {
    method,
    headers: { Authorization: `Bearer ${KEYS[account]}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.status, body: r.status === 204 ? {} : await r.json().catch(() => ({})) };
}

const entryOf = async (taskId: string) =>
  (
    await queryRows(db.pg.url, 'SELECT estimated_micros, final_micros, state, outcome, tokens FROM ledger_entries WHERE task_id = $1', [
      taskId,
    ])
  )[0];

async function upstreamOf(taskId: string): Promise<string> {
  const id = (await gw.client.workflow.getHandle(taskId).describe()).typedSearchAttributes.get(SA.upstreamTaskId);
  if (!id) throw new Error(`task ${taskId} has no upstream job`);
  return id;
}

/** Runs one synchronous task and returns its record. */
async function run(body: Record<string, unknown>): Promise<any> {
  const r = await lane.api.post('/v1/videos/generations', { duration: 5, resolution: '720p', ...body });
  expect(r.status).toBe(200);
  return (await lane.api.get(`/v1/generations/${r.body.task_id}`)).body;
}

const vReports = async () => (await admin('GET', `/admin/v1/reconciliations?day=${today}&platform=V`)).body.data as any[];
const reportOf = async (account: string) => (await vReports()).find((r) => r.account === account);

describe("V's offline tier", () => {
  test('a flex task is reserved and billed at the offline price, never the online one', async () => {
    const r = await lane.api.post('/v1/async/videos/generations', {
      model: V15,
      prompt: 'offline fox [sim:duration=1500]',
      duration: 5,
      resolution: '720p',
      ratio: '16:9',
      service_tier: 'flex',
      deadline_seconds: 7200,
    });
    expect(r.status).toBe(200);
    const taskId = r.body.task_id as string;
    // Reserved at the offline rate: 5 s × 22560 tokens × 8 CNY a million.
    expect(await entryOf(taskId)).toMatchObject({ estimated_micros: String(5 * 22560 * 8), state: 'reserved' });
    const done = await lane.api.waitForTask(taskId);
    expect(done.status).toBe('success');
    const tokens = done.usage.tokens as number;
    expect(done.cost).toEqual({ amount: (tokens * 8) / 1e6, currency: 'CNY', estimated: false });
    await until('the ledger settled the flex task', async () => (await entryOf(taskId))?.state === 'settled', 30_000);
    expect(await entryOf(taskId)).toMatchObject({ final_micros: String(tokens * 8), outcome: 'success' });
    // What V received: the offline tier and the window asked for.
    const [submit] = (await gw.sim.requests('V', 'submit')).filter((q) => q.body?.content?.[0]?.text === 'offline fox [sim:duration=1500]');
    expect(submit!.body).toMatchObject({ service_tier: 'flex', execution_expires_after: 7200 });
  });

  test('an offline job past its deadline fails with reason expired, unbilled', async () => {
    const r = await lane.api.post('/v1/async/videos/generations', {
      model: V15,
      prompt: 'too late [sim:expires=500] [sim:duration=600000]',
      duration: 5,
      service_tier: 'flex',
    });
    expect(r.status).toBe(200);
    const done = await lane.api.waitForTask(r.body.task_id, 60_000);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'expired', message: expect.stringMatching(/deadline passed/) } });
    await until('the ledger closed the expired task', async () => (await entryOf(r.body.task_id))?.state !== 'reserved', 30_000);
    const entry = await entryOf(r.body.task_id);
    expect([entry!.outcome, Number(entry!.final_micros ?? 0)]).toEqual(['failed', 0]);
  });

  test('a model without the offline tier is refused with a 400 naming service_tier, and nothing reaches V', async () => {
    const r = await lane.api.post('/v1/async/videos/generations', {
      model: V20,
      prompt: 'no flex here',
      duration: 5,
      service_tier: 'flex',
    });
    expect({ status: r.status, param: r.body.error?.param }).toEqual({ status: 400, param: 'service_tier' });
    const range = await lane.api.post('/v1/async/videos/generations', {
      model: V15,
      prompt: 'too short a window',
      duration: 5,
      service_tier: 'flex',
      deadline_seconds: 60,
    });
    expect({ status: range.status, param: range.body.error?.param }).toEqual({ status: 400, param: 'deadline_seconds' });
  });
});

describe('reconciliation of a day of tasks against V’s task list', () => {
  let planted: { orphan: string; usageTask: string; usageJob: string; missingTask: string; missingJob: string; restated: number };

  beforeAll(async () => {
    await Promise.all([
      run({ model: V10F, prompt: 'clean one [sim:duration=300]' }),
      run({ model: V10F, prompt: 'clean two [sim:duration=300]' }),
    ]);
    const [kept, restated, gone] = await Promise.all([
      run({ model: V10, prompt: 'main kept [sim:duration=300]' }),
      run({ model: V10, prompt: 'main restated [sim:duration=300]' }),
      run({ model: V10, prompt: 'main gone [sim:duration=300]' }),
    ]);
    for (const t of [kept, restated, gone]) expect(t.status).toBe('success');
    // An orphan: a job made on the account outside the gateway (a second gateway, a console run).
    const orphan = await ark('main', 'POST', '', {
      model: 'doubao-seedance-1-0-pro-250528',
      content: [{ type: 'text', text: 'made by hand [sim:duration=300]' }],
    });
    expect(orphan.status).toBe(200);
    // A usage difference: the platform's record now says more tokens than it reported when the task ended.
    const usageJob = await upstreamOf(restated.task_id);
    const tokens = (restated.usage.tokens as number) + 1234;
    const set = await fetch(`${gw.stack.simUrl}/_sim/v/usage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ task_id: usageJob, completion_tokens: tokens }),
    });
    expect(set.status).toBe(200);
    // A billed task the platform has no record of: its finished job's record deleted on the platform.
    const missingJob = await upstreamOf(gone.task_id);
    expect((await ark('main', 'DELETE', `/${missingJob}`)).status).toBeLessThan(300);
    planted = {
      orphan: orphan.body.id,
      usageTask: restated.task_id,
      usageJob,
      missingTask: gone.task_id,
      missingJob,
      restated: tokens,
    };
  }, 180_000);

  test('an orphan, a usage difference and a missing task are each reported exactly once; a clean account-day reports nothing', async () => {
    // The two accounts of this day's planting, each on demand (the third is kept for the last test).
    for (const account of ['main', 'clean']) {
      const started = await admin('POST', '/admin/v1/reconciliations', { day: today, platform: 'V', account });
      expect(started.status).toBe(202);
      await gw.client.workflow.getHandle(started.body.workflow_id).result();
    }
    const main = await reportOf('main');
    expect(main).toMatchObject({ status: 'complete', source: 'V task list', differences: { orphan: 1, missing: 1, usage: 1, total: 0 } });
    const detail = await admin('GET', `/admin/v1/reconciliations/${main.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.items).toEqual([
      expect.objectContaining({
        kind: 'orphan',
        upstream_task_id: planted.orphan,
        task_id: null,
        model: 'doubao-seedance-1-0-pro-250528',
        at: expect.any(String),
      }),
      expect.objectContaining({ kind: 'missing', upstream_task_id: planted.missingJob, task_id: planted.missingTask }),
      expect.objectContaining({
        kind: 'usage',
        upstream_task_id: planted.usageJob,
        task_id: planted.usageTask,
        details: { tokens: { ledger: planted.restated - 1234, platform: planted.restated } },
      }),
    ]);
    const clean = await reportOf('clean');
    expect(clean).toMatchObject({
      status: 'complete',
      ledger_tasks: 2,
      platform_jobs: 2,
      differences: { orphan: 0, missing: 0, usage: 0, total: 0 },
    });
    expect((await admin('GET', `/admin/v1/reconciliations/${clean.id}`)).body.items).toEqual([]);
    // The alert's gauge: the account's orphans in its latest report.
    const metrics = await (await fetch(`${lane.apiUrl}/metrics`)).text();
    expect(metrics).toMatch(/mediagate_reconciliation_orphan_jobs\{platform="V",account="main"\} 1/);
  });

  test('a second run of the same day adds no second report and changes none', async () => {
    const before = await vReports();
    const again = await admin('POST', '/admin/v1/reconciliations', { day: today, platform: 'V', account: 'main' });
    expect(again.status).toBe(202);
    await gw.client.workflow.getHandle(again.body.workflow_id).result();
    const after = await vReports();
    expect(after).toEqual(before);
    const rows = await queryRows(db.pg.url, "SELECT count(*)::int AS n FROM reconciliation_differences WHERE report_id LIKE 'rec_V_%'");
    expect(rows[0]!.n).toBe(3);
  });

  test('a worker SIGKILLed while the listing is held still ends with one complete report', async () => {
    const t = await run({ model: I2V, prompt: 'third [sim:duration=300]', image_url: 'https://x.test/a.png' });
    expect(t.status).toBe('success');
    const orphan = await ark('third', 'POST', '', {
      model: 'doubao-seedance-1-0-lite-i2v-250428',
      content: [{ type: 'image_url', image_url: { url: 'https://x.test/b.png' }, role: 'first_frame' }],
    });
    expect(orphan.status).toBe(200);
    await gw.sim.config({ slowAnswerMs: 20_000 });
    await gw.sim.fault({ platform: 'V', op: 'list', status: 'slow' });
    const since = Date.now();
    const started = await admin('POST', '/admin/v1/reconciliations', { day: today, platform: 'V' });
    expect(started.status).toBe(202);
    await until(
      "the third account's listing reached V",
      async () =>
        (await gw.sim.requests('V', 'list')).some((q) => (q.at ?? 0) >= since && q.headers.authorization === `Bearer ${KEYS.third}`),
      60_000,
    );
    await gw.stack.killWorker(lane.worker);
    await gw.sim.clearFaults();
    await gw.sim.config({ slowAnswerMs: 4_000 }); // the simulator's default
    lane.worker = await gw.stack.startWorker(laneEnv);
    await gw.client.workflow.getHandle(started.body.workflow_id).result();
    const third = (await vReports()).filter((r) => r.account === 'third');
    expect(third).toEqual([
      expect.objectContaining({
        status: 'complete',
        ledger_tasks: 1,
        platform_jobs: 2,
        differences: { orphan: 1, missing: 0, usage: 0, total: 0 },
      }),
    ]);
    const detail = await admin('GET', `/admin/v1/reconciliations/${third[0].id}`);
    expect(detail.body.items).toEqual([expect.objectContaining({ kind: 'orphan', upstream_task_id: orphan.body.id })]);
  });

  test('bad input is a 400 naming the field, and an unknown report a 404', async () => {
    expect((await admin('POST', '/admin/v1/reconciliations', { day: '2026-02-30' })).body.error.param).toBe('day');
    expect((await admin('POST', '/admin/v1/reconciliations', { day: '2999-01-01' })).body.error.param).toBe('day');
    expect((await admin('POST', '/admin/v1/reconciliations', { platform: 'Q' })).body.error.param).toBe('platform');
    expect((await admin('POST', '/admin/v1/reconciliations', { account: 'main' })).body.error.param).toBe('account');
    expect((await admin('GET', '/admin/v1/reconciliations?page_size=0')).body.error.param).toBe('page_size');
    expect((await admin('GET', '/admin/v1/reconciliations/rec_V_2020-01-01_nobody')).status).toBe(404);
  });
});
