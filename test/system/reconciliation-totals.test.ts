/**
 * Reconciliation by day totals, over HTTP against a real stack (its ledger on a real PostgreSQL) and a lane whose
 * worker reads two simulated T accounts (PLATFORM_T_ACCOUNTS_FILE) and two simulated B accounts
 * (PLATFORM_B_ACCOUNTS_FILE, the bill read from the simulator: PLATFORM_B_BILLING_ENDPOINT). On each platform one
 * account is clean (only the gateway's tasks) and one has a job planted on it directly in the simulator, outside the
 * gateway: T's AIGC usage statistics (DescribeAigcUsageData) and B's VOD bill (GetResourceMonthBill) then say more
 * than the ledger, and the report says so in exactly one `total` difference; the clean accounts report nothing.
 */
import { simBAccount, simTAccount } from '../../sim/accounts';
import { bceSign, bceTimestamp } from '../../sim/b/signing';
import { signTRequest } from '../../sim/t';
import { adminCall } from '../support/admin-api';
import { ApiClient } from '../support/client';
import { writeJsonFile } from '../support/json-file';
import { usePostgres } from '../support/postgres';
import { simBAccountEntry, simTAccountEntry } from '../support/simulator';
import { useStack } from '../support/use-stack';

jest.setTimeout(300_000);

const ADMIN_TOKEN = 'reconciliation-totals-admin-token-0123456789';
const T_ACCOUNTS = ['tclean', 'tplanted'] as const;
const B_ACCOUNTS = ['bclean', 'bplanted'] as const;
/** V20 at 720p: the published 1.25 CNY a 4 s clip (platforms/b/prices.ts), on the gateway and on the bill alike. */
const V20 = { model: 'V20', image_url: 'https://x.test/head.jpeg', duration: 4, resolution: '720p' };
const GV = { model: 'GV-3.1', duration: 8 };

const db = usePostgres();
const gw = useStack(() => ({ name: 'reconciliation-totals', env: { DATABASE_URL: db.pg.url, ADMIN_TOKEN } }));
const today = new Date().toISOString().slice(0, 10);
let lane: { api: ApiClient; apiUrl: string };

beforeAll(async () => {
  const tFile = writeJsonFile(
    T_ACCOUNTS.map((id) => ({ ...simTAccountEntry(id, gw.stack.simUrl), models: ['GV-3.1'] })),
    't-accounts.json',
  );
  const bFile = writeJsonFile(
    B_ACCOUNTS.map((id) => ({ ...simBAccountEntry(id, gw.stack.simUrl), models: ['V20'] })),
    'b-accounts.json',
  );
  const started = await gw.stack.startLane({
    PLATFORM_T_ACCOUNTS_FILE: tFile,
    PLATFORM_B_ACCOUNTS_FILE: bFile,
    PLATFORM_B_BILLING_ENDPOINT: gw.stack.simUrl,
  });
  lane = { api: new ApiClient(started.apiUrl, 'alice'), apiUrl: started.apiUrl };
  // B answers a day's bill only once the day is over; the test reconciles today, so the simulator serves it as it stands.
  const billsToday = await fetch(`${gw.stack.simUrl}/_sim/b/behaviour`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ billsToday: true }),
  });
  expect(billsToday.status).toBe(200);
}, 180_000);

/** Today's reports of a platform, as the admin API lists them. */
async function todaysReports(platform: string): Promise<any[]> {
  return (await adminCall(lane.apiUrl, 'GET', `/admin/v1/reconciliations?day=${today}&platform=${platform}`, undefined, ADMIN_TOKEN)).body
    .data;
}

/** Starts a run of today on demand (one account, or all of the platform's) and waits for it to end. */
async function runToday(platform: string, account?: string): Promise<void> {
  const body = { day: today, platform, ...(account ? { account } : {}) };
  const started = await adminCall(lane.apiUrl, 'POST', '/admin/v1/reconciliations', body, ADMIN_TOKEN);
  expect(started.status).toBe(202);
  await gw.client.workflow.getHandle(started.body.workflow_id).result();
}

