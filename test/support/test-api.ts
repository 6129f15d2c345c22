/**
 * The real Koa app behind the real API server (api/http-server.ts, as api/main.ts starts it), over real HTTP, with
 * the real start path (tasks/start.ts). The task service under it is a scripted stand-in that records what the API
 * asked to start: Temporal is not under test here (the e2e project runs the same routes against a real stack).
 */
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseApiKeysEnv, KeyStore } from '../../keys/api-keys';
import { loadCallbackReceivers } from '../../api/api-config';
import { ApiMetrics } from '../../api/api-metrics';
import { createApp } from '../../api/app';
import type { AppDeps } from '../../api/context';
import { createApiServer, type ApiServerOptions } from '../../api/http-server';
import { KeyLimits } from '../../api/key-limits';
import { EventStreamSlots } from '../../api/event-stream-slots';
import { InflightLimits } from '../../tasks/inflight';
import { TaskStarter, type TaskStarterDeps } from '../../tasks/start';
import { createLogger } from '../../core/logger';
import type { GenerationRequest, TaskRoute } from '../../core/task';
import { routeTableOf } from '../../platforms/routes-file';
import { TaskRouting } from '../../tasks/routing';
import { buildCatalogue } from '../../platforms';
import { loadTaskPricing } from '../../tasks/billing';
import { webhookTargets } from '../../webhooks/targets';

export const SECRET = 'sk-api-harness-0123456789abcdef';
export const AUTH = { Authorization: `Bearer ${SECRET}` };

export interface TestApi {
  base: string;
  server: Server;
  /** Every generation the API started, in order. */
  started: GenerationRequest[];
  /** Requests with the options the API started them with (idempotency shows as a task id; a route's members). */
  starts: { request: GenerationRequest; taskId?: string; route?: TaskRoute }[];
  /** A JSON request with the test key: status and parsed body. */
  get(path: string): Promise<{ status: number; body: any }>;
  post(path: string, body: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export interface TestApiOptions {
  /** Replaces the app's dependencies (e.g. a catalogue read from a models file, a tighter body timeout). */
  deps?: Partial<AppDeps>;
  /** Replaces task-service methods (e.g. a start that finds the task already started); the rest are recorded. */
  tasks?: Record<string, unknown>;
  /** Replaces the start path's dependencies (e.g. INPUT_URL_ALLOW_PRIVATE_ORIGINS, a ledger). */
  starter?: Partial<TaskStarterDeps>;
  server?: Partial<ApiServerOptions>;
}

/** What each app makes for itself: the callback receivers (no platform's settings) and its own metrics. */
const ownParts = () => ({ callbackReceivers: loadCallbackReceivers({}), metrics: new ApiMetrics() });

export async function startTestApi(opts: TestApiOptions = {}): Promise<TestApi> {
  const started: GenerationRequest[] = [];
  const starts: TestApi['starts'] = [];
  const tasks = {
    async start(_owner: string, entry: { id: string }, request: GenerationRequest, o: { taskId?: string; route?: TaskRoute }) {
      started.push(request);
      starts.push({ request, taskId: o.taskId, ...(o.route ? { route: o.route } : {}) });
      return { taskId: o.taskId ?? 'task_new', model: o.route?.name ?? entry.id };
    },
    async readWithFingerprint() {
      return undefined;
    },
    async read() {
      return undefined;
    },
    async exists() {
      return false;
    },
    async cancel() {
      return { outcome: 'not_found' };
    },
    async list() {
      return { total: 0, records: [] };
    },
    // A sync wait that never ends (until the client goes away).
    awaitResult: (_id: string, signal: AbortSignal) =>
      new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    async countRunning() {
      return 0;
    },
    ...opts.tasks,
  };
  const deps = {
    logger: createLogger('test', 'silent'),
    keys: new KeyStore(parseApiKeysEnv(`alice:${SECRET}`)),
    tasks,
    limits: new KeyLimits({ rps: 0 }),
    streams: new EventStreamSlots({ perKey: 0, total: 0 }),
    catalogue: buildCatalogue(),
    routes: routeTableOf(buildCatalogue()),
    pricing: loadTaskPricing(buildCatalogue(), {}),
    enabledPlatforms: new Set(['T', 'B', 'V']),
    syncTimeoutMs: 60_000,
    trustProxy: false,
    ...ownParts(),
    shutdownSignal: new AbortController().signal,
    checkTemporal: async () => undefined,
    ...opts.deps,
  } as unknown as AppDeps;
  deps.starter ??= new TaskStarter({
    catalogue: deps.catalogue,
    enabledPlatforms: deps.enabledPlatforms,
    inputUrlAllowPrivateOrigins: new Set(),
    webhooks: webhookTargets(deps.webhooks),
    tasks: tasks as unknown as TaskStarterDeps['tasks'],
    inflight: new InflightLimits(0, async () => 0),
    // The shipped routes (platforms/default-routes.ts), or the deps' own.
    routing: new TaskRouting(deps.routes ?? routeTableOf(deps.catalogue), deps.catalogue, deps.enabledPlatforms, deps.pricing),
    ...opts.starter,
  });
  const server = createApiServer(createApp(deps).callback(), { syncTimeoutMs: 60_000, ...opts.server });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: { ...AUTH, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: r.status, body: await r.json() };
  };
  return {
    base,
    server,
    started,
    starts,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  ms: number;
}

/**
 * The app for one test file: started before its tests, closed after them, and its record of started tasks cleared
 * before each test. Read `.api` inside tests (it is set in beforeAll).
 */
export function useTestApi(opts: TestApiOptions = {}): { readonly api: TestApi } {
  let api: TestApi | undefined;
  beforeAll(async () => {
    api = await startTestApi(opts);
  });
  afterAll(() => api?.close());
  beforeEach(() => {
    api!.started.length = 0;
    api!.starts.length = 0;
  });
  return {
    get api(): TestApi {
      if (!api) throw new Error('useTestApi: the app starts in beforeAll; read .api inside a test');
      return api;
    },
  };
}

/**
 * A request through node:http, which sends what it is given (fetch refuses empty or odd headers, unusual methods
 * and bodies that lie about themselves). `endBody: false` leaves the request body open.
 */
export function rawRequest(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string | number>,
  body?: Buffer | string,
  opts: { endBody?: boolean } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // keep the text
        }
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed, ms: Date.now() - t0 });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    if (opts.endBody !== false) req.end();
  });
}

/** POST a JSON body (given as text, so it may be anything) with the test key. */
export function postJson(base: string, path: string, body: string | object, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return rawRequest(
    base,
    'POST',
    path,
    { ...AUTH, 'Content-Type': 'application/json', ...headers },
    typeof body === 'string' ? body : JSON.stringify(body),
  );
}
