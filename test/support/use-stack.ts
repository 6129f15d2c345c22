/**
 * The system tests' stack lifecycle, once: `useStack(options)` starts a stack of the file's (or describe block's)
 * own in beforeAll, with the time a cold start needs, and stops it in afterAll; what the tests use of it (the
 * stack, API clients for alice and bob, the simulator's control surface, a Temporal client) is read through the
 * handle it returns, inside hooks and tests.
 */
import type { Client } from '@temporalio/client';
import { ApiClient, SimClient } from './client';
import { Stack, type StackOptions } from './stack';
import { temporalClient, type TemporalTestClient } from './temporal';

/** A cold stack (Temporal dev server, simulator, workers, APIs) starts in well under this on the shared machine. */
const START_TIMEOUT_MS = 180_000;
/** Stopping waits for graceful shutdowns (workers drain their activities). */
const STOP_TIMEOUT_MS = 120_000;

export interface StackHandle {
  readonly stack: Stack;
  /** The API as alice and as bob (two keys, for ownership). */
  readonly alice: ApiClient;
  readonly bob: ApiClient;
  /** The simulator's control surface (/_sim). */
  readonly sim: SimClient;
  /** A Temporal client on the stack's dev server, closed before the stack stops. */
  readonly temporal: TemporalTestClient;
  readonly client: Client;
}

export interface UseStackHooks {
  /** Runs after the stack stopped (to stop what the options function started for it, e.g. MinIO). */
  afterStop?: () => Promise<void>;
  /** A larger bound for a stack that starts more (the production shape: PostgreSQL, the Temporal server's schema, MinIO). */
  startTimeoutMs?: number;
}

/**
 * Registers beforeAll/afterAll in the current scope (file or describe block). `options` may be a function, run in
 * beforeAll, when they depend on something started first (a free port the stack's env must name, a MinIO).
 */
export function useStack(options: StackOptions | (() => StackOptions | Promise<StackOptions>), hooks: UseStackHooks = {}): StackHandle {
  let parts: { stack: Stack; alice: ApiClient; bob: ApiClient; sim: SimClient; temporal: TemporalTestClient } | undefined;
  let stack: Stack | undefined;
  let temporal: TemporalTestClient | undefined;

  beforeAll(async () => {
    stack = await Stack.start(typeof options === 'function' ? await options() : options);
    temporal = await temporalClient(stack.temporalAddress);
    parts = {
      stack,
      alice: new ApiClient(stack.apiUrl, 'alice'),
      bob: new ApiClient(stack.apiUrl, 'bob'),
      sim: new SimClient(stack.simUrl),
      temporal,
    };
  }, hooks.startTimeoutMs ?? START_TIMEOUT_MS);

  afterAll(async () => {
    parts = undefined;
    await temporal?.close();
    await stack?.stop();
    await hooks.afterStop?.();
  }, STOP_TIMEOUT_MS);

  const running = () => {
    if (!parts) throw new Error('the stack runs only between its beforeAll and afterAll: read the handle inside hooks and tests');
    return parts;
  };
  return {
    get stack() {
      return running().stack;
    },
    get alice() {
      return running().alice;
    },
    get bob() {
      return running().bob;
    },
    get sim() {
      return running().sim;
    },
    get temporal() {
      return running().temporal;
    },
    get client() {
      return running().temporal.client;
    },
  };
}
