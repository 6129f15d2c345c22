/**
 * Builds the operator's console (console/, Preact and Vite) into dist/console, where the API serves it at /console,
 * and writes a Brotli and a gzip copy of each text file beside it (the API sends them to browsers that take them).
 * `npm install` (postinstall), `npm start`, `npm run cluster`, `npm run build` and the image's build stage run it, so a
 * user never builds the console by hand.
 *
 *   node --import tsx scripts/build-console.ts [--if-stale]
 *
 * With --if-stale it builds only when the console's sources or the locked dependencies changed since the last build
 * (a digest of them is kept in dist/console-build.json). Vite is a build tool among the dev dependencies: where it is
 * not installed (`npm install --omit=dev`), there is nothing to build with, and it says so and stops without failing.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { REPO_ROOT } from './tools';

export const CONSOLE_SOURCES = join(REPO_ROOT, 'console');
export const CONSOLE_BUILD = join(REPO_ROOT, 'dist', 'console');
const STAMP = join(REPO_ROOT, 'dist', 'console-build.json');
const VITE = join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js');

/** Files of a directory, recursively, sorted (relative paths). */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** A digest of what the build reads: the console's sources and the lock file's dependency versions. */
export function consoleSourceDigest(): string {
  const hash = createHash('sha256');
  for (const file of [...filesOf(CONSOLE_SOURCES), join(REPO_ROOT, 'package-lock.json')]) {
    hash.update(file.slice(REPO_ROOT.length)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

function isCurrent(digest: string): boolean {
  if (!existsSync(join(CONSOLE_BUILD, 'index.html')) || !existsSync(STAMP)) return false;
  return (JSON.parse(readFileSync(STAMP, 'utf8')) as { digest?: string }).digest === digest;
}

/** Brotli and gzip copies of the built text files (.html, .js, .css). */
function precompress(): void {
  for (const file of filesOf(CONSOLE_BUILD).filter((f) => /\.(html|js|css|svg)$/.test(f))) {
    const data = readFileSync(file);
    writeFileSync(`${file}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
  }
}

/** Builds the console unless (with ifStale) the last build is of the same sources; false when Vite is not installed. */
export function buildConsole(opts: { ifStale?: boolean; log?: (line: string) => void } = {}): boolean {
  const log = opts.log ?? ((line: string) => console.log(line));
  if (!existsSync(CONSOLE_SOURCES)) return false;
  if (!existsSync(VITE)) {
    log('console: Vite is not installed (npm install --omit=dev), so the console is not built here');
    return false;
  }
  const digest = consoleSourceDigest();
  if (opts.ifStale && isCurrent(digest)) return true;
  log('console: building it into dist/console (Vite)…');
  execFileSync(process.execPath, [VITE, 'build', '--config', join(CONSOLE_SOURCES, 'vite.config.mts')], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
  precompress();
  writeFileSync(STAMP, `${JSON.stringify({ digest, builtAt: new Date().toISOString() }, null, 2)}\n`);
  log('console: built');
  return true;
}

if (require.main === module) {
  try {
    buildConsole({ ifStale: process.argv.includes('--if-stale') });
  } catch (err) {
    console.error(`console: the build failed: ${(err as Error).message}`);
    process.exit(1);
  }
}
