/**
 * The simulator's control surface under /_sim (tests and people steer and inspect it: counters, recorded requests,
 * jobs, faults, callbacks, settings) and the result files its platforms link to under /files.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { CallbackFault } from './callbacks';
import type { Limit } from './capacity';
import { mediaFor } from './media';
import type { Outage, SimulatorState } from './state';
import { SIM_PLATFORMS, type FaultStatus, type SimPlatform } from './vocabulary';

/** Counters, recorded requests and jobs; forgetting a job; the reset. */
function registerInspection(router: Router, state: SimulatorState): void {
  router.get('/_sim/health', (ctx) => {
    ctx.body = { ok: true };
  });
  router.get('/_sim/stats', (ctx) => {
    ctx.body = state.stats;
  });
  router.get('/_sim/requests', (ctx) => {
    const { platform, op } = ctx.query;
    ctx.body = state.requests.filter((r) => (!platform || r.platform === platform) && (!op || r.op === op));
  });
  /** A job as the simulator holds it (tests: how many jobs exist for a prompt, and their state). */
  router.get('/_sim/jobs', (ctx) => {
    const { platform } = ctx.query;
    ctx.body = SIM_PLATFORMS.filter((p) => !platform || p === platform).flatMap((p) =>
      state.jobs.all(p).map((j) => ({ ...j, view: state.jobs.view(j) })),
    );
  });
  /** The platform forgets a job, as past its retention: its queries answer "not found" from now on. */
  router.delete('/_sim/jobs/:id', (ctx) => {
    const forgotten = state.jobs.forget(ctx.params.id ?? '');
    ctx.status = forgotten ? 200 : 404;
    ctx.body = { ok: forgotten, id: ctx.params.id };
  });
  /** Body {to: 'running' | 'done'}: moves a job on now (a `[sim:hold]` job, or any other): tests read each phase on purpose. */
  router.post('/_sim/jobs/:id/advance', (ctx) => {
    const job = state.jobs.get(ctx.params.id ?? '');
    const to = (ctx.request.body as { to?: unknown } | undefined)?.to;
    if (to !== 'running' && to !== 'done') {
      ctx.status = 400;
      ctx.body = { error: 'to must be "running" or "done"' };
      return;
    }
    if (!job || !state.jobs.advance(job, to)) {
      ctx.status = job ? 409 : 404;
      ctx.body = { ok: false, id: ctx.params.id };
      return;
    }
    ctx.body = { ok: true, id: job.id, view: state.jobs.view(job) };
  });
  router.post('/_sim/reset', (ctx) => {
    state.reset();
    ctx.body = { ok: true };
  });
}

/** Outages (/_sim/faults) and callback faults (/_sim/callback-faults), and the deliveries made. */
function registerFaults(router: Router, state: SimulatorState): void {
  /** Body: {platform?: 'T'|'B'|'V'|'*', op?: SimOp|'*', status: 429|500|503|'reset'|'drop', count?, durationMs?, retryAfterSeconds?} */
  router.post('/_sim/faults', (ctx) => {
    const b = ctx.request.body as Partial<Outage> & { count?: number; durationMs?: number };
    if (![429, 500, 503, 'reset', 'drop', 'slow'].includes(b.status as FaultStatus)) {
      ctx.status = 400;
      ctx.body = { error: 'status must be 429, 500, 503, "reset", "drop" or "slow"' };
      return;
    }
    state.outages.push({
      platform: b.platform ?? '*',
      op: b.op ?? '*',
      status: b.status as FaultStatus,
      remaining: b.count,
      until: b.durationMs === undefined ? undefined : Date.now() + b.durationMs,
      retryAfterSeconds: b.retryAfterSeconds,
    });
    ctx.body = { ok: true, active: state.outages.length };
  });
  router.delete('/_sim/faults', (ctx) => {
    state.outages = [];
    ctx.body = { ok: true };
  });
  router.get('/_sim/callbacks', (ctx) => {
    const { platform } = ctx.query;
    ctx.body = state.callbacks.deliveries.filter((d) => !platform || d.platform === platform);
  });
  /** Body: {platform?: 'T'|'B'|'V'|'*', fault: 'drop'|'duplicate'|'late'|'bad-signature', count?, delayMs?} */
  router.post('/_sim/callback-faults', (ctx) => {
    const b = ctx.request.body as { platform?: SimPlatform | '*'; fault?: CallbackFault; count?: number; delayMs?: number };
    if (!['drop', 'duplicate', 'late', 'bad-signature'].includes(String(b.fault))) {
      ctx.status = 400;
      ctx.body = { error: 'fault must be "drop", "duplicate", "late" or "bad-signature"' };
      return;
    }
    state.callbacks.addFault({ platform: b.platform, fault: b.fault!, count: b.count, delayMs: b.delayMs });
    ctx.body = { ok: true };
  });
  router.delete('/_sim/callback-faults', (ctx) => {
    state.callbacks.clearFaults();
    ctx.body = { ok: true };
  });
}

