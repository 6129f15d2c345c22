/**
 * The operator's console in a real browser (headless Chromium, playwright-core) against the real stack, on both
 * shapes: the embedded one (one API, the Temporal dev server, the ledger's PostgreSQL) and the production one (the
 * real Temporal server on PostgreSQL, MinIO, two workers and two APIs behind a balancer).
 *
 * An operator signs in with the admin token (a wrong one is told so); creates a key with a budget and copies its
 * secret; a task run with that key through the API shows its cost on its page and in the spend chart; the CSV export
 * equals GET /admin/v1/usage; the budget shows what is left; the key is revoked and stops working; a task the
 * platform lost is found by its failure reason and replayed from its page; a webhook event given up is redelivered;
 * the accounts page shows the platform's account in the rotation; sign-out ends the session on every API replica.
 * Every page is checked for browser console errors and for serious accessibility violations (axe).
 */
import type { Browser, Page } from 'playwright-core';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectText, launchChromium, openPage, seriousViolations, visitConsolePage, type WatchedPage } from '../support/browser';
import { ApiClient } from '../support/client';
import { startTestPostgres, type TestPostgres } from '../support/postgres';
import { startReceiver, type Receiver } from '../support/receiver';
import { freePort } from '../support/stack';
import { upstreamIds } from '../support/temporal';
import { useStack } from '../support/use-stack';
import { until, V_MODEL } from './faults-support';

jest.setTimeout(600_000);

const ADMIN_TOKEN = 'console-admin-token-0123456789abcdefghij';
/** V's price per second, so a task has a cost the ledger settles (V publishes none): 5 s → 0.05 USD. */
const PRICE_PER_SECOND = 0.01;
const pricesFile = join(tmpdir(), `console-prices-${process.pid}.json`);
writeFileSync(pricesFile, JSON.stringify({ [V_MODEL]: { currency: 'USD', source: 'test', per_second: { '*': PRICE_PER_SECOND } } }));

const SHAPES = [
  { shape: 'embedded', production: false },
  { shape: 'production', production: true },
] as const;

