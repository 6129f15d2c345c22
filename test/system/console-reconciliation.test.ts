/**
 * Two things the operator reads money from, in a real browser (headless Chromium, playwright-core) against a real
 * stack with its ledger:
 * - an unpriced task is never shown as money: every place that shows a cost — the task record and the task list,
 *   GET /v1/usage and /admin/v1/usage as JSON and CSV, the operator's task view, the webhook event, and the console's
 *   task page, task list and Spend page — says null, "no price" or "N tasks unpriced", never 0;
 * - the reconciliation page: a run started from it, the day's report of the account with a planted orphan (a job
 *   made directly on the simulated platform), and the report's page listing that orphan.
 * Every page is checked for browser console errors and serious accessibility violations (axe).
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { launchChromium, openPage, seriousViolations, visitConsolePage, type WatchedPage } from '../support/browser';
import { ApiClient } from '../support/client';
import { startTestPostgres, type TestPostgres } from '../support/postgres';
import { startReceiver, type Receiver } from '../support/receiver';
import { freePort } from '../support/stack';
import { useStack } from '../support/use-stack';
import { until, V_MODEL } from './faults-support';

jest.setTimeout(400_000);

const ADMIN_TOKEN = 'console-reconciliation-token-0123456789ab';
const KEY_ID = 'unpriced-reader';
const today = new Date().toISOString().slice(0, 10);

let postgres: TestPostgres;
let receiver: Receiver;
let browser: Browser;
let w: WatchedPage;
let page: Page;
let client: ApiClient;
let taskId = '';

// V publishes no price and none is set here: V_MODEL's tasks are unpriced.
const gw = useStack(
  async () => {
    receiver = await startReceiver('/hooks', await freePort());
    postgres = await startTestPostgres();
    return {
      name: 'console-reconciliation',
      env: {
        ADMIN_TOKEN,
        DATABASE_URL: await postgres.freshDatabase(),
        WEBHOOK_ALLOW_PRIVATE_ORIGINS: new URL(receiver.url).origin,
      },
    };
  },
  { afterStop: async () => void (await Promise.all([receiver?.close(), postgres?.stop()])) },
);

async function adminFetch(method: string, path: string, body?: unknown, accept = 'application/json'): Promise<Response> {
  return fetch(`${gw.stack.apiUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json', Accept: accept },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Waits until `locator` shows `text` (bounded), else fails saying what it shows. */
async function shows(locator: Locator, text: string | RegExp): Promise<void> {
  const has = (t: string) => (typeof text === 'string' ? t.includes(text) : text.test(t));
  await until(`${String(text)} is shown`, async () => has((await locator.textContent().catch(() => '')) ?? ''), 30_000).catch(async () => {
    throw new Error(`expected ${String(locator)} to show ${String(text)}; it shows "${await locator.textContent().catch(() => '')}"`);
  });
}

/** Opens a console page, waits for its heading and for nothing loading, and holds it to axe. */
async function openConsolePage(path: string, heading: string | RegExp): Promise<void> {
  expect([path, await visitConsolePage(page, path, heading)]).toEqual([path, []]);
}

beforeAll(async () => {
  const made = await adminFetch('POST', '/admin/v1/keys', { id: KEY_ID, webhook_url: receiver.url });
  expect(made.status).toBe(201);
  client = new ApiClient(gw.stack.apiUrl, ((await made.json()) as { secret: string }).secret);
  const r = await client.post('/v1/videos/generations', { model: V_MODEL, prompt: 'an unpriced heron [sim:duration=300]', duration: 5 });
  expect(r.status).toBe(200);
  taskId = r.body.task_id as string;
  browser = await launchChromium();
  w = await openPage(browser, gw.stack.apiUrl);
  page = w.page;
  await page.goto('/console');
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}, 300_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(w.errors).toEqual([]);
});

