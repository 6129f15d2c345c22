/**
 * The upstream simulator: one HTTP server speaking the wire protocols of platforms T, B and V as strictly as the
 * real ones, so an adapter bug fails a test here rather than in production. The paths do not overlap (V under
 * /api/v3, B under /v2 and /v3, T at POST / with X-TC-Action), so one port serves all three.
 *
 * Control endpoints under /_sim let tests inject faults, read counters ("exactly one upstream job per task") and
 * see the exact requests each platform received and what it answered.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import { platformB } from './b';
import { CallbackSender, type CallbackFault } from './callbacks';
import { FirstTimes, parseFault } from './directives';
import { SIM_PLATFORMS, type FaultStatus, type PlatformStats, type RecordedRequest, type SimHost, type SimOp, type SimPlatform, type SimPlatformModule, type TransitionListener } from './host';
import { JobStore, type SimState } from './jobs';
import { mediaFor } from './media';
import { platformT } from './t';
import { platformV } from './v';

export const SIM_MODULES: readonly SimPlatformModule[] = [platformT, platformB, platformV];

interface Outage {
  platform: SimPlatform | '*';
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
  /** Base URL put into result file links; default: derived from each request's Host. */
  publicUrl?: string;
  /** Where jobs are kept across restarts; undefined = memory only. */
  dataFile?: string;
}

const MAX_RECORDED = 5_000;

function emptyStats(): PlatformStats {
  return { submitRequests: 0, jobsCreated: 0, dedupRefusals: 0, polls: 0, lists: 0, cancels: 0, rejected: 0, faultsInjected: 0, answersDropped: 0 };
}

/** Headers worth recording: what signs and routes a request, never a body. */
const RECORDED_HEADERS = [
  'authorization', 'content-type', 'host', 'x-tc-action', 'x-tc-version', 'x-tc-timestamp', 'x-tc-region', 'x-bce-date', 'x-bce-request-id',
];

export interface Simulator {
  url: string;
  server: Server;
  stats: Record<SimPlatform, PlatformStats>;
  requests: RecordedRequest[];
  reset(): void;
  close(): Promise<void>;
}

