/**
 * A key's request rate (OWASP API4, unrestricted resource consumption): beyond it, 429 with Retry-After before
 * anything of the request is read. (Its cap on tasks in flight is the start path's: tasks/inflight.ts.)
 *
 * The rate limit is per API process (memory); with several replicas each enforces it, so the effective limit is
 * replicas × rate — swap RateLimiterMemory for RateLimiterRedis to share it.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { ApiKey } from '../keys/api-keys';
import { ApiError } from './api-error';

export interface LimitDefaults {
  /** Requests per second per key; 0 = unlimited. */
  rps: number;
}

export class KeyLimits {
  private readonly limiters = new Map<string, RateLimiterMemory>();

  constructor(private readonly defaults: LimitDefaults) {}

  private rpsFor(key: ApiKey): number {
    return key.rateLimitRps ?? this.defaults.rps;
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
}