/** Settings a test changes while the simulator runs. Body: {jobDurationMs?, slowAnswerMs?} */
function registerSettings(router: Router, state: SimulatorState): void {
  router.post('/_sim/config', (ctx) => {
    const b = ctx.request.body as { jobDurationMs?: number; slowAnswerMs?: number };
    if (typeof b.jobDurationMs === 'number') state.jobDurationMs = b.jobDurationMs;
    if (typeof b.slowAnswerMs === 'number') state.slowAnswerMs = b.slowAnswerMs;
    ctx.body = { jobDurationMs: state.jobDurationMs, slowAnswerMs: state.slowAnswerMs };
  });
}

/** A limit as a control body gives it: a whole number ≥ 0, or null for none; undefined when it is neither. */
function readLimit(v: unknown): Limit | undefined {
  if (v === null) return null;
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

/**
 * Each platform's account concurrency (sim/capacity.ts), under /_sim/<t|v|b>/capacity:
 *   GET                 {platform, default_max_concurrent, accounts: [{account, max_concurrent, running, peak_running,
 *                       created_jobs, refused_creates, over_limit_jobs}]}
 *   POST                {max_concurrent: n | null, account?}: one account's limit (the platform's account key, as its
 *                       account-faults take it), or without `account` the default of every account without its own
 *   GET  /intervals?account=…   [{id, start_ms, end_ms | null}] of that account's jobs, oldest first
 *   DELETE /stats       forgets the counters and intervals
 */
function registerCapacity(router: Router, state: SimulatorState): void {
  const { capacity } = state;
  for (const platform of SIM_PLATFORMS) {
    const base = `/_sim/${platform.toLowerCase()}/capacity`;
    const refuse = (ctx: Context, error: string) => {
      ctx.status = 400;
      ctx.body = { error };
    };
    router.get(base, (ctx) => {
      ctx.body = capacity.view(platform);
    });
    router.post(base, (ctx) => {
      const b = (ctx.request.body ?? {}) as { max_concurrent?: unknown; account?: unknown };
      const limit = readLimit(b.max_concurrent);
      if (limit === undefined) return refuse(ctx, 'max_concurrent must be a whole number (0 or more) or null for no limit');
      if (b.account !== undefined && (typeof b.account !== 'string' || !capacity.isAccount(platform, b.account)))
        return refuse(ctx, `account must name one of the simulator's ${platform} accounts (its account key)`);
      capacity.setLimit(platform, limit, b.account as string | undefined);
      ctx.body = capacity.view(platform);
    });
    router.get(`${base}/intervals`, (ctx) => {
      const account = ctx.query.account;
      if (typeof account !== 'string' || !capacity.isAccount(platform, account))
        return refuse(ctx, `account (query) must name one of the simulator's ${platform} accounts (its account key)`);
      ctx.body = capacity.intervalsOf(platform, account);
    });
    router.delete(`${base}/stats`, (ctx) => {
      capacity.resetStats(platform);
      ctx.body = { ok: true };
    });
  }
}

export function registerControlRoutes(router: Router, state: SimulatorState): void {
  registerInspection(router, state);
  registerFaults(router, state);
  registerSettings(router, state);
  registerCapacity(router, state);
}

/** The result files the platforms link to, and the control route that makes one 404 (an expired link). */
export function registerResultFiles(router: Router, state: SimulatorState): void {
  /** Makes one result file 404 from now on, as a platform's temporary link does once it expires. */
  router.delete('/_sim/files/:name', (ctx) => {
    state.deletedFiles.add(ctx.params.name ?? '');
    ctx.body = { ok: true, deleted: ctx.params.name };
  });
  router.get('/files/:name', (ctx) => {
    if (state.deletedFiles.has(ctx.params.name ?? '')) {
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
}
