/**
 * The console as a first-time operator reads it, in a real browser (headless Chromium, playwright-core) against a
 * real stack (the embedded shape: one API, one worker, the Temporal dev server, the simulator, the ledger's
 * PostgreSQL), at 1366×900. Each test is one thing the operator found wrong, asserted on what the browser shows and,
 * where it changes something, on what the admin API then answers:
 *
 * - editing a key keeps its budget's currency and period (the form loads them; saving sends only what changed);
 * - the Create key dialog keeps Review in sight and reviews in words;
 * - the task filters the address sets are the ones the controls show, the list reads and the bulk replay previews
 *   (a status other than failed previews nothing; a content-policy replay needs a second, named confirmation);
 * - the model filter finds a routed task by its route's name;
 * - a replayed task is one task with its runs, counted once, its failed run's history kept in its timeline;
 * - revoked keys are listed (filterable) with when they were revoked;
 * - charts name their axes and series and show every day of the range;
 * - Tasks and Deliveries fit 1366 px without a sideways scroll, Redeliver in sight; one date format everywhere;
 * - deliveries say "retrying" as their row does, never repeat the status, and show the receiver's answer whole;
 * - the content-policy replay from a task's page speaks to a browser user, not to a command line;
 * - Spend keeps its "Per" choice in the address, names its groupings in words, and shows seconds and tokens;
 * - Accounts shows the platform's own words for a refusal, and "Probe now" puts the account back to the test.
 */
import type { Browser, Page } from 'playwright-core';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectText, launchChromium, openPage, seriousViolations, visitConsolePage, type WatchedPage } from '../support/browser';
import { startTestPostgres, type TestPostgres } from '../support/postgres';
import { startReceiver, type Receiver } from '../support/receiver';
import { freePort } from '../support/stack';
import { upstreamIds } from '../support/temporal';
import { useStack } from '../support/use-stack';
import { until, V_MODEL } from './faults-support';

jest.setTimeout(600_000);

const ADMIN_TOKEN = 'console-operator-token-0123456789abcdefgh';
/** A default route (platforms/default-routes.ts): T's Kling 2.1 first. */
const ROUTE = 'kling-2.1';
const ROUTE_SERVED_BY = 'VendorK-2.1';
const pricesFile = join(tmpdir(), `console-operator-prices-${process.pid}.json`);
writeFileSync(pricesFile, JSON.stringify({ [V_MODEL]: { currency: 'USD', source: 'test', per_second: { '*': 0.01 } } }));
/** What the webhook receiver answers with its 503s: longer than the console used to show (80 characters). */
const RECEIVER_ANSWER =
  'busy: the certificate this receiver was offered is not in the cert\u2019s list: see the operator runbook, section 4';
/** One date format: "2026-11-29 05:11 UTC". */
const DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/;

let postgres: TestPostgres;
let receiver: Receiver;
let browser: Browser;
let w: WatchedPage;
let page: Page;

const gw = useStack(
  async () => {
    receiver = await startReceiver('/hooks', await freePort());
    postgres = await startTestPostgres();
    return {
      name: 'console-operator',
      env: {
        ADMIN_TOKEN,
        PRICES_FILE: pricesFile,
        DATABASE_URL: await postgres.freshDatabase(),
        UPSTREAM_LOST_GRACE_MS: '1000',
        ACCOUNT_COOLDOWN_MS: '600000',
        WEBHOOK_ALLOW_PRIVATE_ORIGINS: new URL(receiver.url).origin,
        WEBHOOK_RETRY_INITIAL_MS: '300',
        WEBHOOK_RETRY_MAX_INTERVAL_MS: '1000',
        WEBHOOK_RETRY_FOR_MS: '600000',
        WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
      },
    };
  },
  { afterStop: async () => void (await Promise.all([receiver?.close(), postgres?.stop()])) },
);