describe('an unpriced task is never shown as money', () => {
  test('the API: task record and list, usage JSON and CSV (the key’s and the operator’s), the operator’s task view, the webhook', async () => {
    expect((await client.get(`/v1/generations/${taskId}`)).body).toMatchObject({ status: 'success', cost: null });
    const listed = (await client.get('/v1/tasks')).body.data.find((t: { task_id: string }) => t.task_id === taskId);
    expect(listed.cost).toBeNull();
    const usage = (await client.get(`/v1/usage?start=${today}`)).body;
    expect(usage.data).toEqual([expect.objectContaining({ model: V_MODEL, tasks: 1, unpriced: 1, cost: null })]);
    const csv = (await client.get(`/v1/usage?start=${today}`, { Accept: 'text/csv' })).body as string;
    expect(csv.split('\n')[1]).toBe(`${V_MODEL},1,1,0,0,1,5,0,${usage.data[0].tokens},,`);
    const adminUsage = (await (await adminFetch('GET', `/admin/v1/usage?start=${today}&key=${KEY_ID}`)).json()) as { data: unknown[] };
    expect(adminUsage.data).toEqual([expect.objectContaining({ key: KEY_ID, unpriced: 1, cost: null })]);
    const adminCsv = await (await adminFetch('GET', `/admin/v1/usage?start=${today}&key=${KEY_ID}`, undefined, 'text/csv')).text();
    expect(adminCsv).toMatch(new RegExp(`^${KEY_ID},1,1,0,0,1,5,0,\\d+,,$`, 'm'));
    const operatorView = (await (await adminFetch('GET', `/admin/v1/tasks/${taskId}`)).json()) as { task: { cost: unknown } };
    expect(JSON.stringify(operatorView)).not.toMatch(/"cost":\{/);
    await until('the webhook event arrived', async () => receiver.got.some((g) => JSON.stringify(g.body).includes(taskId)), 60_000);
    const event = receiver.got.find((g) => JSON.stringify(g.body).includes(taskId))!.body as { data?: { cost?: unknown } };
    expect(JSON.stringify(event)).toMatch(/"cost":null/);
    expect(JSON.stringify(event)).not.toMatch(/"cost":\{/);
  });

  test("the console: the task's page and the task list say no price; the Spend page says 1 task unpriced, never 0", async () => {
    await openConsolePage(`/console/tasks/${taskId}`, /Task/);
    await shows(page.locator('dl.facts'), 'no price');
    await openConsolePage(`/console/tasks?key=${KEY_ID}`, 'Tasks');
    await shows(page.getByRole('row', { name: new RegExp(taskId) }), 'no price');
    await openConsolePage('/console/spend', 'Spend and usage');
    const row = page.getByRole('row', { name: new RegExp(`^${KEY_ID}`) });
    await shows(row, '1 task unpriced');
    expect(await row.textContent()).not.toMatch(/\b0(\.00)? (USD|CNY)/);
    await shows(page.locator('main'), 'No priced spend in this range; 1 task unpriced.');
  });
});

describe('the reconciliation page', () => {
  test('a run started from the page; the report lists the planted orphan; its page shows the orphan', async () => {
    const orphan = await fetch(`${gw.stack.simUrl}/api/v3/contents/generations/tasks`, {
      method: 'POST',
      headers: { Authorization: 'Bearer sim-v-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'doubao-seedance-1-0-pro-250528', content: [{ type: 'text', text: 'made by hand' }] }),
    });
    expect(orphan.status).toBe(200);
    const orphanId = ((await orphan.json()) as { id: string }).id;

    await openConsolePage('/console/reconciliation', 'Reconciliation');
    await shows(page.locator('main'), 'No day has been reconciled yet.');
    await page.getByLabel(/Day \(UTC/).fill(today);
    await page.getByRole('button', { name: 'Reconcile now' }).click();
    await shows(page.getByRole('status'), `Reconciling ${today}`);
    // Every enabled platform's accounts get a report; V's default account is the one with the orphan.
    await until(
      "V's report is listed",
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (
          (await page
            .getByRole('row', { name: /\bV\b.*default/ })
            .textContent()
            .catch(() => '')) ?? ''
        ).includes('1 orphan');
      },
      120_000,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await page
      .getByRole('row', { name: /\bV\b.*default/ })
      .getByRole('link', { name: today })
      .click();
    await page.getByRole('heading', { level: 1, name: `V default, ${today}` }).waitFor();
    const orphanRow = page.getByRole('row', { name: new RegExp(orphanId) });
    await shows(orphanRow, 'Orphan: a job no task of ours owns');
    await shows(orphanRow, 'doubao-seedance-1-0-pro-250528');
    expect(await page.getByRole('row').count()).toBe(2); // the header and the orphan: our own task is not a difference
    expect(await seriousViolations(page)).toEqual([]);
  });
});
