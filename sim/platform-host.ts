/**
 * The SimHost the platform modules (sim/t, sim/b, sim/v) are given: the shared jobs and counters, and `intercept`,
 * which records every request and applies the fault due to it, if any.
 */
import type { Context } from 'koa';
import { parseFault } from './directives';
import type { FaultRenderer, RecordedRequest, SimHost } from './host';
import type { SimulatorState } from './state';
import type { FaultStatus, SimOp, SimPlatform } from './vocabulary';

/** Headers worth recording for every platform: what signs and routes a request, never a body. */
const RECORDED_HEADERS = ['authorization', 'content-type', 'host'];

/** What the platform received, for /_sim/requests; its answer is added when it is sent (sim/answers.ts). */
function recordRequest(ctx: Context, platform: SimPlatform, op: SimOp, recorded: readonly string[]): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const h of recorded) {
    const v = ctx.get(h);
    if (v) headers[h] = v;
  }
  return { platform, op, method: ctx.method, path: ctx.path, query: ctx.querystring, headers, body: ctx.request.body, at: Date.now() };
}

/**
 * Applies a fault to the request: `drop` and `slow` let the handler run and act on its answer (sim/answers.ts),
 * `reset` destroys the connection, a status is rendered in the platform's own error shape. True when answered.
 */
function applyFault(
  ctx: Context,
  platform: SimPlatform,
  status: FaultStatus,
  render: FaultRenderer,
  retryAfterSeconds: number | undefined,
  code?: string,
): boolean {
  if (status === 'drop') {
    // Carry the request out, then lose the answer.
    ctx.state.simDropAnswer = platform;
    return false;
  }
  if (status === 'slow') {
    // Carry the request out, then hold the answer back.
    ctx.state.simSlowAnswer = true;
    return false;
  }
  if (status === 'reset') {
    ctx.req.socket.destroy();
    ctx.respond = false;
  } else {
    render(ctx, status, retryAfterSeconds, code);
  }
  return true;
}

/**
 * The host the platform modules share. `platformHeaders`: the headers of their own each platform records besides
 * RECORDED_HEADERS (SimPlatformModule.recordedHeaders); every request records all of them, whoever it is for.
 */
export function createSimHost(state: SimulatorState, publicUrl: string | undefined, platformHeaders: readonly string[]): SimHost {
  const recorded = [...RECORDED_HEADERS, ...platformHeaders];
  return {
    jobs: state.jobs,
    capacity: state.capacity,
    stats: state.stats,
    callbacks: state.callbacks,
    now: Date.now,
    onTransition: (platform, listener) => state.transitions.on(platform, listener),
    onReset: (listener) => void state.resetListeners.push(listener),
    publicUrl: (ctx) => publicUrl ?? `${ctx.protocol}://${ctx.host}`,
    promptFault(key, fault) {
      return fault && state.promptFaults.take(key, fault.times)
        ? { status: fault.status, ...(fault.code ? { code: fault.code } : {}) }
        : undefined;
    },
    intercept(ctx, platform, op, render, promptFault) {
      const record = recordRequest(ctx, platform, op, recorded);
      ctx.state.simRecord = record;
      state.record(record);
      // A prompt's own fault first, then an outage set through /_sim/faults, then the request's X-Sim-Fault header.
      const outage = state.activeOutage(platform, op, Date.now());
      const status = promptFault?.status ?? outage?.status ?? parseFault(ctx.get('X-Sim-Fault'))?.status;
      if (status === undefined) return false;
      if (outage && !promptFault && outage.remaining !== undefined) outage.remaining--;
      state.stats[platform].faultsInjected++;
      return applyFault(ctx, platform, status, render, outage?.retryAfterSeconds, promptFault?.code);
    },
  };
}
