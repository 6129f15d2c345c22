/**
 * Callbacks that keep failing verification: a platform whose signed announcements are all refused (a wrong or
 * rotated signing key, or a signature form the gateway does not compute) loses nothing — polling carries its
 * tasks — but every task then waits a full poll interval, and nobody would know why. So the API says so at `warn`,
 * once per run of consecutive failures of one platform (per process), and starts counting again after a callback
 * of that platform verifies.
 */

/** Consecutive refused signatures of one platform before the warning: a stray forged or stale request is not one. */
export const VERIFICATION_FAILURES_BEFORE_WARNING = 5;

export type VerificationWarning = (platform: string, consecutiveFailures: number, lastReason: string) => void;

export class CallbackVerificationWatch {
  private readonly consecutive = new Map<string, number>();

  constructor(
    private readonly warn: VerificationWarning,
    private readonly threshold = VERIFICATION_FAILURES_BEFORE_WARNING,
  ) {}

  /** A callback of `platform` failed verification (bad, missing or expired signature or token). */
  failed(platform: string, reason: string): void {
    const n = (this.consecutive.get(platform) ?? 0) + 1;
    this.consecutive.set(platform, n);
    if (n === this.threshold) this.warn(platform, n, reason);
  }

  /** A callback of `platform` verified: the next run of failures is warned about again. */
  verified(platform: string): void {
    this.consecutive.delete(platform);
  }
}