async function admin<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${gw.stack.apiUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${ADMIN_TOKEN}`,
      Accept: 'application/json',
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Opens a console page and waits for its heading and for its loads to end. */
async function visit(path: string, heading: string | RegExp): Promise<void> {
  await visitConsolePage(page, path, heading);
}

/** Whether the page and every table's box fit the window's width (no sideways scroll). */
async function fitsWidth(): Promise<{ page: [number, number]; tables: [number, number][] }> {
  // Evaluated in the browser (as text: the tests' TypeScript has no DOM types).
  const measured = await page.evaluate(`JSON.stringify({
    page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
    tables: [...document.querySelectorAll('.overflow-auto')].map((el) => [el.scrollWidth, el.clientWidth]),
  })`);
  return JSON.parse(String(measured)) as { page: [number, number]; tables: [number, number][] };
}

/** A task of alice's through the API, its id. */
async function startTask(prompt: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await gw.alice.post('/v1/async/videos/generations', { model: V_MODEL, prompt, duration: 5, ...extra });
  expect(res.status).toBe(200);
  return res.body.task_id as string;
}

beforeAll(async () => {
  browser = await launchChromium();
  w = await openPage(browser, gw.stack.apiUrl);
  page = w.page;
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto('/console');
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}, 300_000);
afterAll(async () => {
  await browser?.close();
});

test('editing a key shows its real budget and saving the amount alone keeps its currency and period', async () => {
  const created = await admin('POST', '/admin/v1/keys', { id: 'team-a', budget: { amount: 6, currency: 'CNY', period: 'month' } });
  expect(created.status).toBe(201);
  await visit('/console/keys', 'Keys');
  await page.getByRole('button', { name: 'Edit team-a' }).click();
  const form = page.getByRole('dialog', { name: 'Change key team-a' });
  expect(await form.getByLabel('Amount').inputValue()).toBe('6');
  expect(await form.getByLabel('Currency').inputValue()).toBe('CNY');
  expect(await form.getByLabel('Period').inputValue()).toBe('month');
  await form.getByLabel('Amount').fill('20');
  await form.getByRole('button', { name: 'Review' }).click();
  const confirm = page.getByRole('dialog', { name: 'Change key team-a?' });
  await expectText(confirm.getByTestId('key-review'), '20.00 CNY per month (was 6.00 CNY per month)');
  // Only the budget changed: nothing else is in the review (so nothing else is sent).
  expect(await confirm.getByTestId('key-review').locator('dt').allTextContents()).toEqual(['Budget']);
  await confirm.getByRole('button', { name: 'Save changes' }).click();
  await expectText(page.getByRole('row', { name: /^team-a/ }), '20.00 CNY per month');
  const saved = await admin<{ budget: unknown }>('GET', '/admin/v1/keys/team-a');
  expect(saved.body.budget).toEqual({ amount: 20, currency: 'CNY', period: 'month' });
});

test('the Create key dialog keeps Review in sight at 1366×900 and reviews the key in words, not JSON', async () => {
  await visit('/console/keys', 'Keys');
  await page.getByRole('button', { name: 'Create key' }).click();
  const form = page.getByRole('dialog', { name: 'Create a key' });
  const review = form.getByRole('button', { name: 'Review' });
  const box = await review.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.y + box!.height).toBeLessThanOrEqual(900);
  expect(box!.y).toBeGreaterThanOrEqual(0);
  await form.getByLabel('Key id').fill('team-b');
  await form.getByLabel('Amount').fill('3');
  await form.getByLabel('Currency').selectOption('CNY');
  await review.click();
  const confirm = page.getByRole('dialog', { name: 'Create key team-b?' });
  const text = (await confirm.getByTestId('key-review').textContent()) ?? '';
  expect(text).toContain('3.00 CNY per month');
  expect(await confirm.textContent()).not.toMatch(/[{}"]/);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
});

test('revoked keys are listed with when they were revoked, and the list can show them or not', async () => {
  expect((await admin('POST', '/admin/v1/keys', { id: 'temp-b' })).status).toBe(201);
  expect((await admin('DELETE', '/admin/v1/keys/temp-b')).status).toBe(200);
  await visit('/console/keys', 'Keys');
  expect(await page.getByRole('row', { name: /^temp-b/ }).count()).toBe(0);
  await page.getByLabel('Show').selectOption('revoked');
  await page.waitForURL(/state=revoked/);
  const row = page.getByRole('row', { name: /^temp-b/ });
  await expectText(row, /revoked \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
  expect(await page.getByRole('row', { name: /^team-a/ }).count()).toBe(0);
  await page.getByLabel('Show').selectOption('all');
  await page.waitForURL(/state=all/);
  await expectText(page.getByRole('row', { name: /^team-a/ }), 'live');
  await expectText(page.getByRole('row', { name: /^temp-b/ }), 'revoked');
});

describe('tasks', () => {
  const policy: string[] = [];
  let routed = '';
  let lost = '';
  let hooked = '';

  beforeAll(async () => {
    receiver.errorBody = RECEIVER_ANSWER;
    receiver.answers.push(...Array<number>(10_000).fill(503));
    policy.push(await startTask('console operator refused one [sim:fail=content_policy]'));
    policy.push(await startTask('console operator refused two [sim:fail=content_policy]'));
    const r = await gw.alice.post('/v1/async/videos/generations', { model: ROUTE, prompt: 'console operator routed', duration: 5 });
    expect(r.status).toBe(200);
    routed = r.body.task_id as string;
    hooked = await startTask('console operator hooked', { webhook_url: receiver.url });
    lost = await startTask('console operator lost [sim:duration=8000]');
    await until('the lost job exists upstream', async () => (await upstreamIds(gw.client, [lost]))[0] !== undefined, 60_000);
    const [upstream] = await upstreamIds(gw.client, [lost]);
    expect((await fetch(`${gw.stack.simUrl}/_sim/jobs/${upstream}`, { method: 'DELETE' })).status).toBe(200);
    for (const id of policy)
      expect(await gw.alice.waitForTask(id, 90_000)).toMatchObject({ status: 'failed', error: { code: 'content_policy' } });
    expect(await gw.alice.waitForTask(lost, 90_000)).toMatchObject({ status: 'failed', error: { code: 'upstream_lost' } });
    expect(await gw.alice.waitForTask(routed, 90_000)).toMatchObject({ status: 'success' });
    expect(await gw.alice.waitForTask(hooked, 90_000)).toMatchObject({ status: 'success' });
  }, 400_000);

  test('the overview link opens Tasks with its filters shown, and the bulk replay of content-policy failures needs a named second confirmation', async () => {
    await visit('/console/', 'Overview');
    await page.getByRole('button', { name: 'Last day' }).click();
    await page.getByRole('link', { name: /2 failed with content policy/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Tasks' }).waitFor();
    const filters = page.getByRole('form', { name: 'Task filters' });
    await until('the list is loaded', async () => (await page.getByRole('table').count()) > 0, 30_000);
    expect(await filters.getByLabel('Status').inputValue()).toBe('failed');
    expect(await filters.getByLabel('Failure reason').inputValue()).toBe('content_policy');
    await expectText(page.getByRole('table'), '2 tasks match');
    for (const id of policy) expect(await page.getByRole('link', { name: id }).count()).toBe(1);

    await page.getByRole('button', { name: 'Replay failed tasks matching these filters…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replay these failed tasks?' });
    await expectText(dialog.getByTestId('replay-filters'), 'status failed, failure_reason content_policy');
    expect((await dialog.getByTestId('replay-preview').locator('li').allTextContents()).sort()).toEqual([...policy].sort());
    await expectText(dialog.getByTestId('replay-risk'), 'content policy');
    const go = dialog.getByRole('button', { name: 'Replay 2 tasks' });
    expect(await go.isDisabled()).toBe(true);
    await dialog.getByLabel('I understand the risk and want these tasks sent again').check();
    expect(await go.isDisabled()).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  test('with ?status=success the controls say success and the bulk preview lists no failed task', async () => {
    await visit('/console/tasks?status=success', 'Tasks');
    expect(await page.getByRole('form', { name: 'Task filters' }).getByLabel('Status').inputValue()).toBe('success');
    await page.getByRole('button', { name: 'Replay failed tasks matching these filters…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replay these failed tasks?' });
    await expectText(dialog, 'No task would be replayed.');
    expect(await dialog.getByTestId('replay-preview').locator('li').count()).toBe(0);
    expect(await dialog.getByRole('button', { name: 'Replay 0 tasks' }).isDisabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  test('the model filter finds a routed task by its route, and by the model that served it', async () => {
    await visit(`/console/tasks?model=${ROUTE}`, 'Tasks');
    await expectText(page.getByRole('table'), '1 tasks match');
    expect(await page.getByRole('link', { name: routed }).count()).toBe(1);
    await visit(`/console/tasks?model=${ROUTE_SERVED_BY}`, 'Tasks');
    await page.getByRole('link', { name: routed }).waitFor();
  });

  test('the content-policy replay from a task page names the risk, in a browser user’s words', async () => {
    await visit(`/console/tasks/${policy[0]!}`, /Task/);
    await page.getByRole('button', { name: 'Replay task…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replay this task?' });
    await expectText(dialog.getByTestId('replay-risk'), 'content policy');
    expect(await dialog.textContent()).not.toMatch(/--query|pass /);
    expect(await dialog.getByRole('button', { name: 'Replay' }).isDisabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  test('a replayed task is one task with its runs, counted once, and its failed run stays in its timeline', async () => {
    const replay = await admin<{ replayed: string[] }>('POST', '/admin/v1/replays', { task_id: lost });
    expect(replay.body.replayed).toEqual([lost]);
    expect(await gw.alice.waitForTask(lost, 90_000)).toMatchObject({ status: 'success' });

    const all = await admin<{ total: number; data: { task_id: string }[] }>('GET', '/admin/v1/tasks?page_size=200');
    expect(all.body.data.filter((t) => t.task_id === lost)).toHaveLength(1);
    expect(all.body.total).toBe(new Set(all.body.data.map((t) => t.task_id)).size);
    expect(all.body.total).toBe(all.body.data.length);

    await visit('/console/tasks', 'Tasks');
    await expectText(page.getByRole('table'), `${all.body.total} tasks match`);
    expect(await page.getByRole('link', { name: lost }).count()).toBe(1);
    await expectText(page.getByRole('row', { name: new RegExp(lost) }), '2 runs: replayed');

    await visit('/console/', 'Overview');
    await page.getByRole('button', { name: 'Last day' }).click();
    const counts = page.getByRole('table', { name: /by platform and status/ }).locator('tbody td');
    await until('the overview counts the tasks', async () => (await counts.count()) > 0, 30_000);
    const cells = (await counts.allTextContents()).map(Number);
    expect(cells.reduce((a, b) => a + b, 0)).toBe(all.body.total);

    await visit(`/console/tasks/${lost}`, /Task/);
    const timeline = page.getByTestId('timeline');
    await expectText(timeline, 'Run 1 (replayed)');
    await expectText(page.getByRole('list', { name: 'Run 1' }), 'run failed');
    await expectText(timeline, 'Run 2 (current)');
    await expectText(page.getByRole('list', { name: 'Run 2' }), 'run completed');
    // A new run records its success in its memo alone (patch quieter-task): the timeline still tells it.
    await expectText(page.getByRole('list', { name: 'Run 2' }), 'success');
  });

  test('Tasks and Deliveries fit 1366 px with Redeliver in sight; deliveries say retrying, never repeat the status, and show the answer whole', async () => {
    await until(
      'the hooked task is retrying',
      async () =>
        (await admin<{ data: { task_id: string }[] }>('GET', '/admin/v1/deliveries?state=retrying')).body.data.some(
          (d) => d.task_id === hooked,
        ),
      60_000,
    );
    await visit('/console/tasks', 'Tasks');
    let fit = await fitsWidth();
    expect(fit.page[0]).toBeLessThanOrEqual(fit.page[1]);
    for (const [scroll, client] of fit.tables) expect(scroll).toBeLessThanOrEqual(client);

    await visit('/console/deliveries?state=retrying', 'Webhook deliveries');
    const row = page.getByRole('row', { name: new RegExp(hooked) });
    await expectText(row, 'retrying');
    fit = await fitsWidth();
    expect(fit.page[0]).toBeLessThanOrEqual(fit.page[1]);
    for (const [scroll, client] of fit.tables) expect(scroll).toBeLessThanOrEqual(client);
    const button = await row.getByRole('button', { name: `Redeliver ${hooked}` }).boundingBox();
    expect(button!.x + button!.width).toBeLessThanOrEqual(1366);

    const events = (await row.locator('.events').textContent()) ?? '';
    expect(events).toContain('event: retrying');
    expect(events).not.toMatch(/pending after/);
    expect(events).toContain(`HTTP 503: ${RECEIVER_ANSWER}`);
    expect(events).not.toContain('HTTP 503 (HTTP 503)');
  });

  test('one date format on every page, and the time inputs take it as text', async () => {
    await visit(`/console/tasks/${routed}`, /Task/);
    const dates = await page.locator('dl.facts dd').allTextContents();
    const started = dates.find((d) => /UTC/.test(d));
    expect(started).toMatch(DATE);
    for (const t of await page.getByTestId('timeline').locator('time').allTextContents()) expect(t).toMatch(DATE);

    await visit('/console/tasks', 'Tasks');
    const startedCells = await page.locator('tbody tr td:last-child').allTextContents();
    expect(startedCells.length).toBeGreaterThan(0);
    for (const c of startedCells) expect(c).toMatch(DATE);
    expect(await page.locator('input[type="date"], input[type="datetime-local"]').count()).toBe(0);
    const since = page.getByLabel('Started from (UTC)');
    await since.fill('2020-01-01 00:00');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/since=2020-01-01/);
    await expectText(page.getByRole('table'), 'tasks match');
    expect(await page.getByLabel('Started from (UTC)').inputValue()).toBe('2020-01-01 00:00');

    expect((await admin('POST', '/admin/v1/keys', { id: 'dates-c' })).status).toBe(201);
    await visit('/console/keys?state=all', 'Keys');
    const created = (await page.locator('tbody tr td:nth-child(7)').allTextContents()).filter((c) => c !== '—');
    expect(created.length).toBeGreaterThan(0);
    for (const c of created) expect(c).toMatch(DATE);
    await visit('/console/spend', 'Spend and usage');
    expect(await page.locator('input[type="date"], input[type="datetime-local"]').count()).toBe(0);
    expect(await page.getByLabel('From (UTC day)').inputValue()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await page.locator('body').textContent()).not.toMatch(/\d{2}\/\d{2}\/\d{4}/);
  });

  test('charts label their axes and series and show every day of the range', async () => {
    await visit('/console/', 'Overview');
    const chart = page.getByTestId('overview-spend-chart');
    await chart.waitFor();
    const days = ((await chart.getAttribute('data-groups')) ?? '').split(',');
    expect(days).toHaveLength(31);
    for (let i = 1; i < days.length; i++) expect(Date.parse(days[i]!) - Date.parse(days[i - 1]!)).toBe(86_400_000);
    expect(await chart.getAttribute('data-x-label')).toBe('Day (UTC)');
    expect(await chart.getAttribute('data-y-label')).toBe('Cost');
    const figure = page.locator('figure', { has: chart });
    await expectText(figure.getByRole('list', { name: 'Series' }), 'Cost in USD');
    expect(await figure.textContent()).not.toMatch(/group:|--/);
  });

  test('Spend keeps its Per choice in the address, names it in words, and shows seconds and tokens', async () => {
    await visit('/console/spend', 'Spend and usage');
    await page.getByRole('combobox', { name: /^Per/ }).selectOption('served_model');
    await page.waitForURL(/group_by=served_model/);
    const table = page.getByRole('table', { name: /Usage per served model/ });
    await table.waitFor();
    const headers = await table.locator('thead th').allTextContents();
    expect(headers[0]).toBe('Served model');
    expect(headers).toEqual(expect.arrayContaining(['Seconds', 'Tokens']));
    expect(headers).not.toContain('served_model');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Spend and usage' }).waitFor();
    expect(await page.getByRole('combobox', { name: /^Per/ }).inputValue()).toBe('served_model');
    // The seconds and tokens columns are the admin API's own figures for the group.
    const range = new URL(page.url()).searchParams;
    const usage = await admin<{ data: { served_model: string | null; seconds: number; tokens: number }[] }>(
      'GET',
      `/admin/v1/usage?group_by=served_model&start=${range.get('start') ?? ''}&end=${range.get('end') ?? ''}`,
    );
    const served = usage.body.data.find((r) => r.served_model === V_MODEL)!;
    expect(served.seconds).toBeGreaterThan(0);
    const cells = await page
      .getByRole('row', { name: new RegExp(`^${V_MODEL}`) })
      .locator('td')
      .allTextContents();
    expect(cells[headers.indexOf('Seconds')]).toBe(String(served.seconds));
    expect(cells[headers.indexOf('Tokens')]).toBe(String(served.tokens));
  });

  test('Accounts shows the platform’s words for a refusal, and Probe now lets the next task try the account', async () => {
    const fault = await fetch(`${gw.stack.simUrl}/_sim/v/account-faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'AccountOverdueError', count: 1 }),
    });
    expect(fault.status).toBe(200);
    const waiting = await startTask('console operator overdue');
    await visit('/console/accounts', 'Platform accounts');
    const row = page.getByRole('row', { name: /^V default/ });
    await until(
      'the worker reports V out',
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return ((await row.textContent().catch(() => '')) ?? '').includes('out since');
      },
      60_000,
    );
    await expectText(row, 'overdue balance');
    await expectText(row, 'AccountOverdueError');
    expect(await seriousViolations(page)).toEqual([]);
    await row.getByRole('button', { name: 'Probe V default now' }).click();
    await page.getByRole('dialog', { name: 'Probe V default now?' }).getByRole('button', { name: 'Probe now' }).click();
    await expectText(page.getByRole('status'), 'Probe of V default requested');
    // The cool-down is ten minutes: only the probe lets the waiting task reach the account again.
    expect(await gw.alice.waitForTask(waiting, 120_000)).toMatchObject({ status: 'success' });
    await until(
      'the worker reports V back in the rotation',
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return ((await row.textContent().catch(() => '')) ?? '').includes('in rotation');
      },
      60_000,
    );
    expect(w.errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
  });
});
