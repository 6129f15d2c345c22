/** Per-key request rate on every /v1 route (after authentication): api/key-limits.ts holds the limiters. */
import type { Next } from 'koa';
import { apiKeyOf, type AppContext } from '../context';
import type { KeyLimits } from '../key-limits';

export function rateLimit(limits: KeyLimits) {
  return async (ctx: AppContext, next: Next) => {
    await limits.consumeRate(apiKeyOf(ctx));
    await next();
  };
}
