/**
 * The real Koa app behind the real API server (api/http-server.ts, as api/main.ts starts it), over real HTTP.
 * The task service is a scripted stand-in that records what the API asked to start: Temporal is not under test
 * here (the e2e project runs the same routes against a real stack).
 */
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseApiKeysEnv, KeyStore } from '../../../api/api-keys';
import { createApp } from '../../../api/app';
import type { AppDeps } from '../../../api/context';
import { createApiServer, type ApiServerOptions } from '../../../api/http-server';
import { KeyLimits } from '../../../api/key-limits';
import { createLogger } from '../../../core/logger';
import type { GenerationRequest } from '../../../core/task';
import { buildCatalogue } from '../../../platforms';

export const SECRET = 'sk-api-harness-0123456789abcdef';
export const AUTH = { Authorization: `Bearer ${SECRET}` };

export interface TestApi {
  base: string;
  server: Server;
  /** Every generation the API started, in order. */
  started: GenerationRequest[];
  /** Requests with the options the API started them with (idempotency shows as a task id). */
  starts: { request: GenerationRequest; taskId?: string }[];
  close(): Promise<void>;
}

export async function startTestApi(opts: { deps?: Partial<AppDeps>; server?: Partial<ApiServerOptions> } = {}): Promise<TestApi> {
  const started: GenerationRequest[] = [];
  const starts: TestApi['starts'] = [];
  const tasks = {
    async start(_owner: string, entry: { id: string }, request: GenerationRequest, o: { taskId?: string }) {
      started.push(request);
      starts.push({ request, taskId: o.taskId });
      return { taskId: o.taskId ?? 'task_new', model: entry.id };
    },
    async readWithFingerprint() {
      return undefined;
    },
    async read() {
      return undefined;
    },
    async cancel() {
      return { outcome: 'not_found' };
    },
    async list() {
      return { total: 0, records: [] };
    },
    // A sync wait that never ends (until the client goes away).
    awaitResult: (_id: string, signal: AbortSignal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    async countRunning() {
      return 0;
    },
  };
  const deps = {
    logger: createLogger('test', 'silent'),
    keys: new KeyStore(parseApiKeysEnv(`alice:${SECRET}`)),
    tasks,
    limits: new KeyLimits({ rps: 0, maxInflight: 0 }, async () => 0),
    catalogue: buildCatalogue(),
    enabledPlatforms: new Set(['T', 'B', 'V']),
    syncTimeoutMs: 60_000,
    trustProxy: false,
    callbackEnv: {},
    shutdownSignal: new AbortController().signal,
    checkTemporal: async () => undefined,
    ...opts.deps,
  } as unknown as AppDeps;
  const server = createApiServer(createApp(deps).callback(), { syncTimeoutMs: 60_000, ...opts.server });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    server,
    started,
    starts,
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

/** A request through node:http, which sends what it is given (fetch refuses empty or odd headers). */
export function rawRequest(base: string, method: string, path: string, headers: Record<string, string | number>, body?: Buffer | string): Promise<RawAnswer> {
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
    req.end();
  });
}

/** POST a JSON body (given as text, so it may be anything) with the test key. */
export function postJson(base: string, path: string, body: string | object, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return rawRequest(base, 'POST', path, { ...AUTH, 'Content-Type': 'application/json', ...headers }, typeof body === 'string' ? body : JSON.stringify(body));
}
