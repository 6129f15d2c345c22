/**
 * A real browser for the console's tests and benchmark: headless Chromium (found or installed by scripts/chromium.ts)
 * driven by playwright-core. Every page records what the browser's console reports as an error and every uncaught
 * exception, and axe (through @axe-core/playwright) checks a page for accessibility violations.
 */
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { findChromium } from '../../scripts/chromium';
import { waitFor } from './wait-for';

export async function launchChromium(): Promise<Browser> {
  const binary = await findChromium({ log: (m) => process.stderr.write(`${m}\n`) });
  if (!binary) throw new Error('No Chromium could be found or installed: set CHROMIUM_PATH, or run node --import tsx scripts/chromium.ts');
  return chromium.launch({ executablePath: binary.executablePath, args: binary.args, headless: true });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Errors the browser's console reported and uncaught exceptions, in order. */
  errors: string[];
}

/** A fresh browser profile (no cookies) and a page in it, its console errors recorded. */
export async function openPage(browser: Browser, baseURL: string): Promise<WatchedPage> {
  const context = await browser.newContext({ baseURL, acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`uncaught: ${err.message}`));
  return { context, page, errors };
}

/** axe's violations of impact serious or critical on the page as it is now, one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join('; ')}`);
}

/** Waits (bounded at 30 s) until `locator` shows `text` (a substring, or a pattern); else fails saying what it shows. */
export async function expectText(locator: Locator, text: string | RegExp): Promise<void> {
  const shows = (t: string) => (typeof text === 'string' ? t.includes(text) : text.test(t));
  await waitFor(async () => shows((await locator.textContent().catch(() => '')) ?? ''), 30_000).catch(async () => {
    throw new Error(
      `expected ${String(locator)} to show "${String(text)}"; it shows "${await locator.textContent().catch(() => '(nothing)')}"`,
    );
  });
}

/**
 * Opens a console page and waits for its heading and for its loads to end (nothing `aria-busy` left, bounded at 30 s);
 * returns axe's serious violations there, for the caller to hold the page to.
 */
export async function visitConsolePage(page: Page, path: string, heading: string | RegExp): Promise<string[]> {
  await page.goto(path);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page
    .locator('[aria-busy="true"]')
    .first()
    .waitFor({ state: 'detached', timeout: 30_000 })
    .catch(() => undefined);
  return seriousViolations(page);
}
