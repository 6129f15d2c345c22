/**
 * `npm start` as root, as on a fresh container or cloud VM, in the two cases that failed to start PostgreSQL (its
 * server refuses root and runs as an unprivileged user, who must reach its binaries and data):
 *
 * - the clone inside a home directory only root may enter (0700): its binaries and its data directory are out of
 *   that user's reach where they are, so they are kept under ROOT_SHARED_DIR, the data linked from data/postgres;
 * - keys and secrets from the environment, and the data directory in a directory PostgreSQL's start makes first:
 *   only the data directory itself is 0700, never the directories above it.
 *
 * Each runs a copy of this working tree (its files, node_modules hard-linked, the pinned tools linked) from its own
 * directory, as the README's command runs it, and uses the stack over HTTP: a key made through the admin API (kept
 * in PostgreSQL) and a task to its end. The first also holds PostgreSQL's default port (5433): the start takes
 * another and says so. Root only (CI runs as root); as an ordinary user npm-start.test.ts covers the same start.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT_SHARED_DIR } from '../../scripts/postgres-as-root';
import { ApiClient } from '../support/client';
import { startScript, type ScriptProcess } from '../support/script-process';
import { freePort, REPO } from '../support/stack';

jest.setTimeout(420_000);

const asRoot = process.getuid?.() === 0;

/** A copy of the working tree at `dir`: its files, node_modules hard-linked (instant, same inodes), .tools linked. */
function copyRepository(dir: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  for (const f of files) {
    const from = join(REPO, f);
    if (!lstatSync(from, { throwIfNoEntry: false })) continue; // deleted in the working tree
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(from, join(dir, f));
  }
  execFileSync('cp', ['-al', join(REPO, 'node_modules'), join(dir, 'node_modules')]);
  symlinkSync(join(REPO, '.tools'), join(dir, '.tools'));
}

/** The environment of a start on free ports (PostgreSQL's aside), with nothing of this test's own settings. */
async function startEnv(extra: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  const [api, temporal, ui, sim, metrics, sdkMetrics] = await Promise.all(Array.from({ length: 6 }, () => freePort()));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    PORT: String(api),
    TEMPORAL_ADDRESS: `127.0.0.1:${temporal}`,
    TEMPORAL_UI_PORT: String(ui),
    SIM_PORT: String(sim),
    SIM_JOB_DURATION_MS: '1000',
    WORKER_METRICS_PORT: String(metrics),
    WORKER_SDK_METRICS_PORT: String(sdkMetrics),
    POLL_FIRST_DELAY_MS: '200',
    POLL_INTERVAL_VIDEO_MS: '300',
    ...extra,
  };
  for (const name of Object.keys(env)) {
    if (
      /^(API_KEYS|API_KEYS_FILE|ADMIN_TOKEN|DATABASE_URL|HOST|WORKER_METRICS_HOST|WORKER_READY_URLS|PUBLIC_BASE_URL|CALLBACK_SECRET|RESULT_URL_SECRET|WEBHOOK_SIGNING_SECRET|SIM_BASE_URL|SIM_DATA_FILE|TEMPORAL_DB_FILE|RESULTS_.*|EMBEDDED_POSTGRES_.*|TEMPORAL_TASK_QUEUE)$/.test(
        name,
      ) &&
      !(name in extra)
    )
      delete env[name];
  }
  return env;
}

