/**
 * The upstream simulator: one HTTP server speaking the wire protocols of platforms T, B and V as strictly as the
 * real ones, so an adapter bug fails a test here rather than in production. The paths do not overlap (V under
 * /api/v3, B under /v2 and /v3, T at POST / with X-TC-Action), so one port serves all three.
 *
 * Control endpoints under /_sim let tests inject faults, read counters ("exactly one upstream job per task") and
 * see the exact requests each platform received and what it answered. The pieces: sim/state.ts (what it holds),
 * sim/platform-host.ts (what the platforms are given), sim/answers.ts (the answer's fate), sim/control.ts (the
 * control routes and result files).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import { answerMiddleware } from './answers';
import type { Limit } from './capacity';
import { platformB } from './b';
import { registerControlRoutes, registerResultFiles } from './control';
import type { PlatformStats, RecordedRequest, SimPlatform, SimPlatformModule } from './host';
import { createSimHost } from './platform-host';
import { SimulatorState } from './state';
import { platformT } from './t';
import { platformV } from './v';

export const SIM_MODULES: readonly SimPlatformModule[] = [platformT, platformB, platformV];

export interface SimOptions {
  host?: string;
  port?: number;
  /** Default job duration; a prompt directive overrides it per job. */
  jobDurationMs?: number;
  /** Base URL put into result file links; default: derived from each request's Host. */
  publicUrl?: string;
  /** Where jobs are kept across restarts; undefined = memory only. */
  dataFile?: string;
  /**
   * Each platform's default concurrency per account (null: no limit); a platform left out keeps its documented
   * default (sim/state.ts DEFAULT_MAX_CONCURRENT: T 1, V and B unlimited).
   */
  maxConcurrent?: Partial<Record<SimPlatform, Limit>>;
}

export interface Simulator {
  url: string;
  server: Server;
  stats: Record<SimPlatform, PlatformStats>;
  requests: RecordedRequest[];
  reset(): void;
  close(): Promise<void>;
}

/** The Koa app: the answer middleware, the JSON body parser, the control routes, result files and every platform. */
function simulatorApp(state: SimulatorState, publicUrl: string | undefined): Koa {
  const host = createSimHost(
    state,
    publicUrl,
    SIM_MODULES.flatMap((m) => m.recordedHeaders ?? []),
  );
  const app = new Koa();
  app.use(answerMiddleware(state, host, SIM_MODULES));
  // rawBody is kept: platform T signs the exact bytes of the body.
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: '10mb', extendTypes: { json: ['application/json'] } }));
  const router = new Router();
  registerControlRoutes(router, state);
  registerResultFiles(router, state);
  for (const module of SIM_MODULES) module.register(router, host);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/** Listens on host:port (default 127.0.0.1 and a free port); resolves once listening. */
async function listen(app: Koa, host: string, port: number): Promise<Server> {
  const server = createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return server;
}

export async function startSimulator(options: SimOptions = {}): Promise<Simulator> {
  const state = new SimulatorState(options);
  const server = await listen(simulatorApp(state, options.publicUrl), options.host ?? '127.0.0.1', options.port ?? 0);
  const addr = server.address() as AddressInfo;
  return {
    url: `http://${addr.address.includes(':') ? `[${addr.address}]` : addr.address}:${addr.port}`,
    server,
    stats: state.stats,
    requests: state.requests,
    reset: () => state.reset(),
    close: () =>
      new Promise<void>((resolve) => {
        state.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
