/**
 * The headless Chromium the console's browser tests and its benchmark drive (with playwright-core, which downloads no
 * browser of its own). Found or installed, in this order:
 *
 * 1. CHROMIUM_PATH, when set;
 * 2. a Chromium or Chrome on PATH (`chromium`, `chromium-browser`, `google-chrome-stable`, `google-chrome`);
 * 3. as root where apt-get exists (Debian, CI): Debian's `chromium` package, installed once;
 * 4. otherwise (an ordinary user): the pinned npm package @sparticuz/chromium, which ships a Chromium binary inside
 *    it, installed into .tools/ (it unpacks the binary into the system's temporary directory on first use).
 *
 *   node --import tsx scripts/chromium.ts     # finds or installs it, prints its path
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { onPath, TOOLS, works, type Log } from './tools';

export const SPARTICUZ_CHROMIUM_VERSION = '153.0.0';
const SPARTICUZ_DIR = join(TOOLS, `sparticuz-chromium-${SPARTICUZ_CHROMIUM_VERSION}`);

export interface ChromiumBinary {
  executablePath: string;
  /** Launch flags it needs here (no sandbox as root; nothing that calls out to the internet). */
  args: string[];
}

const isRoot = () => process.getuid?.() === 0;

/** Flags for a system Chromium: quiet (no update checks, sync or first-run), and no sandbox when run as root. */
export function systemChromiumArgs(): string[] {
  return [
    ...(isRoot() ? ['--no-sandbox'] : []),
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-dev-shm-usage',
  ];
}

function systemChromium(): string | undefined {
  const given = process.env.CHROMIUM_PATH?.trim();
  if (given) return given;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']) {
    const found = onPath(name);
    if (found && works(found)) return found;
  }
  return undefined;
}

function aptInstall(log: Log): boolean {
  if (!isRoot() || !onPath('apt-get')) return false;
  log("Installing Debian's chromium package (apt-get; once)…");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'chromium']]) {
    if (spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env, timeout: 900_000 }).status !== 0) return false;
  }
  return true;
}

/** The npm package that carries a Chromium inside it, into .tools/ (installed beside, then renamed into place). */
async function npmChromium(log: Log, install: boolean): Promise<ChromiumBinary | undefined> {
  const entry = join(SPARTICUZ_DIR, 'node_modules', '@sparticuz', 'chromium', 'package.json');
  if (!existsSync(entry)) {
    if (!install) return undefined;
    log(`Installing @sparticuz/chromium ${SPARTICUZ_CHROMIUM_VERSION} (a Chromium inside an npm package) into .tools/…`);
    const tmp = `${SPARTICUZ_DIR}.tmp-${process.pid}`;
    mkdirSync(tmp, { recursive: true });
    try {
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', tmp, `@sparticuz/chromium@${SPARTICUZ_CHROMIUM_VERSION}`], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      if (!existsSync(SPARTICUZ_DIR)) renameSync(tmp, SPARTICUZ_DIR);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const mod = (await import(pathToFileURL(join(SPARTICUZ_DIR, 'node_modules', '@sparticuz', 'chromium', 'build', 'index.js')).href)) as {
    default: { executablePath(): Promise<string>; args: string[] };
  };
  return { executablePath: await mod.default.executablePath(), args: mod.default.args };
}

/** A Chromium to drive, installing one when none is found (unless `install` is false); undefined when none can be had. */
export async function findChromium(opts: { install?: boolean; log?: Log } = {}): Promise<ChromiumBinary | undefined> {
  const log = opts.log ?? ((m) => console.error(m));
  const install = opts.install ?? true;
  let found = systemChromium();
  if (!found && install && aptInstall(log)) found = systemChromium();
  if (found) return { executablePath: found, args: systemChromiumArgs() };
  return npmChromium(log, install);
}

if (require.main === module) {
  findChromium().then(
    (browser) => {
      if (!browser) {
        console.error('No Chromium could be found or installed (set CHROMIUM_PATH to one).');
        process.exit(1);
      }
      console.log(browser.executablePath);
    },
    (err: Error) => {
      console.error(`chromium: ${err.message}`);
      process.exit(1);
    },
  );
}