export async function startSimulator(options: SimOptions = {}): Promise<Simulator> {
  let jobDurationMs = options.jobDurationMs ?? 8_000;
  /** How long a `slow` fault holds an answer back. */
  let slowAnswerMs = 4_000;
  const jobs = new JobStore({ defaultDurationMs: () => jobDurationMs, file: options.dataFile });
  const stats = Object.fromEntries(SIM_PLATFORMS.map((p) => [p, emptyStats()])) as Record<SimPlatform, PlatformStats>;
  const requests: RecordedRequest[] = [];
  let outages: Outage[] = [];
  const promptFaults = new FirstTimes();
  const callbacks = new CallbackSender();
  const listeners = new Map<SimPlatform, TransitionListener[]>();
  const resetListeners: Array<() => void> = [];
  /** Last state seen per job, to notice transitions; seeded without firing, so a restart replays nothing. */
  const lastState = new Map<string, SimState>();
  const TERMINAL = new Set<SimState>(['succeeded', 'failed', 'cancelled']);
  const startedAt = Date.now();
  const watchTransitions = () => {
    for (const [platform, fns] of listeners) {
      for (const job of jobs.all(platform)) {
        const before = lastState.get(job.id);
        if (before !== undefined && TERMINAL.has(before)) continue;
        const now = jobs.view(job).state;
        lastState.set(job.id, now);
        const from = before ?? (job.createdAt > startedAt ? 'queued' : now);
        if (from !== now) for (const fn of fns) fn(job, from, now);
      }
    }
  };
  const ticker = setInterval(watchTransitions, 100);
  ticker.unref();

  const host: SimHost = {
    jobs,
    stats,
    callbacks,
    now: Date.now,
    onTransition(platform, listener) {
      listeners.set(platform, [...(listeners.get(platform) ?? []), listener]);
    },
    onReset(listener) {
      resetListeners.push(listener);
    },
    publicUrl: (ctx) => options.publicUrl ?? `${ctx.protocol}://${ctx.host}`,
    promptFault(key, fault) {
      return fault && promptFaults.take(key, fault.times) ? { status: fault.status } : undefined;
    },
    intercept(ctx, platform, op, render, promptFault) {
      const headers: Record<string, string> = {};
      for (const h of RECORDED_HEADERS) {
        const v = ctx.get(h);
        if (v) headers[h] = v;
      }
      const record: RecordedRequest = {
        platform, op, method: ctx.method, path: ctx.path, query: ctx.querystring, headers, body: ctx.request.body, at: Date.now(),
      };
      ctx.state.simRecord = record;
      requests.push(record);
      if (requests.length > MAX_RECORDED) requests.splice(0, requests.length - MAX_RECORDED);

      const now = Date.now();
      outages = outages.filter((o) => (o.remaining === undefined || o.remaining > 0) && (o.until === undefined || o.until > now));
      const outage = outages.find((o) => (o.platform === '*' || o.platform === platform) && (o.op === '*' || o.op === op));
      const headerFault = parseFault(ctx.get('X-Sim-Fault'))?.status;
      const status = promptFault?.status ?? outage?.status ?? headerFault;
      if (status === undefined) return false;
      if (outage && !promptFault && outage.remaining !== undefined) outage.remaining--;
      stats[platform].faultsInjected++;
      if (status === 'drop') {
        // Carry the request out, then lose the answer (see the outer middleware).
        ctx.state.simDropAnswer = platform;
        return false;
      }
      if (status === 'slow') {
        // Carry the request out, then hold the answer back (see the outer middleware).
        ctx.state.simSlowAnswer = true;
        return false;
      }
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
    } catch (err) {
      // Body-parser errors (malformed JSON, too large) keep their 4xx status, as on the real platforms; a platform
      // may answer them in its own error shape.
      const status = (err as { status?: number }).status;
      if (!(status && status >= 400 && status < 500 && SIM_MODULES.some((m) => m.renderBodyError?.(ctx, err, host)))) {
        ctx.status = status && status >= 400 && status < 500 ? status : 500;
        ctx.body = { error: { code: ctx.status === 500 ? 'SimulatorError' : 'InvalidRequestBody', message: (err as Error).message } };
      }
    }
    if (ctx.state.simSlowAnswer) await new Promise((r) => setTimeout(r, slowAnswerMs));
    const record = ctx.state.simRecord as RecordedRequest | undefined;
    const dropFor = ctx.state.simDropAnswer as SimPlatform | undefined;
    if (dropFor) {
      stats[dropFor].answersDropped++;
      ctx.respond = false;
      ctx.req.socket.destroy();
    }
    if (record) {
      record.status = ctx.respond === false ? 0 : ctx.status;
      if (ctx.respond !== false && ctx.body !== undefined && !Buffer.isBuffer(ctx.body)) record.response = ctx.body;
    }
  });
  // rawBody is kept: platform T signs the exact bytes of the body.
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
  /** A job as the simulator holds it (tests: how many jobs exist for a prompt, and their state). */
  router.get('/_sim/jobs', (ctx) => {
    const { platform } = ctx.query;
    ctx.body = SIM_PLATFORMS.filter((p) => !platform || p === platform).flatMap((p) => jobs.all(p).map((j) => ({ ...j, view: jobs.view(j) })));
  });
  /** The platform forgets a job, as past its retention: its queries answer "not found" from now on. */
  router.delete('/_sim/jobs/:id', (ctx) => {
    const forgotten = jobs.forget(ctx.params.id ?? '');
    ctx.status = forgotten ? 200 : 404;
    ctx.body = { ok: forgotten, id: ctx.params.id };
  });
  router.post('/_sim/reset', (ctx) => {
    sim.reset();
    ctx.body = { ok: true };
  });
  /** Body: {platform?: 'T'|'B'|'V'|'*', op?: SimOp|'*', status: 429|500|503|'reset'|'drop', count?, durationMs?, retryAfterSeconds?} */
  router.post('/_sim/faults', (ctx) => {
    const b = ctx.request.body as Partial<Outage> & { count?: number; durationMs?: number };
    if (![429, 500, 503, 'reset', 'drop', 'slow'].includes(b.status as FaultStatus)) {
      ctx.status = 400;
      ctx.body = { error: 'status must be 429, 500, 503, "reset", "drop" or "slow"' };
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
  router.get('/_sim/callbacks', (ctx) => {
    const { platform } = ctx.query;
    ctx.body = callbacks.deliveries.filter((d) => !platform || d.platform === platform);
  });
  /** Body: {platform?: 'T'|'B'|'V'|'*', fault: 'drop'|'duplicate'|'late'|'bad-signature', count?, delayMs?} */
  router.post('/_sim/callback-faults', (ctx) => {
    const b = ctx.request.body as { platform?: SimPlatform | '*'; fault?: CallbackFault; count?: number; delayMs?: number };
    if (!['drop', 'duplicate', 'late', 'bad-signature'].includes(String(b.fault))) {
      ctx.status = 400;
      ctx.body = { error: 'fault must be "drop", "duplicate", "late" or "bad-signature"' };
      return;
    }
    callbacks.addFault({ platform: b.platform, fault: b.fault!, count: b.count, delayMs: b.delayMs });
    ctx.body = { ok: true };
  });
  router.delete('/_sim/callback-faults', (ctx) => {
    callbacks.clearFaults();
    ctx.body = { ok: true };
  });
  /** Body: {jobDurationMs?, slowAnswerMs?} */
  router.post('/_sim/config', (ctx) => {
    const b = ctx.request.body as { jobDurationMs?: number; slowAnswerMs?: number };
    if (typeof b.jobDurationMs === 'number') jobDurationMs = b.jobDurationMs;
    if (typeof b.slowAnswerMs === 'number') slowAnswerMs = b.slowAnswerMs;
    ctx.body = { jobDurationMs, slowAnswerMs };
  });

  // ------------------------------------------------------------------ result files
  /** Result files deleted through the control endpoint below (memory only): a platform's link that died. */
  const deletedFiles = new Set<string>();
  /** Makes one result file 404 from now on, as a platform's temporary link does once it expires. */
  router.delete('/_sim/files/:name', (ctx) => {
    deletedFiles.add(ctx.params.name ?? '');
    ctx.body = { ok: true, deleted: ctx.params.name };
  });
  router.get('/files/:name', (ctx) => {
    if (deletedFiles.has(ctx.params.name ?? '')) {
      ctx.status = 404;
      ctx.body = 'not found (deleted)';
      return;
    }
    // Any well-formed name is served, so result links keep working after a simulator restart, as a platform's
    // storage outlives its API servers.
    const m = /^([A-Za-z0-9_.-]+)-(\d+)\.(mp4|png)$/.exec(ctx.params.name ?? '');
    if (!m) {
      ctx.status = 404;
      ctx.body = 'not found';
      return;
    }
    const media = mediaFor(m[3] as 'mp4' | 'png');
    ctx.type = media.contentType;
    ctx.body = media.bytes;
  });

  for (const module of SIM_MODULES) module.register(router, host);

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
      promptFaults.clear();
      requests.length = 0;
      outages = [];
      callbacks.reset();
      lastState.clear();
      for (const p of SIM_PLATFORMS) stats[p] = emptyStats();
      for (const fn of resetListeners) fn();
    },
    close: () =>
      new Promise<void>((resolve) => {
        jobs.flush();
        clearInterval(ticker);
        callbacks.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return sim;
}
