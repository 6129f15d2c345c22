/**
 * The lost-answer kit, shared by test/unit/platforms/<x>/lost-answer.test.ts: a real simulator, the worker's own
 * adapter for a platform talking HTTP to it, and the submit activity run as Temporal retries it — attempt after
 * attempt, each handed the last heartbeat of the one before — so a test sees how many jobs the platform made and
 * how the task ends.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { AccountPool } from '../../activities/accounts';
import { createSubmitActivity, type LostAnswerReport, type SubmitInput } from '../../activities/submit';
import type { Catalogue } from '../../core/catalogue';
import type { SubmitResult } from '../../core/task';
import { PLATFORM_DEFINITIONS } from '../../platforms';
import { createHttpClient } from '../../platforms/http';
import type { PlatformAdapter } from '../../platforms/platform';
import { UpstreamError } from '../../platforms/upstream-error';
import { startSimulator, type Simulator } from '../../sim/server';
import { SUBMIT_TIMING } from './account-pools';
import { catalogue } from './platform-kit';

export interface LostAnswerKit {
  sim(): Simulator;
  /** The worker's adapter for `platform`, served by the simulator (as `npm start` runs it), with `env` on top. */
  adapter(platform: string, env?: Record<string, string>): PlatformAdapter;
  post(path: string, body: unknown): Promise<unknown>;
  /** The simulator's counters for `platform`. */
  stats(platform: string): Promise<Record<string, number>>;
}

/** Call at the top of a describe: one simulator for its tests, reset before each. */
export function useLostAnswerSimulator(resetPaths: string[] = []): LostAnswerKit {
  let sim: Simulator | undefined;
  const http = createHttpClient({ connectTimeoutMs: 2_000, responseTimeoutMs: 10_000 });
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, jobDurationMs: 60_000 });
  });
  afterAll(async () => {
    await sim?.close();
    await http.close();
  });
  const post = async (path: string, body: unknown) =>
    (
      await fetch(`${sim!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    ).json();
  beforeEach(async () => {
    sim!.reset();
    for (const p of resetPaths) await post(p, {});
  });
  return {
    sim: () => sim!,
    adapter(platform, env = {}) {
      const definition = PLATFORM_DEFINITIONS.find((d) => d.id === platform)!;
      return definition.worker({ NODE_ENV: 'development', ...env }, { simulate: true, simBaseUrl: sim!.url }).createAdapter({ http });
    },
    post,
    stats: async (platform) =>
      ((await (await fetch(`${sim!.url}/_sim/stats`)).json()) as Record<string, Record<string, number>>)[platform]!,
  };
}

export interface AttemptsOutcome {
  result?: SubmitResult;
  /** The final error the task would fail with. */
  error?: UpstreamError;
  attempts: number;
  /** What the worker would have counted and alerted. */
  reports: LostAnswerReport[];
}

/**
 * Runs the submit activity for `input` as Temporal would: a retryable failure is followed by the next attempt
 * (given the last heartbeat details), up to `maxAttempts`; a result or a final error ends it. Retry waits are not
 * slept: `lostAnswerSearchMs` bounds the search in the activity's own clock, which the test advances by
 * `clockStepMs` per attempt.
 */
export async function runSubmitAttempts(
  adapter: PlatformAdapter,
  input: SubmitInput,
  opts: { maxAttempts?: number; lostAnswerSearchMs?: number; clockStepMs?: number; catalogue?: Catalogue } = {},
): Promise<AttemptsOutcome> {
  const reports: LostAnswerReport[] = [];
  let clock = Date.now();
  const submit = createSubmitActivity({
    catalogue: opts.catalogue ?? catalogue,
    timingFor: () => SUBMIT_TIMING,
    poolFor: (platform) => AccountPool.single(platform, adapter),
    now: () => clock,
    onLostAnswer: (r) => reports.push(r),
    lostAnswerSearchMs: opts.lostAnswerSearchMs,
  });
  const scheduledTimestampMs = Date.now();
  let details: unknown;
  const max = opts.maxAttempts ?? 6;
  for (let attempt = 1; attempt <= max; attempt++) {
    const env = new MockActivityEnvironment({ attempt, scheduledTimestampMs, heartbeatDetails: details, heartbeatTimeoutMs: 5_000 });
    env.on('heartbeat', (d: unknown) => {
      details = d;
    });
    try {
      return { result: await env.run(submit, input), attempts: attempt, reports };
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      if (!err.retryable || attempt === max) return { error: err, attempts: attempt, reports };
    }
    clock += opts.clockStepMs ?? 20_000;
  }
  throw new Error('unreachable');
}
