/**
 * Per-key limits (OWASP API4, unrestricted resource consumption): a request rate and a cap on tasks in flight.
 * Beyond either, the answer is 429 with Retry-After and no workflow is started.
 *
 * The rate limit is per API process (memory); with several replicas each enforces it, so the effective limit is
 * replicas × rate — swap RateLimiterMemory for RateLimiterRedis to share it. The in-flight cap counts the key's
 * running workflows in Temporal visibility (true across replicas), cached for a second and bumped locally on
 * each start so a burst cannot slip past a stale count.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { ApiKey } from './api-keys';
import { ApiError } from './api-error';

export interface LimitDefaults {
  /** Requests per second per key; 0 = unlimited. */
  rps: number;
  /** Running tasks per key; 0 = unlimited. */
  maxInflight: number;
}

const COUNT_TTL_MS = 1_000;

export class KeyLimits {
  private readonly limiters = new Map<string, RateLimiterMemory>();
  private readonly inflight = new Map<string, { count: number; at: number; refreshing?: Promise<number> }>();

  constructor(
    private readonly defaults: LimitDefaults,
    private readonly countRunning: (ownerId: string) => Promise<number>,
  ) {}

  private rpsFor(key: ApiKey): number {
    return key.rateLimitRps ?? this.defaults.rps;
  }

  maxInflightFor(key: ApiKey): number {
    return key.maxInflight ?? this.defaults.maxInflight;
  }

  /** Takes one point of the key's request rate, or throws 429 with Retry-After (api/middleware/rate-limit.ts). */
  async consumeRate(key: ApiKey): Promise<void> {
    const rps = this.rpsFor(key);
    if (rps <= 0) return;
    // Keyed by the rate too: a key's limit changed through the admin API gets a limiter of the new size.
    const slot = `${key.id}\n${rps}`;
    let limiter = this.limiters.get(slot);
    if (!limiter) {
      limiter = new RateLimiterMemory({ points: Math.max(1, Math.ceil(rps)), duration: 1 });
      this.limiters.set(slot, limiter);
    }
    try {
      await limiter.consume(key.id);
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      throw new ApiError(429, 'rate_limit_error', `Rate limit of ${rps} requests per second exceeded for this API key`, {
        code: 'rate_limit_exceeded',
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
  }

  /**
   * Reserves one in-flight slot, or throws 429 when the key already has its maximum of running tasks. The
   * check and the reservation happen with no await between them, so concurrent requests cannot overshoot.
   * Returns a function that gives the slot back (call it when the start failed).
   */
  async reserveInflight(key: ApiKey): Promise<() => void> {
    const max = this.maxInflightFor(key);
    if (max <= 0) return () => undefined;
    await this.refreshCount(key.id);
    const entry = this.inflight.get(key.id)!;
    if (entry.count >= max) {
      throw new ApiError(429, 'rate_limit_error', `This API key already has ${max} tasks in progress; wait for some to finish`, {
        code: 'too_many_tasks_in_flight',
        headers: { 'Retry-After': '5' },
      });
    }
    entry.count++;
    return () => {
      const current = this.inflight.get(key.id);
      if (current) current.count = Math.max(0, current.count - 1);
    };
  }

  /** Refreshes the key's running-task count from Temporal visibility when the cached one is stale. */
  private async refreshCount(ownerId: string): Promise<void> {
    const entry = this.inflight.get(ownerId);
    if (entry && Date.now() - entry.at < COUNT_TTL_MS) return;
    if (entry?.refreshing) {
      await entry.refreshing;
      return;
    }
    const refreshing = this.countRunning(ownerId);
    const pending = { count: entry?.count ?? 0, at: entry?.at ?? 0, refreshing };
    this.inflight.set(ownerId, pending);
    try {
      const count = await refreshing;
      this.inflight.set(ownerId, { count, at: Date.now() });
    } catch (err) {
      this.inflight.delete(ownerId);
      throw err;
    }
  }
}