/** Runs one synchronous task on the lane; it must succeed. */
async function run(body: Record<string, unknown>): Promise<void> {
  const r = await lane.api.post('/v1/videos/generations', body);
  expect(r.status).toBe(200);
  expect((await lane.api.get(`/v1/generations/${r.body.task_id}`)).body.status).toBe('success');
}

/** A CreateAigcVideoTask sent straight to the simulated T account (a second gateway, a console run). */
async function tDirect(account: string, body: Record<string, unknown>): Promise<string> {
  const text = JSON.stringify({ SubAppId: simTAccount(account).subAppId, ...body });
  const { secretId, secretKey } = simTAccount(account);
  const headers = signTRequest({ secretId, secretKey, host: new URL(gw.stack.simUrl).host, action: 'CreateAigcVideoTask', body: text });
  delete headers.Host;
  const res = (await (await fetch(`${gw.stack.simUrl}/`, { method: 'POST', headers, body: text })).json()) as any;
  expect(typeof res.Response.TaskId).toBe('string');
  return res.Response.TaskId as string;
}

/** An image-to-video create sent straight to the simulated B account, signed with its AK/SK. */
async function bDirect(account: string, body: Record<string, unknown>): Promise<string> {
  const url = new URL('/v2/aigc/image_to_video', gw.stack.simUrl);
  const payload = JSON.stringify(body);
  const timestamp = bceTimestamp(Date.now());
  const headers: Record<string, string> = { host: url.host, 'x-bce-date': timestamp, 'content-type': 'application/json' };
  const { accessKeyId, secretAccessKey } = simBAccount(account);
  headers.authorization = bceSign(
    { method: 'POST', path: url.pathname, query: [], headers },
    { accessKeyId, secretAccessKey, timestamp, signedHeaders: ['host', 'x-bce-date'] },
  ).authorization;
  delete headers.host;
  const res = (await (await fetch(url, { method: 'POST', headers, body: payload })).json()) as any;
  expect(typeof res.taskId).toBe('string');
  return res.taskId as string;
}

/** Waits until the simulator says the job succeeded (it counts in the platform's totals only then). */
async function ended(id: string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    if ((await gw.sim.jobs()).find((j) => j.id === id)?.view.state === 'succeeded') return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`job ${id} did not succeed`);
}

/** Reconciles today for one account of the platform, and returns its report and differences. */
async function reconcile(platform: string, account: string): Promise<{ report: any; items: any[] }> {
  await runToday(platform, account);
  const report = (await todaysReports(platform)).find((r) => r.account === account);
  expect(report).toBeDefined();
  const detail = await adminCall(lane.apiUrl, 'GET', `/admin/v1/reconciliations/${report.id}`, undefined, ADMIN_TOKEN);
  expect(detail.status).toBe(200);
  return { report, items: detail.body.items as any[] };
}

