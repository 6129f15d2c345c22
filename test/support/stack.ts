/**
 * A real gateway stack for tests: the Temporal dev server, the simulator, N workers and N API processes, each a
 * real process started exactly as production starts them (`node --import tsx <entry>.ts`), on free ports; the
 * workers run a prebuilt workflow bundle, as the production image does (test/support/workflow-bundle.ts).
 * Tests talk HTTP to it and may kill, stop or restart any part.
 *
 * With `production: true` it runs the production shape instead (as `npm run cluster` does, scripts/cluster.ts):
 * the real Temporal server (scripts/temporal-server.ts) on a PostgreSQL of its own (test/support/postgres.ts),
 * the ledger's database on that same server, results in a MinIO bucket (RESULTS_S3_*), and the API processes
 * behind one TCP round-robin balancer (scripts/balancer.ts), which `apiUrl` then names. Its faults: a worker or
 * an API SIGKILLed and started again, the Temporal server restarted on the same ports, PostgreSQL crashed.
 *
 * Logs of every process go to test-results/logs/<stack>/<part>.log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../../scripts/free-port';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { startBalancer, type Balancer } from '../../scripts/balancer';
import { buildConsole } from '../../scripts/build-console';
import { startDevServer } from '../../scripts/dev-server';
import { startMinio, type MinioServer } from '../../scripts/minio';
import { freeServerPorts, startTemporalServer, type TemporalServerPorts } from '../../scripts/temporal-server';
import { startTestPostgres, type TestPostgres } from './postgres';
import { sha } from './sha';
import { prebuiltWorkflowBundle } from './workflow-bundle';

export const REPO = resolve(__dirname, '..', '..');
export { freePort };

/**
 * Test keys (secrets are test-only): alice and bob for ownership; carol has tight limits and a model allowlist
 * (from API_KEYS_FILE, given by digest); dave is used by one test only, so its task list is exact; erin has its own
 * webhook secrets (API_KEYS_FILE) for the webhook tests, and its own bound on open event streams.
 */
export const TEST_KEYS = {
  alice: { id: 'alice', secret: 'sk-test-alice-0123456789abcdef' },
  bob: { id: 'bob', secret: 'sk-test-bob-0123456789abcdef0' },
  carol: { id: 'carol', secret: 'sk-test-carol-0123456789abcde' },
  dave: { id: 'dave', secret: 'sk-test-dave-0123456789abcdef' },
  erin: { id: 'erin', secret: 'sk-test-erin-0123456789abcdef' },
} as const;

/** Signs the stack's links to stored results (RESULT_URL_SECRET); test-only. */
export const TEST_RESULT_URL_SECRET = 'test-result-url-secret-0123456789abcdefghij';

/** Signs the stack's webhooks (WEBHOOK_SIGNING_SECRET: keys without their own secret derive one from it); test-only. */
export const TEST_WEBHOOK_SIGNING_SECRET = 'test-webhook-signing-secret-0123456789abcdef';
/** erin's own webhook secrets (API_KEYS_FILE): a rotation in progress, so deliveries carry both signatures. */
export const ERIN_WEBHOOK_SECRETS = {
  current: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
  previous: `whsec_${Buffer.alloc(32, 9).toString('base64')}`,
} as const;

/** erin's own bound on open event streams (API_KEYS_FILE `max_streams`), below the stacks' KEY_MAX_STREAMS. */
export const ERIN_MAX_STREAMS = 1;

export const CAROL_LIMITS = { models: ['vendor-video-1-0-pro-250528', 'NB'], rate_limit_rps: 4, max_inflight: 2 } as const;

function writeKeysFile(dir: string): string {
  const file = join(dir, 'api-keys.json');
  const keys = [
    { id: TEST_KEYS.carol.id, sha256: sha(TEST_KEYS.carol.secret), ...CAROL_LIMITS, models: [...CAROL_LIMITS.models] },
    { id: TEST_KEYS.dave.id, secret: TEST_KEYS.dave.secret },
    {
      id: TEST_KEYS.erin.id,
      secret: TEST_KEYS.erin.secret,
      webhook_secret: ERIN_WEBHOOK_SECRETS.current,
      webhook_secret_previous: ERIN_WEBHOOK_SECRETS.previous,
      max_streams: ERIN_MAX_STREAMS,
    },
  ];
  writeFileSync(file, JSON.stringify(keys, null, 2));
  return file;
}

