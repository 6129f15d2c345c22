/**
 * The operator's console as a browser loads it (issue: page sizes and time to first render): a stack with 10,000 keys
 * and a few hundred tasks, then each page opened in a fresh headless Chromium profile (nothing cached), signed in.
 * For each page: the bytes the browser received for the first load (the page, its script and style, and the admin
 * API's answers it asked for; Resource Timing's transferSize, compressed as sent), the first contentful paint
 * (Paint Timing) and when the page's data was on screen. A screenshot of each page goes to docs/console/.
 *
 *   npm run bench -- console
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../test/support/browser';
import { startTestPostgres } from '../test/support/postgres';
import { benchStack, VIDEO_MODEL, videoBody, AUTH, round } from './support';

const ADMIN_TOKEN = 'bench-console-admin-token-0123456789abcdef';
const KEYS = 10_000;
const TASKS = 300;
const SHOTS = join(__dirname, '..', 'docs', 'console');

interface PageRow {
  page: string;
  requests: number;
  'static bytes': number;
  'API bytes': number;
  'first contentful paint ms': number;
  'data on screen ms': number;
}

/** 10,000 keys straight into the table (as if made through the admin API over months), with budgets on a tenth. */
async function seedKeys(databaseUrl: string): Promise<void> {
  const { Client } = await import('pg');
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    for (let from = 0; from < KEYS; from += 1000) {
      const ids = Array.from({ length: 1000 }, (_, i) => `bench-key-${String(from + i).padStart(5, '0')}`);
      await db.query(
        `INSERT INTO api_keys (id, digest, budget_micros, budget_currency, budget_period)
         SELECT id, decode(md5(id || $2) || md5($2 || id), 'hex'), CASE WHEN n % 10 = 0 THEN 50000000 END, CASE WHEN n % 10 = 0 THEN 'USD' END, CASE WHEN n % 10 = 0 THEN 'month' END
         FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n)`,
        [ids, randomBytes(8).toString('hex')],
      );
    }
  } finally {
    await db.end();
  }
}

async function seedTasks(apiUrl: string): Promise<string> {
  const ids: string[] = [];
  for (let i = 0; i < TASKS; i++) {
    const fail = i % 10 === 0 ? ' [sim:fail=content_policy]' : '';
    const r = await fetch(`${apiUrl}/v1/async/videos/generations`, {
      method: 'POST',
      headers: AUTH,
      body: videoBody(`bench console ${i}${fail} [sim:duration=500]`),
    });
    ids.push(((await r.json()) as { task_id: string }).task_id);
  }
  return ids[0]!;
}

/** Opens `path` signed in (or not), nothing cached, and measures it until `ready` is on screen. */
async function measure(
  browser: Browser,
  apiUrl: string,
  cookie: string | undefined,
  name: string,
  path: string,
  ready: (p: Page) => Promise<unknown>,
) {
  const context = await browser.newContext({ baseURL: apiUrl, viewport: { width: 1280, height: 900 } });
  if (cookie) await context.addCookies([{ name: 'mediagate_console', value: cookie, url: `${apiUrl}/admin/v1/` }]);
  const page = await context.newPage();
  await page.goto(path);
  await ready(page);
  const t = (await page.evaluate(`(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const res = performance.getEntriesByType('resource');
    const api = res.filter((r) => r.name.includes('/admin/v1/'));
    const fcp = performance.getEntriesByType('paint').find((p) => p.name === 'first-contentful-paint');
    return {
      requests: res.length + 1,
      staticBytes: nav.transferSize + res.filter((r) => !r.name.includes('/admin/v1/')).reduce((s, r) => s + r.transferSize, 0),
      apiBytes: api.reduce((s, r) => s + r.transferSize, 0),
      fcp: fcp ? fcp.startTime : -1,
      ready: performance.now(),
    };
  })()`)) as { requests: number; staticBytes: number; apiBytes: number; fcp: number; ready: number };
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
  await context.close();
  return {
    page: name,
    requests: t.requests,
    'static bytes': t.staticBytes,
    'API bytes': t.apiBytes,
    'first contentful paint ms': round(t.fcp),
    'data on screen ms': round(t.ready),
  };
}

const heading = (name: string) => (p: Page) => p.getByRole('heading', { level: 1, name }).waitFor();
const rows = (name: string) => async (p: Page) => {
  await heading(name)(p);
  await p.locator('tbody tr').first().waitFor();
};

export async function runConsole(): Promise<{ rows: PageRow[]; notes: string[] }> {
  const postgres = await startTestPostgres();
  const pricesFile = join(tmpdir(), `bench-console-prices-${process.pid}.json`);
  writeFileSync(pricesFile, JSON.stringify({ [VIDEO_MODEL]: { currency: 'USD', source: 'bench', per_second: { '*': 0.01 } } }));
  const databaseUrl = await postgres.freshDatabase();
  const stack = await benchStack('console', { env: { DATABASE_URL: databaseUrl, ADMIN_TOKEN, PRICES_FILE: pricesFile } });
  let browser: Browser | undefined;
  try {
    await seedKeys(databaseUrl);
    const firstTask = await seedTasks(stack.apiUrl);
    await new Promise((r) => setTimeout(r, 15_000)); // the tasks end, the keys are read again by the API
    const session = await fetch(`${stack.apiUrl}/admin/v1/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: ADMIN_TOKEN }),
    });
    const cookie = /mediagate_console=([^;]+)/.exec(session.headers.get('set-cookie') ?? '')![1]!;
    browser = await launchChromium();
    const out: PageRow[] = [];
    const pages: [string, string, (p: Page) => Promise<unknown>, boolean][] = [
      ['sign-in', '/console', (p) => p.getByLabel('Admin token').waitFor(), false],
      [
        'overview',
        '/console/',
        (p) => Promise.all([p.locator('[data-testid=overview-spend-chart] canvas').waitFor(), p.locator('tbody tr').first().waitFor()]),
        true,
      ],
      ['keys', '/console/keys', rows('Keys'), true],
      ['spend', '/console/spend', (p) => p.locator('[data-testid=spend-chart] canvas').waitFor(), true],
      ['tasks', '/console/tasks', rows('Tasks'), true],
      ['task', `/console/tasks/${firstTask}`, (p) => p.locator('dl.facts').waitFor(), true],
      ['accounts', '/console/accounts', rows('Platform accounts'), true],
      ['deliveries', '/console/deliveries?state=given_up', heading('Webhook deliveries'), true],
    ];
    for (const [name, path, ready, signedIn] of pages)
      out.push(await measure(browser, stack.apiUrl, signedIn ? cookie : undefined, name, path, ready));
    return {
      rows: out,
      notes: [
        `${KEYS} keys and ${TASKS} tasks in the stack; each page opened in a fresh profile (nothing cached), on the embedded stack`,
        'bytes are Resource Timing transferSize (compressed as sent, headers included); API bytes are the admin API answers the page asked for',
        `screenshots in docs/console/`,
      ],
    };
  } finally {
    await browser?.close();
    await stack.stop();
    await postgres.stop();
  }
}