describe('T: day totals from DescribeAigcUsageData', () => {
  beforeAll(async () => {
    await Promise.all([
      run({ ...GV, prompt: 'clean t one [sim:duration=300]' }),
      run({ ...GV, prompt: 'clean t two [sim:duration=300]' }),
      run({ ...GV, prompt: 'planted t one [sim:duration=300]' }),
      run({ ...GV, prompt: 'planted t two [sim:duration=300]' }),
    ]);
  }, 180_000);

  test('a clean account-day is complete with no difference; a job planted on the account is exactly one total difference, in seconds', async () => {
    // The lane spreads the tasks over both accounts; the planted job goes to the second one only.
    const planted = await tDirect('tplanted', {
      ModelName: 'GV',
      ModelVersion: '3.1',
      Prompt: 'made by hand [sim:duration=300]',
      OutputConfig: { Duration: 8 },
    });
    await ended(planted);

    const clean = await reconcile('T', 'tclean');
    expect(clean.report).toMatchObject({
      status: 'complete',
      source: 'T AIGC usage statistics (DescribeAigcUsageData)',
      differences: { orphan: 0, missing: 0, usage: 0, total: 0 },
    });
    expect(clean.report.note).toMatch(/day totals/);
    expect(clean.report.platform_jobs).toBe(clean.report.ledger_tasks);
    expect(clean.items).toEqual([]);

    const dirty = await reconcile('T', 'tplanted');
    expect(dirty.report).toMatchObject({ status: 'complete', differences: { orphan: 0, missing: 0, usage: 0, total: 1 } });
    expect(dirty.report.platform_jobs).toBe(dirty.report.ledger_tasks + 1);
    expect(dirty.items).toEqual([
      expect.objectContaining({
        kind: 'total',
        upstream_task_id: null,
        task_id: null,
        details: expect.objectContaining({ quantity: 'video_seconds', difference: 8, platform: dirty.items[0]?.details.ledger + 8 }),
      }),
    ]);
    // What T received: the day asked in UTC, under a day (so in 5-minute intervals), for the account's SubAppId.
    const asked = (await gw.sim.requests('T', 'list')).filter((q) => q.headers['x-tc-action'] === 'DescribeAigcUsageData');
    expect(asked.map((q) => q.body)).toEqual(
      expect.arrayContaining([
        { StartTime: `${today}T00:00:00Z`, EndTime: `${today}T23:59:59Z`, AigcType: 'Video', SubAppId: simTAccount('tplanted').subAppId },
        { StartTime: `${today}T00:00:00Z`, EndTime: `${today}T23:59:59Z`, AigcType: 'Image', SubAppId: simTAccount('tplanted').subAppId },
      ]),
    );
  });

  test('a second run of the same day writes nothing new', async () => {
    const before = await todaysReports('T');
    expect(before).toHaveLength(2);
    await runToday('T');
    expect(await todaysReports('T')).toEqual(before);
  });
});

describe("B: day totals from the VOD bill's list price", () => {
  beforeAll(async () => {
    await Promise.all([
      run({ ...V20, prompt: 'clean b one [sim:duration=300]' }),
      run({ ...V20, prompt: 'clean b two [sim:duration=300]' }),
      run({ ...V20, prompt: 'planted b one [sim:duration=300]' }),
      run({ ...V20, prompt: 'planted b two [sim:duration=300]' }),
    ]);
  }, 180_000);

  test('a clean account-day is complete with no difference; a clip planted on the account is exactly one total difference, in CNY', async () => {
    const planted = await bDirect('bplanted', {
      model: 'V20',
      modelV20TaskInput: { prompt: 'made by hand [sim:duration=300]', image: { imageUrl: V20.image_url }, duration: 4, resolution: '720P' },
    });
    await ended(planted);

    const clean = await reconcile('B', 'bclean');
    expect(clean.report).toMatchObject({ status: 'complete', differences: { orphan: 0, missing: 0, usage: 0, total: 0 } });
    expect(clean.report.source).toMatch(/^B resource bill/);
    expect(clean.items).toEqual([]);

    const dirty = await reconcile('B', 'bplanted');
    expect(dirty.report).toMatchObject({ status: 'complete', differences: { orphan: 0, missing: 0, usage: 0, total: 1 } });
    const ledgerTasks = dirty.report.ledger_tasks as number;
    expect(dirty.items).toEqual([
      expect.objectContaining({
        kind: 'total',
        details: expect.objectContaining({
          quantity: 'money',
          currency: 'CNY',
          ledger: 1.25 * ledgerTasks,
          platform: 1.25 * (ledgerTasks + 1),
          difference: 1.25,
        }),
      }),
    ]);
    // What B's billing received: the day's postpay VOD bill, signed by the account's own AK/SK.
    const asked = (await gw.sim.requests('B', 'list')).filter((q) => q.path === '/v1/bill/resource/month');
    const mine = asked.filter((q) => (q.headers.authorization ?? '').startsWith(`bce-auth-v1/${simBAccount('bplanted').accessKeyId}/`));
    expect(mine.length).toBeGreaterThan(0);
    expect(Object.fromEntries(new URLSearchParams(mine[0]!.query ?? ''))).toMatchObject({
      month: today.slice(0, 7),
      beginTime: today,
      endTime: today,
      productType: 'postpay',
      serviceType: 'VOD',
    });
  });
});