/** Waits for the banner, then uses the stack: a key made through the admin API works, and a task runs to its end. */
async function useStartedStack(run: ScriptProcess, env: NodeJS.ProcessEnv, adminToken: string, apiKey: string): Promise<void> {
  await run.waitFor(/mediagate is running/, 300_000);
  const base = `http://127.0.0.1:${env.PORT}`;
  const made = await fetch(`${base}/admin/v1/keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ id: `root-${Date.now()}`, budget: { amount: 10, currency: 'USD', period: 'month' } }),
  });
  expect(made.status).toBe(201);
  const teamSecret = ((await made.json()) as { secret: string }).secret;
  expect((await new ApiClient(base, teamSecret).get('/v1/models')).status).toBe(200);
  const client = new ApiClient(base, apiKey);
  const r = await client.post('/v1/async/videos/generations', {
    model: 'vendor-video-1-0-pro-250528',
    prompt: 'a lighthouse, as root',
    duration: 5,
  });
  expect(r.status).toBe(200);
  expect((await client.waitForTask(r.body.task_id, 120_000)).status).toBe('success');
}

/** Ctrl-C, then: a clean exit, and nothing alarming printed on the way out. */
async function stopCleanly(run: ScriptProcess): Promise<void> {
  const mark = run.lines.length;
  run.interrupt();
  expect(await Promise.race([run.exited, new Promise((r) => setTimeout(() => r('still running 60 s after Ctrl-C'), 60_000).unref())])).toBe(
    0,
  );
  expect(run.lines.slice(mark).filter((l) => /FATAL|PANIC|ERROR:|"level":(50|60)/.test(l))).toEqual([]);
}

/** Stops a start that a failed test left running, parts included (they run in process groups of their own). */
async function ensureStopped(run: ScriptProcess | undefined): Promise<void> {
  if (!run || run.child.exitCode !== null) return;
  run.interrupt();
  await Promise.race([run.exited, new Promise((r) => setTimeout(r, 60_000).unref())]);
  if (run.child.exitCode === null) run.child.kill('SIGKILL');
}

(asRoot ? describe : describe.skip)('npm start as root', () => {
  test('a clone in a home directory only root may enter (0700): PostgreSQL runs from what its user can reach; 5433 taken, another port', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mediagate-root-home-'));
    chmodSync(home, 0o700);
    const clone = join(home, 'mediagate');
    copyRepository(clone);
    // PostgreSQL's default port held (by this test, or already by someone else): the start must take another.
    const holder: Server | undefined = await new Promise((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(undefined));
      srv.listen(5433, '127.0.0.1', () => resolve(srv));
    });
    let run: ScriptProcess | undefined;
    let kept: string | undefined;
    try {
      const env = await startEnv({});
      run = startScript('scripts/start.ts', env, clone);
      await run.waitFor(/mediagate is running/, 300_000);
      expect(run.lines.join('\n')).toMatch(
        /Port 5433, the embedded PostgreSQL's default, is in use: it listens on 127\.0\.0\.1:\d+ instead \(EMBEDDED_POSTGRES_PORT/,
      );
      // The data directory is out of the clone, linked from where the README says it is.
      const link = join(clone, 'data', 'postgres');
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      kept = readlinkSync(link);
      expect(dirname(kept)).toBe(ROOT_SHARED_DIR);
      expect(run.lines.some((l) => l.includes(`its data directory is ${kept}`))).toBe(true);
      expect(statSync(kept).mode & 0o777).toBe(0o700);
      const key = readFileSync(join(clone, 'data', 'dev-api-key'), 'utf8')
        .trim()
        .split(':')
        .slice(1)
        .join(':');
      await useStartedStack(run, env, readFileSync(join(clone, 'data', 'dev-admin-token'), 'utf8').trim(), key);
      await stopCleanly(run);

      // Started again: the same data directory, through the same link; the key made before is still there.
      run = startScript('scripts/start.ts', env, clone);
      await useStartedStack(run, env, readFileSync(join(clone, 'data', 'dev-admin-token'), 'utf8').trim(), key);
      expect(readlinkSync(link)).toBe(kept);
      await stopCleanly(run);
    } finally {
      await ensureStopped(run);
      await new Promise((r) => (holder ? holder.close(r) : r(undefined)));
      rmSync(home, { recursive: true, force: true });
      if (kept) rmSync(kept, { recursive: true, force: true });
    }
  });

  test('keys and secrets from the environment, the data directory in a directory the start makes: only the data directory is 0700', async () => {
    const top = mkdtempSync(join(tmpdir(), 'mediagate-root-env-'));
    chmodSync(top, 0o755);
    const clone = join(top, 'mediagate');
    copyRepository(clone);
    let run: ScriptProcess | undefined;
    try {
      const port = await freePort();
      const secrets = {
        API_KEYS: 'ops:sk-from-the-environment-0123456789',
        ADMIN_TOKEN: 'admin-token-from-the-environment-0123456789',
        RESULT_URL_SECRET: 'result-url-secret-from-the-environment-0123',
        WEBHOOK_SIGNING_SECRET: 'webhook-signing-secret-from-the-environment',
        CALLBACK_SECRET: 'callback-secret-from-the-environment-012345',
        // Not there yet: PostgreSQL's start makes both directories.
        EMBEDDED_POSTGRES_DIR: join(clone, 'pgdata', 'postgres'),
        EMBEDDED_POSTGRES_PORT: String(port),
      };
      const env = await startEnv(secrets);
      run = startScript('scripts/start.ts', env, clone);
      await useStartedStack(run, env, secrets.ADMIN_TOKEN, 'sk-from-the-environment-0123456789');
      // The directory above it may be entered by anyone (PostgreSQL's user must pass through it).
      expect(statSync(join(clone, 'pgdata')).mode & 0o001).toBe(0o001);
      expect(lstatSync(join(clone, 'pgdata', 'postgres')).isSymbolicLink()).toBe(false);
      expect(statSync(join(clone, 'pgdata', 'postgres')).mode & 0o777).toBe(0o700);
      await stopCleanly(run);
    } finally {
      await ensureStopped(run);
      rmSync(top, { recursive: true, force: true });
    }
  });
});
