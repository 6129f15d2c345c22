/**
 * Wrong admin tokens, counted per client address: at the console's sign-in (POST /admin/v1/sessions) and as an
 * admin API bearer token. Past ADMIN_AUTH_FAILURES_PER_MINUTE failures in a minute, the address gets 429 with
 * Retry-After for the rest of that minute on both, whatever it sends (a right token too: otherwise each guess would
 * still be answered, and the limit would slow no one). The token is at least 32 characters, so guessing it is
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

  /** Throws 429 when `address` has used up its failures of this minute; checked before any token is compared. */
  async check(address: string): Promise<void> {
    const state = await this.limiter?.get(address);
    if (state && state.remainingPoints <= 0) throw AdminAuthThrottle.refused(state.msBeforeNext);
  }

  /** Counts one wrong token from `address`. */
  async failed(address: string): Promise<void> {
    try {
      await this.limiter?.consume(address);
    } catch (err) {
      // The failure that used up the minute: its own answer stays the 401 it earned; the next ones are 429.
      if (!(err instanceof RateLimiterRes)) throw err;
    }
  }
}
