/**
 * `npm start`: the whole gateway on the embedded default, in one command — the Temporal dev server (SQLite under
 * ./data, Web UI), the upstream simulator (for every platform without configuration), the worker and the API.
 * Prints the API URL, the UI URL and an API key. Ctrl-C (SIGINT/SIGTERM) stops every part cleanly.
 *
 * With API_KEYS unset it generates one key and keeps it in data/dev-api-key, so a second `npm start` uses the
 * same key and can read the tasks created by the first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadApiConfig } from '../api/api-config';
import { loadWorkerConfig } from '../worker/worker-config';
import { loadEmbeddedConfig } from './embedded-config';
import { startDevServer, type DevServer } from './dev-server';
import { REPO_ROOT } from './temporal-cli';

interface Part {
  name: string;
  child: ChildProcess;
}

function devApiKey(dbFile: string): string {
  const file = join(dirname(dbFile), 'dev-api-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = `local:sk-${randomBytes(24).toString('base64url')}`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

function run(name: string, script: string, env: NodeJS.ProcessEnv): Part {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, script)], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on('line', (line) => process.stdout.write(`[${name}] ${line}\n`));
  }
  return { name, child };
}

function waitForLine(part: Part, pattern: RegExp, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${part.name} did not start within ${timeoutMs} ms`)), timeoutMs);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${part.name} exited with code ${code} during start-up`));
    };
    part.child.once('exit', onExit);
    for (const stream of [part.child.stdout!, part.child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        if (pattern.test(line)) {
          clearTimeout(timer);
          part.child.off('exit', onExit);
          resolve();
        }
      });
    }
  });
}

async function stopPart(part: Part): Promise<void> {
  if (part.child.exitCode !== null || part.child.signalCode !== null) return;
  const exited = new Promise((r) => part.child.once('exit', r));
  part.child.kill('SIGTERM');
  const timer = setTimeout(() => part.child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

async function main(): Promise<void> {
  // The launcher reads each part's configuration only to orchestrate: which parts to start, what to print.
  const config = loadEmbeddedConfig();
  const apiConfig = loadApiConfig();
  const workerConfig = loadWorkerConfig();
  const apiKeys = apiConfig.API_KEYS ?? devApiKey(config.TEMPORAL_DB_FILE);
  const apiSecret = apiKeys.split(',')[0]!.split(':').slice(1).join(':');
  const simulated = Object.entries(workerConfig.platforms).filter(([, p]) => p.simulated).map(([id]) => id);

  const parts: Part[] = [];
  let temporal: DevServer | undefined;
  let stopping = false;

  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping mediagate…');
    // API first (stop accepting), then the worker (finish in-flight activities), then the rest.
    for (const name of ['api', 'worker', 'sim']) {
      const part = parts.find((p) => p.name === name);
      if (part) await stopPart(part);
    }
    await temporal?.stop();
    console.log('Stopped.');
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  try {
    console.log('Starting the Temporal dev server…');
    temporal = await startDevServer({
      address: config.TEMPORAL_ADDRESS,
      dbFile: config.TEMPORAL_DB_FILE,
      namespace: config.TEMPORAL_NAMESPACE,
      uiPort: config.TEMPORAL_UI_PORT,
      output: 'ignore',
      log: (m) => console.log(m),
    });

    const env: NodeJS.ProcessEnv = { ...process.env, API_KEYS: apiKeys };
    if (simulated.length > 0) {
      const sim = run('sim', 'sim/main.ts', env);
      parts.push(sim);
      await waitForLine(sim, /listening on/, 30_000);
    }
    const worker = run('worker', 'worker/main.ts', env);
    parts.push(worker);
    await waitForLine(worker, /Worker started/, 120_000);
    const api = run('api', 'api/main.ts', env);
    parts.push(api);
    await waitForLine(api, /API listening/, 60_000);
  } catch (err) {
    console.error(`Start-up failed: ${(err as Error).message}`);
    await shutdown(1);
    return;
  }

  for (const part of parts) {
    part.child.once('exit', (code, signal) => {
      if (stopping) return;
      console.error(`${part.name} exited unexpectedly (code ${code}, signal ${signal}); stopping everything`);
      void shutdown(1);
    });
  }

  const apiUrl = `http://127.0.0.1:${apiConfig.PORT}`;
  console.log(`
mediagate is running.
  API:         ${apiUrl}
  Temporal UI: ${temporal.uiUrl} (namespace ${config.TEMPORAL_NAMESPACE})
  API key:     ${apiSecret}
  Simulated:   ${simulated.length ? `platforms ${simulated.join(', ')} (simulator at ${workerConfig.SIM_BASE_URL})` : 'none'}

Try:
  curl -s ${apiUrl}/v1/models -H "Authorization: Bearer ${apiSecret}"

Press Ctrl-C to stop.
`);
}

void main();
