/**
 * Wrong admin tokens, counted per client address: at the console's sign-in (POST /admin/v1/sessions) and as an
 * admin API bearer token. Once an address has sent ADMIN_AUTH_FAILURES_PER_MINUTE wrong ones in a minute, it gets
 * 429 with Retry-After for the rest of that minute on both, whatever it sends (a right token too: otherwise each
 * guess would still be answered, and the limit would slow no one). The token is at least 32 characters, so guessing it is
 * hopeless anyway; the limit keeps a flood of guesses from costing the API anything, as an operator expects of a
 * sign-in page. The address is the request's (ctx.ip: behind a proxy, with TRUST_PROXY, the client's).
 *
 * Counts live in this process, like the keys' request rates (api/key-limits.ts): with several replicas each
 * counts its own.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from './api-error';

const WINDOW_SECONDS = 60;

export class AdminAuthThrottle {
  private readonly limiter?: RateLimiterMemory;

  /** `failuresPerMinute`: wrong tokens an address may send in a minute; 0 = no limit. */
  constructor(readonly failuresPerMinute: number) {
    if (failuresPerMinute > 0) this.limiter = new RateLimiterMemory({ points: failuresPerMinute, duration: WINDOW_SECONDS });
  }

  private static refused(msBeforeNext: number): ApiError {
    const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
    return new ApiError(429, 'rate_limit_error', `Too many wrong admin tokens from this address; try again in ${seconds} s`, {
      code: 'too_many_auth_failures',
      headers: { 'Retry-After': String(seconds) },
    });
  }

  /**
   * After a token was compared (`right`): throws 429 when `address` has used up this minute's wrong tokens — this
   * one included, counted at once, so concurrent guesses cannot slip past — and otherwise returns for the caller
   * to answer (401 for a wrong token). A right token takes nothing from the count.
   */
  async settle(address: string, right: boolean): Promise<void> {
    if (!this.limiter) return;
    if (right) {
      const state = await this.limiter.get(address);
      if (state && state.remainingPoints <= 0) {
        throw AdminAuthThrottle.refused(state.msBeforeNext);
      }
      return;
    }
    try {
      await this.limiter.consume(address);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw AdminAuthThrottle.refused(err.msBeforeNext);
      throw err;
    }
  }
}
