/**
 * Prompt directives let a test steer one simulated job through the gateway, which forwards prompts verbatim:
 *   [sim:fail=content_policy]   the job fails with the platform's content-policy code
 *   [sim:fail=error]            the job fails with a generic generation error
 *   [sim:fail=transient]        the job fails with the platform's transient code (T: RequestLimitExceeded)
 *   [sim:fail=transientx1]      only the first job created with this prompt fails (any fail kind takes xN)
 *   [sim:duration=1500]         the job takes 1500 ms instead of the simulator's default
 *   [sim:never]                 the job never finishes
 *   [sim:hold]                  the job stays queued, whatever the time, until POST /_sim/jobs/:id/advance moves it
 *                               on (to running, held there, or done): a test reads each phase on purpose, never by
 *                               catching a moment of a timed job
 *   [sim:submit=429x3]          the first 3 creates carrying this prompt answer 429 (also 500, 503, reset, drop, slow)
 *   [sim:submit=429:CODE x2]    the first 2 creates answer 429 with the platform's error code CODE (V: any of Ark's
 *                               429 codes, sim/v/errors.ts, with Retry-After where Ark's table says it may be sent)
 *   [sim:poll=500x4]            the first 4 polls of this job answer 500 (also 429, 503, reset)
 * `drop` carries the create out (the job exists and is billed) and then drops the answer; `slow` carries it out
 * and holds the answer back for the simulator's slow-answer time (POST /_sim/config {slowAnswerMs}).
 *
 * Read by the platforms that have them (sim/t/index.ts, sim/v/index.ts document their meaning there):
 *   [sim:reject=CODE]           the create is refused with the platform's error code CODE
 *   [sim:task-error=CODE]       the job fails with the platform's task error code CODE
 *   [sim:expires=MS]            the job counts as expired MS ms after creation (V)
 *   [sim:detail-error=CODE xN]  the first N reads of the job answer the platform's error CODE although it exists
 *                               (T: DescribeTaskDetail answers `InvalidParameterValue`, its generic parameter error)
 */
import type { FaultStatus } from './vocabulary';

export interface Directives {
  fail?: 'content_policy' | 'error' | 'transient';
  /** With `fail`: only the first N jobs created with this prompt fail (counted per platform and prompt). */
  failTimes?: number;
  /** The prompt the directives came from, when a per-prompt count needs it. */
  prompt?: string;
  durationMs?: number;
  never?: boolean;
  /** `[sim:hold]`: queued until advanced by the control surface (JobStore.advance). */
  hold?: boolean;
  submitFault?: { status: FaultStatus; times: number; code?: string };
  pollFault?: { status: FaultStatus; times: number };
  /** `[sim:reject=CODE]`: the platform's refusal code for the create. */
  reject?: string;
  /** `[sim:task-error=CODE]`: the platform's error code the failed job reports (implies `fail: 'error'`). */
  taskError?: string;
  /** `[sim:expires=MS]`. */
  expiresInMs?: number;
  /** `[sim:detail-error=CODE xN]`: the first N reads of the job answer CODE (N = 1 when not given). */
  detailError?: { code: string; times: number };
}

/** A platform error code as a directive may name one (`InvalidParameterValue.Foo`, `QuotaExceeded`). */
const ERROR_CODE = /^[A-Za-z0-9.]+$/;

export function parseFault(v: string): { status: FaultStatus; times: number; code?: string } | undefined {
  // `429x3`, `429:QuotaExceeded x2` (the code is lazy so that `…Exceededx2` still reads its count).
  const m = /^(429|500|503|reset|drop|slow)(?::([A-Za-z0-9.]+?))?(?:\s*x(\d+))?$/.exec(v.trim());
  if (!m) return undefined;
  const status: FaultStatus = m[1] === 'reset' || m[1] === 'drop' || m[1] === 'slow' ? m[1] : (Number(m[1]) as 429 | 500 | 503);
  return { status, times: m[3] ? Number(m[3]) : 1, ...(m[2] && typeof status === 'number' ? { code: m[2] } : {}) };
}

export function parseDirectives(prompt: unknown): Directives {
  const d: Directives = {};
  if (typeof prompt !== 'string') return d;
  for (const m of prompt.matchAll(/\[sim:([a-z_-]+)(?:=([^\]]+))?\]/g)) {
    const [, name, value = ''] = m;
    const fail = /^(content_policy|error|transient)(?:x(\d+))?$/.exec(value);
    if (name === 'fail' && fail) {
      d.fail = fail[1] as Directives['fail'];
      if (fail[2]) {
        d.failTimes = Number(fail[2]);
        d.prompt = prompt;
      }
    }
    if (name === 'duration' && /^\d+$/.test(value)) d.durationMs = Number(value);
    if (name === 'never') d.never = true;
    if (name === 'hold') d.hold = true;
    if (name === 'submit') d.submitFault = parseFault(value);
    if (name === 'poll') d.pollFault = parseFault(value);
    if (name === 'reject' && ERROR_CODE.test(value)) d.reject = value;
    if (name === 'task-error' && ERROR_CODE.test(value)) d.taskError = value;
    if (name === 'expires' && /^\d+$/.test(value)) d.expiresInMs = Number(value);
    const detailError = /^([A-Za-z0-9.]+?)(?:\s*x(\d+))?$/.exec(value.trim());
    if (name === 'detail-error' && detailError)
      d.detailError = { code: detailError[1]!, times: detailError[2] ? Number(detailError[2]) : 1 };
  }
  // A task error code makes the job fail even without `[sim:fail=…]`.
  if (d.taskError && !d.fail) d.fail = 'error';
  return d;
}

/**
 * Per-key counts for directives that act only the first N times (`[sim:fail=…xN]`, `[sim:submit=429xN]`):
 * take(key, n) is true for the first n calls with `key`, false after.
 */
export class FirstTimes {
  private readonly seen = new Map<string, number>();

  take(key: string, times: number): boolean {
    const n = this.seen.get(key) ?? 0;
    if (n >= times) return false;
    this.seen.set(key, n + 1);
    return true;
  }

  clear(): void {
    this.seen.clear();
  }
}
