/**
 * What the simulator's core offers each simulated platform (sim/t, sim/b, sim/v), and what a platform module
 * looks like. The simulator is our witness of the real platforms: its vocabulary is its own, written from the
 * platforms' documentation (docs/platforms/: the public pages each fact comes from), and nothing under sim/ imports the
 * gateway's code (an ESLint rule enforces it), so a wrong model code, field or limit on our side fails a test.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { CallbackSender } from './callbacks';
import type { SimCapacity } from './capacity';
import type { JobStore, SimJob, SimState } from './jobs';

export { SIM_PLATFORMS, type FaultStatus, type SimKind, type SimOp, type SimPlatform } from './vocabulary';
import type { FaultStatus, SimOp, SimPlatform } from './vocabulary';

export interface PlatformStats {
  /** Create requests received (including rejected and faulted ones). */
  submitRequests: number;
  /** Jobs actually created: what a real platform would bill. */
  jobsCreated: number;
  /** Creates refused because their dedup key (T SessionId) was seen before. */
  dedupRefusals: number;
  polls: number;
  lists: number;
  cancels: number;
  /** Requests rejected as invalid (4xx or the platform's error envelope), by auth or validation. */
  rejected: number;
  faultsInjected: number;
  /** Requests carried out whose answer was dropped on purpose (fault `drop`). */
  answersDropped: number;
}

export interface RecordedRequest {
  platform: SimPlatform;
  op: SimOp;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: unknown;
  at: number;
  /** The HTTP status the simulator answered (0: the connection was destroyed on purpose). */
  status?: number;
  /** What the simulator answered, when it answered JSON. */
  response?: unknown;
}

/** Renders an injected 429/500/503 in the platform's own error shape. */
/** Renders an injected status in the platform's shape; `code`: the platform's own error code a directive named. */
export type FaultRenderer = (ctx: Context, status: 429 | 500 | 503, retryAfterSeconds?: number, code?: string) => void;

export interface SimHost {
  readonly jobs: JobStore;
  /** Each account's concurrency (sim/capacity.ts): a platform tracks its jobs there and asks it before a create. */
  readonly capacity: SimCapacity;
  readonly stats: Record<SimPlatform, PlatformStats>;
  /**
   * Records the request and applies a pending fault (an outage set through /_sim/faults, a prompt directive's
   * `promptFault`, or the `X-Sim-Fault` header). Returns true when the fault was answered and the handler must
   * stop; for `drop` it returns false (the handler runs) and the answer is then dropped.
   */
  intercept(
    ctx: Context,
    platform: SimPlatform,
    op: SimOp,
    render: FaultRenderer,
    promptFault?: { status: FaultStatus; code?: string },
  ): boolean;
  /** Base URL for result files, as the caller reached us (or SIM_PUBLIC_URL). */
  publicUrl(ctx: Context): string;
  /** Per-prompt faults: `[sim:submit=429x3]` faults the first three creates carrying that prompt. */
  promptFault(
    key: string,
    fault: { status: FaultStatus; times: number; code?: string } | undefined,
  ): { status: FaultStatus; code?: string } | undefined;
  now(): number;
  /** Delivers the platform's outbound callbacks (with the faults tests inject). */
  readonly callbacks: CallbackSender;
  /**
   * Calls `listener` whenever one of the platform's jobs changes state (queued → running → succeeded…), as the
   * simulator observes it (every 100 ms). Changes that happened while the simulator was down are not replayed.
   */
  onTransition(platform: SimPlatform, listener: TransitionListener): void;
  /** Calls `listener` when the simulator is reset (/_sim/reset), so a platform can clear state of its own. */
  onReset(listener: () => void): void;
}

export type TransitionListener = (job: SimJob, from: SimState, to: SimState) => void;

/** One simulated platform: registers its routes on the shared router. */
export interface SimPlatformModule {
  readonly platform: SimPlatform;
  register(router: Router, host: SimHost): void;
  /** Headers of the platform's own worth recording in /_sim/requests (what signs and routes its requests), lower case. */
  readonly recordedHeaders?: readonly string[];
  /**
   * Optional: answers, in the platform's own error shape, a request of its own that the body parser refused
   * (malformed JSON…) before any route ran. Returns true when it answered.
   */
  renderBodyError?(ctx: Context, err: unknown, host: SimHost): boolean;
}
