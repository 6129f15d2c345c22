/**
 * The real API app (its Koa routes, auth and error envelope) on a real HTTP server, with the catalogue a test
 * builds (e.g. from a models file), for what `GET /v1/models` and `POST …/generations` answer. Nothing reaches
 * Temporal: the task service only records the requests the API would start.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseApiKeysEnv, KeyStore } from '../../api/api-keys';
import { createApp } from '../../api/app';
import type { AppDeps } from '../../api/context';
import { KeyLimits } from '../../api/key-limits';
import type { Catalogue } from '../../core/catalogue';
import { createLogger } from '../../core/logger';
import type { GenerationRequest } from '../../core/task';

const SECRET = 'sk-models-api-0123456789abcdef';

export interface ModelsApi {
  /** GET/POST `path` with the test key; the parsed JSON body. */
  get(path: string): Promise<{ status: number; body: any }>;
  post(path: string, body: unknown): Promise<{ status: number; body: any }>;
  /** The requests the API handed to the task service. */
  started: GenerationRequest[];
  close(): Promise<void>;
}

export async function startModelsApi(catalogue: Catalogue): Promise<ModelsApi> {
  const started: GenerationRequest[] = [];
  const tasks = {
    async start(_owner: string, entry: { id: string }, request: GenerationRequest) {
      started.push(request);
      return { taskId: `task_${started.length}`, model: entry.id };
    },
    async read() {
      return undefined;
    },
    async readWithFingerprint() {
      return undefined;
    },
    async countRunning() {
      return 0;
    },
  };
  const deps = {
    logger: createLogger('test', 'silent'),
    keys: new KeyStore(parseApiKeysEnv(`alice:${SECRET}`)),
    tasks,
    limits: new KeyLimits({ rps: 0, maxInflight: 0 }, async () => 0),
    catalogue,
    enabledPlatforms: new Set(['T', 'B', 'V']),
    syncTimeoutMs: 60_000,
    trustProxy: false,
    callbackEnv: {},
    bodyTimeoutMs: 2_000,
    shutdownSignal: new AbortController().signal,
    checkTemporal: async () => undefined,
  } as unknown as AppDeps;
  const server = createServer(createApp(deps).callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${SECRET}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: r.status, body: await r.json() };
  };
  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    started,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
