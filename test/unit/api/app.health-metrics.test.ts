/**
 * The API's operational endpoints, over real HTTP against the Koa app with Temporal faked out: /healthz
 * (process alive), /readyz (Temporal reachable) and /metrics (Prometheus text, unauthenticated, route patterns
 * as labels). No Temporal is needed: these routes never touch tasks.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../api/app';
import { KeyStore } from '../../../keys/api-keys';
import type { AppDeps } from '../../../api/context';
import { ApiMetrics } from '../../../api/api-metrics';
import { KeyLimits } from '../../../api/key-limits';
import { parseWorkerReadyUrls } from '../../../api/worker-readiness';
import { createLogger } from '../../../core/logger';
import { buildCatalogue } from '../../../platforms';
import { serveMetrics, WorkerMetrics } from '../../../worker/worker-metrics';
import { scrape } from '../../support/metrics';
import { loadTaskPricing } from '../../../tasks/billing';

let temporalUp = true;
/** The app's metrics: this test's own instance, as api/main.ts makes one per process. */
const metrics = new ApiMetrics();
let server: Server;
let base: string;

/** The app over real HTTP; only what the health and metrics routes use is real, the task service is never reached. */
async function startApp(extra: Partial<AppDeps> = {}): Promise<{ server: Server; base: string }> {
  const deps = {
    logger: createLogger('test', 'silent'),
    keys: new KeyStore([]),
    tasks: {},
    limits: new KeyLimits({ rps: 0 }),
    catalogue: buildCatalogue(),
    pricing: loadTaskPricing(buildCatalogue(), {}),
    enabledPlatforms: new Set(['V']),
    syncTimeoutMs: 1_000,
    trustProxy: false,
    callbackReceivers: new Map(),
    metrics,
    checkTemporal: async () => {
      if (!temporalUp) throw new Error('connection refused');
    },
    ...extra,
  } as unknown as AppDeps;
  const server = createServer(createApp(deps).callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  ({ server, base } = await startApp());
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

/** The API's own metrics page (scrape throws unless it answers 200). */
const metricsPage = () => scrape(`${base}/metrics`);

/** The value of one sample line, e.g. `name{a="b"} 3`, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const body = line.slice(name.length).match(/^(?:\{(.*)\})? (\S+)$/);
    if (!body) continue;
    const have = Object.fromEntries([...(body[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(body[2]);
  }
  return undefined;
}

describe('GET /healthz', () => {
  it('answers 200 without authentication, whatever Temporal does', async () => {
    temporalUp = false;
    const res = await fetch(`${base}/healthz`);
    temporalUp = true;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });
});

describe('GET /readyz', () => {
  it('is ready when Temporal answers', async () => {
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready' });
  });

  it('is 503 with the error envelope when Temporal does not answer', async () => {
    temporalUp = false;
    try {
      const res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: unknown };
      expect(body.error).toMatchObject({ type: 'service_unavailable_error', code: 'not_ready' });
    } finally {
      temporalUp = true;
    }
  });
});

describe("GET /readyz with the workers' readiness (WORKER_READY_URLS)", () => {
  it("stays 200 and names each platform whose every account is out, in the workers' words; a silent worker is listed", async () => {
    let out: Record<string, string> = {};
    // A real worker readiness endpoint (worker/worker-metrics.ts), and a port nobody listens on.
    const worker = await serveMetrics(new WorkerMetrics().registry, '127.0.0.1', 0, () => out);
    const silent = createServer();
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/readyz`;
    await new Promise<void>((r) => silent.close(() => r()));
    const workerUrl = `http://127.0.0.1:${(worker.address() as AddressInfo).port}/readyz`;
    const api = await startApp({ workerReadyUrls: [workerUrl] });
    const both = await startApp({ workerReadyUrls: [workerUrl, silentUrl] });
    try {
      let res = await fetch(`${api.base}/readyz`);
      expect([res.status, await res.json()]).toEqual([200, { status: 'ready' }]);
      out = { V: 'default: SetLimitExceeded, probed again in 300 s' };
      res = await fetch(`${api.base}/readyz`);
      expect([res.status, await res.json()]).toEqual([200, { status: 'degraded', platforms_without_account: out }]);
      res = await fetch(`${both.base}/readyz`);
      expect([res.status, await res.json()]).toEqual([
        200,
        { status: 'degraded', platforms_without_account: out, workers_unreachable: [silentUrl] },
      ]);
    } finally {
      for (const s of [worker, api.server, both.server]) await new Promise((r) => s.close(r));
    }
  });

  it('refuses a WORKER_READY_URLS entry that is not an absolute http(s) URL, naming it', () => {
    expect(() => parseWorkerReadyUrls('http://w:9464/readyz, worker:9464')).toThrow("WORKER_READY_URLS: 'worker:9464' is not http(s)");
    expect(() => parseWorkerReadyUrls('/readyz')).toThrow("WORKER_READY_URLS: '/readyz' is not an absolute URL");
    expect(parseWorkerReadyUrls(' http://w1:9464/readyz ,http://w2:9464/readyz')).toEqual([
      'http://w1:9464/readyz',
      'http://w2:9464/readyz',
    ]);
  });
});

describe('GET /metrics', () => {
  it('is served without authentication, with the process metrics', async () => {
    expect((await fetch(`${base}/metrics`)).headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await metricsPage();
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE mediagate_http_request_duration_seconds histogram');
  });

  it('times requests by route pattern and status; unknown paths share one series', async () => {
    await fetch(`${base}/healthz`);
    await fetch(`${base}/readyz`);
    await fetch(`${base}/no/such/path/abc123`, { headers: { authorization: 'Bearer whatever-secret-0000' } });
    const text = await metricsPage();
    expect(
      sample(text, 'mediagate_http_request_duration_seconds_count', { method: 'GET', route: '/healthz', status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'mediagate_http_request_duration_seconds_count', { method: 'GET', route: '/readyz', status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'mediagate_http_request_duration_seconds_count', { route: 'unmatched' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('abc123');
  });

  it("labels every router's routes by their pattern, and 405/OPTIONS as unmatched", async () => {
    const bearer = { authorization: 'Bearer whatever-secret-0000' };
    expect((await fetch(`${base}/v1/generations/task_abc123`, { headers: bearer })).status).toBe(401);
    expect((await fetch(`${base}/v1/generations/task_abc123/content?index=0`, { headers: bearer })).status).toBe(401);
    expect((await fetch(`${base}/healthz`, { method: 'DELETE' })).status).toBe(405);
    expect((await fetch(`${base}/healthz`, { method: 'OPTIONS' })).status).toBe(204);
    const text = await metricsPage();
    const count = (labels: Record<string, string>) => sample(text, 'mediagate_http_request_duration_seconds_count', labels);
    expect(count({ method: 'GET', route: '/v1/generations/:task_id', status: '401' })).toBeGreaterThanOrEqual(1);
    expect(count({ method: 'GET', route: '/v1/generations/:task_id/content', status: '401' })).toBeGreaterThanOrEqual(1);
    expect(count({ method: 'DELETE', route: 'unmatched', status: '405' })).toBe(1);
    expect(count({ method: 'OPTIONS', route: 'unmatched', status: '204' })).toBe(1);
    expect(count({ method: 'DELETE', route: '/healthz' })).toBeUndefined();
  });

  it('counts started tasks by kind, model and platform', async () => {
    const labels = { kind: 'video', model: 'vendor-video-1-0-pro-250528', platform: 'V' };
    const before = sample(await metricsPage(), 'mediagate_tasks_started_total', labels) ?? 0;
    metrics.recordTaskStarted(labels);
    metrics.recordTaskStarted(labels);
    expect(sample(await metricsPage(), 'mediagate_tasks_started_total', labels)).toBe(before + 2);
  });

  it('counts sync waits while they are pending, and releases them however they end', async () => {
    let release!: () => void;
    const pending = metrics.trackSyncWait(() => new Promise<string>((r) => (release = () => r('done'))));
    const failing = metrics.trackSyncWait(() => Promise.reject(new Error('gone')));
    await expect(failing).rejects.toThrow('gone');
    expect(sample(await metricsPage(), 'mediagate_sync_waits_in_progress')).toBe(1);
    release();
    await expect(pending).resolves.toBe('done');
    expect(sample(await metricsPage(), 'mediagate_sync_waits_in_progress')).toBe(0);
  });
});
