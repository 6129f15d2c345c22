/**
 * The upstream simulator: one HTTP server speaking the wire protocols of platforms T, B and V (upstreams.md),
 * as strictly as the real ones, so an adapter bug fails a test here rather than in production. The paths do
 * not overlap (V under /api/v3, B under /v1, T at POST / with X-TC-Action), so one port serves all three.
 *
 * Control endpoints under /_sim let tests inject faults, read counters ("exactly one upstream job per task")
 * and see the exact requests each platform received.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import type { Platform } from '../core/platforms';
import { PLATFORMS } from '../core/platforms';
import type { FaultStatus } from './directives';
import { JobStore } from './jobs';
import { mediaFor } from './media';
import { registerPlatformB } from './platform-b';
import { registerPlatformT } from './platform-t';
import { registerPlatformV } from './platform-v';

export type SimOp = 'submit' | 'poll' | 'cancel';

export interface PlatformStats {
  /** Submit requests received (including rejected and faulted ones). */
  submitRequests: number;
  /** Jobs actually created: what a real platform would bill. */
  jobsCreated: number;
  /** Submits answered with an existing job because of the platform's dedup key. */
  dedupHits: number;
  polls: number;
  cancels: number;
  /** Requests rejected as invalid (4xx), by auth or validation. */
  rejected: number;
  faultsInjected: number;
}

export interface RecordedRequest {
  platform: Platform;
  op: SimOp;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  at: number;
  /** The HTTP status the simulator answered (0: connection reset on purpose). */
  status?: number;
}

interface Outage {
  platform: Platform | '*';
  op: SimOp | '*';
  status: FaultStatus;
  /** Remaining requests to fault; undefined = until `until`. */
  remaining?: number;
  until?: number;
  retryAfterSeconds?: number;
}

export interface SimOptions {
  host?: string;
  port?: number;
  /** Default job duration; a prompt directive overrides it per job. */
  jobDurationMs?: number;
  /** Credentials the platforms accept. */
  credentials: { V: { apiKey: string }; B: { apiKey: string }; T: { secretId: string; secretKey: string } };
  /** Base URL put into result file links; default: derived from each request's Host. */
  publicUrl?: string;
}

/** What a platform module gets to implement its protocol. */
export interface SimHost {
  jobs: JobStore;
  options: SimOptions;
  stats: Record<Platform, PlatformStats>;
  /** Records the request and applies any pending fault; true when a fault was answered and the handler must stop. */
  intercept(ctx: Context, platform: Platform, op: SimOp, render: FaultRenderer, promptFault?: { status: FaultStatus } | undefined): boolean;
  /** Base URL for result files, as the caller reached us. */
  publicUrl(ctx: Context): string;
  /** Per-prompt submit faults: `[sim:submit=429x3]` faults the first three submits carrying that prompt. */
  promptFault(key: string, fault: { status: FaultStatus; times: number } | undefined): { status: FaultStatus } | undefined;
}

/** Answers an injected fault in the platform's own shape. 'reset' is handled by the host (socket destroyed). */
export type FaultRenderer = (ctx: Context, status: 429 | 500 | 503, retryAfterSeconds?: number) => void;

const MAX_RECORDED = 2_000;

function emptyStats(): PlatformStats {
  return { submitRequests: 0, jobsCreated: 0, dedupHits: 0, polls: 0, cancels: 0, rejected: 0, faultsInjected: 0 };
}

const RECORDED_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'x-tc-action', 'x-tc-version', 'x-tc-timestamp', 'x-tc-region', 'host'];

export interface Simulator {
  url: string;
  server: Server;
  stats: Record<Platform, PlatformStats>;
  requests: RecordedRequest[];
  reset(): void;
  close(): Promise<void>;
}