describe.each(SHAPES)('the console on the $shape shape', ({ shape, production }) => {
  let postgres: TestPostgres | undefined;
  let receiver: Receiver;
  let browser: Browser;
  const gw = useStack(
    async () => {
      receiver = await startReceiver('/hooks', await freePort());
      if (!production) postgres = await startTestPostgres();
      return {
        name: `console-${shape}`,
        production,
        apis: production ? 2 : 1,
        workers: production ? 2 : 1,
        env: {
          ADMIN_TOKEN,
          PRICES_FILE: pricesFile,
          ...(postgres ? { DATABASE_URL: await postgres.freshDatabase() } : {}),
          TEMPORAL_UI_URL: 'http://127.0.0.1:8233',
          UPSTREAM_LOST_GRACE_MS: '1000',
          WEBHOOK_ALLOW_PRIVATE_ORIGINS: new URL(receiver.url).origin,
          WEBHOOK_RETRY_INITIAL_MS: '300',
          WEBHOOK_RETRY_MAX_INTERVAL_MS: '500',
          WEBHOOK_RETRY_FOR_MS: '2000',
          WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
        },
      };
    },
    {
      startTimeoutMs: production ? 300_000 : 180_000,
      afterStop: async () => void (await Promise.all([receiver?.close(), postgres?.stop()])),
    },
  );

  let w: WatchedPage;
  let page: Page;
  const keyId = `console-${shape}`;
  let secret = '';
  const admin = (path: string, accept = 'application/json') =>
    fetch(`${gw.stack.apiUrl}${path}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, Accept: accept } });

  beforeAll(async () => {
    browser = await launchChromium();
    w = await openPage(browser, gw.stack.apiUrl);
    await w.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.stack.apiUrl });
    page = w.page;
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
  });

  /** Opens a console page, waits for its heading, and holds it to no serious accessibility violation. */
  async function visit(path: string, heading: string | RegExp): Promise<void> {
    expect([path, await visitConsolePage(page, path, heading)]).toEqual([path, []]);
  }

  test('sign-in: a wrong token is told so; the right one gives an HttpOnly, SameSite=Strict session cookie and nothing in storage', async () => {
    const res = await page.goto('/console');
    expect(res?.headers()['content-security-policy']).toMatch(/script-src 'self'(;|$)/);
    expect(res?.headers()['content-security-policy']).not.toMatch(/unsafe-inline/);
    await page.getByLabel('Admin token').fill(`${ADMIN_TOKEN}x`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(page.getByRole('alert'), 'The admin token is not correct.');
    expect(await seriousViolations(page)).toEqual([]);
    // The 401 of a wrong token is the answer the page shows: the browser logs that failed request, and nothing else.
    expect(w.errors).toEqual([expect.stringMatching(/^console: Failed to load resource: .*401/)]);
    w.errors.splice(0);

    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const [cookie] = await w.context.cookies();
    expect(cookie).toMatchObject({ name: 'mediagate_console', httpOnly: true, sameSite: 'Strict', secure: false, path: '/admin/v1' });
    expect(cookie!.expires * 1000).toBeGreaterThan(Date.now());
    expect(cookie!.value).not.toContain(ADMIN_TOKEN);
    // What the page's script can see or keep (evaluated in the browser): storage, its cookies, its address.
    const stored = String(await page.evaluate('JSON.stringify({ ...localStorage, ...sessionStorage }) + document.cookie + location.href'));
    expect(stored).not.toContain(ADMIN_TOKEN);
    expect(stored).not.toContain(cookie!.value);
  });

  test('a key with a budget is created and its secret shown once; a task run with it shows its cost, in the spend chart and the CSV', async () => {
    await visit('/console/spend', 'Spend and usage');
    const chart = page.getByTestId('spend-chart');
    const before = (await chart.count()) > 0 ? await chart.getAttribute('data-groups') : '';
    expect(before ?? '').not.toContain(keyId);

    await visit('/console/keys', 'Keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    const form = page.getByRole('dialog', { name: 'Create a key' });
    await form.getByLabel('Key id').fill(keyId);
    await form.getByLabel('Amount').fill('10');
    await form.getByLabel('Currency').selectOption('USD');
    await form.getByLabel('Period').selectOption('month');
    await form.getByLabel(/Default webhook URL/).fill(`${receiver.url}`);
    await form.getByRole('button', { name: 'Review' }).click();
    const confirm = page.getByRole('dialog', { name: `Create key ${keyId}?` });
    await confirm.getByRole('button', { name: 'Create key' }).click();
    const created = page.getByRole('dialog', { name: `Key ${keyId} created` });
    secret = (await created.getByTestId('new-key-secret').textContent())!.trim();
    expect(secret).toMatch(/^sk-/);
    await created.getByRole('button', { name: 'Copy secret' }).click();
    await expectText(created.getByRole('status'), 'Copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    expect(await seriousViolations(page)).toEqual([]);
    await created.getByRole('button', { name: 'Done' }).click();
    await expectText(page.getByRole('row', { name: new RegExp(keyId) }), '10.00 USD per month');

    // The key works at once, through the API, on whichever replica answers: one that has not read it yet looks it
    // up in the database before refusing it.
    const client = new ApiClient(gw.stack.apiUrl, secret);
    receiver.answers.push(...Array<number>(100).fill(500));
    const answer = await client.post('/v1/videos/generations', { model: V_MODEL, prompt: 'a heron, from the console test', duration: 5 });
    expect(answer.status).toBe(200);
    const taskId = answer.body.task_id as string;

    await visit(`/console/tasks?key=${keyId}`, 'Tasks');
    await page.getByRole('link', { name: taskId }).click();
    await page.getByRole('heading', { level: 1, name: /Task/ }).waitFor();
    await expectText(page.locator('dl.facts'), '0.05 USD');
    await expectText(page.locator('dl.facts'), keyId);
    expect(await seriousViolations(page)).toEqual([]);

    await visit('/console/spend', 'Spend and usage');
    await until('the spend chart shows the key', async () => ((await chart.getAttribute('data-groups')) ?? '').includes(keyId), 30_000);
    expect(await chart.getAttribute('data-totals')).toMatch(/USD (0\.0[5-9]|[1-9])/);
    await expectText(page.getByRole('row', { name: new RegExp(`^${keyId}`) }).first(), '0.05 USD');
    await expectText(page.getByRole('row', { name: new RegExp(`^${keyId} `) }).last(), '9.95 USD');

    // The export is the admin API's own CSV, to the cent.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const exported = await streamText(await download.createReadStream());
    const range = /usage-key-(\d{4}-\d{2}-\d{2})-(\d{4}-\d{2}-\d{2})\.csv/.exec(download.suggestedFilename())!;
    const csv = await (await admin(`/admin/v1/usage?start=${range[1]}&end=${range[2]}&group_by=key`, 'text/csv')).text();
    expect(exported).toBe(csv);
    expect(csv).toMatch(new RegExp(`^${keyId},1,1,0,0,0,5,0,\\d+,0.05,$`, 'm'));
  });

  test('the webhook event given up is listed with its last answer and redelivered', async () => {
    const tasks = (await (await admin(`/admin/v1/tasks?key=${keyId}`)).json()) as { data: { task_id: string }[] };
    const taskId = tasks.data[0]!.task_id;
    await until(
      'the event is given up',
      async () =>
        ((await (await admin('/admin/v1/deliveries?state=given_up')).json()) as { data: { task_id: string }[] }).data.some(
          (d) => d.task_id === taskId,
        ),
      60_000,
    );
    receiver.answers.splice(0);
    const attempts = receiver.got.length;
    await visit('/console/deliveries?state=given_up', 'Webhook deliveries');
    const row = page.getByRole('row', { name: new RegExp(taskId) });
    await expectText(row, 'HTTP 500');
    await row.getByRole('button', { name: `Redeliver ${taskId}` }).click();
    await page
      .getByRole('dialog', { name: `Redeliver the last event of ${taskId}?` })
      .getByRole('button', { name: 'Redeliver' })
      .click();
    await expectText(page.getByRole('status'), 'queued again');
    await until('the receiver gets the event again', async () => receiver.got.length > attempts, 30_000);
    expect(receiver.got.at(-1)!.body).toMatchObject({ type: 'generation.succeeded', data: { task_id: taskId } });
  });

  test('revoking the key stops it on every replica', async () => {
    await visit('/console/keys', 'Keys');
    await page.getByRole('button', { name: `Revoke ${keyId}` }).click();
    await page
      .getByRole('dialog', { name: `Revoke key ${keyId}?` })
      .getByRole('button', { name: 'Revoke key' })
      .click();
    await page.getByRole('button', { name: `Revoke ${keyId}` }).waitFor({ state: 'detached' });
    for (const port of gw.stack.apiPorts) {
      const direct = new ApiClient(`http://127.0.0.1:${port}`, secret);
      await until(`API on ${port} refuses the revoked key`, async () => (await direct.get('/v1/models')).status === 401, 30_000);
    }
  });

  test('a task the platform lost is found by its reason, and replayed from its page after a preview', async () => {
    const started = await gw.alice.post('/v1/async/videos/generations', {
      model: V_MODEL,
      prompt: 'console lost job [sim:duration=8000]',
      duration: 5,
    });
    const id = started.body.task_id as string;
    await until('the job exists upstream', async () => (await upstreamIds(gw.client, [id]))[0] !== undefined, 60_000);
    const [upstream] = await upstreamIds(gw.client, [id]);
    expect((await fetch(`${gw.stack.simUrl}/_sim/jobs/${upstream}`, { method: 'DELETE' })).status).toBe(200);
    expect(await gw.alice.waitForTask(id, 60_000)).toMatchObject({ status: 'failed', error: { code: 'upstream_lost' } });

    await visit('/console/', 'Overview');
    await page.getByRole('button', { name: 'Last day' }).click();
    await page.getByRole('link', { name: /failed with upstream lost/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Tasks' }).waitFor();
    await page.getByRole('link', { name: id }).click();
    await expectText(page.getByTestId('failure-reason'), 'upstream_lost');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Replay task…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replay this task?' });
    await expectText(dialog.getByTestId('replay-preview'), id);
    await dialog.getByRole('button', { name: 'Replay' }).click();
    await expectText(page.getByRole('status'), 'Replay started.');
    expect(await gw.alice.waitForTask(id, 90_000)).toMatchObject({ status: 'success' });
  });

  test('a running task is cancelled from its page; a cancelled task is never replayed', async () => {
    const started = await gw.alice.post('/v1/async/videos/generations', {
      model: V_MODEL,
      prompt: 'console cancel [sim:duration=60000]',
      duration: 5,
    });
    const id = started.body.task_id as string;
    await visit(`/console/tasks/${id}`, /Task/);
    await page.getByRole('button', { name: 'Cancel task' }).click();
    await page.getByRole('dialog', { name: 'Cancel this task?' }).getByRole('button', { name: 'Cancel task' }).click();
    expect(await gw.alice.waitForTask(id, 60_000)).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    await page.reload();
    await expectText(page.locator('.status').first(), 'cancelled');
    expect(await page.getByRole('button', { name: 'Replay task…' }).count()).toBe(0);
    const preview = await fetch(`${gw.stack.apiUrl}/admin/v1/replays`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ task_id: id, dry_run: true }),
    });
    expect(await preview.json()).toMatchObject({ replayed: [], skipped: [{ task_id: id, why: expect.stringContaining('cancelled') }] });
  });

  test('the accounts page shows the platform account in the rotation, as the workers report it', async () => {
    await visit('/console/accounts', 'Platform accounts');
    await until(
      'the workers have reported V',
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await page.getByRole('row', { name: /^V default/ }).count()) > 0;
      },
      30_000,
    );
    await expectText(page.getByRole('row', { name: /^V default/ }), 'in rotation');
  });

  test('no page logged a browser console error; sign-out ends the session on every replica', async () => {
    await visit('/console/', 'Overview');
    expect(w.errors).toEqual([]);
    const cookie = (await w.context.cookies()).find((c) => c.name === 'mediagate_console')!;
    const withCookie = (port: number, method = 'GET', headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${port}/admin/v1/sessions/current`, {
        method,
        headers: { Cookie: `mediagate_console=${cookie.value}`, ...headers },
      });
    for (const port of gw.stack.apiPorts) expect(((await (await withCookie(port)).json()) as { signed_in: boolean }).signed_in).toBe(true);
    // A request that changes something needs the session's CSRF token as well as its cookie.
    expect((await withCookie(gw.stack.apiPorts[0]!, 'DELETE')).status).toBe(403);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin token').waitFor();
    for (const port of gw.stack.apiPorts) {
      expect(((await (await withCookie(port)).json()) as { signed_in: boolean }).signed_in).toBe(false);
      const keys = await fetch(`http://127.0.0.1:${port}/admin/v1/keys`, { headers: { Cookie: `mediagate_console=${cookie.value}` } });
      expect(keys.status).toBe(401);
    }
    expect(await seriousViolations(page)).toEqual([]);
    expect(w.errors).toEqual([]);
  });
});

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
