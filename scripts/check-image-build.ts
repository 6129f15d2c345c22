/**
 * CI check of the production image without a Docker engine (none runs on our build machines): builds exactly
 * the file set the Dockerfile's build stage copies, in a temporary directory, the way the build stage does
 * (`npm run build`, the simulator's assets), then runs the built `dist/` as the runtime stage would — with
 * production dependencies only — once: the API, the worker (with the prebuilt workflow bundle) and the
 * simulator each start against a Temporal dev server, the API answers /readyz, and all stop cleanly.
 *
 *   node --import tsx scripts/check-image-build.ts
 *
 * A file the build needs that the Dockerfile does not copy, a dev-only import in the service code, or a runtime
 * import of a devDependency fails here as it would fail `docker build` / `docker run`.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { freePort } from './free-port';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, type StartedProcess } from './child-process';
import { startDevServer } from './dev-server';
import { REPO_ROOT } from './tools';

/** The sources the build stage copies: every `COPY <src…> <dest>` between `FROM … AS build` and the next FROM. */
export function buildStageCopies(dockerfile: string): string[] {
  const lines = dockerfile.split('\n');
  const start = lines.findIndex((l) => /^FROM\s+\S+\s+AS\s+build\b/i.test(l));
  if (start < 0) throw new Error('Dockerfile: no "FROM … AS build" stage');
  const sources: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^FROM\s/i.test(line)) break;
    const m = /^COPY\s+(?!--)(.+)$/i.exec(line.trim());
    if (!m) continue;
    const parts = m[1]!.trim().split(/\s+/);
    sources.push(...parts.slice(0, -1));
  }
  return sources;
}

function run(cmd: string, args: string[], cwd: string): void {
  execFileSync(cmd, args, { cwd, stdio: 'inherit', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' } });
}

/** Starts `node dist/<part>/main.js` and resolves once it prints `ready`; rejects if it exits first. */
function startPart(runtime: string, part: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<StartedProcess> {
  return startProcess({
    name: part,
    command: process.execPath,
    args: [join('dist', part, 'main.js')],
    cwd: runtime,
    env,
    ready,
    readyTimeoutMs: 120_000,
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mediagate-image-'));
  const build = join(dir, 'build');
  const runtime = join(dir, 'runtime');
  mkdirSync(build);
  mkdirSync(runtime);
  try {
    // --- build stage: the copied file set, all dependencies (the repository's own, as `npm install` made them).
    const sources = buildStageCopies(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
    console.log(`build stage copies: ${sources.join(' ')}`);
    for (const src of sources) {
      if (!existsSync(join(REPO_ROOT, src))) throw new Error(`Dockerfile copies ${src}, which does not exist`);
      cpSync(join(REPO_ROOT, src), join(build, src), { recursive: true });
    }
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(build, 'node_modules'), 'dir');
    run('npm', ['run', 'build'], build);
    cpSync(join(build, 'sim', 'assets'), join(build, 'dist', 'sim', 'assets'), { recursive: true });

    // --- runtime stage: production dependencies only, the compiled dist.
    for (const f of ['package.json', 'package-lock.json']) cpSync(join(REPO_ROOT, f), join(runtime, f));
    run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], runtime);
    cpSync(join(build, 'dist'), join(runtime, 'dist'), { recursive: true });

    const [temporalPort, apiPort, simPort, m1, m2] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const temporal = await startDevServer({
      address: `127.0.0.1:${temporalPort}`,
      dbFile: join(dir, 'temporal.db'),
      namespace: 'default',
      uiPort: false,
      output: 'ignore',
      log: () => undefined,
    });
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
      TEMPORAL_TASK_QUEUE: `image-check-${process.pid}`,
      WORKFLOW_BUNDLE_PATH: join(runtime, 'dist', 'workflow-bundle.js'),
      // Production refuses an enabled platform without credentials: enable one, pointed at nothing (no task runs).
      PLATFORMS_ENABLED: 'V',
      PLATFORM_V_BASE_URL: 'http://127.0.0.1:9/api/v3',
      PLATFORM_V_API_KEY: 'image-check',
      API_KEYS: 'check:sk-image-check-0123456789',
      HOST: '127.0.0.1',
      PORT: String(apiPort),
      WORKER_METRICS_HOST: '127.0.0.1',
      WORKER_METRICS_PORT: String(m1),
      WORKER_SDK_METRICS_PORT: String(m2),
      SIM_PORT: String(simPort),
      SIM_DATA_FILE: join(dir, 'sim-jobs.json'),
      RESULTS_DIR: join(dir, 'results'),
      RESULT_URL_SECRET: 'image-check-result-url-secret-0123456789',
    };
    const parts: StartedProcess[] = [];
    let exitCodes: (number | null)[] = [];
    try {
      parts.push(await startPart(runtime, 'worker', env, /Worker started/));
      parts.push(await startPart(runtime, 'api', env, /API listening/));
      parts.push(await startPart(runtime, 'sim', env, /listening on/));
      const ready = await fetch(`http://127.0.0.1:${apiPort}/readyz`);
      if (ready.status !== 200) throw new Error(`built API /readyz answered ${ready.status}`);
      const models = await fetch(`http://127.0.0.1:${apiPort}/v1/models`, {
        headers: { Authorization: 'Bearer sk-image-check-0123456789' },
      });
      if (models.status !== 200) throw new Error(`built API /v1/models answered ${models.status}`);
      const page = await fetch(`http://127.0.0.1:${apiPort}/console`);
      const html = await page.text();
      if (page.status !== 200 || !/<script type="module"[^>]* src="\/console\/assets\//.test(html))
        throw new Error(`built API /console answered ${page.status} without the built console`);
      console.log(
        'built dist/: worker, API and simulator started with production dependencies only; /readyz 200, /v1/models 200, /console 200',
      );
    } finally {
      exitCodes = await Promise.all(parts.map((p) => p.stop(30_000)));
      await temporal.stop();
    }
    if (exitCodes.some((c) => c !== 0)) throw new Error(`a built part did not stop cleanly (exit codes ${exitCodes.join(', ')})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().then(
    () => console.log('image file set: OK'),
    (err: Error) => {
      console.error(`image file set: FAILED: ${err.message}`);
      process.exit(1);
    },
  );
}