export async function startSimulator(options: SimOptions): Promise<Simulator> {
  let jobDurationMs = options.jobDurationMs ?? 8_000;
  const jobs = new JobStore(() => jobDurationMs);
  const stats = Object.fromEntries(PLATFORMS.map((p) => [p, emptyStats()])) as Record<Platform, PlatformStats>;
  const requests: RecordedRequest[] = [];
  let outages: Outage[] = [];
  const promptFaultCounts = new Map<string, number>();

  const host: SimHost = {
    jobs,
    options,
    stats,
    publicUrl: (ctx) => options.publicUrl ?? `${ctx.protocol}://${ctx.host}`,
    promptFault(key, fault) {
      if (!fault) return undefined;
      const seen = promptFaultCounts.get(key) ?? 0;
      if (seen >= fault.times) return undefined;
      promptFaultCounts.set(key, seen + 1);
      return { status: fault.status };
    },
    intercept(ctx, platform, op, render, promptFault) {
      const headers: Record<string, string> = {};
      for (const h of RECORDED_HEADERS) {
        const v = ctx.get(h);
        if (v) headers[h] = v;
      }
      const record: RecordedRequest = { platform, op, method: ctx.method, path: ctx.path, headers, body: ctx.request.body, at: Date.now() };
      ctx.state.simRecord = record;
      requests.push(record);
      if (requests.length > MAX_RECORDED) requests.splice(0, requests.length - MAX_RECORDED);

      const now = Date.now();
      outages = outages.filter((o) => (o.remaining === undefined || o.remaining > 0) && (o.until === undefined || o.until > now));
      const outage = outages.find((o) => (o.platform === '*' || o.platform === platform) && (o.op === '*' || o.op === op));
      const headerFault = /^(429|500|503|reset)$/.exec(ctx.get('X-Sim-Fault'))?.[1];
      const status: FaultStatus | undefined =
        promptFault?.status ?? outage?.status ?? (headerFault === undefined ? undefined : headerFault === 'reset' ? 'reset' : (Number(headerFault) as 429 | 500 | 503));
      if (status === undefined) return false;
      if (outage && !promptFault && outage.remaining !== undefined) outage.remaining--;
      stats[platform].faultsInjected++;
      if (status === 'reset') {
        ctx.req.socket.destroy();
        ctx.respond = false;
      } else {
        render(ctx, status, outage?.retryAfterSeconds);
      }
      return true;
    },
  };

  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
      const record = ctx.state.simRecord as RecordedRequest | undefined;
      if (record) record.status = ctx.respond === false ? 0 : ctx.status;
    } catch (err) {
      // Body-parser errors (malformed JSON, too large) keep their 4xx status, as on the real platforms.
      const status = (err as { status?: number }).status;
      ctx.status = status && status >= 400 && status < 500 ? status : 500;
      ctx.body = { error: { code: ctx.status === 500 ? 'SimulatorError' : 'InvalidRequestBody', message: (err as Error).message } };
    }
  });
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: '10mb', extendTypes: { json: ['application/json'] } }));

  const router = new Router();

  // ------------------------------------------------------------------ control
  router.get('/_sim/health', (ctx) => {
    ctx.body = { ok: true };
  });
  router.get('/_sim/stats', (ctx) => {
    ctx.body = stats;
  });
  router.get('/_sim/requests', (ctx) => {
    const { platform, op } = ctx.query;
    ctx.body = requests.filter((r) => (!platform || r.platform === platform) && (!op || r.op === op));
  });
  router.post('/_sim/reset', (ctx) => {
    sim.reset();
    ctx.body = { ok: true };
  });
  /** Body: {platform?: 'T'|'B'|'V'|'*', op?: 'submit'|'poll'|'cancel'|'*', status: 429|500|503|'reset', count?, durationMs?, retryAfterSeconds?} */
  router.post('/_sim/faults', (ctx) => {
    const b = ctx.request.body as Partial<Outage> & { count?: number; durationMs?: number };
    if (![429, 500, 503, 'reset'].includes(b.status as FaultStatus)) {
      ctx.status = 400;
      ctx.body = { error: 'status must be 429, 500, 503 or "reset"' };
      return;
    }
    outages.push({
      platform: b.platform ?? '*',
      op: b.op ?? '*',
      status: b.status as FaultStatus,
      remaining: b.count,
      until: b.durationMs === undefined ? undefined : Date.now() + b.durationMs,
      retryAfterSeconds: b.retryAfterSeconds,
    });
    ctx.body = { ok: true, active: outages.length };
  });
  router.delete('/_sim/faults', (ctx) => {
    outages = [];
    ctx.body = { ok: true };
  });
  /** Body: {jobDurationMs} */
  router.post('/_sim/config', (ctx) => {
    const b = ctx.request.body as { jobDurationMs?: number };
    if (typeof b.jobDurationMs === 'number') jobDurationMs = b.jobDurationMs;
    ctx.body = { jobDurationMs };
  });

  // ------------------------------------------------------------------ result files
  router.get('/files/:name', (ctx) => {
    // Any well-formed name is served, so result links keep working after a simulator restart (jobs live in
    // memory), as a platform's storage outlives its API servers.
    const m = /^([A-Za-z0-9_-]+)-(\d+)\.(mp4|png)$/.exec(ctx.params.name ?? '');
    if (!m) {
      ctx.status = 404;
      ctx.body = 'not found';
      return;
    }
    const media = mediaFor(m[3] as 'mp4' | 'png');
    ctx.type = media.contentType;
    ctx.body = media.bytes;
  });

  registerPlatformV(router, host);
  registerPlatformT(router, host);
  registerPlatformB(router, host);

  app.use(router.routes());
  app.use(router.allowedMethods());

  const server = createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const addr = server.address() as AddressInfo;
  const sim: Simulator = {
    url: `http://${addr.address.includes(':') ? `[${addr.address}]` : addr.address}:${addr.port}`,
    server,
    stats,
    requests,
    reset() {
      jobs.clear();
      promptFaultCounts.clear();
      requests.length = 0;
      outages = [];
      for (const p of PLATFORMS) stats[p] = emptyStats();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return sim;
}