export class Proc {
  readonly exited: Promise<number | null>;
  /** A worker's metrics endpoints (gateway and Temporal SDK), on ports of its own. */
  metricsUrl?: string;
  sdkMetricsUrl?: string;
  private lines: string[] = [];
  private waiters: { re: RegExp; resolve: () => void }[] = [];

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
    /** Everything the process wrote (stdout and stderr), as test-results/logs/<stack>/<part>.log. */
    readonly logFile: string,
  ) {
    const log = createWriteStream(logFile, { flags: 'a' });
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        log.write(`${line}\n`);
        this.lines.push(line);
        if (this.lines.length > 500) this.lines.shift();
        this.waiters = this.waiters.filter((w) => (w.re.test(line) ? (w.resolve(), false) : true));
      });
    }
    this.exited = new Promise((r) => child.once('exit', (code) => r(code)));
    this.exited.then(
      () => log.end(),
      () => log.end(),
    );
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  waitForLine(re: RegExp, timeoutMs: number): Promise<void> {
    if (this.lines.some((l) => re.test(l))) return Promise.resolve();
    return new Promise((resolveWait, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`${this.name}: no line matching ${re} within ${timeoutMs} ms; last output:\n${this.lines.slice(-20).join('\n')}`),
          ),
        timeoutMs,
      );
      const onExit = () => {
        clearTimeout(timer);
        reject(new Error(`${this.name} exited during start-up; last output:\n${this.lines.slice(-20).join('\n')}`));
      };
      this.child.once('exit', onExit);
      this.waiters.push({
        re,
        resolve: () => {
          clearTimeout(timer);
          this.child.off('exit', onExit);
          resolveWait();
        },
      });
    });
  }

  /** SIGTERM (graceful), then SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

export interface StackOptions {
  name?: string;
  /**
   * The port clients and platforms reach, when the environment must name it beforehand (PUBLIC_BASE_URL for
   * callbacks): the first API's, or in the production shape the balancer's.
   */
  apiPort?: number;
  workers?: number;
  apis?: number;
  /** Environment for every part (on top of the stack's own). */
  env?: Record<string, string>;
  /** Keep the Temporal database here (to restart the server on it); default: a temp dir. */
  dataDir?: string;
  /** Default simulated job duration. */
  simJobDurationMs?: number;
  /**
   * The production shape: the real Temporal server on PostgreSQL (the ledger's database on the same server, as
   * DATABASE_URL unless `env` names one), results in MinIO (bucket PRODUCTION_BUCKET), the APIs behind a balancer.
   */
  production?: boolean;
  /** The dev server's own Prometheus metrics (benches: its visibility writes by operation), at `temporalMetricsUrl`. */
  temporalMetrics?: boolean;
}

/** The bucket a production-shape stack keeps results in (as `npm run cluster` names its own). */
export const PRODUCTION_BUCKET = 'mediagate-results';

/** What the tests and benches use of the stack's Temporal, dev server or real server alike. */
export interface StackTemporal {
  address: string;
  /** The server's own process. */
  process?: ChildProcess;
  stop(): Promise<void>;
}

export class Stack {
  temporal!: StackTemporal;
  sim!: Proc;
  workers: Proc[] = [];
  apis: Proc[] = [];
  readonly apiPorts: number[] = [];
  temporalAddress = '';
  simUrl = '';
  /** The ledger's PostgreSQL (the production shape: under Temporal too); the result store and the port in front of the APIs (production shape only). */
  postgres?: TestPostgres;
  minio?: MinioServer;
  balancer?: Balancer;
  private temporalPorts?: TemporalServerPorts;
  private temporalMetricsPort?: number;
  private logDir: string;
  private dataDir: string;
  private ownsDataDir: boolean;
  private baseEnv: Record<string, string> = {};
  private counter = 0;
  private readonly apiProcPorts = new Map<Proc, number>();

