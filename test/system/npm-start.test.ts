/**
 * `npm start` as a new user runs it (scripts/start.ts, the README's first command), on free ports and a temporary
 * data directory: it comes up on loopback, prints the key and the admin token it generated, keeps its parts alive
 * (a worker killed with SIGKILL is restarted and tasks keep completing), runs the ledger's PostgreSQL (restarted
 * when killed; a key made through the admin API survives a restart of the whole stack), and stops cleanly on Ctrl-C.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { derivedWebhookSecret } from '../../webhooks/signing';
import { ApiClient } from '../support/client';
import { startScript } from '../support/script-process';
import { freePort } from '../support/stack';

jest.setTimeout(300_000);

/** `npm start` with `env`: its output lines, a wait for a line, its exit. */
const startNpmStart = (env: NodeJS.ProcessEnv) => startScript('scripts/start.ts', env);

test('npm start: loopback, the generated key and admin token, a killed worker restarted, keys kept over a restart, Ctrl-C stops everything', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mediagate-npm-start-'));
  // As root the embedded PostgreSQL runs as an unprivileged user, who must reach its data directory in here.
  chmodSync(dir, 0o755);
  const [api, temporal, ui, sim, metrics, sdkMetrics, postgres] = await Promise.all(Array.from({ length: 7 }, () => freePort()));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    PORT: String(api),
    TEMPORAL_ADDRESS: `127.0.0.1:${temporal}`,
    TEMPORAL_UI_PORT: String(ui),
    TEMPORAL_DB_FILE: join(dir, 'temporal.db'),
    TEMPORAL_TASK_QUEUE: `npm-start-${process.pid}`,
    SIM_PORT: String(sim),
    SIM_BASE_URL: `http://127.0.0.1:${sim}`,
    SIM_DATA_FILE: join(dir, 'sim-jobs.json'),
    SIM_JOB_DURATION_MS: '1000',
    RESULTS_DIR: join(dir, 'results'),
    WORKER_METRICS_PORT: String(metrics),
    WORKER_SDK_METRICS_PORT: String(sdkMetrics),
    POLL_FIRST_DELAY_MS: '200',
    POLL_INTERVAL_VIDEO_MS: '300',
    POLL_INTERVAL_IMAGE_MS: '300',
    // Longer than Ctrl-C may take below: a stop held for the whole grace (by T's pull consumer, on by default for
    // the simulated T) would show.
    WORKER_SHUTDOWN_GRACE_MS: '60000',
    EMBEDDED_POSTGRES_DIR: join(dir, 'postgres'),
    EMBEDDED_POSTGRES_PORT: String(postgres),
  };
  delete env.API_KEYS;
  delete env.ADMIN_TOKEN;
  delete env.DATABASE_URL;
  delete env.API_KEYS_FILE;
  delete env.HOST;
  delete env.WORKER_METRICS_HOST;

  let { child, lines, exited, waitFor, interrupt } = startNpmStart(env);

  try {
    await waitFor(/mediagate is running/, 240_000);
    const key = readFileSync(join(dir, 'dev-api-key'), 'utf8').trim();
    const secret = key.split(':').slice(1).join(':');
    const banner = lines.slice(lines.findIndex((l) => /mediagate is running/.test(l))).join('\n');
    expect(banner).toContain(secret);
    const adminToken = readFileSync(join(dir, 'dev-admin-token'), 'utf8').trim();
    expect(banner).toContain(`Admin token: ${adminToken}`);
    // Loopback only, as the README promises.
    expect(lines.some((l) => new RegExp(`API listening on http://127\\.0\\.0\\.1:${api}`).test(l))).toBe(true);
    // The operator's console, built (not a dev server), at the address the banner prints.
    expect(banner).toContain(`Console:     http://127.0.0.1:${api}/console`);
    const page = await fetch(`http://127.0.0.1:${api}/console`);
    expect([page.status, page.headers.get('content-security-policy')]).toEqual([200, expect.stringContaining("script-src 'self'")]);
    expect(await page.text()).toMatch(/<script type="module" crossorigin src="\/console\/assets\/index-[\w-]+\.js">/);

    const alice = new ApiClient(`http://127.0.0.1:${api}`, secret);
    // The embedded default takes the simulated B's events unsigned: a body that is not a JSON object is no event.
    for (const body of ['1', '"x"', 'true', 'null', '[]']) {
      const refused = await fetch(`http://127.0.0.1:${api}/v1/callbacks/b`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect([body, refused.status, ((await refused.json()) as { error?: { code?: string } }).error?.code]).toEqual([
        body,
        400,
        'callback_refused',
      ]);
    }
    const before = await alice.post('/v1/async/videos/generations', {
      model: 'vendor-video-1-0-pro-250528',
      prompt: 'before the crash',
      duration: 5,
    });
    expect(before.status).toBe(200);
    expect((await alice.waitForTask(before.body.task_id, 60_000)).status).toBe('success');
    // The key's webhook secret derives from a master secret kept in data/, so it survives a restart.
    const webhookMaster = readFileSync(join(dir, 'dev-webhook-signing-secret'), 'utf8').trim();
    expect((await alice.get('/v1/webhooks/default/secret')).body).toEqual({ key: derivedWebhookSecret(webhookMaster, 'local') });

    // Kill the worker the hard way: the supervisor restarts it; the API and Temporal stay up.
    const firstPid = Number((await waitFor(/\[supervisor\] worker started \(pid (\d+)\)/, 1_000))[1]);
    const mark = lines.length;
    process.kill(firstPid, 'SIGKILL');
    await waitFor(/\[supervisor\] worker exited unexpectedly/, 30_000, mark);
    const secondPid = Number((await waitFor(/\[supervisor\] worker started \(pid (\d+)\)/, 120_000, mark))[1]);
    expect(secondPid).not.toBe(firstPid);
    expect(child.exitCode).toBeNull();

    const after = await alice.post('/v1/async/videos/generations', {
      model: 'vendor-video-1-0-pro-250528',
      prompt: 'after the crash',
      duration: 5,
    });
    expect(after.status).toBe(200);
    expect((await alice.waitForTask(after.body.task_id, 60_000)).status).toBe('success');

    // The ledger's PostgreSQL killed the hard way: the supervisor restarts it on its data directory.
    const pgPid = Number((await waitFor(/\[supervisor\] postgres started \(pid (\d+)\)/, 1_000))[1]);
    const pgMark = lines.length;
    process.kill(pgPid, 'SIGKILL');
    await waitFor(/\[supervisor\] postgres exited unexpectedly/, 30_000, pgMark);
    await waitFor(/\[supervisor\] postgres started \(pid (\d+)\)/, 60_000, pgMark);

    // A key with a budget through the admin API, as the README's curl makes one.
    const made = await fetch(`http://127.0.0.1:${api}/admin/v1/keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'team-a', budget: { amount: 10, currency: 'USD', period: 'month' } }),
    });
    expect(made.status).toBe(201);
    const teamSecret = ((await made.json()) as { secret: string }).secret;
    expect((await new ApiClient(`http://127.0.0.1:${api}`, teamSecret).get('/v1/models')).status).toBe(200);

    // Ctrl-C as a terminal sends it, to the whole process group: the launcher stops the parts in order, and nothing
    // alarming is printed on the way (PostgreSQL cutting off clients, a worker losing Temporal, an error, a stack).
    const stopMark = lines.length;
    interrupt();
    expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running 30 s after Ctrl-C'), 30_000).unref())])).toBe(
      0,
    );
    expect(lines.some((l) => /^Stopped\./.test(l))).toBe(true);
    expect(lines.some((l) => /\[worker\].*"msg":"Worker stopped"/.test(l))).toBe(true);
    expect(lines.slice(stopMark).filter((l) => /FATAL|PANIC|ERROR:|"level":(50|60)|^\s+at |Error:/.test(l))).toEqual([]);

    // Started again on the same data directory: the stored key still works, the admin token is the same.
    ({ child, lines, exited, waitFor, interrupt } = startNpmStart(env));
    await waitFor(/mediagate is running/, 240_000);
    expect(lines.join('\n')).toContain(`Admin token: ${adminToken}`);
    expect((await new ApiClient(`http://127.0.0.1:${api}`, teamSecret).get('/v1/models')).status).toBe(200);
    interrupt();
    expect(await exited).toBe(0);
    // Nothing of PostgreSQL's reached the terminal in either run (its lines are in postgres.log beside its data).
    expect(lines.filter((l) => l.startsWith('[postgres]'))).toEqual([]);
    expect(readFileSync(join(dir, 'postgres.log'), 'utf8')).toMatch(/database system is ready to accept connections/);
  } finally {
    // The parts run in process groups of their own: a test that failed midway stops them through the launcher.
    if (child.exitCode === null) {
      interrupt();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000).unref())]);
    }
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
