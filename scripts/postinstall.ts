/**
 * `npm install`'s last step (package.json "postinstall"): builds the operator's console when stale
 * (scripts/build-console.ts), and installs the AI SDK provider's own dependencies (clients/ai-sdk, a package of its
 * own, published apart) with the Node that runs the project.
 *
 * The provider's dependencies (`ai` 7, `@ai-sdk/provider` 4) need Node 22 or later. `npm install` runs on whatever
 * Node the machine has (the system's may be older: npm checks each package's `engines` against the Node npm itself
 * runs on, and warns); npm scripts run this project's pinned Node (node_modules/.bin/node, package.json's
 * optionalDependencies), so this script runs npm again on that Node, for that package alone: npm then checks the
 * provider's dependencies against the Node that will run them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildConsole } from './build-console';
import { REPO_ROOT } from './tools';

export const AI_SDK_CLIENT = join(REPO_ROOT, 'clients', 'ai-sdk');

/** npm's own script (npm sets npm_execpath for the scripts it runs). */
function npmCli(): string | undefined {
  const path = process.env.npm_execpath;
  return path && existsSync(path) ? path : undefined;
}

export function installClient(log: (line: string) => void = (l) => console.log(l)): void {
  if (!existsSync(join(AI_SDK_CLIENT, 'package.json'))) return;
  const npm = npmCli();
  if (!npm) {
    log('clients/ai-sdk: npm_execpath is not set (not run by npm), so its dependencies are not installed here');
    return;
  }
  // The outer npm's settings for the root (its prefix, its command's flags) must not reach the inner one.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_')));
  execFileSync(process.execPath, [npm, 'install', '--no-audit', '--no-fund', '--loglevel=warn'], {
    cwd: AI_SDK_CLIENT,
    env,
    stdio: 'inherit',
  });
}

if (require.main === module) {
  try {
    buildConsole({ ifStale: true });
    installClient();
  } catch (err) {
    console.error(`postinstall: ${(err as Error).message}`);
    process.exit(1);
  }
}