  private constructor(private readonly opts: StackOptions) {
    const name = opts.name ?? 'stack';
    this.logDir = join(REPO, 'test-results', 'logs', `${name}-${process.pid}-${Date.now()}`);
    mkdirSync(this.logDir, { recursive: true });
    this.ownsDataDir = !opts.dataDir;
    this.dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'mediagate-test-'));
  }

  static async start(opts: StackOptions = {}): Promise<Stack> {
    const stack = new Stack(opts);
    try {
      await stack.boot();
    } catch (err) {
      await stack.stop();
      throw err;
    }
    return stack;
  }

  get taskQueue(): string {
    return this.baseEnv.TEMPORAL_TASK_QUEUE!;
  }

  /** The environment every part of this stack runs with (to start an extra process against it). */
  get env(): Record<string, string> {
    return { ...this.baseEnv };
  }

  /** The first API process, or (production shape) the balancer in front of them all. */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.balancer ? this.balancer.port : this.apiPorts[0]}`;
  }

  /** The directory result store of this stack (unless its env selects S3). */
  get resultsDir(): string {
    return this.baseEnv.RESULTS_DIR!;
  }

  get dbFile(): string {
    return join(this.dataDir, 'temporal.db');
  }

  private async boot(): Promise<void> {
    const [temporalPort, simPort] = [await freePort(), await freePort()];
    this.temporalAddress = `127.0.0.1:${temporalPort}`;
    const production = this.opts.production ? await this.bootProductionParts(temporalPort) : await this.bootLedger();
    this.simUrl = `http://127.0.0.1:${simPort}`;
    this.baseEnv = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      TEMPORAL_ADDRESS: this.temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: `mediagate-test-${process.pid}-${Date.now()}`,
      SIM_HOST: '127.0.0.1',
      SIM_PORT: String(simPort),
      SIM_BASE_URL: this.simUrl,
      SIM_JOB_DURATION_MS: String(this.opts.simJobDurationMs ?? 1_500),
      SIM_DATA_FILE: join(this.dataDir, 'sim-jobs.json'),
      API_KEYS: [TEST_KEYS.alice, TEST_KEYS.bob].map((k) => `${k.id}:${k.secret}`).join(','),
      API_KEYS_FILE: writeKeysFile(this.dataDir),
      // Tests fire requests back to back; the per-key limits are exercised by carol's own (API_KEYS_FILE).
      KEY_RATE_LIMIT_RPS: '1000',
      KEY_MAX_INFLIGHT: '1000',
      POLL_FIRST_DELAY_MS: '200',
      POLL_INTERVAL_IMAGE_MS: '300',
      POLL_INTERVAL_VIDEO_MS: '300',
      WORKER_SHUTDOWN_GRACE_MS: '5000',
      API_SHUTDOWN_GRACE_MS: '5000',
      // Stored results (results/) in the stack's own directory, never the repository's data/results.
      RESULTS_DIR: join(this.dataDir, 'results'),
      RESULT_URL_SECRET: TEST_RESULT_URL_SECRET,
      WEBHOOK_SIGNING_SECRET: TEST_WEBHOOK_SIGNING_SECRET,
      ...production,
      ...(this.opts.env ?? {}),
    };
    await Promise.all([this.startTemporal(), this.startSim()]);
    // The APIs serve the operator's console built, as `npm start` does: built once per state of its sources.
    buildConsole({ ifStale: true, log: () => undefined });
    await Promise.all(Array.from({ length: this.opts.workers ?? 1 }, () => this.startWorker()));
    const front = this.opts.production ? undefined : this.opts.apiPort;
    await Promise.all(Array.from({ length: this.opts.apis ?? 1 }, (_, i) => this.startApi(i === 0 ? front : undefined)));
    if (this.opts.production)
      this.balancer = await startBalancer({ host: '127.0.0.1', port: this.opts.apiPort ?? 0, backends: () => this.apiPorts });
  }

  /**
   * The embedded shape's database, as `npm start` always has one (the ledger, the platforms' slots): a PostgreSQL of
   * the stack's own, unless the options name a DATABASE_URL.
   */
  private async bootLedger(): Promise<Record<string, string>> {
    if (this.opts.env?.DATABASE_URL !== undefined) return {};
    this.postgres = await startTestPostgres();
    return { DATABASE_URL: await this.postgres.freshDatabase() };
  }

  /** The production shape's own parts (PostgreSQL, MinIO), before the rest: their part of every process's env. */
  private async bootProductionParts(temporalPort: number): Promise<Record<string, string>> {
    // Both settled before going on, so a failed start stops whichever did start (Stack.start calls stop()).
    const [postgres, minio] = await Promise.allSettled([startTestPostgres(), startMinio({ dataDir: join(this.dataDir, 'minio') })]);
    if (postgres.status === 'fulfilled') this.postgres = postgres.value;
    if (minio.status === 'fulfilled') this.minio = minio.value;
    for (const r of [postgres, minio]) if (r.status === 'rejected') throw r.reason;
    this.temporalPorts = await freeServerPorts(temporalPort);
    await this.minio!.createBucket(PRODUCTION_BUCKET);
    return { ...this.minio!.env(PRODUCTION_BUCKET), DATABASE_URL: await this.postgres!.freshDatabase() };
  }

  /** Starts the stack's Temporal: the dev server on its database file, or (production shape) the real server on its PostgreSQL and ports. */
  async startTemporal(): Promise<void> {
    if (this.temporalPorts && this.postgres) {
      const pg = new URL(this.postgres.url);
      const log = createWriteStream(join(this.logDir, 'temporal-server.log'), { flags: 'a' });
      const server = await startTemporalServer({
        pg: { host: pg.hostname, port: Number(pg.port), user: decodeURIComponent(pg.username), password: decodeURIComponent(pg.password) },
        ports: this.temporalPorts,
        dir: join(this.dataDir, 'temporal-server'),
        namespace: 'default',
        onLine: (line) => log.write(`${line}\n`),
        log: (m) => log.write(`[stack] ${m}\n`),
      });
      void server.process.exited.then(() => log.end());
      this.temporal = {
        address: server.address,
        get process() {
          return server.process.child;
        },
        stop: () => server.stop(),
      };
      return;
    }
    // Chosen once: a restarted server serves its metrics on the same port.
    if (this.opts.temporalMetrics) this.temporalMetricsPort ??= await freePort();
    const metricsPort = this.temporalMetricsPort;
    this.temporal = await startDevServer({
      address: this.temporalAddress,
      dbFile: this.dbFile,
      namespace: 'default',
      uiPort: false,
      output: 'ignore',
      log: () => undefined,
      ...(metricsPort === undefined ? {} : { metricsPort }),
    });
  }

  /** The dev server's Prometheus page, when the stack was started with `temporalMetrics`. */
  get temporalMetricsUrl(): string | undefined {
    return this.temporalMetricsPort === undefined ? undefined : `http://127.0.0.1:${this.temporalMetricsPort}/metrics`;
  }

  /**
   * Restarts the Temporal server process on the same ports and data: stopped gracefully (SIGTERM) or killed
   * (SIGKILL), then started again; resolves once it serves.
   */
  async restartTemporal(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const proc = this.temporal.process;
    if (signal === 'SIGKILL' && proc && proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGKILL');
      await exited;
    } else {
      await this.temporal.stop();
    }
    await this.startTemporal();
  }

  /** Production shape: PostgreSQL (Temporal's and the ledger's) SIGKILLed, then started again on its data and port. */
  async crashPostgres(): Promise<void> {
    if (!this.postgres) throw new Error('crashPostgres: this stack has no PostgreSQL of its own (production: true)');
    await this.postgres.crashAndRestart();
  }

  /** SIGKILLs a worker (default: the first one running); returns it. */
  async killWorker(worker = this.workers.find((w) => w.running)): Promise<Proc> {
    if (!worker) throw new Error('killWorker: no worker is running');
    await worker.kill();
    return worker;
  }

  /** SIGKILLs a worker and starts a new one in its place; resolves once the new one runs. */
  async restartWorker(worker?: Proc): Promise<Proc> {
    await this.killWorker(worker);
    return this.startWorker();
  }

  /** SIGKILLs an API process (default: the first one running); returns the port it listened on (for startApi). */
  async killApi(api = this.apis.find((a) => a.running)): Promise<number> {
    if (!api) throw new Error('killApi: no API process is running');
    const port = this.portOf(api);
    await api.kill();
    return port;
  }

  /** The port an API process of this stack listens on. */
  portOf(api: Proc): number {
    const port = this.apiProcPorts.get(api);
    if (port === undefined) throw new Error(`${api.name} is not an API process of this stack`);
    return port;
  }

  private spawnPart(name: string, entry: string, env: Record<string, string> = {}): Proc {
    // MEDIAGATE_PROFILE_DIR (benchmarks): the gateway's API and worker processes write V8 CPU profiles there when they
    // stop (`node --cpu-prof`, which NODE_OPTIONS does not take).
    const profileDir = process.env.MEDIAGATE_PROFILE_DIR;
    const profile = profileDir && /^(api|worker)\//.test(entry) ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const child = spawn(process.execPath, [...profile, '--import', 'tsx', join(REPO, entry)], {
      cwd: REPO,
      env: { ...process.env, ...this.baseEnv, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new Proc(name, child, join(this.logDir, `${name}.log`));
  }

  async startSim(): Promise<Proc> {
    this.sim = this.spawnPart('sim', 'sim/main.ts');
    await this.sim.waitForLine(/listening on/, 30_000);
    return this.sim;
  }

  /** Stops the simulator (SIGTERM) and starts it again on the same port and data file. */
  async restartSim(): Promise<Proc> {
    await this.sim.stop(5_000);
    return this.startSim();
  }

  async startWorker(env: Record<string, string> = {}): Promise<Proc> {
    // Every worker needs metrics ports of its own: several workers and stacks share this host.
    const [metricsPort, sdkMetricsPort] = [await freePort(), await freePort()];
    const w = this.spawnPart(`worker-${++this.counter}`, 'worker/main.ts', {
      WORKFLOW_BUNDLE_PATH: await prebuiltWorkflowBundle(),
      WORKER_METRICS_HOST: '127.0.0.1',
      WORKER_METRICS_PORT: String(metricsPort),
      WORKER_SDK_METRICS_PORT: String(sdkMetricsPort),
      ...env,
    });
    w.metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    w.sdkMetricsUrl = `http://127.0.0.1:${sdkMetricsPort}/metrics`;
    this.workers.push(w);
    await w.waitForLine(/Worker state changed.*RUNNING|"state":"RUNNING"/, 120_000);
    return w;
  }

  /** Starts an API process; `port` reuses a port (restart), else a new one is taken. */
  async startApi(port?: number, env: Record<string, string> = {}): Promise<Proc> {
    const p = port ?? (await freePort());
    const api = this.spawnPart(`api-${++this.counter}`, 'api/main.ts', { PORT: String(p), HOST: '127.0.0.1', ...env });
    await api.waitForLine(/API listening/, 60_000);
    if (!this.apiPorts.includes(p)) this.apiPorts.push(p);
    this.apis.push(api);
    this.apiProcPorts.set(api, p);
    return api;
  }

  /**
   * A second lane on this stack: its own task queue, served by a worker and an API of its own with `env` (e.g. a
   * short TASK_DEADLINE_VIDEO_MS, a worker setting). Tasks started through the lane's API run on its worker.
   */
  async startLane(env: Record<string, string>): Promise<{ apiUrl: string; worker: Proc; api: Proc }> {
    const laneEnv = { TEMPORAL_TASK_QUEUE: `${this.taskQueue}-lane-${++this.counter}`, ...env };
    const worker = await this.startWorker(laneEnv);
    const port = await freePort();
    // The lane's API reports what its worker says of the platforms' accounts (api/worker-readiness.ts).
    const readyUrls: Record<string, string> = worker.metricsUrl
      ? { WORKER_READY_URLS: worker.metricsUrl.replace(/\/metrics$/, '/readyz') }
      : {};
    const api = await this.startApi(port, { ...readyUrls, ...laneEnv });
    return { apiUrl: `http://127.0.0.1:${port}`, worker, api };
  }

  async stop(): Promise<void> {
    await this.balancer?.stop();
    await Promise.all([...this.apis, ...this.workers].map((p) => p.stop(5_000)));
    await this.sim?.stop(5_000);
    await this.temporal?.stop();
    await this.minio?.stop();
    await this.postgres?.stop();
    if (this.ownsDataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}
