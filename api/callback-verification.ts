/**
 * Callbacks that keep failing verification: a platform whose signed announcements are all refused (a wrong or
 * rotated signing key, or a signature form the gateway does not compute) loses nothing — polling carries its
 * tasks — but every task then waits a full poll interval, and nobody would know why. So the API says so at `warn`,
 * once per run of consecutive failures of one platform (per process), and starts counting again after a callback
 * of that platform verifies.
 *
 * Anyone can POST to the callback URLs, so a refusal alone proves nothing about the platform: only one that names a
 * job of ours (its job id, which no client ever sees, recorded by one of the platform's tasks: core/task-hints.ts)
 * is the platform's own announcement failing. Every other refusal is counted as forged and never reaches the
 * operator's warning, so an anonymous caller cannot raise it. Asking Temporal costs a call, so at most
 * MAX_CHECKS_IN_FLIGHT run at once and MAX_CHECKS_WAITING wait; a refusal beyond those is counted as forged unasked.
 */
import type { UpstreamHint } from '../platforms/platform';

/** Consecutive refused signatures of one platform before the warning: a stray stale request is not one. */
export const VERIFICATION_FAILURES_BEFORE_WARNING = 5;
/** Checks of refused callbacks against Temporal at once (a flood of forged callbacks costs no more than this). */
export const MAX_CHECKS_IN_FLIGHT = 4;
/** Refused callbacks waiting for a check; past this they are counted as forged without one. */
export const MAX_CHECKS_WAITING = 32;

export type VerificationWarning = (platform: string, consecutiveFailures: number, lastReason: string) => void;

/** Whether an announcement of `platform` names a job of ours (core/task-hints.ts namesJobOfOurs). */
export type JobCheck = (platform: string, hint: UpstreamHint) => Promise<boolean>;

/** `refused`: the platform's own announcement failed verification; `forged`: it names no job of ours. */
export type RefusalKind = 'refused' | 'forged';

export class CallbackVerificationWatch {
  private readonly consecutive = new Map<string, number>();
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly warn: VerificationWarning,
    private readonly namesOurJob: JobCheck,
    private readonly threshold = VERIFICATION_FAILURES_BEFORE_WARNING,
  ) {}

  /**
   * A callback of `platform` failed verification (bad, missing or expired signature or token), claiming to be about
   * `claims`. Counted towards the warning only when a claim names a job of ours; a check that fails (Temporal
   * unreachable) counts it as forged: an operator alert needs evidence.
   */
  async failed(platform: string, reason: string, claims: readonly UpstreamHint[]): Promise<RefusalKind> {
    const genuine = claims.length > 0 && (await this.checked(() => this.anyOurs(platform, claims)));
    if (!genuine) return 'forged';
    const n = (this.consecutive.get(platform) ?? 0) + 1;
    this.consecutive.set(platform, n);
    if (n === this.threshold) this.warn(platform, n, reason);
    return 'refused';
  }

  /** A callback of `platform` verified: the next run of failures is warned about again. */
  verified(platform: string): void {
    this.consecutive.delete(platform);
  }

  private async anyOurs(platform: string, claims: readonly UpstreamHint[]): Promise<boolean> {
    for (const claim of claims) if (await this.namesOurJob(platform, claim)) return true;
    return false;
  }

  /** Runs `check` within the bounds; false when it cannot be run now, or fails. */
  private async checked(check: () => Promise<boolean>): Promise<boolean> {
    if (this.inFlight >= MAX_CHECKS_IN_FLIGHT) {
      if (this.waiting.length >= MAX_CHECKS_WAITING) return false;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.inFlight++;
    try {
      return await check();
    } catch {
      return false;
    } finally {
      this.inFlight--;
      this.waiting.shift()?.();
    }
  }
}
