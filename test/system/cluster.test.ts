/**
 * `npm run cluster` as a user runs it (scripts/cluster.ts), on free ports and a temporary
 * CLUSTER_DATA_DIR: the banner appears; a sync video through its one port succeeds and its result is in the MinIO
 * bucket; six tasks on T through both APIs and workers never run two jobs at once on T's one-at-a-time account (platform
 * slots are shared state); GET /v1/tasks lists the task (the server's SQL visibility); Ctrl-C, sent as a terminal sends it (to the
 * process group), stops every part it started in dependency order without an alarming line, and no process of it is
 * left behind; in normal operation nothing alarming is printed either (PostgreSQL's expected errors, the AWS SDK's
 * Node-version warning).
 *
 * CI runs this file in the topology step (.ci/run), beside test/system/topology.test.ts: both need the Temporal
 * server built (`npm run temporal-server:install`).
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLUSTER_BUCKET, type ClusterPorts } from '../../scripts/cluster';
import { ApiClient } from '../support/client';
import { startScript } from '../support/script-process';
import { freePort } from '../support/stack';
import { capacityControl } from '../support/simulator';
import { startTasks, until, V_MODEL, waitAll } from './faults-support';

jest.setTimeout(420_000);

/** Whether a process with this id still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The keys under `prefix` in the cluster's MinIO bucket. */
async function bucketKeys(dir: string, minioPort: number, prefix: string): Promise<(string | undefined)[]> {
  const s3 = new S3Client({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${minioPort}`,
    forcePathStyle: true,
    credentials: { accessKeyId: 'mediagate', secretAccessKey: readFileSync(join(dir, 'dev-minio-password'), 'utf8').trim() },
  });
  try {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: CLUSTER_BUCKET, Prefix: prefix }));
    return (listed.Contents ?? []).map((o) => o.Key);
  } finally {
    s3.destroy();
  }
}

/**
 * Slots are shared state, never one process's memory: six tasks on T, through both API processes and run by both
 * workers, never have a second job running on T's account at its documented default of one at a time.
 */
async function expectOneTJobAtATime(client: ApiClient, simPort: number): Promise<void> {
  const simT = capacityControl({ url: `http://127.0.0.1:${simPort}` }, 'T');
  expect((await simT.resetStats()).status).toBe(200);
  const ids = await startTasks(client, 6, 'one at a time across the cluster', {
    model: 'VendorK-2.1',
    action: 'text_to_video',
    duration: 5,
  });
  expect((await waitAll(client, ids, 180_000)).map((r) => r.status)).toEqual(Array(6).fill('success'));
  const tAccounts = (await simT.view()).accounts;
  expect(tAccounts.map((a) => [a.peak_running, a.over_limit_jobs])).toEqual([[1, 0]]);
  expect(tAccounts[0]!.created_jobs).toBe(6);
}

test('npm run cluster: the banner, a sync video through its port with the result in MinIO, one T slot shared by both workers, the task listed, Ctrl-C stops every part', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mediagate-cluster-'));
  // As root the embedded PostgreSQL runs as an unprivileged user, who must reach its data directory in here.
  chmodSync(dir, 0o755);
  const [api, temporal] = await Promise.all([freePort(), freePort()]);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    PORT: String(api),
    TEMPORAL_ADDRESS: `127.0.0.1:${temporal}`,
    CLUSTER_DATA_DIR: dir,
    SIM_JOB_DURATION_MS: '1000',
    POLL_FIRST_DELAY_MS: '200',
    POLL_INTERVAL_VIDEO_MS: '300',
  };
  for (const name of Object.keys(env)) {
    if (
      /^(API_KEYS|API_KEYS_FILE|ADMIN_TOKEN|DATABASE_URL|HOST|WORKER_METRICS_HOST|WORKER_READY_URLS|PUBLIC_BASE_URL|SIM_DATA_FILE|SIM_BASE_URL|RESULTS_.*|AWS_.*)$/.test(
        name,
      )
    )
      delete env[name];
  }

  const cluster = startScript('scripts/cluster.ts', env);
  try {
    // A cold start: PostgreSQL's initdb, the server's schema, namespace and search attributes, MinIO, 2 + 2 processes.
    await cluster.waitFor(/The mediagate cluster is running/, 300_000);
    const banner = cluster.lines.slice(cluster.lines.findIndex((l) => /The mediagate cluster is running/.test(l))).join('\n');
    expect(banner).toContain(`API:         http://127.0.0.1:${api}`);
    expect(banner).toContain(`Temporal:    127.0.0.1:${temporal}`);
    expect(banner).toContain(`Console:     http://127.0.0.1:${api}/console`);
    const secret = readFileSync(join(dir, 'dev-api-key'), 'utf8').trim().split(':').slice(1).join(':');
    expect(banner).toContain(secret);
    // Every part of the cluster keeps its data under CLUSTER_DATA_DIR.
    for (const part of ['postgres', 'minio', 'temporal', 'ports.json']) expect([part, existsSync(join(dir, part))]).toEqual([part, true]);

    // The operator's console, built, through the one port.
    const page = await fetch(`http://127.0.0.1:${api}/console/tasks`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<script type="module" crossorigin src="\/console\/assets\/index-[\w-]+\.js">/);

    // A sync video through the one port in front of both API processes.
    const client = new ApiClient(`http://127.0.0.1:${api}`, secret);
    const answer = await client.post('/v1/videos/generations', {
      model: V_MODEL,
      prompt: 'a lighthouse at dusk, through the cluster',
      duration: 5,
    });
    expect(answer.status).toBe(200);
    const taskId = answer.body.task_id as string;
    expect(existsSync(join(dir, 'sim-jobs.json'))).toBe(true);

    // Its result is in the cluster's bucket, and the record's link downloads it.
    const ports = JSON.parse(readFileSync(join(dir, 'ports.json'), 'utf8')) as ClusterPorts;
    expect(await bucketKeys(dir, ports.minio, `${taskId}/`)).toContain(`${taskId}/0-result.mp4`);
    const video = await fetch(answer.body.data[0].url as string);
    expect([video.status, video.headers.get('content-type')]).toEqual([200, 'video/mp4']);

    await expectOneTJobAtATime(client, ports.sim);

    // Listed from the server's SQL visibility (a moment after the task closed).
    await until(
      'GET /v1/tasks lists the task',
      async () => {
        const list = await client.get('/v1/tasks');
        return (
          list.status === 200 &&
          (list.body.data as { task_id: string; status: string }[]).some((t) => t.task_id === taskId && t.status === 'success')
        );
      },
      30_000,
    );

    // Ctrl-C: every part stops, and nothing the cluster started is left running.
    const namingDir = () =>
      execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.includes(dir));
    // While it runs: PostgreSQL (its server and backends), the Temporal server and MinIO name the directory.
    expect(namingDir().length).toBeGreaterThanOrEqual(3);
    const pids = cluster.lines.flatMap((l) => [...(/\[supervisor\] (\S+) started \(pid (\d+)\)/.exec(l)?.slice(1) ?? [])]);
    const started = new Map<string, number>();
    for (let i = 0; i < pids.length; i += 2) started.set(pids[i]!, Number(pids[i + 1]));
    expect([...started.keys()].sort()).toEqual(['api-1', 'api-2', 'minio', 'postgres', 'sim', 'temporal', 'worker-1', 'worker-2']);
    // Ctrl-C as a terminal sends it, to the whole process group: the launcher stops the parts in dependency order
    // (they run in process groups of their own), and nothing alarming is printed on the way out.
    const stopMark = cluster.lines.length;
    cluster.interrupt();
    expect(
      await Promise.race([cluster.exited, new Promise((r) => setTimeout(() => r('still running 90 s after Ctrl-C'), 90_000).unref())]),
    ).toBe(0);
    expect(cluster.lines).toContain('Stopped.');
    expect(
      cluster.lines
        .slice(stopMark)
        .filter((l) => /FATAL|PANIC|ERROR|"level":(50|60)|^\s+at |ECONNREFUSED|onnection refused|transport error|UNAVAILABLE/.test(l)),
    ).toEqual([]);
    // Nor in normal operation: PostgreSQL's expected errors (Temporal's start-up meeting its own rows) stay in its
    // log file, and no process prints a warning about the Node version it runs on.
    expect(cluster.lines.filter((l) => /duplicate key|ERROR|FATAL|NodeVersionSupportWarning|EBADENGINE/.test(l))).toEqual([]);
    expect([...started].filter(([, pid]) => alive(pid))).toEqual([]);
    // Nor any process of theirs (PostgreSQL's backends, anything else naming the data directory).
    expect(namingDir()).toEqual([]);
  } finally {
    // The parts run in process groups of their own: a test that failed midway stops them through the launcher.
    if (cluster.child.exitCode === null) {
      cluster.interrupt();
      await Promise.race([cluster.exited, new Promise((r) => setTimeout(r, 90_000).unref())]);
    }
    if (cluster.child.exitCode === null) cluster.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
