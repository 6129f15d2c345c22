/**
 * Decides 404 and 405 before anything else is done for a request (no authentication, no body read): a path no
 * route knows is 404 `route_not_found`; a known path with a method it does not take — including methods the
 * router has never heard of (TRACE, PROPFIND, PURGE, QUERY…) — is 405 `method_not_allowed` with `Allow`;
 * OPTIONS answers 204 with `Allow`.
 */
import type Router from '@koa/router';
import type { Next } from 'koa';
import { ApiError } from '../api-error';
import type { AppContext, AppState } from '../context';

export function routeGuard(routers: readonly Router<AppState>[]) {
  return async (ctx: AppContext, next: Next) => {
    const allowed = new Set<string>();
    for (const router of routers) {
      for (const layer of router.match(ctx.path, ctx.method).path) for (const m of layer.methods) allowed.add(m);
    }
    if (allowed.size === 0) throw new ApiError(404, 'not_found_error', `No route for ${ctx.method} ${ctx.path}`, { code: 'route_not_found' });
    const allow = [...allowed].join(', ');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', allow);
      return;
    }
    if (!allowed.has(ctx.method)) {
      throw new ApiError(405, 'invalid_request_error', `Method ${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`, {
        code: 'method_not_allowed',
        headers: { Allow: allow },
      });
    }
    await next();
  };
}
