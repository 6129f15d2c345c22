/**
 * The workflow bundle the test stacks' workers run, prebuilt as production prebuilds it (`npm run build`,
 * scripts/bundle-workflows.ts, named by WORKFLOW_BUNDLE_PATH as the Docker image names it) instead of each worker
 * bundling at start: the suite starts a hundred-odd workers, and webpack took about 2 s of a busy CPU at each.
 *
 * Built once per state of the sources: the file's name is a digest of every TypeScript source outside the tests
 * and the lock file, so a change to any workflow (or anything it imports) builds a new one. A worker a test
 * starts by itself, not through Stack.startWorker, bundles at start as `npm start`'s does
 * (test/system/worker-logs.test.ts reads that start-up line).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

const REPO = join(__dirname, '..', '..');
/** Folders no workflow imports from. */
const SKIP = new Set(['node_modules', '.git', '.tools', 'test', 'bench', 'scratch', 'data', 'dist', 'test-results', 'docs']);

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP.has(entry.name) && !entry.name.startsWith('.')) sources(join(dir, entry.name), out);
    } else if (entry.name.endsWith('.ts')) out.push(join(dir, entry.name));
  }
  return out;
}

function sourceDigest(): string {
  const hash = createHash('sha256');
  for (const file of [...sources(REPO).sort(), join(REPO, 'package-lock.json')]) {
    hash.update(relative(REPO, file)).update('\0');
    if (existsSync(file)) hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

let pending: Promise<string> | undefined;

/** The path of the bundle built from the sources as they are now, building it if no earlier test did. */
export function prebuiltWorkflowBundle(): Promise<string> {
  pending ??= (async () => {
    const dir = join(REPO, 'test-results', 'workflow-bundles');
    const file = join(dir, `${sourceDigest()}.js`);
    if (existsSync(file)) return file;
    mkdirSync(dir, { recursive: true });
    // Written aside and renamed: a test process reading it meanwhile sees no half-written file.
    const part = `${file}.${process.pid}.part`;
    await promisify(execFile)(process.execPath, ['--import', 'tsx', join(REPO, 'scripts', 'bundle-workflows.ts'), part], { cwd: REPO });
    renameSync(part, file);
    return file;
  })();
  pending.catch(() => (pending = undefined));
  return pending;
}
